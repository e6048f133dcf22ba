"""`doublecheck diff OLD.json NEW.json`: what changed between two runs of one engine.

Most reports here are written by hand, holding only what a report needs for the diff; the
last test diffs two real `doublecheck run --json` reports of toy engines with different
planted bugs (tests/toy_engines).
"""

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from doublecheck import cli
from doublecheck.cli import main
from doublecheck.harness import rundiff

ROOT = Path(__file__).resolve().parent.parent
TOYS = ROOT / "tests" / "toy_engines"


def case(cid, outcome, line="", **more):
    return {"id": cid, "outcome": outcome, "lines": [line] if line else [], **more}


def cause(cid, summary, cases, rules=("FIDE-3.8.2",)):
    return {"id": cid, "summary": summary, "rules": list(rules), "cases": list(cases), "example": cases[0],
            "command": f"doublecheck run --engine toy {cases[0]}"}


def report(cases, causes=None, options=None, suite=None, source="python3 toy.py", version=2):
    data = {"report_version": version, "engine": {"name": "toy", "source": source}, "cases": list(cases)}
    if causes is not None:
        data["causes"] = causes
    if options:
        data["options"] = [{"name": name, "value": value, "kind": "rule", "from": "hello", "default": False}
                           for name, value in options.items()]
    if suite:
        data["suite"] = {"version": suite}
    return data


@pytest.fixture
def write(tmp_path):
    def write(name, data):
        path = tmp_path / name
        path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
        return str(path)
    return write


def diff(capsys, old, new, *args):
    code = main(["diff", old, new, *args])
    out, err = capsys.readouterr()
    return code, out, err


def diff_json(capsys, old, new):
    code, out, _ = diff(capsys, old, new, "--format", "json")
    return code, json.loads(out)


def ids(groups):
    """The case ids of a kind of change, grouped by cause or not."""
    return [c["id"] for g in groups for c in (g["cases"] if "cases" in g else [g])]


# One case of each kind of change, from two reports of an older doublecheck (no causes).
OLD = report([case("chess/a/fixed", "failed", "moves: missing e1g1"),
              case("chess/a/breaks", "passed"),
              case("chess/a/still", "failed", "moves: extra a1a2"),
              case("chess/a/gone", "passed"),
              case("chess/a/quiet", "passed"),
              case("chess/a/was-skipped", "skipped", "not claimed"),
              case("chess/a/same", "passed")])
NEW = report([case("chess/a/fixed", "passed"),
              case("chess/a/breaks", "error", "crash: the engine exited"),
              case("chess/a/still", "failed", "moves: extra a1a2"),
              case("chess/a/quiet", "skipped", "declined"),
              case("chess/a/was-skipped", "failed", "moves: extra a1a2"),
              case("chess/a/same", "passed"),
              case("chess/a/new-passing", "passed"),
              case("chess/a/new-failing", "failed", "moves: extra a1a2")])


# --- the kinds of change ----------------------------------------------------------

def test_every_pair_of_outcomes_is_one_kind_of_change():
    outcomes = ("passed", "failed", "error", "skipped", None)
    pairs = {(a, b) for a in outcomes for b in outcomes} - {(None, None)}
    assert set(rundiff.TRANSITIONS) - {(None, None)} == pairs
    assert {rundiff.TRANSITIONS[p] for p in pairs} == set(rundiff.KINDS) | {"same"}


def test_each_case_is_fixed_newly_failing_still_failing_added_removed_or_changed(capsys, write):
    code, found = diff_json(capsys, write("old.json", OLD), write("new.json", NEW))
    assert code == 1
    assert ids(found["fixed"]) == ["chess/a/fixed"]
    assert sorted(ids(found["newly_failing"])) == ["chess/a/breaks", "chess/a/new-failing", "chess/a/was-skipped"]
    assert ids(found["still_failing"]) == ["chess/a/still"]
    assert found["added"] == [{"id": "chess/a/new-passing", "old": None, "new": "passed"}]
    assert found["removed"] == [{"id": "chess/a/gone", "old": "passed", "new": None}]
    assert found["changed"] == [{"id": "chess/a/quiet", "old": "passed", "new": "skipped"}]
    assert found["totals"] == {"fixed": 1, "newly_failing": 3, "still_failing": 1, "added": 1,
                               "removed": 1, "changed": 1}


