"""Text kept in step with its one source; ``doublecheck generate`` writes it, ``--check`` compares.

- The variant ids and the operation names in ``schemas/*.json`` come from
  ``doublecheck.oracle.variants.REGISTRY`` and ``doublecheck.oracle.api.OPS``:
  each schema states them once, at marked places (``$defs.variant.enum``,
  ``$defs.op.enum``, the variant alternatives of ``$defs.case-id.pattern``),
  and refers to those.  Only those lists (and the operations' parts below)
  are rewritten, in place; the rest of each schema is left as written,
  whatever words its other lists contain.
- The operations' part of schemas/protocol.schema.json (each answer's
  definition, the list of answers, the request fields) and of
  schemas/case-file.schema.json (what a case may expect and send) comes from
  the operations table, ``doublecheck.harness.operations`` (``protocol_defs``,
  ``case_defs``).
- The ``hello`` answer of the example exchange in docs/protocol.md lists the
  registered variants.
- The rule table of each built-in variant's page (its descriptor's ``doc``,
  ``docs/<variant>.md``; between the two marker lines below) comes from the
  rule catalogue ``cases/rules/*.json``: every rule the variant has that chess
  does not, in catalogue order, with its title and statement.  A variant
  plugin's doc page gets its table the same way (``page_texts``), in the
  plugin's own source tree (``doublecheck.authoring.generate``).  The
  catalogue is the one home of rule prose; the table is never edited by hand.

- The deep-tier table of docs/perft.md comes from the deep files
  (``cases/*/generated-deep-perft.json``: counts, times, second walks), through
  ``doublecheck.authoring.deep.deep_rows``.

- The record of what each rule option changes, ``cases/options/<variant>.json``
  (``doublecheck.authoring.options_record``): the oracle under each option value
  against the variant's cases.

- The catalogue tables of docs/mutants.md come from the mutant catalogue
  (``doublecheck.authoring.mutants``: the ``<module>.json`` entries beside each
  mutant module), with the number of curated cases that kill each mutant, read
  from the kill record (``doublecheck.authoring.mutants.record``), which is
  itself written here: a variant whose cases, oracle or mutants changed since
  the record was written is played again.

- The changelog, docs/changelog.md, and the current version's case record,
  changes/<version>.cases.json, come from the case tree and the records of
  the earlier releases (``doublecheck.authoring.changelog``).

The docs exist only in a checkout of the repository; an installed package
has schemas but no docs, and then only the schemas are looked at.
"""

from __future__ import annotations

import contextlib
import json
import re
from pathlib import Path

from doublecheck import casefiles, validcache
from doublecheck.casefiles import CASES_DIR, SCHEMAS_DIR, load_rules
from doublecheck.oracle import variants
from doublecheck.oracle.api import OPS
from doublecheck.oracle.variants import BUILTIN, REGISTRY

DOCS_DIR = CASES_DIR.parent / "docs"
TABLE_START = ("<!-- rule table: written by `doublecheck generate` from the rule catalogue "
               "(cases/rules/*.json); edit the catalogue, not this table -->")
TABLE_END = "<!-- end of the rule table -->"
MUTANTS_START = ("<!-- mutant catalogue: written by `doublecheck generate` from "
                 "doublecheck.authoring.mutants (the <module>.json entries beside each mutant module); "
                 "edit those, not these tables -->")
MUTANTS_END = "<!-- end of the mutant catalogue -->"
CASE_ID_VARIANTS = re.compile(r"\^\(chess(?:\|[a-z0-9-]+)*\)/")
HELLO_VARIANTS = re.compile(r'("name": "doublecheck-oracle", "variants": )\[[^\]]*\]')


class DerivedError(Exception):
    """A file that cannot be brought in step (a doc without the table markers)."""


# ------------------------------------------------------------------- schemas

