"""Double Move Chess (seed 000): the oracle against its cases, against an
independent model built on python-chess, and against python-chess itself once
both Double Moves are spent."""

import functools
import re

import chess
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from doublecheck.oracle import api, variants
from doublecheck.oracle.errors import RulesError
from doublecheck.casefiles import load_cases
from doublecheck.cli import main
from doublecheck.harness.engines import OracleEngine
from doublecheck.harness.runner import run_case

VARIANT = "double-move"
RULES = variants.get(VARIANT)
START = api.start_fen(VARIANT)
SEED_MATE = "r2q3k/ppp3p1/2np2Pp/5b2/3P1B2/1Q4P1/PPP2P2/3R2K1 w - - 0 1 WB"
SEED_EP = "7k/8/8/8/3p4/8/4P3/7K w - - 0 1 WB"
# (cases written for a rule option value are judged under it: tests/test_options.py)
CASES = [c for c in load_cases()[0] if c.variant == VARIANT and not c.options]


def ask(**request):
    return api.handle({"variant": VARIANT, **request})


# --------------------------------------------------------------- the model

class Illegal(Exception):
    pass


class Model:
    """Double Move Chess on top of python-chess, written from the rules alone.

    The board's side to move is kept as the mover between the two halves; the
    clocks are kept here (G2), not by python-chess.
    """

    def __init__(self, fen):
        fields = fen.split()
        self.board = chess.Board(" ".join(fields[:6]))
        field = fields[6] if len(fields) > 6 else "WB"
        self.unused = {side for side in "WB" if side in field}
        self.mid = field.endswith("m")
        self.halfmove, self.fullmove = int(fields[4]), int(fields[5])
        self.history = []

    def copy(self):
        other = Model.__new__(Model)
        other.board = self.board.copy(stack=False)
        other.unused, other.mid = set(self.unused), self.mid
        other.halfmove, other.fullmove = self.halfmove, self.fullmove
        other.history = list(self.history)
        return other

    @property
    def side(self):
        return "W" if self.board.turn == chess.WHITE else "B"

    @staticmethod
    def chess_moves(board):
        """Legal chess moves, never taking a king (the opponent may be in check mid-turn)."""
        return [m for m in board.legal_moves if board.piece_type_at(m.to_square) != chess.KING]

    def after_first_half(self, move):
        board = self.board.copy(stack=False)
        board.push(move)
        board.turn = not board.turn
        board.ep_square = None
        return board

    def moves(self):
        ordinary = self.chess_moves(self.board)
        texts = [m.uci() for m in ordinary]
        if not self.mid and self.side in self.unused:
            texts += [m.uci() + "," for m in ordinary if self.chess_moves(self.after_first_half(m))]
        return texts

    def turns(self):
        if self.mid:
            return [m.uci() for m in self.chess_moves(self.board)]
        out = []
        for text in self.moves():
            if text.endswith(","):
                out += [text + second for second in self.play(text).turns()]
            else:
                out.append(text)
        return out

    def play(self, text):
        """A copy after one move or a whole turn (``a,b``)."""
        child = self.copy()
        for token in api.split_tokens([text]):
            child.push(token)
        return child

    def push(self, token):
        opens = token.endswith(",")
        body = token[:-1] if opens else token
        try:
            if re.fullmatch(r"[a-h][1-8][a-h][1-8][qrbn]?", body):
                move = chess.Move.from_uci(body)
            else:
                move = self.board.parse_san(body)
        except ValueError as e:
            raise Illegal(token) from e
        if move.uci() + ("," if opens else "") not in self.moves():
            raise Illegal(token)
        if not self.mid:
            self.history.append(self.identity())
        resets = self.board.is_capture(move) or self.board.piece_type_at(move.from_square) == chess.PAWN
        black = self.board.turn == chess.BLACK
        self.board.push(move)
        self.halfmove = 0 if resets else self.halfmove + 1
        if opens:
            self.board.turn = not self.board.turn
            self.board.ep_square = None
            self.unused.discard("B" if black else "W")
            self.mid = True
            return
        self.mid = False
        if black:
            self.fullmove += 1

    def field(self):
        return (("W" if "W" in self.unused else "-") + ("B" if "B" in self.unused else "-")
                + ("m" if self.mid else ""))

    def ep(self):
        if not self.mid and self.board.has_legal_en_passant():
            return chess.square_name(self.board.ep_square)
        return "-"

    def identity(self):
        return (self.board.board_fen(), self.board.turn, self.board.castling_xfen(), self.ep(), self.field())

    def fen(self):
        return " ".join([self.board.board_fen(), "w" if self.board.turn else "b",
                         self.board.castling_xfen(), self.ep(), str(self.halfmove),
                         str(self.fullmove), self.field()])

    def dead(self):
        others = [(sq, p) for sq, p in self.board.piece_map().items() if p.piece_type != chess.KING]
        if len(others) <= 1 and all(p.piece_type in (chess.KNIGHT, chess.BISHOP) for _, p in others):
            return True
        if all(p.piece_type == chess.BISHOP for _, p in others):
            return len({chess.square_file(sq) % 2 == chess.square_rank(sq) % 2 for sq, _ in others}) == 1
        return False

    def status(self):
        def over(result, reason):
            return {"over": True, "result": result, "reason": reason, "claimable": []}
        if self.mid:
            return {"over": False, "result": None, "reason": None, "claimable": []}
        if not self.chess_moves(self.board):
            if self.board.is_check():
                return over("0-1" if self.board.turn == chess.WHITE else "1-0", "checkmate")
            return over("1/2-1/2", "stalemate")
        if self.dead():
            return over("1/2-1/2", "dead-position")
        seen = 1 + self.history.count(self.identity())
        if self.halfmove >= 150:
            return over("1/2-1/2", "seventy-five-moves")
        if seen >= 5:
            return over("1/2-1/2", "fivefold-repetition")
        claims = (["fifty-moves"] if self.halfmove >= 100 else []) + (["threefold-repetition"] if seen >= 3 else [])
        return {"over": False, "result": None, "reason": None, "claimable": claims}

    def perft(self, depth, turns=False):
        if depth == 0:
            return 1
        steps = self.turns() if turns else self.moves()
        if depth == 1:
            return len(steps)
        return sum(self.play(step).perft(depth - 1, turns) for step in steps)

    def divide(self, depth, turns=False):
        steps = self.turns() if turns else self.moves()
        return {step: self.play(step).perft(depth - 1, turns) for step in steps}