def test_an_expected_failure_counts_as_what_the_engine_did(capsys, write):
    old = report([case("chess/a/x", "xfailed", "moves: extra a1a2", actual="failed"),
                  case("chess/a/y", "failed", "moves: extra a1a2")])
    new = report([case("chess/a/x", "xpassed", actual="passed"),
                  case("chess/a/y", "xfailed", "moves: extra a1a2", actual="error")])
    code, found = diff_json(capsys, write("old.json", old), write("new.json", new))
    assert code == 0
    assert ids(found["fixed"]) == ["chess/a/x"]
    assert found["still_failing"][0]["cases"] == [{"id": "chess/a/y", "old": "failed", "new": "error"}]


# --- causes ----------------------------------------------------------------------

def test_failures_are_grouped_by_the_reports_causes_largest_first(capsys, write):
    castling = ["chess/c/one", "chess/c/two"]
    new = report([case("chess/p/pin", "failed", "moves: extra e2e3", cause="c2")]
                 + [case(cid, "failed", "moves: missing e1g1", cause="c1") for cid in castling],
                 causes=[cause("c1", "missing O-O (castling)", castling),
                         cause("c2", "pinned pawn moves", ["chess/p/pin"], rules=["FIDE-3.9"])])
    old = report([case(cid, "passed") for cid in castling + ["chess/p/pin"]], causes=[])
    code, found = diff_json(capsys, write("old.json", old), write("new.json", new))
    assert code == 1
    first, second = found["newly_failing"]
    assert first["cause"] == {"summary": "missing O-O (castling)", "named": True, "id": "c1",
                              "rules": ["FIDE-3.8.2"], "example": "chess/c/one",
                              "command": "doublecheck run --engine toy chess/c/one"}
    assert first["count"] == 2 and ids([first]) == castling
    assert second["cause"]["summary"] == "pinned pawn moves"
    _, out, _ = diff(capsys, write("old.json", old), write("new.json", new))
    assert "  missing O-O (castling): 2 cases (rules: FIDE-3.8.2)\n    chess/c/one, chess/c/two\n" in out
    assert "    see: doublecheck run --engine toy chess/c/one\n" in out


def test_a_still_failing_case_whose_cause_changed_says_so(capsys, write):
    old = report([case("chess/a/x", "failed", cause="c1"), case("chess/a/y", "failed", cause="c2")],
                 causes=[cause("c1", "missing O-O", ["chess/a/x"]), cause("c2", "extra a1a2", ["chess/a/y"])])
    # a cause is known by its id (a digest of its signature): its summary quotes its first
    # case, which may be another one in the other report
    new = report([case("chess/a/x", "failed", cause="c1"), case("chess/a/y", "failed", cause="c3")],
                 causes=[cause("c3", "missing O-O-O", ["chess/a/y"]),
                         cause("c1", "missing O-O, seen first elsewhere", ["chess/a/x"])])
    code, found = diff_json(capsys, write("old.json", old), write("new.json", new))
    assert code == 0
    assert [c for g in found["still_failing"] for c in g["cases"]] == [
        {"id": "chess/a/x", "old": "failed", "new": "failed"},
        {"id": "chess/a/y", "old": "failed", "new": "failed", "cause_was": "extra a1a2"}]
    _, out, _ = diff(capsys, write("old.json", old), write("new.json", new))
    assert "    cause changed: chess/a/y (was: extra a1a2)\n" in out


def test_a_report_without_causes_groups_its_failures_by_their_first_line(capsys, write):
    old = report([case(f"chess/a/{n}", "passed") for n in "wxyz"])
    new = report([case("chess/a/w", "failed", "moves: extra a1a2"),
                  case("chess/a/x", "failed", "moves: missing e1g1"),
                  case("chess/a/y", "failed", "moves: extra a1a2"),
                  case("chess/a/z", "failed", "status: other words", same_cause_as="chess/a/x")])
    _, found = diff_json(capsys, write("old.json", old), write("new.json", new))
    groups = [(g["cause"]["summary"], g["cause"]["named"], ids([g])) for g in found["newly_failing"]]
    assert groups == [("moves: extra a1a2", False, ["chess/a/w", "chess/a/y"]),
                      ("moves: missing e1g1", False, ["chess/a/x", "chess/a/z"])]


