"""The harness against misbehaving engines, skipping, drill-down, reports, xfail files, jobs.

Toy engines (tests/toy_engines) are the oracle with one flaw each; the cases
here are written into a temporary tree, their expected answers taken from
python-chess.
"""

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import chess
import pytest
from jsonschema import Draft202012Validator

from doublecheck.cli import main
from doublecheck.harness.runner import SLOW_RATE

ROOT = Path(__file__).resolve().parent.parent
TOYS = ROOT / "tests" / "toy_engines"
sys.path.insert(0, str(TOYS))
sys.path.insert(0, str(ROOT / "tests"))
from child_signals import default_ctrl_c  # noqa: E402
from python_chess_perft import perft  # noqa: E402
from toy import TRIGGER_FEN  # noqa: E402

CASTLING_FEN = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
KING_FEN = "4k3/7p/8/3b4/8/8/7P/K7 w - - 0 1"  # Ka2 would step into the bishop's diagonal
RULES = {"rules": [{"id": "FIDE-3.1", "title": "Moves", "statement": "A test rule.",
                    "source": "FIDE Laws of Chess, article 3", "variants": ["chess", "double-move"]}]}


def legal(fen=chess.STARTING_FEN):
    return sorted(m.uci() for m in chess.Board(fen).legal_moves)


def case(slug, request, expect, variant="chess", topic="toy"):
    return {"id": f"{variant}/{topic}/{slug}", "rules": ["FIDE-3.1"], "description": slug,
            "source": "python-chess", "request": request, "expect": expect}


CASES = [
    case("start-moves", {"op": "moves"}, {"moves": legal()}),
    case("trigger-moves", {"op": "moves", "fen": TRIGGER_FEN}, {"moves": legal(TRIGGER_FEN)}),
    case("castling-moves", {"op": "moves", "fen": CASTLING_FEN}, {"moves": legal(CASTLING_FEN)}),
    case("king-moves", {"op": "moves", "fen": KING_FEN}, {"moves": legal(KING_FEN)}),
    case("perft-3", {"op": "perft", "depth": 3}, {"nodes": 8902}),
    case("bad-fen", {"op": "fen", "fen": "8/8/8 w - - 0 1"}, {"error": {"code": "invalid-fen"}}),
]
ALL_IDS = [c["id"] for c in CASES]


def write_tree(root: Path, cases=CASES, extra=()):
    (root / "rules").mkdir(parents=True, exist_ok=True)
    (root / "rules" / "fide.json").write_text(json.dumps(RULES))
    files = {}
    for c in list(cases) + list(extra):
        variant, topic, _ = c["id"].split("/")
        files.setdefault((variant, topic), []).append(c)
    for (variant, topic), cs in files.items():
        (root / variant).mkdir(exist_ok=True)
        (root / variant / f"{topic}.json").write_text(json.dumps(
            {"variant": variant, "topic": topic, "generated": False,
             "description": "Cases written by a test.", "cases": cs}))
    return root


@pytest.fixture
def tree(tmp_path):
    return write_tree(tmp_path / "cases")


def toy(name, *args):
    return " ".join(shlex.quote(a) for a in [sys.executable, str(TOYS / f"{name}.py"), *args])


def run(capsys, tree, *argv):
    code = main(["run", "--cases-dir", str(tree), *argv])
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, tmp_path, tree, *argv):
    path = tmp_path / "report.json"
    code, out, err = run(capsys, tree, "--json", str(path), *argv)
    report = json.loads(path.read_text())
    schema = json.loads((ROOT / "schemas" / "report.schema.json").read_text())
    Draft202012Validator(schema).validate(report)
    outcomes = {c["id"]: c["outcome"] for c in report["cases"]}
    return code, out, err, report, outcomes


def case_of(report, case_id):
    return next(c for c in report["cases"] if c["id"] == case_id)


def lines_of(report, case_id):
    return case_of(report, case_id)["lines"]


# --- misbehaving engines ----------------------------------------------------