def _lists(node):
    """Every enum list and every string pattern in a schema."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "enum" and isinstance(value, list):
                yield value
            elif key == "pattern" and isinstance(value, str):
                yield value
            else:
                yield from _lists(value)
    elif isinstance(node, list):
        for value in node:
            yield from _lists(value)


def marked_lists(schema: dict, variants: list[str], ops: list[str]) -> list[tuple[object, object]]:
    """(what a schema holds, what it should hold) at the three places the registry writes:
    ``$defs.variant.enum``, ``$defs.op.enum`` and the variant alternatives of
    ``$defs.case-id.pattern``; every other list of a schema is its own."""
    defs = schema.get("$defs", {})
    out = []
    if "enum" in defs.get("variant", {}):
        out.append((defs["variant"]["enum"], variants))
    if "enum" in defs.get("op", {}):
        out.append((defs["op"]["enum"], ops))
    pattern = defs.get("case-id", {}).get("pattern")
    if pattern is not None:
        m = CASE_ID_VARIANTS.match(pattern)
        if m:
            out.append((pattern, f"^({'|'.join(variants)})/" + pattern[m.end():]))
    return out


def schema_text(text: str) -> str:
    """A schema's text with its marked variant and operation lists made equal to the registry's."""
    for found, wanted in marked_lists(json.loads(text), list(REGISTRY), list(OPS)):
        if found != wanted:
            text = text.replace(json.dumps(found), json.dumps(wanted))
    return text


# The protocol schema's part of each operation: written from the operations table
# (``doublecheck.harness.operations.protocol_defs``).  A part equal to the row's is left as
# written; a part that differs is rewritten, and an answer the schema lacks is added after
# the one before it in the table.

PROTOCOL_SCHEMA = "protocol.schema.json"
CASE_SCHEMA = "case-file.schema.json"


_DECODER = json.JSONDecoder()


def _skip(text: str, at: int, also: str = "") -> int:
    while at < len(text) and text[at] in " \t\r\n" + also:
        at += 1
    return at


def _span(text: str, *path: str, where: str = PROTOCOL_SCHEMA) -> tuple[int, int]:
    """Where the value at ``path`` (keys from the top object down) lies in ``text``."""
    begin, end = _skip(text, 0), None
    for key in path:
        if text[begin] != "{":
            raise DerivedError(f"schemas/{where}: {key!r} is not inside an object")
        at = _skip(text, begin + 1)
        while text[at] != "}":
            name, at = _DECODER.raw_decode(text, at)
            value = _skip(text, _skip(text, at), ":")
            _, after = _DECODER.raw_decode(text, value)
            if name == key:
                begin, end = value, after
                break
            at = _skip(text, after, ",")
        else:
            raise DerivedError(f"schemas/{where} has no {'.'.join(path)}")
    return begin, end


def _render(value, indent: int, depth: int) -> str:
    """``value`` as the hand-written schemas lay it out: ``depth`` levels one entry a line."""
    if depth <= 0 or not isinstance(value, (dict, list)) or not value:
        return json.dumps(value)
    inner = " " * (indent + 2)
    if isinstance(value, dict):
        items = [f"{inner}{json.dumps(k)}: {_render(v, indent + 2, depth - 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    items = [f"{inner}{_render(v, indent + 2, depth - 1)}" for v in value]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"


def _put(text: str, span: tuple[int, int], value, indent: int, depth: int) -> str:
    begin, end = span
    if json.loads(text[begin:end]) == value:
        return text
    return text[:begin] + _render(value, indent, depth) + text[end:]


def protocol_schema_text(text: str, table: dict | None = None) -> str:
    """schemas/protocol.schema.json with each operation's part made equal to its row:
    ``$defs.<op>-response``, the answers listed in ``$defs.response.anyOf``, and the request
    fields of ``$defs.op-request.properties``."""
    from doublecheck.harness.operations import protocol_defs
    wanted = protocol_defs(table)
    text = _put(text, _span(text, "$defs", "response", "anyOf"), wanted["responses"], 6, 1)
    text = _put(text, _span(text, "$defs", "op-request", "properties"), wanted["request_properties"], 6, 1)
    previous = _span(text, "$defs", "error-response")
    for kind, value in wanted["defs"].items():
        if kind in json.loads(text)["$defs"]:
            text = _put(text, _span(text, "$defs", kind), value, 4, 2)
        else:
            added = f",\n    {json.dumps(kind)}: {_render(value, 4, 2)}"
            text = text[:previous[1]] + added + text[previous[1]:]
        previous = _span(text, "$defs", kind)
    data = json.loads(text)["$defs"]
    if (data["response"]["anyOf"] != wanted["responses"]
            or data["op-request"]["properties"] != wanted["request_properties"]
            or any(data[k] != v for k, v in wanted["defs"].items())):
        raise DerivedError(f"schemas/{PROTOCOL_SCHEMA}: the operations' parts could not be written "
                           "in place; see doublecheck.harness.operations.protocol_defs")
    return text


def case_schema_text(text: str, table: dict | None = None) -> str:
    """schemas/case-file.schema.json with the operations' fields made equal to their rows:
    ``$defs.expectResult.properties``, ``$defs.request.properties`` and
    ``$defs.request.dependentSchemas`` (``operations.case_defs``)."""
    from doublecheck.harness.operations import case_defs
    wanted = case_defs(table)
    places = ((("$defs", "expectResult", "properties"), wanted["expect_properties"]),
              (("$defs", "request", "properties"), wanted["request_properties"]),
              (("$defs", "request", "dependentSchemas"), wanted["request_owners"]))
    for path, value in places:
        text = _put(text, _span(text, *path, where=CASE_SCHEMA), value, 6, 1)
    return text


# ---------------------------------------------------------------------- docs

def own_rules(catalogue: dict, variant: str) -> list[dict]:
    """The catalogue rules of ``variant`` that chess does not share, in catalogue order."""
    return [r for r in catalogue.values() if variant in r["variants"] and "chess" not in r["variants"]]


def rule_table(catalogue: dict, variant: str) -> str:
    """The Markdown rule table of a variant's doc (markers included)."""
    rows = [f"| `{r['id']}` | {_cell(r['title'])} | {_cell(r['statement'])} |"
            for r in own_rules(catalogue, variant)]
    return "\n".join([TABLE_START, "", "| id | rule | statement |", "|---|---|---|", *rows, "",
                      TABLE_END])


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def doc_text(text: str, table: str, where: str, markers=(TABLE_START, TABLE_END)) -> str:
    """A doc's text with the part between the markers (which ``table`` carries) replaced."""
    first, last = markers
    start, end = text.find(first), text.find(last)
    if start < 0 or end < start:
        raise DerivedError(f"{where} has no table markers; put these two lines where the "
                           f"table goes:\n{first}\n{last}")
    return text[:start] + table + text[end + len(last):]