def test_a_first_line_is_never_taken_for_a_changed_named_cause(capsys, write):
    old = report([case("chess/a/x", "failed", "moves: missing e1g1")])
    new = report([case("chess/a/x", "failed", "moves: missing e1g1", cause="c1")],
                 causes=[cause("c1", "missing O-O (castling)", ["chess/a/x"])])
    _, found = diff_json(capsys, write("old.json", old), write("new.json", new))
    assert found["still_failing"][0]["cases"] == [{"id": "chess/a/x", "old": "failed", "new": "failed"}]
    assert (found["old"]["causes_named"], found["new"]["causes_named"]) == (False, True)


def test_fixed_cases_are_grouped_by_the_cause_they_had(capsys, write):
    old = report([case("chess/a/x", "failed", cause="c1")], causes=[cause("c1", "missing O-O", ["chess/a/x"])])
    new = report([case("chess/a/x", "passed")], causes=[])
    _, found = diff_json(capsys, write("old.json", old), write("new.json", new))
    assert found["fixed"][0]["cause"]["summary"] == "missing O-O"


# --- the headers -----------------------------------------------------------------

def test_declared_options_that_differ_are_warned_about_before_the_cases(capsys, write):
    old = report(OLD["cases"], options={"draws": "automatic", "fullmove": "per-move"})
    new = report(NEW["cases"], options={"draws": "claimed"})
    _, found = diff_json(capsys, write("old.json", old), write("new.json", new))
    assert found["header_changes"] == [{"field": "option draws", "old": "automatic", "new": "claimed"},
                                       {"field": "option fullmove", "old": "per-move", "new": None}]
    assert found["old"]["options"] == {"draws": "automatic", "fullmove": "per-move"}
    _, out, _ = diff(capsys, write("old.json", old), write("new.json", new))
    lines = out.splitlines()
    assert lines[1].startswith("warning: option draws differs: automatic in ") and "claimed in" in lines[1]
    assert lines[2].startswith("warning: option fullmove differs: per-move in ") and "not declared in" in lines[2]
    assert lines[3].startswith("warning: some of the changes below may come from that")
    _, md, _ = diff(capsys, write("old.json", old), write("new.json", new), "--format", "markdown")
    assert md.index("**Warning:**") < md.index("> - option draws differs") < md.index("### Newly failing")


def test_a_suite_version_that_differs_is_a_warning_and_an_older_report_has_none(capsys, write):
    old = report(OLD["cases"])
    new = report(NEW["cases"], suite="0.3.0")
    _, found = diff_json(capsys, write("old.json", old), write("new.json", new))
    assert found["old"]["suite_version"] == "unknown" and found["new"]["suite_version"] == "0.3.0"
    assert found["header_changes"] == [{"field": "suite version", "old": "unknown", "new": "0.3.0"}]
    _, out, _ = diff(capsys, write("old.json", old), write("new.json", new))
    assert "warning: suite version differs: unknown in " in out


def test_the_engine_and_report_version_are_compared_too(capsys, write):
    old = report(OLD["cases"], source="python3 old.py", version=1)
    _, found = diff_json(capsys, write("old.json", old), write("new.json", NEW))
    assert [c["field"] for c in found["header_changes"]] == ["engine source", "report version"]


def test_runs_made_the_same_way_give_no_warning(capsys, write):
    _, out, _ = diff(capsys, write("old.json", OLD), write("new.json", NEW))
    assert "warning" not in out


# --- exit status -----------------------------------------------------------------

@pytest.mark.parametrize("old,new,status", [
    ([case("chess/a/x", "passed")], [case("chess/a/x", "passed")], 0),
    ([case("chess/a/x", "failed")], [case("chess/a/x", "passed")], 0),
    ([case("chess/a/x", "failed")], [case("chess/a/x", "error")], 0),
    ([case("chess/a/x", "passed")], [case("chess/a/x", "skipped")], 0),
    ([case("chess/a/x", "failed")], [], 0),
    ([], [case("chess/a/x", "passed")], 0),
    ([case("chess/a/x", "passed")], [case("chess/a/x", "failed")], 1),
    ([case("chess/a/x", "passed")], [case("chess/a/x", "error")], 1),
    ([], [case("chess/a/x", "failed")], 1),
], ids=["same", "fixed", "still-failing", "now-skipped", "removed", "added", "newly-failing",
        "newly-erroring", "added-failing"])
