"""double-move-anul: the oracle against its case files, and against a second,
independent implementation of the turn machine built on python-chess.

``Ref`` below restates the rules (A1-A5) on python-chess boards: a first move
that captures or gives check ends the turn, a quiet first move is followed by
a second move of the same side whenever one exists, and only a move that ends
the turn may leave an en passant target.
"""

import random

import chess
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from doublecheck.oracle import api, variants
from doublecheck.oracle.chess import Chess
from doublecheck.oracle.errors import RulesError
from doublecheck.casefiles import load_cases, load_rules
from doublecheck.harness.compare import compare
from doublecheck.harness.engines import OracleEngine

V = "double-move-anul"
RULES = variants.get(V)
# (cases written for a rule option value are judged under it: tests/test_options.py)
CASES = [c for c in load_cases()[0] if c.variant == V and not c.options]
REF_NODE_LIMIT = 12_000   # larger perft values were checked once, outside the test run

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
ORIGINS = [
    START,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "1r5k/8/8/4p3/3p4/8/4P2r/K7 w - - 0 1",
    "4k3/8/8/8/3p4/8/4P3/4K1N1 w - - 0 1",
]


# ---------------------------------------------------------------- reference

class Illegal(Exception):
    pass


class Ref:
    """One moment of a double-move-anul game on a python-chess board."""

    def __init__(self, board: chess.Board, mid: bool = False):
        self.board, self.mid = board, mid

    @classmethod
    def from_fen(cls, fen: str) -> "Ref":
        fields = fen.split()
        return cls(chess.Board(" ".join(fields[:6])), len(fields) > 6 and fields[6] == "m")

    def moves(self):
        return list(self.board.legal_moves)

    def brakes(self, move) -> bool:
        return self.board.is_capture(move) or self.board.gives_check(move)

    def play(self, move) -> "Ref":
        mover, fullmove = self.board.turn, self.board.fullmove_number
        after = self.board.copy(stack=False)
        after.push(move)
        if self.mid or self.brakes(move):
            return Ref(after, False)
        half = after.copy(stack=False)
        half.turn, half.ep_square, half.fullmove_number = mover, None, fullmove
        if any(True for _ in half.legal_moves):
            return Ref(half, True)
        return Ref(after, False)

    def turns(self):
        found = []
        for move in self.moves():
            nxt = self.play(move)
            if nxt.mid:
                found += [(f"{move.uci()},{m.uci()}", nxt.play(m)) for m in nxt.moves()]
            else:
                found.append((move.uci(), nxt))
        return found

    def perft(self, depth: int, turns: bool = False) -> int:
        if depth == 0:
            return 1
        if turns:
            return sum(after.perft(depth - 1, True) for _, after in self.turns())
        return sum(self.play(m).perft(depth - 1) for m in self.moves())

    def divide(self, depth: int, turns: bool = False) -> dict:
        if turns:
            return {text: after.perft(depth - 1, True) for text, after in self.turns()}
        return {m.uci(): self.play(m).perft(depth - 1) for m in self.moves()}

    def key(self):
        b = self.board
        ep = b.ep_square if b.has_legal_en_passant() else None
        return (b.board_fen(), b.turn, b.castling_rights, ep, self.mid)

    def fen(self) -> str:
        b = self.board
        ep = chess.square_name(b.ep_square) if b.has_legal_en_passant() else "-"
        return (f"{b.board_fen()} {'w' if b.turn else 'b'} {b.castling_xfen()} {ep} "
                f"{b.halfmove_clock} {b.fullmove_number} {'m' if self.mid else '-'}")

    def status(self, history) -> dict:
        b = self.board
        if self.mid:
            return {"over": False, "result": None, "reason": None, "claimable": []}
        if not any(True for _ in b.legal_moves):
            if b.is_check():
                return {"over": True, "result": "0-1" if b.turn else "1-0",
                        "reason": "checkmate", "claimable": []}
            return {"over": True, "result": "1/2-1/2", "reason": "stalemate", "claimable": []}
        seen = 1 + history.count(self.key())
        for reason, hit in (("dead-position", b.is_insufficient_material()),
                            ("seventy-five-moves", b.halfmove_clock >= 150),
                            ("fivefold-repetition", seen >= 5)):
            if hit:
                return {"over": True, "result": "1/2-1/2", "reason": reason, "claimable": []}
        claimable = (["fifty-moves"] if b.halfmove_clock >= 100 else []) + (
            ["threefold-repetition"] if seen >= 3 else [])
        return {"over": False, "result": None, "reason": None, "claimable": claimable}

    def parse(self, text: str):
        try:
            move = chess.Move.from_uci(text)
        except ValueError:
            try:
                return self.board.parse_san(text)
            except ValueError as e:
                raise Illegal(text) from e
        if move not in self.board.legal_moves:
            raise Illegal(text)
        return move


