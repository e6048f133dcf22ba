"""The curated chess cases agree with python-chess, so their expected values stay honest.

Every curated (non-generated) chess case is recomputed with python-chess:
move and turn lists, perft counts up to depth 3 (with divides), FENs after
``play`` and ``fen`` requests, game status, and expected errors. The status
is derived from python-chess the way rulings G3, G3.1 and G4 describe it:
checkmate, stalemate, dead position (python-chess's insufficient material,
which matches the G4 list), then the seventy-five-move rule and fivefold
repetition; claims only while the game goes on, counted over the positions
from the request's FEN onwards. The oracle plays no part here.
"""

import chess
import pytest

from python_chess_perft import divide, perft
from doublecheck.casefiles import load_cases

MAX_PERFT_DEPTH = 3

# FENs the project rejects (G9: six fields, fullmove from 1) but python-chess accepts.
STRICTER_THAN_PYTHON_CHESS = {
    "chess/invalid-fen/four-fields",
    "chess/invalid-fen/five-fields",
    "chess/invalid-fen/fullmove-zero",
}

# Move text that only the project's notation gives a meaning to (G8: the
# trailing comma of a turn that goes on); python-chess has no such form.
PROJECT_NOTATION_ONLY = {
    "chess/san/trailing-comma-refused",
}


def curated_chess_cases():
    cases, _ = load_cases()
    # (a case written for a rule option value holds only under it; python-chess plays the defaults)
    chosen = [c for c in cases if c.variant == "chess" and not c.generated and not c.options]
    return [c for c in chosen
            if c.request["op"] != "perft" or c.request["depth"] <= MAX_PERFT_DEPTH]


CASES = curated_chess_cases()


def board_after(request) -> chess.Board:
    board = chess.Board(request.get("fen", chess.STARTING_FEN))
    assert board.is_valid(), f"invalid start position: {board.status()!r}"
    for token in request.get("moves", []):
        board.push(parse(board, token))
    return board


def parse(board, token) -> chess.Move:
    """Coordinates first, SAN otherwise (python-chess raises on bad or illegal text)."""
    try:
        move = chess.Move.from_uci(token)
    except ValueError:
        return board.parse_san(token)
    return move if board.is_legal(move) else board.parse_san(token)


def identity(board):
    ep = board.ep_square if board.has_legal_en_passant() else None
    return board.board_fen(), board.turn, board.clean_castling_rights(), ep


def status(board) -> dict:
    replay = board.root()
    seen = [identity(replay)]
    for move in board.move_stack:
        replay.push(move)
        seen.append(identity(replay))
    count = seen.count(seen[-1])
    reason = None
    if not any(board.legal_moves):
        reason = "checkmate" if board.is_check() else "stalemate"
    elif board.is_insufficient_material():
        reason = "dead-position"
    elif board.halfmove_clock >= 150:
        reason = "seventy-five-moves"
    elif count >= 5:
        reason = "fivefold-repetition"
    if reason:
        winner = {"checkmate": "0-1" if board.turn == chess.WHITE else "1-0"}
        return {"over": True, "result": winner.get(reason, "1/2-1/2"), "reason": reason, "claimable": []}
    claimable = [name for name, holds in [("fifty-moves", board.halfmove_clock >= 100),
                                          ("threefold-repetition", count >= 3)] if holds]
    return {"over": False, "result": None, "reason": None, "claimable": claimable}


def normal(fen: str) -> str:
    return chess.Board(fen).fen()


def check_error(case):
    code = case.expect["error"]["code"]
    request = case.request
    if code == "invalid-fen":
        try:
            accepted = chess.Board(request["fen"]).is_valid()
        except ValueError:
            accepted = False
        assert accepted == (case.id in STRICTER_THAN_PYTHON_CHESS)
        return
    assert code in ("illegal-move", "invalid-move-text"), code
    if case.id in PROJECT_NOTATION_ONLY:
        return
    *line, last = request["moves"]
    board = board_after({**request, "moves": line})
    wanted = chess.InvalidMoveError if code == "invalid-move-text" else (
        chess.IllegalMoveError, chess.AmbiguousMoveError)
    with pytest.raises(wanted):
        parse(board, last)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case_agrees_with_python_chess(case):
    if "error" in case.expect:
        check_error(case)
        return
    request, expect = case.request, case.expect
    op = request["op"]
    if op == "fen":
        assert expect["fen"] == normal(request["fen"])
        return
    board = board_after(request)
    legal = {m.uci() for m in board.legal_moves}
    if "moves" in expect:
        assert set(expect["moves"]) == legal
    if "turns" in expect:
        assert set(expect["turns"]) == legal
    if "fen" in expect:
        assert normal(expect["fen"]) == board.fen()
    if "status" in expect:
        want = dict(expect["status"], claimable=sorted(expect["status"]["claimable"]))
        assert want == status(board)
    if op == "perft":
        if "divide" in expect:
            assert expect["divide"] == divide(board, request["depth"])
        assert expect["nodes"] == perft(board, request["depth"])


def test_the_cross_check_covers_the_curated_files():
    topics = {c.topic for c in CASES}
    assert {"perft", "castling", "en-passant", "promotion", "checkmate", "stalemate", "dead-position",
            "repetition", "fifty-moves", "moves", "san", "invalid-fen"} <= topics