def test_correct_engine_passes_everything(capsys, tmp_path, tree):
    code, out, _, report, outcomes = run_json(capsys, tmp_path, tree, "--engine", toy("toy"))
    assert code == 0, out
    assert set(outcomes.values()) == {"passed"}
    assert report["engine"]["name"] == "doublecheck-oracle" and report["engine"]["protocol"] == "1"


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_crash_is_an_error_with_stderr_tail_and_the_run_goes_on(capsys, tmp_path, tree, jobs):
    code, out, _, report, outcomes = run_json(capsys, tmp_path, tree, "--engine", toy("crash"),
                                              "--jobs", jobs)
    assert code == 1
    assert outcomes.pop("chess/toy/trigger-moves") == "error"
    assert set(outcomes.values()) == {"passed"}  # restarted: the later cases ran
    lines = lines_of(report, "chess/toy/trigger-moves")
    assert lines[0].startswith("crash: the engine closed its output (exit status 3)")
    assert "  | toy engine: the trigger position breaks me" in lines
    assert "ERROR chess/toy/trigger-moves" in out and "breaks me" in out
    assert [c["id"] for c in report["cases"]] == ALL_IDS  # case order, also with --jobs


def test_hang_is_an_error_after_the_timeout(capsys, tmp_path, tree):
    start = time.monotonic()
    code, out, _, report, outcomes = run_json(capsys, tmp_path, tree, "--engine", toy("hang"),
                                              "--timeout", "1")
    assert time.monotonic() - start < 60
    assert code == 1
    assert outcomes.pop("chess/toy/trigger-moves") == "error"
    assert set(outcomes.values()) == {"passed"}
    lines = lines_of(report, "chess/toy/trigger-moves")
    assert lines[0] == "timeout: no answer within 1 s; the engine was killed; it will be restarted"
    assert lines[1] == ("the limit for this request is --timeout 1 s; allow more with "
                        "--timeout SECONDS (0: no limit)")
    assert "  | toy engine: thinking forever" in lines
    entry = case_of(report, "chess/toy/trigger-moves")
    assert entry["problem"]["kind"] == "timeout" and entry["time_limit"] == 1
    assert entry["answer"] is None and entry["diff"] is None


def test_slow_perft_passes_within_its_scaled_limit(capsys, tmp_path):
    nodes = perft(chess.Board(KIWIPETE), 3)  # 97862, the published Kiwipete count
    tree = write_tree(tmp_path / "cases", [
        case("kiwipete-3", {"op": "perft", "fen": KIWIPETE, "depth": 3}, {"nodes": nodes}),
        case("start-moves", {"op": "moves"}, {"moves": legal()})])
    # the engine spends 2 s on the perft: more than --timeout 1, less than 1 + nodes / SLOW_RATE
    code, out, _, report, outcomes = run_json(capsys, tmp_path, tree, "--timeout", "1",
                                              "--engine", toy("slow", "--perft-seconds", "2"))
    assert code == 0, out
    assert outcomes == {"chess/toy/kiwipete-3": "passed", "chess/toy/start-moves": "passed"}
    entry = case_of(report, "chess/toy/kiwipete-3")
    assert entry["time_limit"] == round(1 + nodes / SLOW_RATE, 3) and entry["seconds"] > 1
    assert case_of(report, "chess/toy/start-moves")["time_limit"] == 1


def test_perft_timeout_names_the_nodes_and_the_options(capsys, tmp_path):
    nodes = perft(chess.Board(TRIGGER_FEN), 1)
    tree = write_tree(tmp_path / "cases", [
        case("trigger-perft", {"op": "perft", "fen": TRIGGER_FEN, "depth": 1}, {"nodes": nodes})])
    code, out, _, report, outcomes = run_json(capsys, tmp_path, tree, "--engine", toy("hang"),
                                              "--timeout", "1")
    assert code == 1 and outcomes == {"chess/toy/trigger-perft": "error"}
    limit = 1 + nodes / SLOW_RATE
    assert lines_of(report, "chess/toy/trigger-perft")[:2] == [
        f"timeout: no answer within {limit:g} s; the engine was killed; it will be restarted",
        f"this case expects {nodes} perft nodes, so its limit was {limit:g} s (--timeout 1 plus "
        f"{nodes} / {SLOW_RATE} nodes per second); allow more with --timeout SECONDS "
        "(0: no limit), or leave large perft cases out with --max-nodes N"]


def test_a_log_line_on_stdout_is_skipped_counted_and_hinted(capsys, tmp_path, tree):
    """A line that is no JSON object cannot be an answer: it is skipped (the engine is not
    restarted for it) and the report asks for logs on stderr, with the count."""
    code, out, _, report, outcomes = run_json(capsys, tmp_path, tree, "--engine", toy("garbage"))
    assert code == 0
    assert set(outcomes.values()) == {"passed"}
    assert ("hint: the engine wrote 1 line on stdout that answered no request (the first: "
            "'moves: e1g1 e1f1 (this is not JSON)'); they were skipped. stdout carries answers "
            "only: write logs to stderr") in out


