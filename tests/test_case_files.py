"""Every case file and catalogue file is well-formed, and the loader reports broken ones."""

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from doublecheck.casefiles import CASES_DIR, SCHEMAS_DIR, load_cases, load_rules, select

RULING_IDS = ([f"G{n}" for n in range(1, 10)] + [f"D{n}" for n in range(1, 7)]
              + [f"A{n}" for n in range(1, 6)] + [f"C{n}" for n in range(1, 5)]
              + [f"S{n}" for n in range(1, 12)] + [f"M{n}" for n in range(1, 9)])


# ------------------------------------------------------------ the real tree

@pytest.fixture(scope="module")
def real():
    rules, _ = load_rules(CASES_DIR)
    cases, problems = load_cases(CASES_DIR)
    return rules, cases, problems


@pytest.mark.parametrize("name", ["case-file.schema.json", "rules.schema.json"])
def test_schema_is_valid_draft_2020_12(name):
    Draft202012Validator.check_schema(json.loads((SCHEMAS_DIR / name).read_text()))


def test_repository_cases_and_rules_load_cleanly(real):
    _, cases, problems = real
    assert not problems, "\n".join(problems)
    assert cases


def test_every_cited_rule_is_defined(real):
    rules, cases, _ = real
    missing = sorted({f"{c.id}: {r}" for c in cases for r in c.rules if r not in rules})
    assert not missing, "\n".join(missing)


def test_every_ruling_is_in_the_catalogue(real):
    rules, _, _ = real
    assert [r for r in RULING_IDS if r not in rules] == []


def test_sources_cite_the_projects_own_rulings(real):
    """A case or a rule says where its expected value comes from in the project's own terms
    (``doublecheck ruling G3``, a catalogue id, a seed), never a file outside the project."""
    rules, cases, _ = real
    plugin_files = [p for p in (Path(__file__).resolve().parent / "plugins").rglob("*.json")
                    if "cases" in p.parts]
    sources = ([c.source for c in cases] + [r.get("source", "") for r in rules.values()]
               + [s for p in plugin_files for s in _sources(json.loads(p.read_text(encoding="utf-8")))])
    assert [s for s in sources if "rulings.md" in s] == []


def _sources(data) -> list[str]:
    """Every "source" text anywhere in a JSON document."""
    if isinstance(data, dict):
        own = [data["source"]] if isinstance(data.get("source"), str) else []
        return own + [s for v in data.values() for s in _sources(v)]
    if isinstance(data, list):
        return [s for v in data for s in _sources(v)]
    return []


def test_requests_carry_the_file_variant(real):
    _, cases, _ = real
    for case in cases:
        assert case.request["variant"] == case.variant == case.path.parent.name
        assert case.id.startswith(f"{case.variant}/{case.topic}/")


# ------------------------------------------------------------ a scratch tree

RULES = {"rules": [{"id": "G1", "title": "t", "statement": "s", "source": "x", "variants": ["chess"]}]}


def case(slug, rules=("G1",), topic="topic", **changes):
    c = {"id": f"chess/{topic}/{slug}", "rules": list(rules), "description": "d", "source": "s",
         "request": {"op": "moves"}, "expect": {"moves": ["e2e4"]}}
    c.update(changes)
    return c


def case_file(*cases, topic="topic", variant="chess", **changes):
    data = {"variant": variant, "topic": topic, "generated": False, "description": "d", "cases": list(cases)}
    data.update(changes)
    return data


@pytest.fixture
def tree(tmp_path):
    """A minimal valid case tree; returns a function that writes files into it."""
    root = tmp_path / "cases"

    def write(relative, content):
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content if isinstance(content, str) else json.dumps(content))
        return path

    write("rules/general.json", RULES)
    write("chess/topic.json", case_file(case("ok")))
    write.root = root
    return write


def problems_of(root):
    cases, problems = load_cases(root)
    return cases, "\n".join(problems)


def test_scratch_tree_is_clean(tree):
    cases, problems = problems_of(tree.root)
    assert problems == ""
    assert [c.id for c in cases] == ["chess/topic/ok"]
    assert cases[0].request == {"op": "moves", "variant": "chess"}
    assert cases[0].generated is False


def test_duplicate_case_id_in_one_file(tree):
    tree("chess/topic.json", case_file(case("ok"), case("ok")))
    cases, problems = problems_of(tree.root)
    assert "cases/chess/topic.json: case chess/topic/ok: duplicate id" in problems
    assert len(cases) == 1


