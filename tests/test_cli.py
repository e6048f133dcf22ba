"""The command-line contract: JSON shapes, readable text, errors without tracebacks, help."""

import json
import subprocess
import sys
from pathlib import Path

import chess
import pytest

from doublecheck.cli import main

ROOT = Path(__file__).resolve().parent.parent
START_MOVES = {m.uci() for m in chess.Board().legal_moves}


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *argv):
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def test_moves_json(capsys):
    result = run_json(capsys, "moves")
    assert list(result) == ["moves"]
    assert set(result["moves"]) == START_MOVES
    assert len(result["moves"]) == 20


def test_moves_after_moves_json(capsys):
    board = chess.Board()
    for san in ["e4", "e5", "Nf3", "Nc6", "Bc4", "Nf6"]:
        board.push_san(san)
    result = run_json(capsys, "moves", "--moves", "e2e4 e7e5 g1f3 b8c6 f1c4 g8f6")
    assert set(result["moves"]) == {m.uci() for m in board.legal_moves}
    assert "e1g1" in result["moves"]


def test_turns_json_in_chess_are_the_moves(capsys):
    result = run_json(capsys, "turns", "--variant", "chess")
    assert list(result) == ["turns"]
    assert set(result["turns"]) == START_MOVES


def test_perft_json(capsys):
    assert run_json(capsys, "perft", "--depth", "3") == {"nodes": 8902}
    result = run_json(capsys, "perft", "--depth", "2", "--divide")
    assert result["nodes"] == 400
    assert result["divide"] == {m: 20 for m in START_MOVES}
    assert run_json(capsys, "perft", "--depth", "2", "--turns") == {"nodes": 400}


def test_play_json_accepts_san_and_coordinates(capsys):
    result = run_json(capsys, "play", "--moves", "e4 e7e5 Nf3")
    board = chess.Board()
    for san in ["e4", "e5", "Nf3"]:
        board.push_san(san)
    assert set(result) == {"fen", "status"}
    assert chess.Board(result["fen"]) == board
    assert result["status"] == {"over": False, "result": None, "reason": None, "claimable": []}


def test_status_json_checkmate(capsys):
    status = run_json(capsys, "status", "--moves", "f2f3 e7e5 g2g4 d8h4")["status"]
    assert (status["over"], status["result"], status["reason"]) == (True, "0-1", "checkmate")


def test_status_json_threefold_is_claimable_not_automatic(capsys):
    shuffle = "g1f3 g8f6 f3g1 f6g8 " * 2
    status = run_json(capsys, "status", "--moves", shuffle)["status"]
    assert status == {"over": False, "result": None, "reason": None,
                      "claimable": ["threefold-repetition"]}


def test_fen_json_normalises(capsys):
    fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
    result = run_json(capsys, "fen", "--fen", fen)
    assert result == {"fen": "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"}


def test_text_output(capsys):
    code, out, _ = run(capsys, "moves")
    assert code == 0 and out.splitlines() == sorted(START_MOVES)
    code, out, _ = run(capsys, "perft", "--depth", "2", "--divide")
    lines = out.splitlines()
    assert code == 0 and "e2e4: 20" in lines and lines[-1] == "Nodes: 400"
    code, out, _ = run(capsys, "status", "--moves", "f2f3 e7e5 g2g4 d8h4")
    assert code == 0 and "Black wins" in out and "checkmate" in out
    code, out, _ = run(capsys, "play", "--moves", "e2e4")
    assert code == 0 and out.splitlines()[0].startswith("rnbqkbnr/pppppppp/8/8/4P3/")
    assert "in progress" in out


ERRORS = [
    (["moves", "--fen", "not a fen"], "invalid-fen"),
    (["moves", "--fen", "4k3/8/8/8/8/8/8/4K3 w K - 0 1"], "invalid-fen"),
    (["perft", "--depth", "1", "--variant", "no-such-variant"], "unknown-variant"),
    (["play", "--moves", "e2e4 e2e4"], "illegal-move"),
    (["play", "--moves", "e2e5"], "illegal-move"),
    (["status", "--moves", "!!"], "invalid-move-text"),
]


@pytest.mark.parametrize("argv,code", ERRORS, ids=[c for _, c in ERRORS])
def test_errors_are_one_line_and_exit_2(capsys, argv, code):
    status, out, err = run(capsys, *argv)
    assert status == 2
    assert out == ""
    assert len(err.splitlines()) == 1 and err.startswith(f"error: {code}: ")
    status, out, err = run(capsys, *argv, "--json")
    assert status == 2
    answer = json.loads(out)
    assert answer["error"]["code"] == code and answer["error"]["message"]
    assert err.startswith(f"error: {code}: ")


def test_module_entry_point_has_no_traceback():
    proc = subprocess.run([sys.executable, "-m", "doublecheck", "play", "--moves", "e2e4 e7e5 e1e3"],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("error: illegal-move: ")
    proc = subprocess.run([sys.executable, "-m", "doublecheck", "moves", "--json"],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0 and set(json.loads(proc.stdout)["moves"]) == START_MOVES


@pytest.mark.parametrize("command", [[], ["run"], ["moves"], ["turns"], ["perft"], ["play"],
                                     ["status"], ["fen"], ["generate"], ["rules"],
                                     ["serve"]])
def test_help_teaches_with_an_example(capsys, command):
    with pytest.raises(SystemExit) as stop:
        main(command + ["--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    assert "usage: doublecheck" in out and "examples:" in out
    assert "doublecheck " + (command[0] if command else "run") in out.split("examples:")[1]


def test_version_comes_from_the_installed_metadata(capsys):
    from importlib.metadata import version
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"doublecheck {version('doublecheck-chess')}"


def subcommand_parsers():
    """{command: its parser}, as ``main`` builds them."""
    from doublecheck.cli import build_parser
    parser = build_parser()
    (sub,) = [a for a in parser._actions if a.dest == "command"]
    return sub.choices


def test_every_command_has_a_named_handler_in_the_cli_module():
    """A reader (or an IDE) follows ``main`` to a command: the parser's handler is a function
    of doublecheck.cli with the command's name, ``<command>_handler`` (the protocol lookups
    share ``lookup_handler``), never a lambda or a handler made from strings."""
    from doublecheck import cli
    from doublecheck.harness.operations import OPERATIONS
    parsers = subcommand_parsers()
    assert {"run", "serve", "explain", "rules", "mutants", "desk", "docs"} <= set(parsers)
    for command, parser in parsers.items():
        handler = parser.get_default("handler")
        name = "lookup_handler" if command in OPERATIONS else f"{command.replace('-', '_')}_handler"
        assert handler is getattr(cli, name, None), (command, handler)
