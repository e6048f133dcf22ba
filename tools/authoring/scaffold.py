"""``doublecheck new-variant ID [--from BASE] DIR``: write a working variant plugin package.

The package is the layout docs/plugins.md describes (``doublecheck docs
plugins``): pyproject.toml with the ``doublecheck.variants`` entry point, the
descriptor, a rules class subclassing BASE's with a documented place for the
differences, the catalogue, curated cases, a generator, a mutant killed by two
curated cases, a doc page and tests.  As written the variant is BASE
unchanged, and its own rule says so (``<PREFIX>1``): the curated cases are
BASE's oracle answers to a few requests (start moves and perft, then the same
after BASE's first legal turn), which is where their expected values come
from, and once installed the package passes ``doublecheck run``, ``rules
--matrix`` and ``mutants`` for ID.

The text files are templates of ``doublecheck.examples`` (examples/new-variant/
in the repository, installed as package data); ``FILES`` says where each is
written.  The JSON of the catalogue and the cases is built here, from the
oracle.
"""

from __future__ import annotations

import importlib.util
import json
import keyword
import sys
from pathlib import Path

from doublecheck.oracle import api, variants
from doublecheck.oracle.errors import UsageError, quote
from doublecheck.packaged import package_folder

PROG = "doublecheck new-variant"
TEMPLATES = "new-variant"     # the folder of doublecheck.examples holding the templates

# template file -> where it is written below DIR (placeholders as in ``Names.fields``)
FILES = {
    "pyproject.toml.tmpl": "pyproject.toml",
    "README.md.tmpl": "README.md",
    "__init__.py.tmpl": "@package@/__init__.py",
    "rules.py.tmpl": "@package@/rules.py",
    "generator.py.tmpl": "@package@/generator.py",
    "mutants.py.tmpl": "@package@/mutants.py",
    "mutants.json.tmpl": "@package@/mutants.json",
    "doc.md.tmpl": "@package@/docs/@id@.md",
    "test_plugin.py.tmpl": "tests/test_@package@.py",
}


class Names:
    """The names a new variant's files use, all worked out from its id and its base."""

    def __init__(self, vid: str, base: str, taken_rule_ids):
        self.id, self.base = vid, base
        under = vid.replace("-", "_")
        clash = keyword.iskeyword(under) or importlib.util.find_spec(under) is not None
        self.package = f"{under}_variant" if clash else under    # never shadows a module there is
        self.cls = "".join(word.capitalize() for word in vid.split("-"))
        rules = variants.descriptor(base).rules_class()
        self.base_module, self.base_class = rules.__module__, rules.__name__
        self.prefix = _rule_prefix(vid, taken_rule_ids)
        self.dist = f"doublecheck-{vid}"

    def fields(self) -> dict[str, str]:
        return {"@id@": self.id, "@base@": self.base, "@package@": self.package, "@Class@": self.cls,
                "@base_module@": self.base_module, "@BaseClass@": self.base_class,
                "@prefix@": self.prefix, "@dist@": self.dist}

    def fill(self, text: str) -> str:
        for key, value in self.fields().items():
            text = text.replace(key, value)
        return text


def _rule_prefix(vid: str, taken) -> str:
    """The letters of the variant's own rule ids: the initials of its id's words (as NC for
    no-castling), or longer where a catalogue rule already uses them."""
    words = vid.split("-")
    candidates = ["".join(w[0] for w in words).upper(), "".join(w[:2] for w in words).upper(),
                  vid.replace("-", "").upper()]
    free = [c for c in candidates if not any(t.startswith(c) and t[len(c):][:1].isdigit() for t in taken)]
    return free[0] if free else candidates[-1] + "X"


def bases() -> list[str]:
    """The variants a new one may start from: every registered variant."""
    return list(variants.registered())


def refusal(vid: str, base: str, target: Path) -> str | None:
    """Why nothing may be written (None: it may)."""
    if not isinstance(vid, str) or not variants.VARIANT_ID.match(vid):
        return (f"variant id {quote(vid)} is not lower-case words joined by '-' "
                f"(a letter first; e.g. my-house-rules)")
    if vid in variants.registered() or vid in variants.table().failed:
        return f"variant id {quote(vid)} is already taken (doublecheck plugins, doublecheck rules)"
    if base not in variants.registered():
        return f"unknown --from {quote(base)}: a new variant starts from one of {', '.join(bases())}"
    if target.exists() and not target.is_dir():
        return f"{target} exists and is not a folder"
    if target.is_dir() and any(target.iterdir()):
        return f"{target} is not empty: give a new or empty folder"
    return None