def mutant_tables(kills: dict[str, int]) -> str:
    """The catalogue part of docs/mutants.md: one table per variant (markers included);
    ``kills`` is mutant name -> curated cases that kill it."""
    from doublecheck.authoring.mutants import CATALOGUE
    by_variant = {}
    for m in CATALOGUE.values():
        if m.variant not in REGISTRY:
            continue    # a plugin's mutants are documented in its own package
        by_variant.setdefault(m.variant, []).append(m)
    out = [MUTANTS_START]
    for variant, entries in by_variant.items():
        out += ["", f"### {variant} ({len(entries)})", "",
                "| Mutant | Rule | The mistake | Why someone writes it | Curated killers |",
                "|---|---|---|---|---|"]
        out += [f"| `{m.name}` | {m.rule} | {_cell(m.description)} | {_cell(m.why)} | "
                f"{_killers_cell(kills.get(m.name, 0))} |" for m in entries]
    return "\n".join(out + ["", MUTANTS_END])


def _killers_cell(n: int) -> str:
    from doublecheck.authoring.mutants.record import THIN_BELOW
    return f"{n} (thin)" if n < THIN_BELOW else str(n)


def protocol_text(text: str) -> str:
    """docs/protocol.md with the oracle's ``hello`` answer listing the registered variants,
    and its per-variant perft depth limits."""
    text = HELLO_VARIANTS.sub(lambda m: m[1] + json.dumps(list(REGISTRY)), text)
    rows = [f"| `{v}` | {variants.get(v).max_perft_depth} |" for v in REGISTRY]
    return block(text, "perft depth table", "max_perft_depth of each variant's rules class",
                 ["| variant | deepest perft (moves or turns) |", "|---|---|", *rows], "docs/protocol.md")