def test_a_broken_answer_is_still_a_protocol_error(capsys, tmp_path, tree):
    code, out, _, report, outcomes = run_json(capsys, tmp_path, tree, "--engine",
                                              toy("garbage", "--brace"))
    assert code == 1
    assert outcomes.pop("chess/toy/trigger-moves") == "error"
    assert set(outcomes.values()) == {"passed"}
    line = lines_of(report, "chess/toy/trigger-moves")[0]
    assert line.startswith("protocol-error: the answer is not a JSON object")
    assert "{moves: e1g1 e1f1" in line
    assert "hint: the engine wrote" not in out


def test_huge_output_is_cut_off(capsys, tmp_path, tree):
    code, out, _, report, outcomes = run_json(capsys, tmp_path, tree,
                                              "--engine", toy("garbage", "--huge"))
    assert code == 1
    assert outcomes.pop("chess/toy/trigger-moves") == "error"
    assert set(outcomes.values()) == {"passed"}
    assert lines_of(report, "chess/toy/trigger-moves")[0] == (
        "protocol-error: the answer is longer than 16 MiB; cut off there; it will be restarted")


def test_wrong_id_is_a_protocol_error(capsys, tmp_path, tree):
    code, out, _, report, outcomes = run_json(capsys, tmp_path, tree, "--engine", toy("wrong_id"))
    assert code == 1
    assert outcomes.pop("chess/toy/trigger-moves") == "error"
    assert set(outcomes.values()) == {"passed"}  # the late answer did not leak into later cases
    line = lines_of(report, "chess/toy/trigger-moves")[0]
    found = re.fullmatch(r"protocol-error: the answer has id (\d+), an id no request had; the "
                         r"request had id (\d+); it will be restarted", line)
    assert found and int(found[1]) == int(found[2]) + 1000


@pytest.mark.parametrize("mode, case_id, lines", [
    ("missing_move", "chess/toy/castling-moves",
     ["moves: expected 26, got 25", "missing (expected, not produced): e1g1 (O-O)",
      "why, in the oracle's words (doublecheck explain):",
      "  missing e1g1: legal here: castling, O-O (FIDE-3.8.2: Castling)"]),
    ("extra_move", "chess/toy/king-moves",
     ["moves: expected 4, got 5", "extra (produced, not expected): a1a2 (not legal here)",
      "why, in the oracle's words (doublecheck explain):",
      "  extra a1a2: a2 is attacked by the bishop on d5 (FIDE-3.9.2)"]),
])
def test_a_missing_or_illegal_move_is_named_in_coordinates_and_san(capsys, tmp_path, tree, mode, case_id, lines):
    code, out, _, report, outcomes = run_json(capsys, tmp_path, tree, "--engine", toy(mode))
    assert code == 1
    assert outcomes.pop(case_id) == "failed"
    assert set(outcomes.values()) == {"passed"}
    assert lines_of(report, case_id) == lines
    assert f"    {lines[-1]}" in out


def test_perft_miscount_drills_down_to_the_missing_move(capsys, tmp_path, tree):
    code, out, _, report, outcomes = run_json(capsys, tmp_path, tree,
                                              "--engine", toy("perft_miscount"))
    assert code == 1
    assert outcomes.pop("chess/toy/perft-3") == "failed"
    assert set(outcomes.values()) == {"passed"}
    after = chess.Board()
    after.push_san("e4")
    after.push_san("d5")
    assert lines_of(report, "chess/toy/perft-3") == [
        "nodes: expected 8902, got 8901 (1 fewer)",
        "drill-down (the engine's perft divide against the oracle's, counting moves):",
        "  depth 3: e2e4 has 599 below it, expected 600",
        "  depth 2: after e2e4, d7d5 has 30 below it, expected 31",
        "  line from the case position: e2e4 d7d5 (e4 d5)",
        f"  position: {after.fen()}",
        "  moves there: expected 31, got 30 (depth 1)",
        "  missing (expected, not produced): e4d5 (exd5)",
        "  why, in the oracle's words (doublecheck explain):",
        "    missing e4d5: legal here: a pawn move from e4 to d5 (FIDE-3.7.1: Pawn step)"]


def test_drill_down_needs_divide(capsys, tmp_path, tree):
    code, out, _, report, outcomes = run_json(capsys, tmp_path, tree,
                                              "--engine", toy("perft_miscount", "--no-divide"))
    assert outcomes["chess/toy/perft-3"] == "failed"
    assert lines_of(report, "chess/toy/perft-3")[-1] == (
        "  not possible: the engine does not answer perft with divide "
        "(unsupported: no divide here)")


