"""Text kept in step with its one source; ``doublecheck generate`` writes it, ``--check`` compares.

- The variant ids and the operation names in ``schemas/*.json`` (every
  ``enum`` that lists variants or operations, and the variant alternatives of
  the case-id ``pattern``) come from ``doublecheck.oracle.variants.REGISTRY``
  and ``doublecheck.oracle.api.OPS``.  Only those lists are rewritten, in
  place; the rest of each schema is left as written.
- The ``hello`` answer of the example exchange in docs/protocol.md lists the
  registered variants.
- The rule table of ``docs/<variant>.md`` (between the two marker lines
  below) comes from the rule catalogue ``cases/rules/*.json``: every rule the
  variant has that chess does not, in catalogue order, with its title and
  statement.  The catalogue is the one home of rule prose; the table is
  never edited by hand.

- The deep-tier table of docs/perft.md comes from the deep files
  (``cases/*/generated-deep-perft.json``: counts, times, second walks), through
  ``doublecheck.authoring.deep.deep_table``.

- The catalogue tables of docs/mutants.md come from the mutant catalogue
  (``doublecheck.authoring.mutants``: each ``@mutant`` line and the class's
  docstring).

The docs exist only in a checkout of the repository; an installed package
has schemas but no docs, and then only the schemas are looked at.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from doublecheck import casefiles, validcache
from doublecheck.authoring.deep import DEEP_TABLE_END, DEEP_TABLE_START, deep_table
from doublecheck.casefiles import CASES_DIR, SCHEMAS_DIR, load_rules
from doublecheck.oracle.api import OPS
from doublecheck.oracle.variants import REGISTRY

DOCS_DIR = CASES_DIR.parent / "docs"
TABLE_START = ("<!-- rule table: written by `doublecheck generate` from the rule catalogue "
               "(cases/rules/*.json); edit the catalogue, not this table -->")
TABLE_END = "<!-- end of the rule table -->"
MUTANTS_START = ("<!-- mutant catalogue: written by `doublecheck generate` from "
                 "doublecheck.authoring.mutants (each @mutant line and its class's docstring); "
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


def schema_text(text: str) -> str:
    """A schema's text with its variant and operation lists made equal to the registry's."""
    variants, ops = list(REGISTRY), list(OPS)
    for found in list(_lists(json.loads(text))):
        if isinstance(found, str):
            m = CASE_ID_VARIANTS.match(found)
            if m:
                text = text.replace(json.dumps(found),
                                    json.dumps(f"^({'|'.join(variants)})/" + found[m.end():]))
        elif "chess" in found and found != variants:
            text = text.replace(json.dumps(found), json.dumps(variants))
        elif "perft" in found and found != ops:
            text = text.replace(json.dumps(found), json.dumps(ops))
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


def mutant_tables() -> str:
    """The catalogue part of docs/mutants.md: one table per variant (markers included)."""
    from doublecheck.authoring.mutants import CATALOGUE
    by_variant = {}
    for m in CATALOGUE.values():
        by_variant.setdefault(m.variant, []).append(m)
    out = [MUTANTS_START]
    for variant, entries in by_variant.items():
        out += ["", f"### {variant} ({len(entries)})", "",
                "| Mutant | Rule | The mistake | Why someone writes it |", "|---|---|---|---|"]
        out += [f"| `{m.name}` | {m.rule} | {_cell(m.description)} | {_cell(m.why)} |" for m in entries]
    return "\n".join(out + ["", MUTANTS_END])


def protocol_text(text: str) -> str:
    """docs/protocol.md with the oracle's ``hello`` answer listing the registered variants."""
    return HELLO_VARIANTS.sub(lambda m: m[1] + json.dumps(list(REGISTRY)), text)


def expected_texts(docs_dir: Path = DOCS_DIR, schemas_dir: Path = SCHEMAS_DIR,
                   fresh: bool = False) -> dict[Path, str]:
    """Every derived file with the text it should have (files that exist only).

    The docs' tables come from the catalogue as read against the schemas on
    disk; ``fresh`` reads the schemas again (after they were just rewritten).
    """
    if fresh:
        casefiles.schema.cache_clear()
        casefiles._schema_validator.cache_clear()
        validcache.fingerprint.cache_clear()   # the record of checked files belongs to the old schemas
    out = {}
    for path in sorted(Path(schemas_dir).glob("*.json")):
        out[path] = schema_text(path.read_text(encoding="utf-8"))
    protocol = Path(docs_dir) / "protocol.md"
    if protocol.exists():
        out[protocol] = protocol_text(protocol.read_text(encoding="utf-8"))
    perft = Path(docs_dir) / "perft.md"
    if perft.exists():
        out[perft] = doc_text(perft.read_text(encoding="utf-8"), deep_table(CASES_DIR),
                              "docs/perft.md", (DEEP_TABLE_START, DEEP_TABLE_END))
    mutants = Path(docs_dir) / "mutants.md"
    if mutants.exists():
        out[mutants] = doc_text(mutants.read_text(encoding="utf-8"), mutant_tables(),
                                "docs/mutants.md", (MUTANTS_START, MUTANTS_END))
    if Path(docs_dir).is_dir():
        catalogue, _ = load_rules(CASES_DIR)
        for variant in REGISTRY:
            path = Path(docs_dir) / f"{variant}.md"
            if path.exists():
                out[path] = doc_text(path.read_text(encoding="utf-8"),
                                     rule_table(catalogue, variant), f"docs/{variant}.md")
    return out