# --------------------------------------------- per-variant tables, marked by name

def markers(name: str, source: str) -> tuple[str, str]:
    return (f"<!-- {name}: written by `doublecheck generate` from {source}; edit that, not this table -->",
            f"<!-- end of the {name} -->")


def block(text: str, name: str, source: str, lines: list[str], where: str) -> str:
    """``text`` with the lines between the two markers of ``name`` made ``lines``."""
    first, last = markers(name, source)
    return doc_text(text, "\n".join([first, *lines, last]), where, (first, last))


def variant_rows(docs_dir: Path) -> list[str]:
    """The README's variant table: each variant's ``summary`` and its rules page (as the
    command that prints it: the README is also the package index's page, where a link into
    the repository would be broken)."""
    pages = builtin_pages()

    def page(v):
        if v in pages and (Path(docs_dir) / pages[v]).exists():
            return f"`doublecheck docs {Path(pages[v]).stem}`"
        title, url = variants.get(v).rules_page
        return f"[{title}]({url})"
    return ["| variant id | in one line | rules (installed: `doublecheck docs VARIANT`) |", "|---|---|---|",
            *[f"| `{v}` | {_cell(variants.get(v).about.summary)} | {page(v)} |" for v in REGISTRY]]


def perft_term_rows(docs_dir: Path) -> list[str]:
    """docs/perft.md, "What is counted": what each variant's ``about`` says."""
    pages = builtin_pages()

    def name(v):
        return f"`{v}` ([rules]({pages[v]}))" if v in pages and (Path(docs_dir) / pages[v]).exists() else f"`{v}`"
    about = {v: variants.get(v).about for v in REGISTRY}
    return ["| variant | a move is | a turn is | worth knowing |", "|---|---|---|---|",
            *[f"| {name(v)} | {a.move} | {a.turn} | {a.note} |" for v, a in about.items()]]


def deep_rows(cases_dir: Path = CASES_DIR) -> list[str]:
    """docs/perft.md, the deep tier: every count of the generated deep-tier files, with its
    time and second walk (``doublecheck.authoring.deep.deep_rows``)."""
    from doublecheck.authoring import deep
    return deep.deep_rows(cases_dir)


def option_rows() -> list[str]:
    """docs/options.md, "The options": every option of doublecheck.oracle.options with its
    values, and the variants whose rules class takes it (a capability: every variant)."""
    from doublecheck.oracle import options
    classes = {v: variants.descriptor(v).rules_class() for v in REGISTRY}
    takes = {v: options.taken_by(cls) for v, cls in classes.items()}
    rows = ["| option | kind | default | other values | variants |", "|---|---|---|---|---|"]
    for name, option in options.OPTIONS.items():
        mine = [v for v, taken in takes.items() if name in taken]
        who = "all" if option.kind == options.CAPABILITY or len(mine) == len(takes) else \
            ", ".join(f"`{v}`" for v in mine)
        own = [f"`{v}`: default `{options.default_of(classes[v], name)}`, values "
               + ", ".join(f"`{x}`" for x in options.values_of(classes[v], name))
               for v in mine if (options.default_of(classes[v], name), options.values_of(classes[v], name))
               != (option.default, tuple(option.values))]
        if own:
            who += " (" + "; ".join(own) + ")"
        others = "; ".join(f"`{v}`: {_cell(option.values[v].summary)}" for v in option.alternatives())
        rows.append(f"| `{name}` | {option.kind} | `{option.default}` | {others} | {who} |")
    return rows


def perft_text(text: str, docs_dir: Path) -> str:
    text = block(text, "perft terms table", "about of each variant's rules class",
                 perft_term_rows(docs_dir), "docs/perft.md")
    return block(text, "deep tier table", "cases/<variant>/generated-deep-perft.json",
                 deep_rows(), "docs/perft.md")


