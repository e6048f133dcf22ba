"""symmetric-monster: the case files, the rule catalogue, and properties of the oracle.

The properties run on positions reached by seeded random play from the start
(so they include drops, double turns under way and captured kings) and, for
the comparison with python-chess, on random positions without double-pieces.
"""

import functools
import random

import chess
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from doublecheck.oracle import api, variants
from doublecheck.oracle.errors import RulesError
from doublecheck.oracle.perft import divide, perft, perft_turns, turn_text
from doublecheck.casefiles import load_cases, load_rules
from doublecheck.harness.compare import compare

VARIANT = "symmetric-monster"
RULES = variants.get(VARIANT)
ALL_CASES, PROBLEMS = load_cases()
# (cases written for a rule option value are judged under it: tests/test_options.py)
CASES = [c for c in ALL_CASES if c.variant == VARIANT and not c.options]
CURATED = [c for c in CASES if not c.generated]
SLOW = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def answer(request):
    try:
        return {"ok": True, **api.handle(dict(request))}
    except RulesError as e:
        return {"ok": False, "error": {"code": e.code, "message": e.message}}


# ------------------------------------------------------------------ the cases

def test_case_files_load_cleanly():
    mine = [p for p in PROBLEMS if VARIANT in p]
    assert not mine, "\n".join(mine)
    assert len(CURATED) >= 100


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case_passes_against_the_oracle(case):
    assert compare(case.variant, case.expect, answer(case.request)) == []


def test_every_seed_rule_and_ruling_is_cited_by_a_curated_case():
    cited = {r for c in CURATED for r in c.rules}
    wanted = {f"S{n}" for n in range(1, 12)} | {f"SM-R{n}" for n in range(1, 13)} | {"SM-setup"}
    assert wanted - cited == set()


def test_cited_rules_apply_to_this_variant():
    catalogue, _ = load_rules()
    wrong = {(c.id, r) for c in CASES for r in c.rules if VARIANT not in catalogue[r]["variants"]}
    assert wrong == set()


def test_generated_playouts_reach_the_special_events():
    text = " ".join(c.description for c in CASES if c.topic == "generated-playouts")
    for event in ("drop", "single king captured", "double-king captured", "promotion"):
        assert event in text


# --------------------------------------------------------- random positions

@functools.lru_cache(maxsize=None)
def playout(seed):
    """The positions of a seeded random game of at most 70 actions, half of them chosen among
    the drops, promotions and captures when there are any."""
    rng = random.Random(seed)
    pos, seen = RULES.start, [RULES.start]
    for _ in range(70):
        moves = sorted(RULES.legal_moves(pos), key=lambda m: RULES.move_text(pos, m))
        if not moves:
            break
        special = [m for m in moves if m.drop or m.promotion or pos.board[m.to] is not None]
        pool = special if special and rng.random() < 0.5 else moves
        pos = RULES.play(pos, rng.choice(pool))
        seen.append(pos)
    return tuple(seen)


@st.composite
def positions(draw):
    game = playout(draw(st.integers(0, 40)))
    return game[draw(st.integers(0, len(game) - 1))]


@SLOW
@given(positions())
def test_divide_sums_to_perft(pos):
    table = divide(RULES, pos, 2)
    assert sum(table.values()) == perft(RULES, pos, 2)
    turns = divide(RULES, pos, 1, turns=True)
    assert sum(turns.values()) == perft_turns(RULES, pos, 1) == len(RULES.turns(pos))


@SLOW
@given(positions())
def test_every_listed_turn_plays(pos):
    firsts = set()
    for line, after in RULES.turns(pos):
        text = turn_text(RULES, pos, line)
        q = pos
        for token in text.split(","):
            q = RULES.play(q, RULES.parse_move(q, token))
        assert q == after and not RULES.mid_turn(q)
        assert q.turn != pos.turn
        starts_double = line[0].drop is not None or pos.board[line[0].frm].startswith("*")
        assert len(line) == (2 if starts_double and RULES.mid_turn(RULES.play(pos, line[0])) else 1)
        firsts.add(RULES.move_text(pos, line[0]))
    assert firsts == {RULES.move_text(pos, m) for m in RULES.legal_moves(pos)}