def split(tokens):
    return api.split_tokens(tokens)


def model_answer(request):
    """What the model says about a case request (None: the model has no opinion)."""
    model = Model(request.get("fen", START))
    try:
        for token in split(request.get("moves", [])):
            model.push(token)
    except Illegal:
        return {"error": "illegal-move"}
    op = request["op"]
    if op == "moves":
        return {"moves": model.moves()}
    if op == "turns":
        return {"turns": model.turns()}
    if op in ("play", "status", "fen"):
        return {"fen": model.fen(), "status": model.status()}
    if op == "perft":
        if request.get("divide"):
            table = model.divide(request["depth"], bool(request.get("turns")))
            return {"nodes": sum(table.values()), "divide": table}
        return {"nodes": model.perft(request["depth"], bool(request.get("turns")))}
    return None


# ------------------------------------------------------------------ cases

@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case_passes_against_the_oracle(case):
    result = run_case(case, OracleEngine(), api.hello())
    assert result.outcome == "passed", "\n".join(result.lines)


MODEL_CASES = [c for c in CASES
               if c.expect.get("error", {}).get("code") in (None, "illegal-move")
               and c.expect.get("nodes", 0) <= 20_000
               and not (c.request["op"] == "fen" and "error" in c.expect)]


@pytest.mark.parametrize("case", MODEL_CASES, ids=[c.id for c in MODEL_CASES])
def test_case_agrees_with_the_python_chess_model(case):
    """Every expected value (hand-derived or generated) recomputed independently."""
    got = model_answer(case.request)
    if "error" in case.expect:
        assert got == {"error": "illegal-move"}
        return
    assert "error" not in got, got
    for key, want in case.expect.items():
        if key in ("moves", "turns"):
            assert sorted(got[key]) == sorted(want)
        elif key == "fen":
            assert api.same_fen(VARIANT, got["fen"], want), (got["fen"], want)
        elif key == "status":
            assert {**want, "claimable": sorted(want["claimable"])} == got["status"]
        else:
            assert got[key] == want, key