def ref_replay(request):
    """The reference position after a request's moves, and the earlier turn-boundary keys."""
    ref = Ref.from_fen(request.get("fen", START))
    history = []
    for item in request.get("moves", []):
        parts = item.split(",")
        for i, text in enumerate(parts):
            if not text:
                if i == len(parts) - 1 and i > 0:
                    continue
                raise Illegal(item)
            if not ref.mid:
                history.append(ref.key())
            ref = ref.play(ref.parse(text))
            if i < len(parts) - 1 and not ref.mid:
                raise Illegal(f"{item}: the turn ended after {text}")
    return ref, history


def normal_fen(fen: str) -> str:
    """A FEN as Ref.fen writes it (python-chess does the reading)."""
    return Ref.from_fen(fen).fen()


# ------------------------------------------------------------- case files

def test_cases_exist_for_every_ruling_and_seed_clause():
    cited = {r for c in CASES for r in c.rules}
    own = {rid for rid, rule in load_rules()[0].items() if rule["variants"] == [V]}
    assert {"A1", "A2", "A3", "A4", "A5"} <= own
    assert own <= cited, f"rule ids without a case: {sorted(own - cited)}"


def test_case_files_load_without_problems():
    _, problems = load_cases()
    assert [p for p in problems if f"/{V}/" in p or f"{V}-seed" in p] == []


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case_passes_against_the_oracle(case):
    answer = OracleEngine().request(dict(case.request))
    assert compare(V, case.expect, answer) == []


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case_agrees_with_the_reference(case):
    req, want = case.request, case.expect
    op = req["op"]
    if "error" in want:
        if want["error"]["code"] in ("illegal-move", "invalid-move-text"):
            with pytest.raises(Illegal):
                ref_replay(req)
        return
    ref, history = ref_replay(req)
    if op == "moves":
        assert {m.uci() for m in ref.moves()} == set(want["moves"])
    elif op == "turns":
        assert {t for t, _ in ref.turns()} == set(want["turns"])
    elif op == "perft":
        if want["nodes"] > REF_NODE_LIMIT:
            pytest.skip("perft too large for the python-chess reference in a test run")
        depth, turns = req["depth"], bool(req.get("turns"))
        if "divide" in want:
            assert ref.divide(depth, turns) == want["divide"]
        assert ref.perft(depth, turns) == want["nodes"]
    elif op in ("play", "fen", "status"):
        if "fen" in want:
            assert ref.fen() == normal_fen(want["fen"])
        if "status" in want:
            got = ref.status(history)
            assert {k: got[k] for k in ("over", "result", "reason")} == \
                {k: want["status"][k] for k in ("over", "result", "reason")}
            assert set(got["claimable"]) == set(want["status"]["claimable"])
    else:
        pytest.fail(f"no reference check for op {op}")


# --------------------------------------------------------------- properties

@st.composite
def positions(draw):
    """A FEN reached by random legal moves (turn boundary or mid-turn) from a test position."""
    fen = draw(st.sampled_from(ORIGINS))
    rng = random.Random(draw(st.integers(0, 2**32)))
    pos = RULES.parse_fen(fen)
    for _ in range(draw(st.integers(0, 24))):
        moves = RULES.legal_moves(pos)
        if not moves:
            break
        pos = RULES.play(pos, rng.choice(moves))
    return RULES.fen(pos)


FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def ask(**request):
    return api.handle({"variant": V, **request})


@FAST
@given(positions(), st.sampled_from([(1, False), (2, False), (1, True)]))
def test_divide_sums_to_perft(fen, run):
    depth, turns = run
    table = ask(op="perft", fen=fen, depth=depth, turns=turns, divide=True)
    assert sum(table["divide"].values()) == table["nodes"]
    assert ask(op="perft", fen=fen, depth=depth, turns=turns)["nodes"] == table["nodes"]


@FAST
@given(positions(), st.randoms(use_true_random=False))
def test_every_listed_turn_plays_to_a_turn_boundary(fen, rnd):
    turns = ask(op="turns", fen=fen)["turns"]
    for text in rnd.sample(turns, min(len(turns), 25)):
        after = ask(op="play", fen=fen, moves=[text])["fen"]
        assert after.split()[6] == "-", text