def test_drill_down_follows_whole_turns(capsys, tmp_path):
    from doublecheck.oracle import api
    start = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1"
    request = {"op": "perft", "fen": start, "depth": 2, "turns": True}
    nodes = api.handle({**request, "variant": "double-move-anul"})["nodes"]  # the reference count
    after = {"op": "turns", "variant": "double-move-anul", "fen": start, "moves": ["a1a2,a2b2"]}
    replies = len(api.handle(after)["turns"])
    below = api.handle({**request, "variant": "double-move-anul", "divide": True})["divide"]
    tree = write_tree(tmp_path / "cases", [
        case("perft-turns", request, {"nodes": nodes}, variant="double-move-anul")])
    code, out, _, report, outcomes = run_json(
        capsys, tmp_path, tree, "--adapter", "tests.toy_engines.adapters:DropsOneTurn")
    assert outcomes == {"double-move-anul/toy/perft-turns": "failed"}
    lines = lines_of(report, "double-move-anul/toy/perft-turns")
    # two white turns reach the blind spot (a1a2,a2b2 and a1b1,b1b2); the first in order is followed
    assert lines[0] == f"nodes: expected {nodes}, got {nodes - 2} (2 fewer)"
    assert lines[1:4] == [
        "drill-down (the engine's perft divide against the oracle's, counting turns):",
        f"  depth 2: a1a2,a2b2 has {below['a1a2,a2b2'] - 1} below it, expected {below['a1a2,a2b2']}",
        "  line from the case position: a1a2,a2b2 (Ra2,Rb2)"]
    assert lines[5:] == [
        f"  turns there: expected {replies}, got {replies - 1} (depth 1)",
        "  missing (expected, not produced): e8d7,d7c6 (Kd7,Kc6)",
        "  why, in the oracle's words (doublecheck explain):",
        "    missing e8d7,d7c6: legal here: move 1 (Kd7) is a king step to d7, which no enemy "
        "piece attacks (FIDE-3.9.2: The king may not be left in check)"]


def test_a_multi_line_engine_message_is_shown_as_lines(capsys, tmp_path, tree):
    """A stack trace in an internal-error, and a reason of several lines for declining a
    request: each line of the engine's text a report line of its own (a bounded number),
    never one line of escaped line breaks; the JSON keeps the message whole."""
    from stack_trace import DECLINED, TRACE
    code, out, _, report, outcomes = run_json(capsys, tmp_path, tree, "--engine",
                                              toy("stack_trace", "--decline-perft"))
    assert code == 1 and "\\x0a" not in out
    assert outcomes["chess/toy/trigger-moves"] == "error" and outcomes["chess/toy/perft-3"] == "skipped"
    error = out.split("ERROR chess/toy/trigger-moves\n")[1].split("\n\n")[0].splitlines()
    assert "    internal-error: TypeError: Cannot read properties of undefined (reading 'piece')" in error
    assert "      | at Board.moves (/srv/engine/board.js:212:31)" in error
    assert sum("| at " in line for line in error) == 12 and error[-1] == "      | ... and 18 more lines"
    skipped = out.split("Skipped:\n")[1].split("\n\n")[0].splitlines()
    assert skipped == ["  chess/toy/perft-3: the engine does not support this request: perft is not "
                       "written yet:", "    | it needs the move generator's undo", "    | (see TODO.md)"]
    problem = case_of(report, "chess/toy/trigger-moves")["problem"]   # (its first 1000 characters)
    assert problem["kind"] == "internal-error" and TRACE.startswith(problem["message"].split("...")[0])
    assert problem["message"].count("\n") > 12
    assert case_of(report, "chess/toy/perft-3")["answer"]["error"]["message"] == DECLINED
    code, out, _ = run(capsys, tree, "--engine", toy("stack_trace", "--decline-perft"), "--format", "markdown")
    assert "yet:\n  \\| it needs the move generator's undo\n  \\| (see TODO.md)\n" in out