def test_every_ruling_and_seed_clause_is_cited():
    cited = {rule for c in CASES for rule in c.rules}
    wanted = {f"D{i}" for i in range(1, 7)} | {
        "DM-objective", "DM-ability", "DM-activation", "DM-every-half-legal", "DM-check-between-halves",
        "DM-unused-ability-no-escape", "DM-captures", "DM-promotion", "DM-castling", "DM-en-passant",
        "DM-end-of-game", "DM-draws", "DM-fen-field"}
    assert wanted <= cited, sorted(wanted - cited)


# ------------------------------------------------------------------ perft

@pytest.mark.parametrize("fen, depth, turns", [
    (START, 2, False), (START, 1, True), (SEED_MATE, 2, False), (SEED_EP, 4, False), (SEED_EP, 2, True),
    ("r2q2Qk/ppp3p1/2np2Pp/5b2/3P1B2/6P1/PPP2P2/3R2K1 w - - 1 1 -Bm", 2, False),
    ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1 WB", 1, False),
    ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1 W-", 2, False),
    ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1 -B", 2, False),
])
def test_perft_agrees_with_the_model(fen, depth, turns):
    assert ask(op="perft", fen=fen, depth=depth, turns=turns)["nodes"] == Model(fen).perft(depth, turns)


@pytest.mark.parametrize("fen, depth, turns", [
    (START, 2, False), (START, 1, True), (SEED_EP, 3, False), (SEED_EP, 2, True),
    ("4k3/8/8/8/4P3/8/8/4K3 w - - 0 1 -Bm", 3, True), (SEED_MATE, 1, True),
])
def test_divide_sums_to_perft(fen, depth, turns):
    result = ask(op="perft", fen=fen, depth=depth, turns=turns, divide=True)
    assert sum(result["divide"].values()) == result["nodes"]
    assert result["nodes"] == ask(op="perft", fen=fen, depth=depth, turns=turns)["nodes"]
    steps = ask(op="turns" if turns else "moves", fen=fen)["turns" if turns else "moves"]
    assert sorted(result["divide"]) == sorted(steps)


# ------------------------------------------------- random lines (hypothesis)

def random_line(fen, picks):
    """Move tokens chosen by `picks` from the oracle's legal moves, stopping when the game ends."""
    pos, line = RULES.parse_fen(fen), []
    for pick in picks:
        if RULES.status(pos)["over"]:
            break
        moves = sorted(RULES.legal_moves(pos), key=lambda m: RULES.move_text(pos, m))
        move = moves[pick % len(moves)]
        line.append(RULES.move_text(pos, move))
        pos = RULES.play(pos, move)
    return line, pos


PICKS = st.lists(st.integers(min_value=0, max_value=10_000), max_size=24)
SLOW = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SLOW
@given(PICKS)
def test_random_lines_agree_with_the_model(picks):
    line, _ = random_line(START, picks)
    model = Model(START)
    for token in line:
        model.push(token)
    played = ask(op="play", moves=line)
    assert played["fen"] == model.fen()
    assert played["status"] == model.status()
    assert sorted(ask(op="moves", moves=line)["moves"]) == sorted(model.moves())


