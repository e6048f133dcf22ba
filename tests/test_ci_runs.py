"""What a CI log and CI artifacts get from the commands: progress lines, report fields that
carry the data, ordinary file modes, and usage errors as JSON."""

import io
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import chess
import pytest
from jsonschema import Draft202012Validator

from doublecheck.casefiles import schema
from doublecheck.cli import main
from doublecheck.progress import Progress

from test_harness import CASES, ROOT, case, legal, toy, write_tree

PROGRESS_LINE = re.compile(r"doublecheck run: (\d+)/(\d+) cases done, (\d+) failed or errored, "
                           r"\d+ s(; running (.+))?")


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


# --- the progress helper ----------------------------------------------------------

def test_progress_line_names_counts_failures_and_the_longest_running_items():
    clock, out = Clock(), io.StringIO()
    progress = Progress("doublecheck run", 5, "cases", "failed or errored", stream=out,
                        interval=10, clock=clock)
    progress.start("a/b/one")
    clock.now += 3
    progress.finish("a/b/one", bad=True)
    progress.start("a/b/two")
    clock.now += 2
    progress.start("a/b/three")
    progress.start("a/b/four")
    clock.now += 7
    progress.tick()
    assert out.getvalue() == ("doublecheck run: 1/5 cases done, 1 failed or errored, 12 s; "
                              "running a/b/two (9 s), a/b/three (7 s) and 1 more\n")


def test_progress_is_silent_when_quiet_or_with_interval_zero():
    for kwargs in ({"quiet": True, "interval": 10}, {"interval": 0}):
        out = io.StringIO()
        with Progress("doublecheck generate", 2, "generators", None, stream=out, **kwargs) as p:
            p.start("x")
            p.tick()
            p.finish("x")
        assert out.getvalue() == ""


def test_progress_on_a_terminal_is_one_live_line():
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    out = Terminal()
    with Progress("doublecheck mutants", 2, "mutants", "survived", stream=out) as p:
        p.start("chess/m1")
        p.finish("chess/m1", bad=True)
        p.note("  chess/m1: SURVIVED")
    text = out.getvalue()
    assert "\n" not in text.replace("  chess/m1: SURVIVED\n", "")  # only the note ends a line
    assert "\rdoublecheck mutants: 1/2 mutants done, 1 survived" in text
    assert text.endswith("\r")  # the live line is wiped at the end


def test_the_live_line_shortens_everything_else_before_the_case_name():
    clock = [100.0]
    progress = Progress("doublecheck run", 2026, "cases", "failed or errored", stream=io.StringIO(),
                        clock=lambda: clock[0])
    name = "marseillais-classic/generated-perft/start-turns-2"
    progress.start(name)
    progress.start("chess/fen/other")
    clock[0] = 131
    assert progress.fitted(300) == progress.line()
    for width in (79, 60, len(name)):
        text = progress.fitted(width)
        assert len(text) <= width and name in text
    assert progress.fitted(30) == "..." + name[-27:]