def test_an_engine_that_keeps_crashing_is_given_up(capsys, tmp_path):
    tree = write_tree(tmp_path / "cases", [
        case(f"trigger-{i}", {"op": "moves", "fen": TRIGGER_FEN}, {"moves": legal(TRIGGER_FEN)})
        for i in range(5)])
    code, out, _, report, outcomes = run_json(capsys, tmp_path, tree, "--engine", toy("crash"),
                                              "--give-up", "2")
    assert code == 1 and set(outcomes.values()) == {"error"}
    assert [lines_of(report, f"chess/toy/trigger-{i}")[0].split(":")[0] for i in range(5)] == [
        "crash", "crash", "not run", "not run", "not run"]
    # with two processes, each gives up after its first crash; nobody is left for the rest
    code, out, _, report, outcomes = run_json(capsys, tmp_path, tree, "--engine", toy("crash"),
                                              "--give-up", "1", "--jobs", "2")
    assert [lines_of(report, f"chess/toy/trigger-{i}")[0].split(":")[0] for i in range(5)] == [
        "crash", "crash", "not run", "not run", "not run"]


def test_cases_never_sent_are_worded_as_not_run_not_as_crashes(capsys, tmp_path):
    """After --give-up crashes in a row the rest are never sent: each says so, and the verdict
    and the "Not run" lines count them apart from the errors the engine made, as cases it
    neither passed nor failed (their outcome stays error: the run still fails)."""
    tree = write_tree(tmp_path / "cases", [
        case(f"trigger-{i}", {"op": "moves", "fen": TRIGGER_FEN}, {"moves": legal(TRIGGER_FEN)})
        for i in range(5)])
    code, out, _, report, _ = run_json(capsys, tmp_path, tree, "--engine", toy("crash"), "--give-up", "2")
    assert code == 1 and report["totals"]["error"] == 5
    why = ("never sent, because the run stopped sending cases to this engine after 2 crashes or "
           "timeouts in a row (--give-up 2)")
    assert case_of(report, "chess/toy/trigger-4")["problem"] == {"kind": "not-run", "message": why}
    assert lines_of(report, "chess/toy/trigger-4") == [f"not run: {why}; neither passed nor failed"]
    not_run = out.split("Not run:\n")[1].split("\n\n")[0].splitlines()
    assert not_run == [f"  chess: 3 cases {why}; neither passed nor failed (first: chess/toy/trigger-2)"]
    verdict = ("FAILED: 0 passed, 0 failed, 5 errors (3 of them not run: never sent, so neither "
               "passed nor failed), 0 skipped")
    assert out.rstrip().splitlines()[-1] == verdict == report["verdict"]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_given_up_engine_still_skips_what_it_never_claimed(capsys, tmp_path, jobs):
    # an engine claiming only chess moves, crashing on every trigger position
    crashing = [case(f"trigger-{i}", {"op": "moves", "fen": TRIGGER_FEN}, {"moves": legal(TRIGGER_FEN)})
                for i in range(4)]
    unclaimed = [CASES[4], CASES[5],  # perft and fen: operations it does not claim
                 case("start-moves", {"op": "moves"}, {"moves": ["e2e4"]}, variant="double-move")]
    tree = write_tree(tmp_path / "cases", crashing + unclaimed)
    code, out, _, report, outcomes = run_json(
        capsys, tmp_path, tree, "--engine", toy("crash", "--variants", "chess", "--ops", "moves"),
        "--give-up", "1", "--jobs", jobs)
    assert code == 1
    assert {i: outcomes[i] for i in ("chess/toy/perft-3", "chess/toy/bad-fen",
                                     "double-move/toy/start-moves")} == dict.fromkeys(
        ["chess/toy/perft-3", "chess/toy/bad-fen", "double-move/toy/start-moves"], "skipped")
    kinds = sorted(case_of(report, f"chess/toy/trigger-{i}")["problem"]["kind"] for i in range(4))
    crashed = int(jobs)  # each engine process crashes once, then is given up
    assert kinds == ["crash"] * crashed + ["not-run"] * (4 - crashed)
    not_run = next(c for c in report["cases"] if c.get("problem", {}).get("kind") == "not-run")
    assert not_run["lines"] == ["not run: never sent, because the run stopped sending cases to this "
                                "engine after 1 crash or timeout in a row (--give-up 1); neither "
                                "passed nor failed"]
    totals = report["totals"]
    assert (totals["error"], totals["skipped"], totals["passed"]) == (4, 3, 0)
    assert report["verdict"] == (f"FAILED: 0 passed, 0 failed, 4 errors ({4 - crashed} of them not run: "
                                 "never sent, so neither passed nor failed), 3 skipped")
    assert out.rstrip().endswith(report["verdict"])  # the summary line says the same


# --- claims, versions, unusable engines ---------------------------------------

