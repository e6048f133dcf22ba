"""Every generated chess case agrees with python-chess, and the committed files are current."""

import json

import chess
import pytest

from doublecheck.casefiles import load_cases
from python_chess_perft import divide
from doublecheck.cli import main

CASES = [c for c in load_cases()[0] if c.generated and c.variant == "chess"]
REASONS = {
    chess.Termination.CHECKMATE: "checkmate",
    chess.Termination.STALEMATE: "stalemate",
    chess.Termination.INSUFFICIENT_MATERIAL: "dead-position",
    chess.Termination.SEVENTYFIVE_MOVES: "seventy-five-moves",
    chess.Termination.FIVEFOLD_REPETITION: "fivefold-repetition",
}


def board_after(request) -> chess.Board:
    board = chess.Board(request.get("fen", chess.STARTING_FEN))
    for token in request.get("moves", []):
        board.push_uci(token)
    return board


def identity(board: chess.Board) -> tuple:
    ep = board.ep_square if board.has_legal_en_passant() else None
    return (board.board_fen(), board.turn, board.castling_rights, ep,
            board.halfmove_clock, board.fullmove_number)


def test_generated_cases_exist():
    ops = {c.request["op"] for c in CASES}
    assert ops == {"moves", "play", "perft"}
    # ten positions, each at depth 2 (with divide) and depth 3
    assert len([c for c in CASES if c.request["op"] == "perft"]) == 20


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_generated_case_matches_python_chess(case):
    board = board_after(case.request)
    op = case.request["op"]
    if op == "moves":
        assert set(case.expect["moves"]) == {m.uci() for m in board.legal_moves}
    elif op == "play":
        assert identity(chess.Board(case.expect["fen"])) == identity(board)
        status, outcome = case.expect["status"], board.outcome()
        assert status["over"] == (outcome is not None)
        if outcome:
            assert (status["result"], status["reason"]) == (outcome.result(), REASONS[outcome.termination])
        else:
            claims = {"fifty-moves"} if board.halfmove_clock >= 100 else set()
            claims |= {"threefold-repetition"} if board.is_repetition(3) else set()
            assert (status["result"], status["reason"]) == (None, None)
            assert set(status["claimable"]) == claims
    elif op == "perft":
        counts = divide(board, case.request["depth"])
        if "divide" in case.expect:
            assert case.expect["divide"] == counts
        assert case.expect["nodes"] == sum(counts.values())
    else:
        pytest.fail(f"no python-chess check for op {op}")


def test_generated_files_are_up_to_date(capsys):
    assert main(["generate", "--check"]) == 0, capsys.readouterr().out


def test_generate_never_overwrites_a_curated_file(tmp_path, capsys):
    curated = tmp_path / "chess" / "generated-perft.json"
    curated.parent.mkdir()
    curated.write_text(json.dumps({"variant": "chess", "generated": False, "cases": []}))
    before = curated.read_text()
    assert main(["generate", "--cases-dir", str(tmp_path)]) == 2
    assert "generated-perft.json" in capsys.readouterr().err
    assert curated.read_text() == before


def test_generate_check_names_stale_files(tmp_path, capsys):
    assert main(["generate", "--check", "--cases-dir", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "missing: " in out and "generated-playouts.json" in out
    assert main(["generate", "--cases-dir", str(tmp_path)]) == 0
    capsys.readouterr()
    assert main(["generate", "--check", "--cases-dir", str(tmp_path)]) == 0
    target = tmp_path / "chess" / "generated-perft.json"
    target.write_text(target.read_text().replace('"nodes": ', '"nodes": 1'))
    assert main(["generate", "--check", "--cases-dir", str(tmp_path)]) == 1
    assert "differs: " in capsys.readouterr().out
