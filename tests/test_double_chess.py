"""Double Chess (seed 003; rulings C1-C4): the oracle against its cases and against python-chess.

The differential property: a double-chess position whose pieces all stand on
files a-h and that has no castling rights is an orthodox position with eight
empty files added on the right.  Its legal moves that stay on a-h must be
exactly python-chess's legal moves on the 8x8 board, and the moves onto files
i-p must be exactly the ones worked out here from the geometry: sliders and
knights that reach past the h-file, and a king on the h-file stepping onto
unattacked i-squares.
"""

import chess
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from doublecheck.oracle import api, variants
from doublecheck.oracle.errors import RulesError
from doublecheck.oracle.perft import perft
from doublecheck.casefiles import load_cases
from doublecheck.harness.engines import OracleEngine
from doublecheck.harness.runner import run_case

VARIANT = "double-chess"
RULES = variants.get(VARIANT)
ALL_CASES, PROBLEMS = load_cases()
# (cases written for a rule option value are judged under it: tests/test_options.py)
CASES = [c for c in ALL_CASES if c.variant == VARIANT and not c.options]
WIDE = "abcdefghijklmnop"


def ask(**request):
    return api.handle({"variant": VARIANT, **request})


# ------------------------------------------------------------------ the case files

def test_case_files_are_clean():
    mine = [p for p in PROBLEMS if "double-chess" in p]
    assert mine == []
    topics = {c.topic for c in CASES}
    assert {"board", "castling", "castling-rights", "fen", "pawns", "game-end", "notation",
            "generated-perft", "generated-playouts"} <= topics


def test_every_rule_is_cited_by_a_curated_case():
    cited = {r for c in CASES if not c.generated for r in c.rules}
    wanted = {"C1", "C2", "C3", "C4", "DC-board", "DC-setup", "DC-castling-any-rook",
              "DC-castling-conditions", "DC-castle-once", "DC-inside-destinations",
              "DC-outside-destinations", "DC-fide-otherwise", "DC-castling-san"}
    assert wanted <= cited


def test_each_castling_is_tested_both_ways_for_both_colours():
    ids = {c.id.split("/")[-1] for c in CASES if c.topic == "castling"}
    for color in ("white", "black"):
        for rook in "aelp":
            for scenario in ("legal", "piece-between", "in-check", "passed-square-attacked",
                             "destination-attacked", "after-king-returned", "after-rook-returned"):
                assert f"{color}-{rook}-{scenario}" in ids
        for rook in "ap":
            assert f"{color}-{rook}-inner-rook-between" in ids


ENGINE = OracleEngine()
CLAIMS = ENGINE.hello()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case_passes_against_the_oracle(case):
    result = run_case(case, ENGINE, CLAIMS)
    assert result.outcome == "passed", "\n".join(result.lines)


# ------------------------------------------------------------------ setup and data

def test_start_position_is_the_seed_listing():
    """Square by square from the seed's words: R N B Q R N B Q K B N R Q B N R, pawns in front, Black alike."""
    pos = RULES.parse_fen(api.start_fen(VARIANT))
    g = RULES.geometry
    back = "RNBQRNBQKBNRQBNR"
    for i, f in enumerate(WIDE):
        assert pos.board[g.index[f"{f}1"]] == back[i]
        assert pos.board[g.index[f"{f}2"]] == "P"
        assert pos.board[g.index[f"{f}7"]] == "p"
        assert pos.board[g.index[f"{f}8"]] == back[i].lower()
        for rank in range(3, 7):
            assert pos.board[g.index[f"{f}{rank}"]] is None
    assert api.start_fen(VARIANT).split()[2] == "AELPaelp"


def test_castling_table_matches_the_seed():
    """King from the i-file; rook file -> (king's file, rook's file) as the seed lists them."""
    seed = {"l": ("k", "j"), "e": ("g", "h"), "p": ("m", "l"), "a": ("e", "f")}
    g = RULES.geometry
    seen = set()
    for rule in RULES.castle_rules:
        rank = "1" if rule.color == "w" else "8"
        rook_file = g.name[rule.rook_from][0]
        assert g.name[rule.king_from] == "i" + rank
        assert (g.name[rule.king_to], g.name[rule.rook_to]) == tuple(f + rank for f in seed[rook_file])
        assert rule.letter == (rook_file.upper() if rule.color == "w" else rook_file)
        seen.add((rule.color, rook_file))
    assert len(seen) == 8 == len(RULES.castle_rules)


def test_san_names_of_the_castlings():
    """One O per file the rook travels: O-O (l), O-O-O (e), O-O-O-O (p), O-O-O-O-O (a)."""
    names = {RULES.geometry.name[r.rook_from][0]: r.san for r in RULES.castle_rules if r.color == "w"}
    assert names == {"l": "O-O", "e": "O-O-O", "p": "O-O-O-O", "a": "O-O-O-O-O"}


# ------------------------------------------------------------------ differential with python-chess