def test_exit_status_is_1_only_when_a_case_newly_fails(capsys, write, old, new, status):
    for fmt in rundiff.FORMATS:
        code, _, _ = diff(capsys, write("old.json", report(old)), write("new.json", report(new)), "--format", fmt)
        assert code == status, fmt


# --- the formats -----------------------------------------------------------------

def test_the_text_opens_with_the_totals_then_newly_failing_fixed_and_still_failing(capsys, write):
    _, out, _ = diff(capsys, write("old.json", OLD), write("new.json", NEW))
    lines = out.splitlines()
    assert lines[0] == "1 fixed, 3 newly failing, 1 still failing, 1 added, 1 removed, 1 otherwise changed"
    titles = [line for line in lines if line and not line.startswith(" ")][1:]
    assert titles == ["Newly failing (3):", "Fixed (1):", "Still failing (1):", "Added (1):", "Removed (1):",
                      "Otherwise changed (1):"]
    # a newly failing case says what it was and is when that is not "passed, then failed"
    assert "chess/a/breaks (passed -> error)" in out and "chess/a/new-failing (absent -> failed)" in out
    assert "chess/a/was-skipped (skipped -> failed)" in out
    assert "  passed -> skipped: 1 case\n    chess/a/quiet\n" in out


def test_markdown_suits_a_job_summary(capsys, write):
    _, out, _ = diff(capsys, write("old.json", OLD), write("new.json", NEW), "--format", "markdown")
    assert out.startswith("## doublecheck diff: toy\n\n**1 fixed, 3 newly failing,")
    assert out.index("### Newly failing (3)") < out.index("### Fixed (1)") < out.index("Still failing (1)")
    assert "<details><summary>Still failing (1)</summary>" in out


def test_json_is_one_object_with_every_kind_of_change(capsys, write):
    _, found = diff_json(capsys, write("old.json", OLD), write("new.json", NEW))
    assert list(found) == ["diff_version", "old", "new", "header_changes", "totals", "exit_code", "fixed",
                           "newly_failing", "still_failing", "added", "removed", "changed"]
    assert found["old"] == {"file": found["old"]["file"], "engine": {"name": "toy", "source": "python3 toy.py"},
                            "report_version": 2, "suite_version": "unknown", "options": {}, "cases": 7,
                            "causes_named": False}
    assert found["diff_version"] == 1 and found["exit_code"] == 1


def test_long_groups_list_20_ids_then_say_how_many_more(capsys, write):
    many = [f"chess/a/case-{n:02}" for n in range(45)]
    old = report([case(cid, "passed") for cid in many])
    new = report([case(cid, "failed", "moves: extra a1a2") for cid in many])
    _, out, _ = diff(capsys, write("old.json", old), write("new.json", new))
    assert "chess/a/case-19" in out and "chess/a/case-20" not in out and ", and 25 more" in out
    _, found = diff_json(capsys, write("old.json", old), write("new.json", new))
    assert ids(found["newly_failing"]) == many   # the JSON holds them all


def test_what_an_engine_wrote_is_shown_as_escapes(capsys, write):
    sly = "moves: \x1b[2J\u202eextra | <b>a1a2</b>\nFAKE LINE"
    old = report([case("chess/a/x", "passed")])
    new = report([case("chess/a/x", "failed", sly)], source="engine \x1b]0;title\x07")
    for fmt, shown in (("text", r"\x1b[2J\u202eextra"), ("markdown", r"\\x1b\[2J\\u202eextra")):
        _, out, _ = diff(capsys, write("old.json", old), write("new.json", new), "--format", fmt)
        assert "\x1b" not in out and "\u202e" not in out and "\x07" not in out
        assert shown in out, out
        assert not any(line.startswith("FAKE LINE") for line in out.splitlines())
    assert "&lt;b&gt;" in out and "\\|" in out   # markdown: no markup, no table cells of the engine's
    code, found = diff_json(capsys, write("old.json", old), write("new.json", new))
    assert found["newly_failing"][0]["cause"]["summary"] == sly   # JSON keeps the text (as escapes)