def expected_texts(docs_dir: Path = DOCS_DIR, schemas_dir: Path = SCHEMAS_DIR,
                   fresh: bool = False, progress=None) -> dict[Path, str]:
    """Every derived file with the text it should have (files that exist only).

    The docs' tables come from the catalogue as read against the schemas on
    disk; ``fresh`` reads the schemas again (after they were just rewritten).
    ``progress`` makes a Progress line (``doublecheck.progress``) of the kill
    record, the slow part: a function of its total (the variants) giving it.
    """
    if fresh:
        casefiles.schema.cache_clear()
        casefiles._schema_validator.cache_clear()
        validcache.fingerprint.cache_clear()   # the record of checked files belongs to the old schemas
    out = {}
    for path in sorted(Path(schemas_dir).glob("*.json")):
        out[path] = schema_text(path.read_text(encoding="utf-8"))
        if path.name == PROTOCOL_SCHEMA:
            out[path] = protocol_schema_text(out[path])
        elif path.name == CASE_SCHEMA:
            out[path] = case_schema_text(out[path])
    protocol = Path(docs_dir) / "protocol.md"
    if protocol.exists():
        out[protocol] = protocol_text(protocol.read_text(encoding="utf-8"))
    perft = Path(docs_dir) / "perft.md"
    if perft.exists():
        out[perft] = perft_text(perft.read_text(encoding="utf-8"), docs_dir)
    options_page = Path(docs_dir) / "options.md"
    if options_page.exists():
        out[options_page] = block(options_page.read_text(encoding="utf-8"), "option table",
                                  "doublecheck.oracle.options and each variant's option_names",
                                  option_rows(), "docs/options.md")
    readme = Path(docs_dir).parent / "README.md"
    if readme.exists() and Path(docs_dir).is_dir():
        out[readme] = block(readme.read_text(encoding="utf-8"), "variant table",
                            "about of each variant's rules class", variant_rows(docs_dir), "README.md")
    from doublecheck.authoring import options_record
    out.update(options_record.expected_texts(CASES_DIR, REGISTRY))   # a plugin's: its own
    mutants = Path(docs_dir) / "mutants.md"
    if mutants.exists():
        from doublecheck.authoring.mutants import record
        cases, _ = casefiles.load_cases(CASES_DIR, warn=lambda message: None)
        chosen = set(REGISTRY)                                       # a plugin's mutants: its own
        line = progress(len(record.recorded_variants(chosen))) if progress else contextlib.nullcontext()
        with line as heard:
            kills = record.kill_record(cases, variants=chosen, progress=heard)
        out[record.RECORD] = record.record_text(kills)
        out[mutants] = doc_text(mutants.read_text(encoding="utf-8"), mutant_tables(record.counts_of(kills, cases)),
                                "docs/mutants.md", (MUTANTS_START, MUTANTS_END))
    if Path(docs_dir).is_dir():   # the changelog and the current version's case record
        from doublecheck.authoring import changelog
        out.update(changelog.expected_texts(CASES_DIR, Path(docs_dir).parent / "changes",
                                            Path(docs_dir) / "changelog.md"))
    out.update(page_texts([(Path(docs_dir) / page, v, f"docs/{page}")
                           for v, page in builtin_pages().items()]))
    return out


def builtin_pages() -> dict[str, str]:
    """Variant id -> the file name of its page in docs/, for each built-in variant that has one
    (its descriptor's ``doc``)."""
    return {v.id: v.doc for v in BUILTIN if v.doc is not None}


def page_texts(pages) -> dict[Path, str]:
    """The rule table of each variant page ``(path, variant id, where)`` that exists, as the
    catalogue gives it: a built-in's (``expected_texts``) or a plugin's in the plugin's own
    tree (``doublecheck.authoring.generate`` says which)."""
    if not pages:
        return {}
    catalogue, _ = load_rules(CASES_DIR)
    return {path: doc_text(path.read_text(encoding="utf-8"), rule_table(catalogue, variant), where)
            for path, variant, where in pages if path.exists()}