def test_unclaimed_variants_and_ops_are_skipped_never_passed(capsys, tmp_path):
    dm = case("start-moves", {"op": "moves"}, {"moves": ["e2e4"]}, variant="double-move")
    tree = write_tree(tmp_path / "cases", extra=[dm])
    code, out, _, report, outcomes = run_json(
        capsys, tmp_path, tree, "--engine", toy("toy", "--variants", "chess", "--ops", "moves,fen"))
    assert code == 0
    assert outcomes["chess/toy/perft-3"] == "skipped"
    assert outcomes["double-move/toy/start-moves"] == "skipped"
    assert lines_of(report, "chess/toy/perft-3") == [
        "doublecheck-oracle does not claim operation perft in its hello"]
    assert lines_of(report, "double-move/toy/start-moves") == [
        "doublecheck-oracle does not claim variant double-move in its hello"]
    assert report["totals"]["passed"] == 5 and report["totals"]["skipped"] == 2


def test_the_table_leaves_out_the_variants_an_engine_never_claimed(capsys, tmp_path):
    """A chess engine's table has chess rows only, not a row of zeros (but for the skips) for
    each other variant; one line counts what their cases were, and the JSON keeps every row."""
    others = [case("start-moves", {"op": "moves"}, {"moves": ["e2e4"]}, variant=v)
              for v in ("double-move", "marseillais", "progressive-scottish")]
    others.append(case("start-play", {"op": "play", "moves": ["e2e4"]}, {"fen": "x"}, variant="double-move"))
    tree = write_tree(tmp_path / "cases", extra=others)
    engine = toy("toy", "--variants", "chess")
    code, out, _, report, _ = run_json(capsys, tmp_path, tree, "--engine", engine)
    assert code == 0
    table = out.split("\n\n")[0].splitlines()[2:]   # after the engine line and the header
    unclaimed = "3 variants not claimed by the engine: 4 cases skipped (double-move, marseillais, " \
                "progressive-scottish)"
    assert [row.split()[0] for row in table] == ["chess"] * 4 + ["all", "3"]
    assert table[-1] == unclaimed
    assert {row["variant"] for row in report["summary"]} == {
        "chess", "double-move", "marseillais", "progressive-scottish"}
    code, out, _ = run(capsys, tree, "--engine", engine, "--format", "markdown")
    assert "| double-move |" not in out and "| chess | moves |" in out
    assert f"\n\n{unclaimed}\n" in out


def test_protocol_version_mismatch_stops_the_run(capsys, tmp_path, tree):
    code, out, err = run(capsys, tree, "--engine", toy("toy", "--protocol", "2"),
                         "--json", str(tmp_path / "r.json"))
    assert code == 2 and out == ""
    assert "the engine speaks protocol version '2'; this harness speaks 1" in err
    assert not (tmp_path / "r.json").exists()


@pytest.mark.parametrize("argv,message", [
    (["--engine", "/no/such/engine --flag"], "cannot start the engine"),
    (["--engine", ""], "--engine: names no program"),
    (["--adapter", "no_such_module_here:Engine"], "cannot import 'no_such_module_here'"),
    (["--adapter", "doublecheck.harness.engines"], "--adapter wants module:Class"),
    (["--adapter", "doublecheck.harness.engines:NoSuchClass"], "has no 'NoSuchClass'"),
])
def test_unusable_engine_is_a_clear_error(capsys, tree, argv, message):
    code, out, err = run(capsys, tree, *argv)
    assert code == 2 and message in err and "Traceback" not in err


def test_adapter_in_process(capsys, tmp_path, tree):
    code, out, _, report, outcomes = run_json(
        capsys, tmp_path, tree, "--adapter", "tests.toy_engines.adapters:ChessMovesOnly")
    assert code == 0 and report["engine"]["name"] == "chess-moves-only"
    assert [outcomes[i] for i in ALL_IDS] == ["passed"] * 4 + ["skipped"] * 2
    code, out, _, report, outcomes = run_json(
        capsys, tmp_path, tree, "--adapter", "tests.toy_engines.adapters:Raises")
    assert code == 1
    assert lines_of(report, "chess/toy/start-moves")[0].startswith(
        "internal-error: ZeroDivisionError: integer division or modulo by zero (adapters.py:")


def test_adapter_through_jobs_runs_in_serve_processes(capsys, tmp_path, tree):
    code, out, _, report, outcomes = run_json(
        capsys, tmp_path, tree, "--adapter", "tests.toy_engines.adapters:ChessMovesOnly",
        "--jobs", "2")
    assert code == 0 and report["jobs"] == 2
    assert [outcomes[i] for i in ALL_IDS] == ["passed"] * 4 + ["skipped"] * 2