def run_cli(tree, *argv, env=None):
    """``doublecheck run`` in a subprocess, its stderr a pipe as in CI."""
    env = dict(os.environ, **(env or {}))
    return subprocess.run([sys.executable, "-m", "doublecheck", "run", "--cases-dir", str(tree), *argv],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def test_run_prints_progress_lines_to_a_pipe(tmp_path):
    tree = write_tree(tmp_path / "cases", [
        case("slow-perft", {"op": "perft", "depth": 2}, {"nodes": 400}),
        case("start-moves", {"op": "moves"}, {"moves": legal()})])
    engine = toy("slow", "--perft-seconds", "1.5")
    done = run_cli(tree, "--engine", engine, env={"DOUBLECHECK_PROGRESS_INTERVAL": "0.2"})
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [PROGRESS_LINE.fullmatch(line) for line in done.stderr.splitlines()]
    progress = [m for m in lines if m]
    assert progress, done.stderr
    assert all(m[2] == "2" for m in progress)
    assert any(m[5] and m[5].startswith("chess/toy/slow-perft (") for m in progress)
    assert "\r" not in done.stderr  # no terminal tricks in a log
    quiet = run_cli(tree, "--engine", engine, "--quiet",
                    env={"DOUBLECHECK_PROGRESS_INTERVAL": "0.2"})
    assert quiet.returncode == 0 and not any(PROGRESS_LINE.fullmatch(line)
                                             for line in quiet.stderr.splitlines())


# --- the JSON report carries the data ------------------------------------------------

def report_of(capsys, tmp_path, tree, *argv):
    path = tmp_path / "report.json"
    code = main(["run", "--cases-dir", str(tree), "--json", str(path), *argv])
    out, err = capsys.readouterr()
    report = json.loads(path.read_text())
    Draft202012Validator(schema("report.schema.json")).validate(report)
    return code, out, {c["id"]: c for c in report["cases"]}, report


def test_report_cases_carry_request_expectation_answer_and_diff(capsys, tmp_path):
    fen_after = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    wrong_fen = case("fen", {"op": "fen", "moves": ["e2e4"]},
                     {"fen": fen_after.replace("KQkq - 0 1", "Qkq - 0 2")})
    wrong_status = case("status", {"op": "status"},
                        {"status": {"over": True, "result": "1/2-1/2", "reason": "stalemate",
                                    "claimable": []}})
    castling = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
    tree = write_tree(tmp_path / "cases", CASES + [wrong_fen, wrong_status])
    code, out, cases, report = report_of(capsys, tmp_path, tree, "--engine", toy("missing_move"))
    assert code == 1 and report["report_version"] == 2

    moves = cases["chess/toy/castling-moves"]
    assert moves["request"] == {"op": "moves", "fen": castling, "variant": "chess"}
    assert moves["expect"] == {"moves": legal(castling)}
    assert sorted(moves["answer"]["moves"]) == [m for m in legal(castling) if m != "e1g1"]
    assert {k: v for k, v in moves["diff"].items() if k != "reasons"} == {
        "fields": {"moves": {"kind": "set", "expected_count": 26, "got_count": 25,
                             "missing": ["e1g1"], "missing_count": 1, "extra": [], "extra_count": 0,
                             "repeated": []}},
        "san": {"e1g1": "O-O"}}
    [why] = moves["diff"]["reasons"]["items"]   # the oracle's reason for the missing move
    assert (why["side"], why["token"], why["rule"]) == ("missing", "e1g1", "FIDE-3.8.2")
    assert why["text"].startswith("legal here: castling, O-O")

    fen = cases["chess/toy/fen"]["diff"]["fields"]["fen"]
    assert fen["kind"] == "fen" and fen["differing"] == [
        {"field": "castling", "expected": "Qkq", "got": "KQkq"},
        {"field": "fullmove number", "expected": "2", "got": "1"}]

    status = cases["chess/toy/status"]["diff"]["fields"]["status"]
    assert status == {"kind": "status", "differing": [
        {"key": "over", "expected": True, "got": False},
        {"key": "result", "expected": "1/2-1/2", "got": None},
        {"key": "reason", "expected": "stalemate", "got": None}]}

    from doublecheck.harness.html_report import EXTRA_COLOUR, MISSING_COLOUR, html_report
    page = html_report(report)  # the HTML page from the JSON report alone
    assert "Implementation: doublecheck-oracle" in page
    board = page.split('data-id="chess/toy/castling-moves"')[1].split("</section>")[0]
    assert MISSING_COLOUR in board and EXTRA_COLOUR not in board.split("<svg")[1].split("</svg>")[0]

    passed = cases["chess/toy/start-moves"]
    assert passed["outcome"] == "passed" and passed["diff"] is None
    assert sorted(passed["answer"]["moves"]) == legal()
    summary_seconds = {(s["variant"], s["op"]): s["seconds"] for s in report["summary"]}
    assert set(summary_seconds) == {("chess", "moves"), ("chess", "perft"), ("chess", "fen"),
                                    ("chess", "status")}


def test_report_perft_diff_has_the_drill_down(capsys, tmp_path):
    tree = write_tree(tmp_path / "cases", [CASES[4]])
    code, out, cases, report = report_of(capsys, tmp_path, tree, "--engine", toy("perft_miscount"))
    entry = cases["chess/toy/perft-3"]
    after = chess.Board()
    after.push_san("e4")
    after.push_san("d5")
    assert entry["diff"]["fields"] == {"nodes": {"kind": "value", "expected": 8902, "got": 8901}}
    drill = dict(entry["diff"]["drill_down"])
    [why] = drill.pop("reasons")["items"]   # where the drill-down stops, the missing move's reason
    assert (why["side"], why["token"], why["rule"]) == ("missing", "e4d5", "FIDE-3.7.1")
    assert drill == {
        "unit": "moves", "end": "lists-differ", "line": ["e2e4", "d7d5"], "line_san": "e4 d5",
        "steps": [{"depth": 3, "line": [], "move": "e2e4", "expected": 600, "got": 599},
                  {"depth": 2, "line": ["e2e4"], "move": "d7d5", "expected": 31, "got": 30}],
        "depth": 1, "position": after.fen(), "expected_count": 31, "got_count": 30,
        "missing": ["e4d5"], "missing_count": 1, "extra": [], "extra_count": 0,
        "san": {"e4d5": "exd5"}}


def test_long_answers_are_cut_and_say_so(capsys, tmp_path):
    from doublecheck.harness.report import ANSWER_ITEMS, cut_answer
    answer, cuts = cut_answer({"ok": True, "turns": [f"t{i}" for i in range(ANSWER_ITEMS + 5)],
                               "fen": "x" * 5000})
    assert len(answer["turns"]) == ANSWER_ITEMS and len(answer["fen"]) == 2000
    assert cuts == {"turns": ANSWER_ITEMS + 5, "fen": 5000}


def test_junit_and_markdown_carry_the_short_diff(capsys, tmp_path):
    tree = write_tree(tmp_path / "cases")
    path = tmp_path / "junit.xml"
    code = main(["run", "--cases-dir", str(tree), "--engine", toy("missing_move"), "--junit",
                 str(path), "--format", "markdown"])
    out, _ = capsys.readouterr()
    failure = next(c for c in ET.parse(path).getroot().iter("testcase")
                   if c.get("name") == "chess/toy/castling-moves").find("failure")
    short = "moves: missing e1g1 (O-O); why: missing e1g1: legal here: castling, O-O (FIDE-3.8.2: Castling)"
    assert failure.get("message") == short
    assert f"<details><summary>FAILED <code>chess/toy/castling-moves</code> [FIDE-3.1]: {short}</summary>" in out
    assert code == 1


# --- files and errors ---------------------------------------------------------------

@pytest.mark.parametrize("umask,mode", [(0o022, 0o644), (0o027, 0o640)])
def test_report_files_get_the_umask_mode(capsys, tmp_path, umask, mode):
    tree = write_tree(tmp_path / "cases")
    files = {name: tmp_path / name for name in ("r.json", "r.xml", "r.html", "xfail.txt")}
    old = os.umask(umask)
    try:
        main(["run", "--cases-dir", str(tree), "--engine", toy("missing_move"),
              "--json", str(files["r.json"]), "--junit", str(files["r.xml"]),
              "--html", str(files["r.html"]), "--write-xfail", str(files["xfail.txt"])])
    finally:
        os.umask(old)
    capsys.readouterr()
    assert {name: path.stat().st_mode & 0o777 for name, path in files.items()} == dict.fromkeys(files, mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["cases", *files])  # no temporary files


@pytest.mark.parametrize("argv", [
    ["perft", "--depth", "abc", "--json"],
    ["perft", "--json", "--depth", "abc"],
    ["moves", "--no-such-option", "--json"],
    ["status", "--js", "--no-such-option"],          # an abbreviation argparse accepts
    ["explain", "--json"],                           # --move or --turn is required
    ["replay", "--json"],                            # the file is required
    ["show", "--json", "--ascii=yes"],
    ["rules", "--json", "--no-such-option"],
    ["mutants", "--json", "--max-nodes", "many"],
    ["mutants", "--json", "--max-nodes", "-1"],
    ["--json", "turns", "--depth"],
])
def test_usage_errors_honour_json(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2
    assert out.count("\n") == 1
    error = json.loads(out)["error"]
    assert error["code"] == "usage" and error["message"] in err
    assert err.startswith("error: usage: ")


def test_run_usage_error_is_text_since_its_json_names_a_file(capsys):
    assert main(["run", "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("error: usage: doublecheck run: argument --json: expected one")


def test_run_unknown_variant_names_the_known_ones(capsys, tmp_path):
    from doublecheck.oracle import api
    assert main(["run", "--variant", "nope"]) == 2
    out, err = capsys.readouterr()
    assert err.startswith("error: unknown-variant: unknown variant 'nope' (known: ")
    assert all(v in err for v in api.VARIANTS)


def test_run_quick_is_max_nodes_20000(capsys, tmp_path):
    tree = write_tree(tmp_path / "cases", [
        case("big", {"op": "perft", "depth": 5}, {"nodes": 4865609}),
        case("start-moves", {"op": "moves"}, {"moves": legal()})])
    code = main(["run", "--cases-dir", str(tree), "--quick"])
    out, _ = capsys.readouterr()
    assert code == 0
    assert "chess/toy/big: expects 4865609 nodes, more than --max-nodes 20000" in out
    assert main(["run", "--cases-dir", str(tree), "--quick", "--max-nodes", "5"]) == 2
    assert "not allowed with argument" in capsys.readouterr().err



def test_time_limit_is_the_base_plus_the_perft_share():
    from doublecheck.casefiles import Case
    from doublecheck.harness.runner import SLOW_RATE, time_limit

    def made(request, expect):
        return Case(id="chess/demo/x", variant="chess", topic="demo", rules=[], description="d",
                    source="s", request={**request, "variant": "chess"}, expect=expect,
                    path="demo.json", generated=False)

    deep = made({"op": "perft", "depth": 5}, {"nodes": 4865609})
    divide = made({"op": "perft", "depth": 1, "divide": True}, {"divide": {"a2a3": 1, "b2b3": 1}})
    moves = made({"op": "moves"}, {"moves": []})
    assert time_limit(deep, 10) == 10 + 4865609 / SLOW_RATE
    assert time_limit(divide, 10) == 10 + 2 / SLOW_RATE
    assert time_limit(moves, 10) == 10
    assert time_limit(deep, None) is None  # --timeout 0: no limit at all