def catalogue(names: Names) -> dict:
    return {
        "description": (f"The {names.id} variant: {names.base} with house rules of its own. The rules below "
                        f"are the variant's own; 'shared' names the rules of {names.base} it keeps and tests."),
        "rules": [{
            "id": f"{names.prefix}1",
            "title": f"Otherwise {names.base}",
            "statement": (f"Everything this catalogue does not state otherwise is {names.base}: the same "
                          f"moves, turns, status, FEN and perft counts in every position."),
            "source": f"the {names.id} rules (started from {names.base})",
            "variants": [names.id],
        }],
    }


def as_base_cases(names: Names) -> dict:
    """Curated cases of rule <PREFIX>1, each the base variant's answer: its start moves and
    perft, and the same after its first legal turn (Black to move)."""
    base, rule, topic = names.base, [f"{names.prefix}1"], f"as-{names.base}"

    def ask(**request):
        return api.handle({"variant": base, **request})

    first_turn = sorted(ask(op="turns")["turns"])[0]
    after = ask(op="play", moves=[first_turn])["fen"]
    source = (f"rule {names.prefix}1: the variant answers as {base} does; the values are the "
              f"{base} oracle's (doublecheck rules --variant {base})")
    cases = []
    for colour, fen, where in (("white", None, "the start position"),
                               ("black", after, f"the position after {first_turn}")):
        at = {"fen": fen} if fen else {}
        cases.append({"id": f"{names.id}/{topic}/{colour}-moves", "rules": rule,
                      "description": f"the legal moves of {where}, as in {base}", "source": source,
                      "request": {"op": "moves", **at}, "expect": {"moves": sorted(ask(op="moves", **at)["moves"])}})
        cases.append({"id": f"{names.id}/{topic}/{colour}-perft-2", "rules": rule,
                      "description": f"move perft 2 from {where}, as in {base}", "source": source,
                      "request": {"op": "perft", **at, "depth": 2},
                      "expect": {"nodes": ask(op="perft", **at, depth=2)["nodes"]}})
    return {"variant": names.id, "topic": topic, "generated": False,
            "description": f"The variant as first written is {base} unchanged ({names.prefix}1): "
                           f"{base}'s answers, from each side.",
            "cases": cases}


def planned(names: Names) -> dict[str, str]:
    """Path below DIR -> text of every file of the new package."""
    folder = package_folder("doublecheck.examples") / TEMPLATES
    out = {names.fill(rel): names.fill((folder / name).read_text(encoding="utf-8")) for name, rel in FILES.items()}
    tree = f"{names.package}/cases"
    out[f"{tree}/rules/{names.id}.json"] = _json(catalogue(names))
    out[f"{tree}/{names.id}/as-{names.base}.json"] = _json(as_base_cases(names))
    return out


def _json(data) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def new_variant_command(args, out=None) -> int:
    out = out or sys.stdout
    target = Path(args.dir)
    why = refusal(args.id, args.base, target)
    if why:
        raise UsageError(why, PROG)
    from doublecheck.casefiles import load_rules
    taken, _ = load_rules(warn=lambda message: None)
    names = Names(args.id, args.base, taken)
    files = planned(names)
    for rel, text in files.items():
        path = target / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    print(f"wrote the {names.id} variant plugin (package {names.package}, from {names.base}) to {target}:", file=out)
    for rel in files:
        print(f"  {rel}", file=out)
    print("then (the generated perft file is written by the second command):", file=out)
    for step in next_steps(names, target):
        print(f"  {step}", file=out)
    return 0


def next_steps(names: Names, target: Path) -> list[str]:
    return [f"pip install -e {target}", f"doublecheck generate --variant {names.id}",
            f"doublecheck run --variant {names.id}", f"doublecheck rules --matrix --variant {names.id}",
            f"doublecheck mutants --variant {names.id}"]