@SLOW
@given(PICKS)
def test_fen_round_trip(picks):
    _, pos = random_line(START, picks)
    text = RULES.fen(pos)
    again = RULES.parse_fen(text)
    assert RULES.fen(again) == text
    assert RULES.identity(again) == RULES.identity(pos)
    assert (again.halfmove, again.fullmove, again.state) == (pos.halfmove, pos.fullmove, pos.state)
    assert ask(op="fen", fen=text)["fen"] == text


@SLOW
@given(st.lists(st.integers(min_value=0, max_value=10_000), max_size=80))
def test_both_abilities_spent_is_chess(picks):
    """Differential: with field 7 '--' every answer equals python-chess's."""
    board = chess.Board()
    line = []
    for pick in picks:
        if board.is_game_over():
            break
        moves = sorted(board.legal_moves, key=chess.Move.uci)
        line.append(moves[pick % len(moves)].uci())
        board.push_uci(line[-1])
    played = ask(op="play", fen=chess.STARTING_FEN + " --", moves=line)
    assert played["fen"] == board.fen(en_passant="legal") + " --"
    assert sorted(ask(op="moves", fen=played["fen"])["moves"]) == sorted(m.uci() for m in board.legal_moves)
    assert sorted(ask(op="turns", fen=played["fen"])["turns"]) == sorted(m.uci() for m in board.legal_moves)
    status = played["status"]
    if board.is_checkmate() or board.is_stalemate():
        assert status["reason"] == ("checkmate" if board.is_checkmate() else "stalemate")
        assert status["result"] == board.outcome().result()
    else:
        assert status["reason"] not in ("checkmate", "stalemate")


def turn_positions():
    return [START, SEED_MATE, SEED_EP, "r2q2Qk/ppp3p1/2np2Pp/5b2/3P1B2/6P1/PPP2P2/3R2K1 w - - 1 1 -Bm",
            "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1 WB", "8/P7/8/8/8/7k/8/4K3 w - - 0 1 WB"]


@functools.lru_cache(maxsize=None)
def listed_turns(fen):
    return ask(op="turns", fen=fen)["turns"]


@pytest.mark.parametrize("fen", turn_positions())
def test_every_listed_turn_plays(fen):
    turns = listed_turns(fen)
    assert len(turns) == len(set(turns))
    start = RULES.parse_fen(fen)
    for turn in turns:
        pos = start
        for token in split([turn]):
            pos = RULES.play(pos, RULES.parse_move(pos, token))
        assert not RULES.mid_turn(pos), turn


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(turn_positions()[:3] + turn_positions()[4:]), st.integers(0, 10_000), st.integers(0, 10_000))
def test_sampled_pairs_not_listed_are_rejected(fen, i, j):
    """A pair of plausible moves (both legal for someone somewhere nearby) is
    accepted exactly when it is a listed turn."""
    turns = set(listed_turns(fen))
    firsts = sorted(m for m in ask(op="moves", fen=fen)["moves"] if not m.endswith(","))
    pos = RULES.parse_fen(fen)
    opponent = Model(RULES.fen(pos.replace(turn="b" if pos.turn == "w" else "w", ep=None)))
    seconds = sorted(set(firsts) | {m for m in opponent.moves() if not m.endswith(",")})
    pair = f"{firsts[i % len(firsts)]},{seconds[j % len(seconds)]}"
    if pair in turns:
        ask(op="play", fen=fen, moves=[pair])
    else:
        with pytest.raises(RulesError) as e:
            ask(op="play", fen=fen, moves=[pair])
        assert e.value.code == "illegal-move"


# --------------------------------------------------------------- bad input

