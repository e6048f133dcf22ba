"""Differential tests: the oracle's FIDE chess against python-chess.

Positions come from random play from the start position and from random
piece placements that python-chess accepts as valid.  In every one the two
must agree on the legal moves, SAN in both directions, the FEN, check,
checkmate, stalemate and insufficient material (G4).
"""

import chess
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from doublecheck.oracle import variants
from doublecheck.oracle.errors import RulesError

RULES = variants.get("chess")


def compare(board: chess.Board):
    fen = board.fen()
    pos = RULES.parse_fen(fen)
    assert RULES.fen(pos) == board.fen(en_passant="legal"), fen
    legal = RULES.legal_moves(pos)
    ours = {RULES.move_text(pos, m): m for m in legal}
    theirs = {m.uci(): m for m in board.legal_moves}
    assert set(ours) == set(theirs), (fen, sorted(set(ours) ^ set(theirs)))
    for text, move in ours.items():
        expected_san = board.san(theirs[text])
        assert RULES.san(pos, move) == expected_san, (fen, text)
        assert RULES.parse_move(pos, expected_san) == move, (fen, expected_san)
    status = RULES.status(pos)
    assert RULES.in_check(pos) == board.is_check(), fen
    assert (status["reason"] == "checkmate") == board.is_checkmate(), fen
    assert (status["reason"] == "stalemate") == board.is_stalemate(), fen
    assert RULES.dead_position(pos) == board.is_insufficient_material(), fen
    if status["reason"] == "checkmate":
        assert status["result"] == ("0-1" if board.turn == chess.WHITE else "1-0")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=120))
def test_random_games_agree(choices):
    board = chess.Board()
    for choice in choices:
        compare(board)
        moves = sorted(board.legal_moves, key=chess.Move.uci)
        if not moves:
            break
        board.push(moves[choice % len(moves)])


PIECES = "PNBRQpnbrq"


@st.composite
def random_boards(draw):
    squares = draw(st.lists(st.integers(0, 63), min_size=2, max_size=14, unique=True))
    board = chess.Board(None)
    board.set_piece_at(squares[0], chess.Piece.from_symbol("K"))
    board.set_piece_at(squares[1], chess.Piece.from_symbol("k"))
    for sq in squares[2:]:
        board.set_piece_at(sq, chess.Piece.from_symbol(draw(st.sampled_from(PIECES))))
    board.turn = draw(st.booleans())
    # ask for some rights, then keep those whose king and rook stand at home
    board.set_castling_fen(draw(st.sampled_from(["KQkq", "Kk", "Qq", "-", "K", "q"])))
    board.castling_rights = board.clean_castling_rights()
    return board


@settings(max_examples=300, deadline=None)
@given(random_boards())
def test_random_positions_agree(board):
    if board.status() != chess.STATUS_VALID:
        return
    compare(board)


@settings(max_examples=200, deadline=None)
@given(random_boards())
def test_oracle_accepts_what_python_chess_accepts(board):
    """Every FEN python-chess calls valid parses; one it rejects for a G9 reason is rejected too."""
    status = board.status()
    fen = board.fen()
    g9_reasons = (chess.STATUS_NO_WHITE_KING | chess.STATUS_NO_BLACK_KING | chess.STATUS_TOO_MANY_KINGS
                  | chess.STATUS_PAWNS_ON_BACKRANK | chess.STATUS_OPPOSITE_CHECK | chess.STATUS_BAD_CASTLING_RIGHTS)
    if status == chess.STATUS_VALID:
        RULES.parse_fen(fen)
    elif status & g9_reasons:
        try:
            RULES.parse_fen(fen)
        except RulesError as err:
            assert err.code == "invalid-fen"
        else:
            raise AssertionError(f"accepted invalid FEN {fen} (python-chess status {status!r})")


def test_en_passant_positions_agree():
    # en passant with the horizontal pin, the diagonal pin, and a plain capture
    for fen in ["8/8/8/K2pP2r/8/8/8/7k w - d6 0 1",
                "8/8/8/2k5/3pP3/8/8/6BK b - e3 0 1",
                "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1"]:
        compare(chess.Board(fen))