@FAST
@given(positions())
def test_only_the_last_move_of_a_turn_may_capture_or_check(fen):
    """Turns have at most two moves, and a two-move turn always starts quietly."""
    ref, quiet = Ref.from_fen(fen), {}
    for text in ask(op="turns", fen=fen)["turns"]:
        moves = text.split(",")
        assert len(moves) <= 2, text
        if len(moves) == 2:
            first = moves[0]
            if first not in quiet:
                quiet[first] = not ref.brakes(chess.Move.from_uci(first))
            assert quiet[first], text


@FAST
@given(positions())
def test_one_move_turns_have_a_reason(fen):
    """No pass: a turn of one move from a turn boundary captured, checked, or had no follow-up."""
    ref = Ref.from_fen(fen)
    if ref.mid:
        return
    for text in ask(op="turns", fen=fen)["turns"]:
        if "," not in text:
            first = chess.Move.from_uci(text)
            assert ref.brakes(first) or not ref.play(first).mid, text


@settings(FAST, max_examples=25)
@given(positions())
def test_moves_and_turns_match_the_reference(fen):
    ref = Ref.from_fen(fen)
    assert set(ask(op="moves", fen=fen)["moves"]) == {m.uci() for m in ref.moves()}
    assert set(ask(op="turns", fen=fen)["turns"]) == {t for t, _ in ref.turns()}
    for move in ref.moves()[:8]:
        assert ask(op="play", fen=fen, moves=[move.uci()])["fen"] == ref.play(move).fen()


@FAST
@given(positions())
def test_fen_round_trip_with_field_7(fen):
    assert len(fen.split()) == 7 and fen.split()[6] in "-m"
    assert ask(op="fen", fen=fen)["fen"] == fen
    assert RULES.fen(RULES.parse_fen(fen)) == fen
    if fen.endswith(" -"):
        assert api.same_fen(V, fen, fen[:-2])           # field 7 absent means '-'
    else:
        assert not api.same_fen(V, fen, fen[:-2] + " -")  # same board, other moment of the turn


@FAST
@given(positions())
def test_turns_machine_matches_move_by_move_play(fen):
    pos = RULES.parse_fen(fen)
    fast = {(tuple(line), after) for line, after in RULES.turns(pos)}
    walked = {(tuple(line), after) for line, after in Chess.turns(RULES, pos)}
    assert fast == walked


@settings(max_examples=150, deadline=None)
@given(positions(), st.lists(st.text(alphabet="abcdefgh12345678xO-=+#QRBNKk,@ ", max_size=9),
                             max_size=3))
def test_bad_move_text_is_a_rules_error(fen, tokens):
    try:
        ask(op="play", fen=fen, moves=tokens)
    except RulesError as e:
        assert e.code in ("illegal-move", "invalid-move-text", "invalid-request")


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=80))
def test_bad_fen_is_a_rules_error(text):
    try:
        ask(op="fen", fen=text)
    except RulesError as e:
        assert e.code == "invalid-fen"


# ------------------------------------------------------------- bad input

@pytest.mark.parametrize("fen, moves, code", [
    ("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1", ["e4d5,d2d4"], "illegal-move"),
    ("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1", ["f1b5,g1f3"], "illegal-move"),
    (START, ["e2e4", "e7e5"], "illegal-move"),
    (START, ["e2e4,g1f3,f3g5"], "illegal-move"),
    ("1r5k/8/8/4p3/3p4/8/4P2r/K7 w - - 0 1", ["e2e4,"], "illegal-move"),
    ("4k3/8/8/8/8/8/8/4rK2 w - - 0 1 m", [], "invalid-fen"),
    ("4k3/8/8/8/8/8/8/4RK2 w - - 0 1 m", [], "invalid-fen"),
    ("4k3/8/8/8/3pP3/5N2/8/4K3 b - e3 0 1 m", [], "invalid-fen"),
    (START + " M", [], "invalid-fen"),
])
def test_turn_structure_errors(fen, moves, code):
    with pytest.raises(RulesError) as err:
        ask(op="play", fen=fen, moves=moves)
    assert err.value.code == code
    assert err.value.message


def test_error_messages_say_why_the_turn_ended():
    fen = "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1"
    for moves, why in ((["e4d5,d2d4"], "captures"), (["f1b5,g1f3"], "check")):
        with pytest.raises(RulesError) as err:
            ask(op="play", fen=fen, moves=moves)
        assert why in err.value.message
    with pytest.raises(RulesError) as err:
        ask(op="play", moves=["e2e4", "e7e5"])
    assert "second move" in err.value.message