def test_duplicate_case_id_across_files(tree):
    tree("chess/other.json", case_file(case("ok"), topic="other"))
    _, problems = problems_of(tree.root)
    assert "cases/chess/other.json: case chess/topic/ok: duplicate id, first used in cases/chess/other.json" not in problems
    assert "duplicate id, first used in cases/chess/" in problems
    assert "should start with 'chess/other/'" in problems


def test_unknown_rule_id(tree):
    tree("chess/topic.json", case_file(case("ok", rules=["G1", "NOPE-1"])))
    _, problems = problems_of(tree.root)
    assert "cases/chess/topic.json: case chess/topic/ok: unknown rule id 'NOPE-1'" in problems


def test_malformed_json_does_not_stop_the_others(tree):
    tree("chess/broken.json", '{"variant": "chess", "cases": [')
    cases, problems = problems_of(tree.root)
    assert "cases/chess/broken.json: malformed JSON at line 1" in problems
    assert [c.id for c in cases] == ["chess/topic/ok"]


def test_duplicate_json_key(tree):
    tree("chess/dup.json", '{"variant": "chess", "variant": "chess"}')
    _, problems = problems_of(tree.root)
    assert "cases/chess/dup.json: malformed JSON: duplicate key 'variant'" in problems


def test_schema_violation_names_the_path_and_case(tree):
    tree("chess/topic.json", case_file(case("ok", request={"op": "mvoes"})))
    cases, problems = problems_of(tree.root)
    assert "cases/chess/topic.json: $.cases[0].request.op (case chess/topic/ok):" in problems
    assert cases == []


@pytest.mark.parametrize("bad_case, path", [
    (case("x", expect={}), "$.cases[0].expect"),
    (case("x", expect={"error": {"code": "oops"}}), "$.cases[0].expect.error.code"),
    (case("x", expect={"status": {"over": True}}), "$.cases[0].expect.status"),
    (case("x", request={"op": "perft"}), "$.cases[0].request"),
    (case("x", request={"op": "moves", "depth": 2}), "$.cases[0].request.op"),
    (case("x", rules=[]), "$.cases[0].rules"),
    (case("x", extra=1), "$.cases[0]"),
    (case("Bad Slug"), "$.cases[0].id"),
])
def test_schema_catches_bad_cases(tree, bad_case, path):
    tree("chess/topic.json", case_file(bad_case))
    _, problems = problems_of(tree.root)
    assert f"cases/chess/topic.json: {path}" in problems


def test_generated_file_needs_a_generator(tree):
    tree("chess/topic.json", case_file(case("ok"), generated=True))
    _, problems = problems_of(tree.root)
    assert "cases/chess/topic.json: $: 'generator' is a required property" in problems


def test_topic_must_match_file_name(tree):
    tree("chess/topic.json", case_file(case("ok"), topic="other"))
    _, problems = problems_of(tree.root)
    assert "topic 'other' does not match the file name 'topic'" in problems


def test_variant_must_match_directory(tree):
    tree("double-move/topic.json", case_file(case("x")))
    _, problems = problems_of(tree.root)
    assert "cases/double-move/topic.json: variant 'chess' does not match the directory 'double-move'" in problems


def test_duplicate_rule_id_across_catalogue_files(tree):
    tree("rules/more.json", RULES)
    rules, problems = load_rules(tree.root)
    assert "cases/rules/more.json: rule G1 is already defined in cases/rules/general.json" in problems
    assert list(rules) == ["G1"]


def test_bad_catalogue_file(tree):
    tree("rules/bad.json", {"rules": [{"id": "G2", "title": "t"}]})
    _, problems = load_rules(tree.root)
    assert any(p.startswith("cases/rules/bad.json: $.rules[0] (rule G2):") for p in problems), problems


@pytest.mark.parametrize("content", ["[]", "null", "\"text\"", "\x00\x01binary"])
def test_odd_files_never_raise(tree, content):
    tree("chess/odd.json", content)
    _, problems = problems_of(tree.root)
    assert "cases/chess/odd.json:" in problems


def test_select(tree):
    tree("chess/topic.json", case_file(case("a"), case("b", rules=["G1", "G2"])))
    tree("rules/more.json", {"rules": [dict(RULES["rules"][0], id="G2")]})
    cases, problems = load_cases(tree.root)
    assert not problems
    assert [c.id for c in select(cases, rule="G2")] == ["chess/topic/b"]
    assert [c.id for c in select(cases, pattern="chess/*/a")] == ["chess/topic/a"]
    assert [c.id for c in select(cases, variant="chess")] == ["chess/topic/a", "chess/topic/b"]
    assert select(cases, variant="double-move") == []