def test_the_formats_are_the_commands_choices():
    assert cli.DIFF_FORMATS == tuple(rundiff.FORMATS)


def test_help_teaches_a_ci_job(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["diff", "--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    examples = out.split("examples:")[1]
    assert "doublecheck diff main.json branch.json" in examples and "GITHUB_STEP_SUMMARY" in examples
    assert "Exit status: 0 nothing newly fails, 1 a case newly fails, 2" in out


def docs_section() -> str:
    text = (ROOT / "docs" / "harness.md").read_text(encoding="utf-8")
    return text.split("## Comparing two runs: doublecheck diff")[1]


def test_the_docs_describe_every_key_of_the_json():
    keys = ["diff_version", "old", "new", "header_changes", "totals", "exit_code", "fixed", "newly_failing",
            "still_failing", "added", "removed", "changed", "cause", "count", "cases", "cause_was", "summary",
            "named", "suite_version", "causes_named", "field"]
    assert [k for k in keys if not re.search(f'[`"]{k}[`"]', docs_section())] == []


def test_the_docs_example_is_what_the_diff_prints(capsys, write, monkeypatch):
    w, b, pin = "chess/castling/white-both-wings-legal", "chess/castling/black-both-wings-legal", \
        "chess/en-passant/horizontal-pin-white"
    check, new_case, apart, perft = "chess/castling/white-out-of-check", "chess/moves/new-case", \
        "chess/moves/kings-keep-apart", "chess/perft/start-depth-3"
    castling, en_passant = cause("c1", "missing e1g1 (O-O): castling", [w, b]), \
        cause("c2", "extra e5d6 (en passant)", [pin], rules=["FIDE-3.7.4"])
    old = report([case(w, "failed", cause="c1"), case(b, "failed", cause="c1"), case(pin, "failed", cause="c2"),
                  case(check, "passed"), case(perft, "passed")], causes=[castling, en_passant], suite="0.3.0")
    king = cause("c3", "extra e1d2: the king steps into check", [check, new_case], rules=["FIDE-3.9.2"])
    en_passant = cause("c4", "extra e5d6: the en passant capture leaves the king in check", [pin],
                       rules=["FIDE-3.9.2"])
    new = report([case(w, "passed"), case(b, "passed"), case(pin, "failed", cause="c4"),
                  case(check, "failed", cause="c3"), case(new_case, "failed", cause="c3"), case(apart, "passed"),
                  case(perft, "skipped")], causes=[king, en_passant], suite="0.3.1", options={"draws": "automatic"})
    for entry in old["causes"] + new["causes"]:
        del entry["command"]
    monkeypatch.chdir(Path(write("main.json", old)).parent)   # the file names as the doc shows them
    write("branch.json", new)
    shown = re.search(r"```text\n(2 fixed.*?)```", docs_section(), re.S).group(1)
    assert diff(capsys, "main.json", "branch.json") == (1, shown, "")


# --- bad input -------------------------------------------------------------------

NOT_REPORTS = {
    "not-json": ("{'cases': []}", "unreadable-file", "is not JSON at line 1, column 2"),
    "a-list": ([1, 2], "unreadable-file", "the report is not an object"),
    "no-cases": ({"report_version": 2, "engine": {"name": "e", "source": "s"}}, "unreadable-file",
                 "the report has no 'cases'"),
    "no-engine-name": ({"report_version": 2, "engine": {"source": "s"}, "cases": []}, "unreadable-file",
                       "engine has no 'name'"),
    "bad-outcome": (report([case("chess/a/x", "won")]), "unreadable-file", "the outcome 'won' is none of"),
    "twice": (report([case("chess/a/x", "passed"), case("chess/a/x", "failed")]), "unreadable-file",
              "a second case with this id"),
    "cause-not-text": (report([case("chess/a/x", "failed", cause=3)]), "unreadable-file",
                       "cases[0]: 'cause' is not a string"),
    "bad-causes": (report([], causes=[{"summary": "s"}]), "unreadable-file", "causes[0] has no 'id'"),
    "deep": ("[" * 100 + "]" * 100, "unreadable-file", "nest 100 levels deep"),
}


@pytest.mark.parametrize("name", NOT_REPORTS)
@pytest.mark.parametrize("side", ["old", "new"])
def test_a_file_that_is_no_report_is_a_clear_error(capsys, write, name, side):
    data, code, words = NOT_REPORTS[name]
    bad, good = write("bad.json", data), write("good.json", OLD)
    status, out, err = diff(capsys, *((bad, good) if side == "old" else (good, bad)))
    assert status == 2 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith(f"error: {code}: ") and words in err, err
    status, out, err = diff(capsys, bad, good, "--format", "json")
    assert status == 2 and json.loads(out)["error"]["code"] == code


@pytest.mark.parametrize("make,code,words", [
    (lambda tmp: tmp / "nowhere.json", "file-not-found", "no such file"),
    (lambda tmp: tmp, "unreadable-file", "Is a directory|not a regular file"),
    (lambda tmp: Path("/dev/null"), "unreadable-file", "not a regular file"),
    (lambda tmp: (tmp / "latin1.json").write_bytes(b'{"x": "\xe9"}') and tmp / "latin1.json",
     "unreadable-file", "not UTF-8"),
], ids=["missing", "directory", "device", "not-utf8"])
def test_a_file_that_cannot_be_read_is_a_clear_error(capsys, write, tmp_path, make, code, words):
    status, out, err = diff(capsys, str(make(tmp_path)), write("good.json", OLD))
    assert status == 2 and out == ""
    assert err.startswith(f"error: {code}: ") and re.search(words, err) and len(err.splitlines()) == 1, err


def test_bad_input_never_shows_a_traceback(write, tmp_path):
    for bad in (str(tmp_path / "nowhere.json"), str(tmp_path), write("bad.json", "not json")):
        done = subprocess.run([sys.executable, "-m", "doublecheck", "diff", bad, write("good.json", OLD)],
                              cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert done.returncode == 2 and "Traceback" not in done.stderr
        assert re.fullmatch(r"error: (file-not-found|unreadable-file): .+\n", done.stderr), done.stderr


# --- end to end --------------------------------------------------------------------

def toy(name):
    return " ".join(shlex.quote(a) for a in [sys.executable, str(TOYS / f"{name}.py")])


def run_report(capsys, tmp_path, engine) -> tuple[Path, dict]:
    path = tmp_path / f"{engine}.json"
    main(["run", "--engine", toy(engine), "--variant", "chess", "chess/castling/*", "--json", str(path), "-q"])
    capsys.readouterr()
    return path, {c["id"]: c["outcome"] for c in json.loads(path.read_text(encoding="utf-8"))["cases"]}


def test_two_real_runs_of_engines_with_different_bugs(capsys, tmp_path):
    """missing_move forgets kingside castling; extra_move lets the king step into check."""
    old, before = run_report(capsys, tmp_path, "missing_move")
    new, now = run_report(capsys, tmp_path, "extra_move")
    fixed = [cid for cid in now if before[cid] == "failed" and now[cid] == "passed"]
    broken = [cid for cid in now if before[cid] == "passed" and now[cid] == "failed"]
    assert "chess/castling/white-both-wings-legal" in fixed
    assert "chess/castling/white-out-of-check" in broken
    code, found = diff_json(capsys, str(old), str(new))
    assert code == 1
    assert sorted(ids(found["fixed"])) == sorted(fixed)
    assert sorted(ids(found["newly_failing"])) == sorted(broken)
    assert [c["field"] for c in found["header_changes"]] == ["engine source"]
    code, out, _ = diff(capsys, str(old), str(new))
    assert code == 1 and out.startswith(f"{len(fixed)} fixed, {len(broken)} newly failing, ")
    code, out, _ = diff(capsys, str(new), str(new))   # a run against itself: nothing but what still fails
    failing = sum(outcome == "failed" for outcome in now.values())
    assert code == 0 and out.startswith(f"0 fixed, 0 newly failing, {failing} still failing, 0 added, "
                                        "0 removed, 0 otherwise changed\n\nStill failing")
