"""The changelog: written by `doublecheck generate` from the case records of the releases and the
case tree (the current version's record), checked by `generate --check` with the other derived
files; an added, changed or removed case shows under its release and variant."""

import json
from pathlib import Path

from doublecheck import __version__
from doublecheck.authoring import changelog
from doublecheck.manual import topics

ROOT = Path(__file__).resolve().parent.parent


def entry(fp, generated=False):
    return {"fingerprint": fp, "generated": generated}


def test_the_committed_page_and_current_record_are_what_generate_writes():
    for path, text in changelog.expected_texts().items():
        assert path.read_text(encoding="utf-8") == text, f"{path} is stale: run doublecheck generate"
    assert (ROOT / "changes" / f"{__version__}.cases.json").exists()
    assert "changelog" in topics()


def test_the_current_record_is_every_case_of_the_tree():
    record = changelog.read_record(ROOT / "changes" / f"{__version__}.cases.json")
    from doublecheck.casefiles import load_cases
    cases, _ = load_cases(deep=True)
    assert set(record) == {c.id for c in cases}


def test_a_case_that_asks_or_expects_something_else_has_changed():
    case = {"id": "chess/x/a", "rules": ["G1"], "description": "d", "source": "s",
            "request": {"op": "moves"}, "expect": {"moves": ["e2e4"]}}
    same = changelog.fingerprint("chess", dict(case, description="reworded", rules=["G2"]))
    assert same == changelog.fingerprint("chess", case)
    assert changelog.fingerprint("chess", dict(case, expect={"moves": ["e2e3"]})) != same
    assert changelog.fingerprint("double-move", case) != same


def test_the_difference_sorts_cases_by_variant_and_kind(tmp_path):
    before = {"chess/a/x": entry("1"), "chess/a/gone": entry("2"), "marseillais/b/y": entry("3")}
    after = {"chess/a/x": entry("9"), "marseillais/b/y": entry("3"), "marseillais/b/new": entry("4"),
             "marseillais/generated-perft/p1": entry("5", True)}
    assert changelog.difference(before, after) == {
        "chess": {"added": [], "changed": ["chess/a/x"], "removed": ["chess/a/gone"]},
        "marseillais": {"added": ["marseillais/b/new", "marseillais/generated-perft/p1"],
                        "changed": [], "removed": []}}
    (tmp_path / "0.1.0.cases.json").write_text(changelog.record_text("0.1.0", before))
    (tmp_path / "0.2.0.md").write_text("What 0.2.0 brought.\n")
    page = changelog.changelog_text(tmp_path, "0.2.0", after)
    assert page.index("## 0.2.0") < page.index("## 0.1.0")                 # newest first
    assert "What 0.2.0 brought." in page
    assert "- **chess**: 1 changed, 1 removed" in page
    assert "  - removed in `chess/a` (1): `gone`" in page
    assert "  - added in `marseillais/generated-perft` (generated): 1" in page
    assert "The first release: 3 cases (chess 2, marseillais 1)." in page


def test_a_record_reads_back_as_written(tmp_path):
    record = {"chess/a/x": entry("abc", False), "chess/generated-perft/y": entry("def", True)}
    text = changelog.record_text("1.2.3", record)
    assert json.loads(text)["version"] == "1.2.3"
    (tmp_path / "1.2.3.cases.json").write_text(text)
    assert changelog.read_record(tmp_path / "1.2.3.cases.json") == record