# --- xfail ------------------------------------------------------------------

def test_xfail_turns_known_failures_into_xfailed(capsys, tmp_path, tree):
    xfail = tmp_path / "xfail.txt"
    xfail.write_text("# known\nchess/toy/castling-moves   kingside castling not done yet\n")
    code, out, _, report, outcomes = run_json(capsys, tmp_path, tree, "--engine",
                                              toy("missing_move"), "--xfail", str(xfail))
    assert code == 0
    assert outcomes["chess/toy/castling-moves"] == "xfailed"
    entry = next(c for c in report["cases"] if c["id"] == "chess/toy/castling-moves")
    assert entry["actual"] == "failed" and entry["xfail_reason"] == "kingside castling not done yet"
    assert "1 xfailed, 0 unexpected passes" in out


def test_xfail_that_passes_fails_the_run(capsys, tmp_path, tree):
    xfail = tmp_path / "xfail.txt"
    xfail.write_text("chess/toy/start-moves   was broken once\nchess/toy/gone   renamed long ago\n")
    code, out, err, report, outcomes = run_json(capsys, tmp_path, tree, "--xfail", str(xfail))
    assert code == 1
    assert outcomes["chess/toy/start-moves"] == "xpassed"
    assert "UNEXPECTED PASS chess/toy/start-moves" in out
    assert "0 xfailed, 1 unexpected passes" in out
    assert "no case has the id chess/toy/gone" in err and report["stale_xfail"] == ["chess/toy/gone"]


def test_bad_xfail_file_is_a_usage_error(capsys, tmp_path, tree):
    xfail = tmp_path / "xfail.txt"
    xfail.write_text("not-an-id because\nchess/toy/a x\nchess/toy/a y\n")
    code, out, err = run(capsys, tree, "--xfail", str(xfail))
    assert code == 2
    assert "xfail.txt:1: 'not-an-id' is not a case id" in err
    assert "xfail.txt:3: chess/toy/a is listed twice" in err
    code, out, err = run(capsys, tree, "--xfail", str(tmp_path / "missing.txt"))
    assert code == 2 and "cannot read the xfail file" in err


def test_write_xfail_baseline_then_run_green(capsys, tmp_path, tree):
    baseline = tmp_path / "baseline.txt"
    code, out, err = run(capsys, tree, "--engine", toy("crash"), "--write-xfail", str(baseline))
    assert code == 1
    text = baseline.read_text()
    entries = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert entries == ["chess/toy/trigger-moves  error: crash: the engine closed its output "
                       "(exit status 3); it will be restarted"]
    code, out, err = run(capsys, tree, "--engine", toy("crash"), "--xfail", str(baseline))
    assert code == 0 and "1 xfailed" in out
    # an existing file is never replaced without --force
    code, out, err = run(capsys, tree, "--engine", toy("missing_move"), "--write-xfail", str(baseline))
    assert code == 2 and "exists; pass --force" in err and baseline.read_text() == text
    code, out, err = run(capsys, tree, "--engine", toy("missing_move"), "--xfail", str(baseline),
                         "--write-xfail", str(baseline), "--force")
    assert code == 1  # trigger-moves passes now: an unexpected pass
    entries = [line.split()[0] for line in baseline.read_text().splitlines()
               if line and not line.startswith("#")]
    assert entries == ["chess/toy/castling-moves"]  # the passing entry dropped, the new failure added


# --- reports ----------------------------------------------------------------

def test_junit_report(capsys, tmp_path, tree):
    path = tmp_path / "junit.xml"
    code, out, err = run(capsys, tree, "--engine", toy("missing_move"), "--junit", str(path),
                         "--max-nodes", "100")
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites"
    assert (root.get("tests"), root.get("failures"), root.get("errors"), root.get("skipped")) == (
        "6", "1", "0", "1")
    cases = {c.get("name"): c for c in root.iter("testcase")}
    assert set(cases) == set(ALL_IDS)
    failure = cases["chess/toy/castling-moves"].find("failure")
    assert failure is not None and "missing (expected, not produced): e1g1 (O-O)" in failure.text
    assert cases["chess/toy/perft-3"].find("skipped") is not None
    assert cases["chess/toy/start-moves"].find("failure") is None
    assert cases["chess/toy/start-moves"].get("classname") == "chess.toy"


