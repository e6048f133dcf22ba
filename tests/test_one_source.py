"""One source for each list and each rule text.

Variant ids come from ``doublecheck.oracle.variants.REGISTRY``, operation
names from ``doublecheck.oracle.api.OPS``; the schemas, the protocol doc and
the README repeat them and are checked here (``doublecheck generate`` writes
the schemas' lists and the doc tables).  Rule prose lives in the catalogue
only: the docs' rule tables are written from it, module docstrings name rule
ids that it defines.
"""

import importlib
import importlib.util
import json
import re
from pathlib import Path

import pytest

from doublecheck.authoring import derived
from doublecheck import casefiles
from doublecheck.casefiles import SCHEMAS_DIR, load_rules
from doublecheck.oracle import api
from doublecheck.oracle.variants import REGISTRY, descriptor

ROOT = Path(__file__).resolve().parent.parent
# Something shaped like a rule id (see schemas/rules.schema.json); it counts as one when its
# letters are the prefix of some catalogue id (so "FEN", "SAN" and "O-O" do not).
RULE_ID = re.compile(r"(?<![\w-])([A-Z][A-Z0-9]*?)(?:-[A-Za-z0-9.-]*[A-Za-z0-9]|[0-9][0-9.]*[0-9]|[0-9])(?![\w-])")


def schema_lists():
    """(schema file, enum list or pattern) for every enum and pattern in the schemas."""
    for path in sorted(SCHEMAS_DIR.glob("*.json")):
        for found in derived._lists(json.loads(path.read_text(encoding="utf-8"))):
            yield path.name, found


def test_schema_enums_are_the_registry_and_the_ops():
    variants, ops = [], []
    for name, found in schema_lists():
        if isinstance(found, list) and "chess" in found:
            variants.append(name)
            assert found == list(REGISTRY), f"{name}: variant enum {found}"
        elif isinstance(found, list) and "perft" in found:
            ops.append(name)
            assert found == list(api.OPS), f"{name}: op enum {found}"
        elif isinstance(found, str) and found.startswith("^(chess"):
            assert found.startswith("^(" + "|".join(REGISTRY) + ")/"), f"{name}: case-id pattern {found}"
            variants.append(name)
    assert sorted(set(variants)) == ["case-file.schema.json", "rules.schema.json"]
    assert sorted(set(ops)) == ["case-file.schema.json", "protocol.schema.json"]


def test_generate_writes_a_new_variant_into_the_schemas(monkeypatch):
    text = (SCHEMAS_DIR / "case-file.schema.json").read_text(encoding="utf-8")
    assert derived.schema_text(text) == text
    monkeypatch.setattr(derived, "REGISTRY", {**REGISTRY, "toy-variant": "tests:Toy"})
    data = json.loads(derived.schema_text(text))
    assert data["$defs"]["variant"]["enum"][-1] == "toy-variant"
    assert re.match(data["$defs"]["case-id"]["pattern"], "toy-variant/turns/one")
    changed = [a for a, b in zip(derived.schema_text(text).splitlines(), text.splitlines()) if a != b]
    assert len(changed) == 2, "only the variant lists are rewritten"


def test_generate_rewrites_only_the_marked_lists():
    """An enum that happens to hold "chess" or "perft" elsewhere in a schema is the schema's own."""
    text = json.dumps({"$defs": {"variant": {"enum": ["chess"]}, "op": {"enum": ["perft"]}},
                       "properties": {"game": {"enum": ["chess", "go"]}, "count": {"enum": ["perft", "divide"]}}})
    data = json.loads(derived.schema_text(text))
    assert data["$defs"]["variant"]["enum"] == list(REGISTRY)
    assert data["$defs"]["op"]["enum"] == list(api.OPS)
    assert data["properties"] == {"game": {"enum": ["chess", "go"]}, "count": {"enum": ["perft", "divide"]}}


def test_protocol_doc_hello_lists_the_registry():
    text = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    assert derived.protocol_text(text) == text
    assert json.dumps(list(REGISTRY)) in text


def test_readme_table_lists_the_registered_variants():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    table = text.split("| variant id |", 1)[1].split("\n\n", 1)[0]
    assert re.findall(r"^\| `([a-z0-9-]+)` \|", table, re.M) == list(REGISTRY)


@pytest.mark.parametrize("variant", list(REGISTRY))
def test_variant_doc_rule_table_is_the_catalogue(variant):
    catalogue, problems = load_rules()
    assert problems == []
    page = descriptor(variant).doc     # the page its registry line names
    if not derived.own_rules(catalogue, variant):
        return  # chess: its rules are the general and FIDE ones, documented by the catalogue alone
    assert page is not None and (ROOT / "docs" / page).exists(), f"{variant}: its page in docs/ is missing"
    path = ROOT / "docs" / page
    text = path.read_text(encoding="utf-8")
    assert derived.doc_text(text, derived.rule_table(catalogue, variant), path.name) == text, \
        f"docs/{variant}.md: the rule table differs from the catalogue; run 'doublecheck generate'"
    for rule in derived.own_rules(catalogue, variant):
        assert rule["statement"].replace("|", "\\|") in text


