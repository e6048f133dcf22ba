"""``doublecheck docs``: the docs pages and JSON Schemas that travel inside the package.

The pages are the repository's ``docs/*.md``, installed as the data package
``doublecheck.docs`` (pyproject.toml maps the folder, as it maps ``cases/``);
a topic is a page's file stem (``protocol`` for ``docs/protocol.md``), so a new
page is listed as soon as it exists; an installed plugin variant's page
(``Variant.doc``) is a topic under the variant's id.  The schemas are ``doublecheck.schemas``'s
``<name>.schema.json`` files.  Help texts and error messages that send a reader
to the documentation name ``doublecheck docs TOPIC``, never a path of the
repository (tests/test_manual.py checks both).
"""

from __future__ import annotations

import sys
from importlib import resources
from pathlib import Path

from doublecheck.packaged import SCHEMAS_DIR
from doublecheck.oracle.errors import UNKNOWN_TOPIC, quote

DOCS_DIR = Path(str(resources.files("doublecheck.docs")))
SCHEMA_SUFFIX = ".schema.json"


def topics() -> dict[str, Path]:
    """Every docs page by topic (its file stem), in name order, then the doc page of each
    plugin variant that ships one, under the variant's id (a page of the package keeps its name)."""
    pages = {path.stem: path for path in sorted(DOCS_DIR.glob("*.md")) if path.is_file()}
    return {**pages, **{name: path for name, path in plugin_pages().items() if name not in pages}}


def plugin_pages() -> dict[str, Path]:
    """The doc page of every installed plugin variant that names one (``Variant.doc``)."""
    from doublecheck.oracle import variants   # on demand: reading the entry points costs start-up time
    pages = {v.id: v.doc_path() for v in variants.plugins()}   # (a built-in's page is one of DOCS_DIR)
    return {name: path for name, path in pages.items() if path is not None}


def schemas() -> dict[str, Path]:
    """Every JSON Schema by name (``protocol`` for ``protocol.schema.json``)."""
    return {path.name[:-len(SCHEMA_SUFFIX)]: path
            for path in sorted(SCHEMAS_DIR.glob("*" + SCHEMA_SUFFIX)) if path.is_file()}


def summary(path: Path) -> str:
    """A page's one-line summary: its title (the first '# ' heading)."""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return ""


def _pick(kind: str, name: str, known: dict[str, Path]) -> Path:
    """The file of ``name``, or DataError(unknown-topic) listing every name there is."""
    if name in known:
        return known[name]
    from doublecheck.casefiles import DataError   # on demand: the command line's help lists the schemas
    listed = ", ".join(known) or "none (the installed package is damaged: reinstall doublecheck-chess)"
    raise DataError(UNKNOWN_TOPIC, f"no {kind} named {quote(name, 60)}; the {kind}s are: {listed}")


def list_topics(out) -> None:
    pages = topics()
    width = max(map(len, pages), default=0)
    for topic, path in pages.items():
        print(f"  {topic.ljust(width)}  {summary(path)}", file=out)
    print(f"\nRead one with 'doublecheck docs TOPIC' ('--path' for its file); "
          f"schemas: 'doublecheck docs --schema {'|'.join(schemas())}'.", file=out)


def docs_command(args, out=None) -> int:
    """List the topics, or print one page (or schema), or its path."""
    out = out or sys.stdout
    if args.schema:
        path = _pick("schema", args.schema, schemas())
    elif args.topic:
        path = _pick("topic", args.topic, topics())
    else:
        list_topics(out)
        return 0
    out.write(f"{path}\n" if args.path else path.read_text(encoding="utf-8"))
    return 0