def test_markdown_report(capsys, tmp_path, tree):
    code, out, err = run(capsys, tree, "--engine", toy("missing_move"), "--format", "markdown")
    assert code == 1
    assert out.startswith("## doublecheck: doublecheck-oracle\n")
    assert "**FAILED: 5 passed, 1 failed, 0 errors, 0 skipped**" in out
    assert "| variant | op | passed | failed | error | skipped |" in out
    assert "| chess | moves | 3 | 1 | 0 | 0 |" in out
    assert "<details><summary>FAILED <code>chess/toy/castling-moves</code>" in out
    assert "missing (expected, not produced): e1g1 (O-O)" in out


def test_json_report_shape(capsys, tmp_path, tree):
    code, out, err, report, outcomes = run_json(capsys, tmp_path, tree, "--max-nodes", "100")
    assert report["exit_code"] == code == 0
    assert report["totals"] == {"passed": 5, "failed": 0, "error": 0, "skipped": 1,
                                "xfailed": 0, "xpassed": 0}
    assert {(s["variant"], s["op"]) for s in report["summary"]} == {
        ("chess", "moves"), ("chess", "perft"), ("chess", "fen")}
    assert report["selected"] == 6 and report["interrupted"] is False


# --- interruption -----------------------------------------------------------

@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupted_run_still_writes_its_reports(tmp_path, tree, sig):
    marker = tmp_path / "hanging"
    report = tmp_path / "report.json"
    junit = tmp_path / "junit.xml"
    env = dict(os.environ, TOY_HANG_MARKER=str(marker))
    proc = subprocess.Popen(
        [sys.executable, "-m", "doublecheck", "run", "--cases-dir", str(tree), "--engine", toy("hang"),
         "--timeout", "120", "--json", str(report), "--junit", str(junit)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=default_ctrl_c)
    try:
        deadline = time.monotonic() + 60
        while not marker.exists() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert marker.exists()
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 130
    assert "Traceback" not in err and "interrupted" in err
    data = json.loads(report.read_text())
    assert data["interrupted"] is True and data["exit_code"] == 130
    assert [(c["id"], c["outcome"]) for c in data["cases"]] == [("chess/toy/start-moves", "passed")]
    assert "INTERRUPTED: 1 passed" in out
    assert ET.parse(junit).getroot().get("tests") == "1"


# --- the whole suite through the protocol -------------------------------------

def test_full_suite_passes_through_doublecheck_serve(capsys, tmp_path, monkeypatch):
    from doublecheck.oracle import api
    monkeypatch.chdir(ROOT)
    path = tmp_path / "suite.json"
    serve = " ".join(shlex.quote(a) for a in [sys.executable, "-m", "doublecheck", "serve"])
    code = main(["run", "--engine", serve, "--max-nodes", "5000", "--jobs", "2",
                 "--timeout", "60", "--json", str(path)])
    out, err = capsys.readouterr()
    report = json.loads(path.read_text())
    assert code == 0, out[-5000:]
    totals = report["totals"]
    assert totals["failed"] == totals["error"] == 0 and totals["passed"] > 1000
    assert {c["variant"] for c in report["cases"] if c["outcome"] == "passed"} == set(api.VARIANTS)
    skipped = [c for c in report["cases"] if c["outcome"] == "skipped"]
    # only by --max-nodes, and the cases written for a non-default option value
    assert all(c["lines"][0].startswith(("expects ", "written for ")) for c in skipped)


@pytest.mark.parametrize("jobs", ["1", "2", "auto"])
@pytest.mark.parametrize("target, why", [
    ("tests.toy_engines.adapters:ForgetsEnPasant",
     "module 'tests.toy_engines.adapters' has no 'ForgetsEnPasant' "
     "(from --adapter tests.toy_engines.adapters:ForgetsEnPasant)"),
    ("tests.toy_engines.adapterz:ForgetsEnPassant",
     "cannot import 'tests.toy_engines.adapterz' for --adapter: ModuleNotFoundError: "
     "No module named 'tests.toy_engines.adapterz'"),
])
def test_an_adapter_that_cannot_be_found_says_why_whatever_the_jobs(capsys, tree, jobs, target, why):
    """With --jobs 2 the adapter would run in server processes of its own; the name is
    looked up first, so the message is the same as in one process, not a server's crash."""
    code, out, err = run(capsys, tree, "--adapter", target, "--jobs", jobs, "--quiet")
    assert code == 2 and out == ""
    assert err == f"error: cannot use adapter {target}: {why}\n"