BAD = [
    ("m-with-ability", "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1 WBm", [], "invalid-fen", "unspent"),
    ("ability-spent", "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1 -B", ["e2e4,"], "illegal-move", "already used"),
    ("second-half-takes-king", "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1 WB", ["a1a8,", "a8g8"], "illegal-move",
     "never capture the king"),
    ("no-second-half", "4k1r1/2b5/8/8/p7/8/P7/7K w - - 0 1 WB", ["a2a3,"], "illegal-move", "no legal second half"),
    ("first-half-exposes-king", "4r1k1/8/8/8/8/8/4B3/4K3 w - - 0 1 WB", ["e2d3,"], "illegal-move",
     "left in check by the rook on e8; every half of a Double Move must be legal on its own"),
    ("comma-between-halves", "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1 WB", ["e2e4,", "e4e5,"], "illegal-move",
     "between the halves"),
    ("bad-field", "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1 XY", [], "invalid-fen", "field 7"),
    ("mid-with-ep", "7k/8/8/8/3pP3/8/8/6K1 b - e3 0 1 W-m", [], "invalid-fen", "en passant"),
]


@pytest.mark.parametrize("name, fen, moves, code, words", BAD, ids=[b[0] for b in BAD])
def test_bad_input_is_a_clear_error(name, fen, moves, code, words):
    with pytest.raises(RulesError) as e:
        ask(op="play", fen=fen, moves=moves)
    assert e.value.code == code
    assert words in e.value.message


@pytest.mark.parametrize("name, fen, moves, code, words", [b for b in BAD if b[3] == "illegal-move"],
                         ids=[b[0] for b in BAD if b[3] == "illegal-move"])
def test_refused_move_leaves_the_position_unchanged(name, fen, moves, code, words):
    pos = RULES.parse_fen(fen)
    for token in split(moves[:-1]):
        pos = RULES.play(pos, RULES.parse_move(pos, token))
    before = (RULES.fen(pos), pos)
    with pytest.raises(RulesError):
        RULES.play(pos, RULES.parse_move(pos, moves[-1]))
    assert (RULES.fen(pos), pos) == before
    assert ask(op="fen", fen=fen, moves=moves[:-1])["fen"] == before[0]


def test_cli_reports_bad_input_without_traceback(capsys):
    code = main(["play", "--variant", VARIANT, "--fen", "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1 -B",
                 "--moves", "e2e4,", "--json"])
    out, err = capsys.readouterr()
    assert code == 2
    assert '"illegal-move"' in out and "Traceback" not in err


# ----------------------------------------------------------------- notation

def test_san_marks_first_half_with_comma_and_check():
    pos = RULES.parse_fen(SEED_MATE)
    first = RULES.parse_move(pos, "b3g8,")
    assert RULES.san(pos, first) == "Qg8+,"
    ordinary = RULES.parse_move(pos, "b3g8")
    assert RULES.san(pos, ordinary) == "Qg8+"
    mid = RULES.play(pos, first)
    assert RULES.san(mid, RULES.parse_move(mid, "g8h7")) == "Qh7#"


@pytest.mark.parametrize("fen", turn_positions())
def test_san_round_trip(fen):
    pos = RULES.parse_fen(fen)
    for move in RULES.legal_moves(pos):
        assert RULES.parse_move(pos, RULES.san(pos, move)) == move


def test_cli_reproduces_the_seed_examples(capsys):
    assert main(["play", "--variant", VARIANT, "--fen", SEED_MATE, "--moves", "Qg8+, Qh7#"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "r2q3k/ppp3pQ/2np2Pp/5b2/3P1B2/6P1/PPP2P2/3R2K1 b - - 2 1 -B"
    assert "checkmate" in out
    assert main(["turns", "--variant", VARIANT, "--fen", SEED_EP, "--moves", "Kg1, e4", "--json"]) == 0
    out = capsys.readouterr().out
    assert '"d4e3"' in out and '"d4e3,e3e2"' in out
    assert main(["turns", "--variant", VARIANT, "--fen", SEED_EP, "--moves", "e4, Kg1", "--json"]) == 0
    assert '"d4e3' not in capsys.readouterr().out