def widen(board8: chess.Board) -> str:
    """The double-chess FEN of an orthodox position: eight empty files added on the right."""
    rows = []
    for row in board8.board_fen().split("/"):
        rows.append(row[:-1] + str(int(row[-1]) + 8) if row[-1].isdigit() else row + "8")
    fields = board8.fen().split()
    return " ".join(["/".join(rows), fields[1], "-"] + fields[3:])


def square_name(file, rank):
    return f"{WIDE[file]}{rank + 1}"


def piece_at(board8, file, rank):
    """The piece on (file, rank) of the wide board; files i-p are empty."""
    if not (0 <= rank < 8) or file > 7 or file < 0:
        return None
    return board8.piece_at(chess.square(file, rank))


def wide_square_attacked(board8, file, rank, by):
    """Is the empty square (file >= 8, rank) attacked by a piece of colour `by`? Pieces stand on a-h only."""
    for df, dr, kinds in ((-1, 0, (chess.ROOK, chess.QUEEN)),
                          (-1, 1, (chess.BISHOP, chess.QUEEN)), (-1, -1, (chess.BISHOP, chess.QUEEN))):
        f, r = file + df, rank + dr
        while 0 <= f and 0 <= r < 8:
            p = piece_at(board8, f, r)
            if p is not None:
                if p.color == by and p.piece_type in kinds:
                    return True
                break
            f, r = f + df, r + dr
    for df, dr in ((-1, 2), (-1, -2), (-2, 1), (-2, -1)):
        p = piece_at(board8, file + df, rank + dr)
        if p is not None and p.color == by and p.piece_type == chess.KNIGHT:
            return True
    for dr in (-1, 0, 1):
        p = piece_at(board8, file - 1, rank + dr)
        if p is not None and p.color == by and p.piece_type == chess.KING:
            return True
    pawn_rank = rank - 1 if by == chess.WHITE else rank + 1
    p = piece_at(board8, file - 1, pawn_rank)
    return p is not None and p.color == by and p.piece_type == chess.PAWN


def moves_onto_the_new_files(board8: chess.Board) -> set:
    """Every legal move from files a-h onto files i-p, worked out from the geometry."""
    us, found = board8.turn, set()
    king = board8.king(us)
    for sq, piece in board8.piece_map().items():
        if piece.color != us:
            continue
        f, r, frm = chess.square_file(sq), chess.square_rank(sq), chess.square_name(sq)
        targets = []
        kind = piece.piece_type
        if kind in (chess.ROOK, chess.QUEEN) and all(piece_at(board8, x, r) is None for x in range(f + 1, 8)):
            targets += [(x, r) for x in range(8, 16)]
        if kind in (chess.BISHOP, chess.QUEEN):
            for dr in (1, -1):
                x, y = f + 1, r + dr
                while x < 16 and 0 <= y < 8 and piece_at(board8, x, y) is None:
                    if x >= 8:
                        targets.append((x, y))
                    x, y = x + 1, y + dr
        if kind == chess.KNIGHT:
            targets += [(f + df, r + dr) for df, dr in ((1, 2), (1, -2), (2, 1), (2, -1))
                        if f + df >= 8 and 0 <= r + dr < 8]
        if kind == chess.KING and f == 7:
            without_king = board8.copy(stack=False)
            without_king.remove_piece_at(sq)
            targets += [(8, r + dr) for dr in (-1, 0, 1) if 0 <= r + dr < 8
                        and not wide_square_attacked(without_king, 8, r + dr, not us)]
            found |= {frm + square_name(x, y) for x, y in targets}
            continue
        if targets:
            # the piece leaves the a-h board for good: legal exactly when that exposes no check
            without = board8.copy(stack=False)
            without.remove_piece_at(sq)
            if not without.is_attacked_by(not us, king):
                found |= {frm + square_name(x, y) for x, y in targets}
    return found


def without_castling(board8: chess.Board) -> chess.Board:
    board8.castling_rights = chess.BB_EMPTY
    return board8


def check_against_python_chess(board8: chess.Board):
    fen = widen(board8)
    moves = set(ask(op="moves", fen=fen)["moves"])
    on_old_files = {m for m in moves if m[2] in "abcdefgh"}
    assert on_old_files == {m.uci() for m in board8.legal_moves}, fen
    assert moves - on_old_files == moves_onto_the_new_files(board8), fen


PIECES = st.sampled_from([chess.Piece(t, c) for t in (chess.PAWN, chess.KNIGHT, chess.BISHOP,
                                                       chess.ROOK, chess.QUEEN) for c in chess.COLORS])


@st.composite
def sparse_boards(draw):
    board = chess.Board(None)
    squares = draw(st.lists(st.integers(0, 63), min_size=2, max_size=14, unique=True))
    board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
    board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
    for sq in squares[2:]:
        piece = draw(PIECES)
        if piece.piece_type == chess.PAWN and chess.square_rank(sq) in (0, 7):
            continue
        board.set_piece_at(sq, piece)
    board.turn = draw(st.booleans())
    return board