@pytest.mark.parametrize("variant", list(REGISTRY))
def test_module_docstring_names_catalogue_rules_of_the_variant(variant):
    catalogue, _ = load_rules()
    prefixes = {re.match(r"[A-Z]+", rid)[0] for rid in catalogue}
    module = importlib.import_module(REGISTRY[variant].split(":")[0])
    ids = {m[0] for m in RULE_ID.finditer(module.__doc__) if re.match(r"[A-Z]+", m[0])[0] in prefixes}
    if variant != "chess":
        assert ids, f"{variant}: the docstring names the rules it implements"
    for rid in ids:
        assert rid in catalogue, f"{variant} docstring: {rid} is not in the catalogue"
        assert variant in catalogue[rid]["variants"], f"{variant} docstring: {rid} is not one of its rules"


def test_a_catalogue_file_may_share_rules_of_another(tmp_path):
    rules_dir = tmp_path / "rules"
    rules_dir.mkdir()
    rule = {"id": "G1", "title": "t", "statement": "s", "source": "x", "variants": ["chess"]}
    (rules_dir / "general.json").write_text(json.dumps({"rules": [rule]}))
    own = {"id": "D1", "title": "t", "statement": "s", "source": "x", "variants": ["double-move"]}
    (rules_dir / "double-move.json").write_text(json.dumps(
        {"rules": [own], "shared": {"double-move": ["G1", "G99"]}}))
    catalogue, problems = load_rules(tmp_path)
    assert catalogue["G1"]["variants"] == ["chess", "double-move"]
    assert [p.split("/", 1)[1] for p in problems] == [
        "rules/double-move.json: shared rule G99 for double-move is not defined"]
    (rules_dir / "double-move.json").write_text(json.dumps({"rules": [own], "shared": {"shogi": ["G1"]}}))
    assert any("shogi" in p for p in load_rules(tmp_path)[1])


def test_a_catalogue_file_says_why_a_shared_rule_is_not_tested(tmp_path):
    rules_dir = tmp_path / "rules"
    rules_dir.mkdir()
    rule = {"id": "G6", "title": "t", "statement": "s", "source": "x", "variants": ["chess"],
            "not_tested": {"chess": "no request shows it"}}
    (rules_dir / "general.json").write_text(json.dumps({"rules": [rule]}))
    own = {"id": "D1", "title": "t", "statement": "s", "source": "x", "variants": ["double-move"]}
    (rules_dir / "double-move.json").write_text(json.dumps(
        {"rules": [own], "shared": {"double-move": ["G6"]},
         "shared_not_tested": {"double-move": {"G6": "a check ends the turn"}}}))
    catalogue, problems = load_rules(tmp_path)
    assert problems == []
    assert catalogue["G6"]["not_tested"] == {"chess": "no request shows it",
                                             "double-move": "a check ends the turn"}
    for reasons, wrong in (({"double-chess": {"G6": "r"}}, "not a rule of double-chess"),
                           ({"double-move": {"D1": "r"}}, None),
                           ({"chess": {"G6": "r"}}, "already says why")):
        (rules_dir / "double-move.json").write_text(json.dumps(
            {"rules": [own], "shared": {"double-move": ["G6"]}, "shared_not_tested": reasons}))
        problems = load_rules(tmp_path)[1]
        assert (wrong is None and problems == []) or any(wrong in p for p in problems), problems


def test_mutant_catalogue_tables_are_written_from_the_mutants():
    from doublecheck.authoring.mutants import CATALOGUE
    for name, m in CATALOGUE.items():
        assert len(m.why) > 10, f"{name}: its catalogue entry needs a 'why' saying why someone writes it"
    path = ROOT / "docs" / "mutants.md"
    text = path.read_text(encoding="utf-8")
    from doublecheck.authoring.mutants import record
    cases, _ = casefiles.load_cases(ROOT / "cases", warn=lambda message: None)
    kills = record.counts_of(record.stored(), cases)
    assert set(kills) == set(CATALOGUE), "the kill record is stale: run doublecheck generate"
    tables = derived.mutant_tables(kills)
    assert derived.doc_text(text, tables, path.name, (derived.MUTANTS_START, derived.MUTANTS_END)) == text


def test_the_deep_perft_benchmark_measures_every_variant(monkeypatch):
    """benchmarks/deep_perft_bench.py part 2 has a start position row for each registered variant."""
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    path = ROOT / "benchmarks" / "deep_perft_bench.py"
    spec = importlib.util.spec_from_file_location("deep_perft_bench", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert {name for name, _, _ in bench.VARIANT_STARTS} == set(REGISTRY)


def test_every_operation_has_one_row_and_an_unknown_one_is_an_error():
    """doublecheck.harness.operations is the one table of the operations (text, help, desk)."""
    from doublecheck.lookups.commands import as_text
    from doublecheck.harness.operations import OPERATIONS
    from doublecheck.oracle.errors import RulesError
    assert set(OPERATIONS) == set(api.OPS) == set(api.ANSWERS)
    assert as_text("fen", {"fen": "8/8/8/8/8/8/8/8 w - - 0 1"}) == "8/8/8/8/8/8/8/8 w - - 0 1"
    with pytest.raises(RulesError) as e:
        as_text("evaluate", {"fen": "x"})
    assert e.value.code == "unsupported"
