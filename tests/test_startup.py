"""Start-up: commands import only what they use, a run reads and checks only the case
files it runs, and a file checked once is not checked again while it and the checking
code stay the same (doublecheck.validcache).  Timings are in benchmarks/startup_bench.py;
these tests check the mechanisms, which is what the timings rest on."""

import json
import subprocess
import sys

import pytest

from doublecheck import casefiles, validcache
from doublecheck.casefiles import load_cases
from doublecheck.harness.runner import case_filter

HEAVY = ("jsonschema", "doublecheck.casefiles", "doublecheck.harness.runner", "doublecheck.perft.parallel",
         "doublecheck.desk.server", "doublecheck.authoring.mutants")
METADATA = "importlib.metadata"   # a lookup needs it (variant plugins are found by entry point); help does not


def modules_after(argv: list[str]) -> set[str]:
    """The modules a fresh interpreter has imported after running ``doublecheck ARGV``."""
    code = ("import sys, io, contextlib\nfrom doublecheck.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try:\n        main(sys.argv[1:])\n    except SystemExit:\n        pass\n"
            "print('\\n'.join(sys.modules))")
    done = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return set(done.stdout.split())


@pytest.mark.parametrize("argv", [["--help"], ["moves"], ["play", "--moves", "e2e4"], ["perft", "--help"]])
def test_help_and_lookups_import_nothing_heavy(argv):
    loaded = modules_after(argv)
    assert not [m for m in HEAVY if m in loaded]
    assert argv[-1] != "--help" or METADATA not in loaded


def test_version_and_help_do_not_import_the_oracle():
    for argv in (["--version"], ["--help"], ["run", "--help"]):
        loaded = modules_after(argv)
        assert "doublecheck.oracle.chess" not in loaded and "jsonschema" not in loaded, argv


def test_an_error_is_still_reported_by_its_code(capsys):
    from doublecheck.cli import main
    assert main(["moves", "--fen", "not a fen"]) == 2
    assert "error: invalid-fen:" in capsys.readouterr().err


# ------------------------------------------------------- loading what is run

RULES = {"rules": [{"id": "G1", "title": "t", "statement": "s", "source": "x", "variants": ["chess"]}]}


def case_file(topic, slugs, **changes):
    cases = [{"id": f"chess/{topic}/{slug}", "rules": ["G1"], "description": "d", "source": "s",
              "request": {"op": "moves"}, "expect": {"moves": ["e2e4"]}} for slug in slugs]
    return {"variant": "chess", "topic": topic, "generated": False, "description": "d", "cases": cases,
            **changes}


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """A case tree of two files, and a record folder of its own."""
    monkeypatch.setenv("DOUBLECHECK_CACHE", str(tmp_path / "record"))
    root = tmp_path / "cases"
    for rel, data in (("rules/general.json", RULES), ("chess/one.json", case_file("one", ["a", "b"])),
                      ("chess/two.json", case_file("two", ["c"]))):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(json.dumps(data))
    return root


@pytest.fixture
def checks(monkeypatch):
    """The case files whose requests are checked, in order."""
    seen = []
    real = casefiles._case_file_problems

    def counted(path, data, where, refused):
        seen.append(path.name)
        return real(path, data, where, refused)
    monkeypatch.setattr(casefiles, "_case_file_problems", counted)
    return seen


def test_a_selected_load_checks_only_the_files_it_returns(tree, monkeypatch, checks):
    monkeypatch.setenv("DOUBLECHECK_CACHE", "off")
    bad = case_file("two", ["c"])
    bad["cases"][0]["request"] = {"op": "moves", "fen": "not a fen"}
    (tree / "chess" / "two.json").write_text(json.dumps(bad))
    cases, problems = load_cases(tree, wanted=case_filter(patterns=("chess/one/*",)))
    assert [c.id for c in cases] == ["chess/one/a", "chess/one/b"] and problems == []
    assert checks == ["one.json"]
    _, problems = load_cases(tree)
    assert any("two.json" in p for p in problems)


def test_a_checked_file_is_not_checked_again_until_it_changes(tree, checks):
    first, _ = load_cases(tree)
    assert checks == ["one.json", "two.json"]
    again, problems = load_cases(tree)
    assert checks == ["one.json", "two.json"] and problems == []
    assert [(c.id, c.request, c.expect) for c in again] == [(c.id, c.request, c.expect) for c in first]
    (tree / "chess" / "two.json").write_text(json.dumps(case_file("two", ["c", "d"])))
    changed, _ = load_cases(tree)
    assert checks[2:] == ["two.json"] and len(changed) == 4


def test_a_file_with_problems_is_never_recorded(tree, checks):
    bad = case_file("two", ["c"])
    bad["cases"][0]["request"] = {"op": "moves", "fen": "not a fen"}
    (tree / "chess" / "two.json").write_text(json.dumps(bad))
    for _ in range(2):
        _, problems = load_cases(tree)
        assert any("not a fen" in p or "invalid-fen" in p for p in problems)
    assert checks.count("two.json") == 2


def test_a_moved_file_is_checked_again(tree, checks):
    load_cases(tree)
    (tree / "chess" / "two.json").rename(tree / "chess" / "three.json")
    _, problems = load_cases(tree)
    assert checks[-1] == "three.json" and any("does not match the file name" in p for p in problems)


def test_the_record_belongs_to_the_checking_code(tmp_path):
    schemas = tmp_path / "schemas"
    schemas.mkdir()
    (schemas / "a.json").write_text("{}")
    before = validcache.fingerprint(schemas)
    validcache.fingerprint.cache_clear()
    (schemas / "a.json").write_text('{"type": "object"}')
    assert validcache.fingerprint(schemas) != before
    validcache.fingerprint.cache_clear()


def test_an_unwritable_record_only_costs_time(tree, monkeypatch, checks):
    blocker = tree.parent / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("DOUBLECHECK_CACHE", str(blocker / "below"))
    for _ in range(2):
        cases, problems = load_cases(tree)
        assert len(cases) == 3 and problems == []
    assert checks == ["one.json", "two.json"] * 2