@st.composite
def played_boards(draw):
    board = chess.Board()
    for choice in draw(st.lists(st.integers(0, 10_000), max_size=60)):
        legal = sorted(board.legal_moves, key=lambda m: m.uci())
        if not legal:
            break
        board.push(legal[choice % len(legal)])
    return chess.Board(board.fen())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(sparse_boards())
def test_differential_sparse_positions(board8):
    assume(board8.is_valid())
    check_against_python_chess(board8)


@settings(max_examples=60, deadline=None)
@given(played_boards())
def test_differential_played_positions(board8):
    without_castling(board8)
    assume(board8.is_valid())
    check_against_python_chess(board8)


def test_differential_examples():
    """Fixed positions that exercise each kind of move onto the new files."""
    for fen in ("4k3/8/8/8/3Q4/8/8/R3K2R w - - 0 1",        # queen rays and a rook line over e-h
                "8/8/8/4k3/8/6N1/8/4K2N w - - 0 1",         # knights on g and h
                "8/8/8/4k3/8/8/7K/r7 w - - 0 1",             # king on h2, rank 1 under attack
                "4k3/8/8/8/8/2b5/8/r3B2K w - - 0 1",         # pinned bishop may not leave
                "7k/8/8/8/8/8/5q2/7K w - - 0 1"):            # stalemate on 8x8; on 16 files the king has i1
        board8 = chess.Board(fen)
        assert board8.is_valid()
        check_against_python_chess(board8)


# ------------------------------------------------------------------ oracle properties

@st.composite
def oracle_positions(draw):
    """A position reached by legal moves from the start or a middlegame with castling lines open."""
    from doublecheck.authoring.generators.double_chess import MIDDLEGAMES
    fen = draw(st.sampled_from([api.start_fen(VARIANT)] + [f for _, f, _ in MIDDLEGAMES]))
    pos = RULES.parse_fen(fen)
    for choice in draw(st.lists(st.integers(0, 10_000), max_size=30)):
        legal = RULES.legal_moves(pos)
        if not legal:
            break
        castles = [m for m in legal if m.castle is not None]
        pick = castles if castles and choice % 2 else legal
        pos = RULES.play(pos, sorted(pick, key=lambda m: RULES.move_text(pos, m))[choice % len(pick)])
    return pos


@settings(max_examples=60, deadline=None)
@given(oracle_positions())
def test_fen_round_trip(pos):
    text = RULES.fen(pos)
    again = RULES.parse_fen(text)
    assert RULES.fen(again) == text
    assert RULES.identity(again) == RULES.identity(pos)
    assert (again.halfmove, again.fullmove) == (pos.halfmove, pos.fullmove)


@settings(max_examples=10, deadline=None)
@given(oracle_positions())
def test_divide_sums_to_perft(pos):
    fen = RULES.fen(pos)
    table = ask(op="perft", fen=fen, depth=2, divide=True)
    assert sum(table["divide"].values()) == table["nodes"] == ask(op="perft", fen=fen, depth=2)["nodes"]
    assert table["nodes"] == perft(RULES, pos, 2)
    assert set(table["divide"]) == set(ask(op="moves", fen=fen)["moves"])


@settings(max_examples=12, deadline=None)
@given(oracle_positions())
def test_san_and_coordinates_read_back(pos):
    for move in RULES.legal_moves(pos):
        assert RULES.parse_move(pos, RULES.san(pos, move)) == move
        assert RULES.parse_move(pos, RULES.move_text(pos, move)) == move


@settings(max_examples=40, deadline=None)
@given(oracle_positions())
def test_castling_removes_every_right_of_the_side(pos):
    for move in RULES.legal_moves(pos):
        if move.castle is not None:
            after = RULES.play(pos, move)
            assert not (after.castling & RULES.rights_of[pos.turn])
            assert after.castling == pos.castling - RULES.rights_of[pos.turn]


# ------------------------------------------------------------------ bad input

FEN_CHARS = "pnbrqkPNBRQK0123456789/ -wAELPaelpx"


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=FEN_CHARS, max_size=90))
def test_bad_fens_give_invalid_fen(text):
    try:
        ask(op="fen", fen=text)
    except RulesError as e:
        assert e.code == "invalid-fen"


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 200), st.sampled_from(list("pk/18AKQ -x")))
def test_mutated_start_fen_never_crashes(where, char):
    start = api.start_fen(VARIANT)
    where %= len(start)
    text = start[:where] + char + start[where + 1:]
    try:
        ask(op="fen", fen=text)
    except RulesError as e:
        assert e.code == "invalid-fen"


@pytest.mark.parametrize("token,code", [
    ("i1q1", "invalid-move-text"), ("a0a1", "invalid-move-text"), ("Zz9", "invalid-move-text"),
    ("i1g1", "illegal-move"), ("O-O-O-O-O", "illegal-move"), ("Nm2", "illegal-move"), ("", "invalid-move-text"),
])
def test_bad_moves_give_stable_codes(token, code):
    with pytest.raises(RulesError) as err:
        ask(op="play", moves=[token])
    assert err.value.code == code