@SLOW
@given(positions())
def test_fen_round_trip_with_fields_7_and_8(pos):
    text = RULES.fen(pos)
    fields = text.split()
    assert len(fields) == 8
    assert fields[7] == ("-" if not RULES.mid_turn(pos) else RULES.action_text(pos.state.first))
    back = RULES.parse_fen(text)
    assert back == pos.replace(ep=RULES.legal_ep(pos))
    assert RULES.fen(back) == text


@SLOW
@given(positions())
def test_status_and_moves_agree(pos):
    status, moves = RULES.status(pos), RULES.legal_moves(pos)
    if status["reason"] in ("no-king", "no-legal-turn"):
        assert moves == []
    elif not RULES.mid_turn(pos):
        assert moves and RULES.has_king(pos.board, pos.turn)


# ------------------------------------------------------- against python-chess

MAIN_SQUARES = [f"{f}{r}" for r in range(1, 9) for f in "abcdefgh"]


@st.composite
def single_piece_positions(draw):
    """Only single pieces on ranks 1-8, both single kings, no double-king, no castling."""
    squares = draw(st.lists(st.sampled_from(MAIN_SQUARES), min_size=2, max_size=18, unique=True))
    placement = {squares[0]: "K", squares[1]: "k"}
    for sq in squares[2:]:
        letters = "NBRQnbrq" + ("Pp" if sq[1] not in "18" else "")
        placement[sq] = draw(st.sampled_from(letters))
    turn = draw(st.sampled_from("wb"))
    return placement, turn


def sm_fen(placement, turn):
    rows = []
    for rank in range(9, -1, -1):
        files = "abcdefgh" if 1 <= rank <= 8 else "cdef"
        row, empty = "", 0
        for f in files:
            piece = placement.get(f"{f}{rank}")
            if piece is None:
                empty += 1
            else:
                row += (str(empty) if empty else "") + piece
                empty = 0
        rows.append(row + (str(empty) if empty else ""))
    return f"{'/'.join(rows)} {turn} - - 0 1 - -"


@settings(max_examples=150, deadline=None)
@given(single_piece_positions())
def test_single_moves_match_python_chess_pseudo_legal_moves(data):
    placement, turn = data
    board = chess.Board(None)
    for sq, piece in placement.items():
        board.set_piece_at(chess.parse_square(sq), chess.Piece.from_symbol(piece))
    board.turn = turn == "w"
    ours = set(api.handle({"op": "moves", "variant": VARIANT, "fen": sm_fen(placement, turn)})["moves"])
    on_main_board = {m for m in ours if m[1] not in "09" and m[3] not in "09"}
    assert on_main_board == {m.uci() for m in board.pseudo_legal_moves}
    # the moves that leave ranks 1-8 are king, knight, bishop, rook or queen moves onto c0-f0 / c9-f9
    assert all(m[3] in "09" and m[2] in "cdef" for m in ours - on_main_board)


# ------------------------------------------------------------ bad input

@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80))
def test_garbage_fen_is_a_rules_error(text):
    try:
        api.handle({"op": "fen", "variant": VARIANT, "fen": text})
    except RulesError as e:
        assert e.code == "invalid-fen"


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=12))
def test_garbage_move_text_is_a_rules_error(text):
    try:
        api.handle({"op": "play", "variant": VARIANT, "moves": [text]})
    except RulesError as e:
        assert e.code in ("invalid-move-text", "illegal-move", "invalid-request")


@pytest.mark.parametrize("fields", ["Kk x", "Kk d4xe", "Kk K@a0", "Kk c0c1 extra", "kk -", "Kk z9z8"])
def test_bad_state_fields_are_invalid_fen(fields):
    with pytest.raises(RulesError) as err:
        api.handle({"op": "fen", "variant": VARIANT,
                    "fen": api.start_fen(VARIANT).rsplit(" ", 2)[0] + " " + fields})
    assert err.value.code == "invalid-fen"
