"""The python-chess adapter against the oracle, and against every case.

The adapter (tools/adapters/python_chess_adapter.py) takes all of its chess
from python-chess and adds only the turn structure; the oracle is written from
the seeds without python-chess. Where the two agree on random positions and
random lines of ``chess``, ``double-move``, ``double-move-anul``, ``marseillais``,
``marseillais-classic``, ``monster`` and the two progressive forms, a bug would
have to be made twice, independently. The published game records of Monster and
progressive chess are played by both as well.

Compared: FEN parsing (the same normal form, or the same error code), the legal
moves, the legal turns, turn-perft at depths 1 and 2 with divide, move-perft at
depth 2, and the status (with repetition history) after random lines.
"""

import re

import chess
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from doublecheck.oracle import api, variants
from doublecheck.oracle.errors import RulesError
from doublecheck.adapters.python_chess_adapter import PythonChessAdapter
from doublecheck.casefiles import load_cases
from doublecheck.harness.compare import compare
from doublecheck.harness.engines import AdapterEngine
from test_monster import GAME as MONSTER_GAME, MATE as MONSTER_MATE
from test_progressive import PUBLISHED

ADAPTER = PythonChessAdapter()
VARIANTS = ("chess", "double-move", "double-move-anul", "marseillais", "marseillais-classic",
            "monster", "progressive-scottish", "progressive-italian")
FIELD_7 = {"chess": [""], "double-move": [" WB", " W-", " -B", " --"], "double-move-anul": [" -"],
           "marseillais": [" -"], "marseillais-classic": [" -"], "monster": [" -", ""],
           "progressive-scottish": ["", " 2 0 0", " 3 0 9"], "progressive-italian": ["", " 2 0 0", " 3 0 9"]}
SLOW = settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))

START_FENS = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r2q3k/ppp3p1/2np2Pp/5b2/3P1B2/1Q4P1/PPP2P2/3R2K1 w - - 0 1",   # seed 000, mate in a Double Move
    "7k/8/8/8/3p4/8/4P3/7K w - - 0 1",                               # seed 000, en passant order
    "4k3/8/8/8/1p1p1p2/8/P1P1P1P1/4K3 w - - 0 1",                    # en passant everywhere
    "r3k3/8/8/8/8/8/8/R3K2R b KQq - 96 60",                          # near the fifty-move rule
    "4k3/8/8/3q4/8/8/8/R3K2R w KQ - 146 90",                         # near seventy-five moves
    "8/8/4k3/8/2n5/8/4K3/1B6 w - - 0 1",                             # one capture from a dead position
    "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1",                          # back-rank mates
    "4k3/3p1p2/8/2P1P1P1/8/8/1P1P1P2/4K3 b - - 0 2",                 # double steps into en passant
    "7k/7p/8/7P/8/1q6/7P/K7 w - - 0 2",                              # few moves: no move two soon
]
# Monster chess gives White only a king and pawns (MO1); White castles nowhere (MO7).
MONSTER_FENS = [
    "rnbqkbnr/pppppppp/8/8/8/8/2PPPP2/4K3 w kq - 0 1",               # the start (MO1)
    "rnbqkbnr/ppp1pppp/8/3pP3/8/8/2PP1P2/4K3 w kq d6 0 3",           # White's move one may take en passant
    "r3k2r/pppppppp/8/8/8/4P3/3K1P2/8 b kq - 0 8",                    # Black castles clear of the threat
    "4k3/8/8/8/3p2p1/8/4PP2/4K3 w - - 0 5",                          # double steps into en passant
    "k1r5/pp6/8/8/8/1B3N2/3PP3/4K3 w - - 0 20",                      # White pieces from promotions
    "8/8/3k4/8/8/3K4/2P2P2/8 b - - 0 10",                            # the kings two steps apart
    "7k/8/8/8/8/8/1r4PP/r6K w - - 0 10",                             # White's king hemmed in
    "4k3/8/8/8/8/8/2PP4/r3K3 w - - 90 40",                           # near the fifty-move claim
]
FENS = {"monster": MONSTER_FENS}


def ask(request):
    """Both answers to one request: ("ok", result) or ("error", code)."""
    out = []
    for handle in (api.handle, ADAPTER.handle):
        try:
            out.append(("ok", handle(dict(request))))
        except Exception as e:   # RulesError / the adapter's EngineError; anything else is a bug
            assert isinstance(getattr(e, "code", None), str), f"{handle.__module__} crashed: {e!r}"
            out.append(("error", e.code))
    return out


def agree(request, variant):
    """Assert the oracle and the adapter agree on ``request``; return the oracle's result."""
    request = {**request, "variant": variant}
    (kind, want), (got_kind, got) = ask(request)
    assert kind == got_kind, (request, want, got)
    if kind == "error":
        assert want == got, (request, want, got)
        return None
    expect = {k: v for k, v in want.items()}
    problems = compare(variant, expect, {"ok": True, **got}, request)
    assert not problems, (request, problems)
    return want


def check_position(variant, fen, moves):
    """Everything the two must agree on at the position ``moves`` lead to from ``fen``."""
    base = {"fen": fen, "moves": moves}
    if agree({"op": "play", **base}, variant) is None:
        return
    agree({"op": "moves", **base}, variant)
    listed = agree({"op": "turns", **base}, variant)   # None: both refused the list (P8)
    turns = listed["turns"] if listed else []
    agree({"op": "status", **base}, variant)
    agree({"op": "perft", **base, "depth": 1, "divide": True, "turns": True}, variant)
    agree({"op": "perft", **base, "depth": 2, "divide": True}, variant)
    if turns and len(turns) * next_turns(variant, fen, moves + [turns[0]]) <= 6000:
        agree({"op": "perft", **base, "depth": 2, "divide": True, "turns": True}, variant)


def next_turns(variant, fen, moves):
    """How many turns the reply has after one of the turns (an estimate of turn-perft 2;
    a list too long to give, P8, counts as too many)."""
    try:
        return len(api.handle({"op": "turns", "variant": variant, "fen": fen, "moves": moves})["turns"])
    except RulesError:
        return 10**6


def san_or_coordinates(variant, fen, moves, text, use_san):
    """Sometimes write a move in SAN (the oracle writes it) to check SAN input too."""
    if not use_san:
        return text
    rules = variants.get(variant)
    pos = api.replay(rules, fen, moves).final
    return rules.san(pos, rules.parse_move(pos, text))


@SLOW
@given(st.sampled_from(VARIANTS), st.data())
def test_random_lines_agree(variant, data):
    fen = data.draw(st.sampled_from(FENS.get(variant, START_FENS)))
    fen += data.draw(st.sampled_from(FIELD_7[variant]))
    moves = []
    for _ in range(data.draw(st.integers(0, 10))):
        legal = api.handle({"op": "moves", "variant": variant, "fen": fen, "moves": moves})["moves"]
        if not legal:
            break
        text = legal[data.draw(st.integers(0, len(legal) - 1))]
        moves.append(san_or_coordinates(variant, fen, moves, text, data.draw(st.booleans())))
    check_position(variant, fen, moves)


@SLOW
@given(st.sampled_from(VARIANTS), st.data())
def test_repeated_lines_agree(variant, data):
    """Lines that go back and forth, so that repetitions (and the ability's part in
    them, D6) come up; a move that is not legal in the cycle ends it for both."""
    fen = data.draw(st.sampled_from(FENS.get(variant, START_FENS)))
    fen += data.draw(st.sampled_from(FIELD_7[variant]))
    out, back = [], []
    for _ in range(2):
        try:
            turns = api.handle({"op": "turns", "variant": variant, "fen": fen, "moves": out})["turns"]
        except RulesError:   # a series too long to list (P8)
            break
        board = chess.Board(" ".join(api.handle(
            {"op": "fen", "variant": variant, "fen": fen, "moves": out})["fen"].split()[:6]))
        turns = [t for t in turns if reversible(board, t)] or turns
        if not turns:
            break
        turn = data.draw(st.sampled_from(turns))
        out.append(turn)
        back.append(",".join(m[2:4] + m[0:2] for m in reversed(turn.split(","))))
    cycle = out + back
    moves = cycle * data.draw(st.integers(1, 4))
    (kind, _), _ = ask({"op": "play", "variant": variant, "fen": fen, "moves": moves})
    while kind == "error" and moves:
        moves = moves[:-1]
        (kind, _), _ = ask({"op": "play", "variant": variant, "fen": fen, "moves": moves})
    agree({"op": "play", "fen": fen, "moves": moves}, variant)
    status = agree({"op": "status", "fen": fen, "moves": moves}, variant)
    if status:   # shown by pytest --hypothesis-show-statistics
        event(f"{status['status']['reason'] or 'going on'} {status['status']['claimable']}")


def reversible(board, turn):
    """Might the turn be played backwards? Pieces (not pawns) moving to empty squares."""
    moved = set()
    for move in turn.split(","):
        frm, to = chess.parse_square(move[:2]), chess.parse_square(move[2:4])
        piece = board.piece_at(frm)
        if frm not in moved and (piece is None or piece.piece_type == chess.PAWN):
            return False
        if board.piece_at(to) is not None:
            return False
        moved.add(to)
    return True


PIECES = "PNBRQpnbrq"


@st.composite
def random_fens(draw, variant):
    """Random placements, often with kings and rooks at home, with random castling,
    en passant, clocks and field 7: many are invalid, and then the error codes must agree."""
    board = [None] * 64
    home = draw(st.booleans())
    if home:
        board[4], board[60] = "K", "k"
        for sq, rook in ((0, "R"), (7, "R"), (56, "r"), (63, "r")):
            if draw(st.booleans()):
                board[sq] = rook
    free = [sq for sq in range(64) if board[sq] is None]
    placed = draw(st.lists(st.sampled_from(free), min_size=0 if home else 2, max_size=7, unique=True))
    for i, sq in enumerate(placed):
        board[sq] = "K" if i == 0 and not home else "k" if i == 1 and not home else \
            draw(st.sampled_from(PIECES))
    rows = []
    for rank in range(7, -1, -1):
        row, empty = "", 0
        for piece in board[rank * 8:rank * 8 + 8]:
            if piece is None:
                empty += 1
                continue
            row += (str(empty) if empty else "") + piece
            empty = 0
        rows.append(row + (str(empty) if empty else ""))
    turn = draw(st.sampled_from("wb"))
    castling = draw(st.sampled_from(["-", "KQkq", "K", "Qk", "kq", "qK"]))
    eps = ["-"] * 6 + ["e3", "d6", "a6", "h3", "c4"]
    if variant.startswith(("marseillais", "progressive", "monster")):   # several squares (M7, P6.2, MO6.1)
        eps += ["c3,e3", "e6,c6", "d6,f6", "b3,b3", "a6,c6,e6", "e3,", "d3,e6"]
    ep = draw(st.sampled_from(eps))
    clocks = draw(st.sampled_from(["0 1", "12 30", "100 80", "0 0"]))
    extra = {"chess": ["", "", " WB"],
             "double-move": ["", " WB", " -B", " W-", " --", " -Bm", " W-m", " --m", " WBm", " wb"],
             "double-move-anul": ["", " -", " m", " m", " x"],
             "marseillais": ["", " -", " m", " m", " x"],
             "marseillais-classic": ["", " -", " m", " m", " x"],
             "monster": ["", " -", " m", " m", " x"],
             "progressive-scottish": ["", " 1 0 0", " 3 1 0", " 4 2 11", " 2 2 0", " 0 0 0", " 5", " x"],
             "progressive-italian": ["", " 1 0 0", " 3 1 0", " 4 2 11", " 2 2 0", " 0 0 0", " 5", " x"]}[variant]
    return f"{'/'.join(rows)} {turn} {castling} {ep} {clocks}{draw(st.sampled_from(extra))}"


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(VARIANTS).flatmap(lambda v: st.tuples(st.just(v), random_fens(v))))
def test_random_positions_agree(variant_and_fen):
    variant, fen = variant_and_fen
    if agree({"op": "fen", "fen": fen}, variant) is None:
        return
    agree({"op": "moves", "fen": fen}, variant)
    agree({"op": "turns", "fen": fen}, variant)
    agree({"op": "status", "fen": fen}, variant)
    agree({"op": "perft", "fen": fen, "depth": 1, "divide": True, "turns": True}, variant)


# --- every case of the variants the adapter plays -------------------------------------------

CASES, PROBLEMS = load_cases()
QUICK = 250_000   # perft cases above this many nodes run only with -m deep


def expected_nodes(case):
    return case.expect.get("nodes", sum(case.expect.get("divide", {}).values()))


def adapter_cases(deep):
    # (a case written for a rule option value holds only under it; the adapter plays the defaults)
    chosen = [c for c in CASES if c.variant in VARIANTS and (expected_nodes(c) > QUICK) == deep
              and not c.options]
    return pytest.mark.parametrize("case", chosen, ids=[c.id for c in chosen])


def run(case):
    engine = AdapterEngine(ADAPTER)
    answer = engine.request(dict(case.request))
    problems = compare(case.variant, case.expect, answer, case.request)
    assert not problems, "\n".join([case.id] + problems)


def test_cases_load():
    assert not PROBLEMS
    assert {c.variant for c in CASES} >= set(VARIANTS)


@adapter_cases(deep=False)
def test_adapter_passes_case(case):
    run(case)


@pytest.mark.deep
@adapter_cases(deep=True)
def test_adapter_passes_large_perft_case(case):
    run(case)


# --- game records of the variants with long or colour-dependent turns, both ways -------------

RESULTS = ("1-0", "0-1", "1/2-1/2", "*")


def record_turns(movetext: str, series: bool) -> list[str]:
    """The turns of a game record as request moves: in the series notation of progressive
    chess (P9: ``1. e4 2. e5 Qh4``) each number starts a series, whose moves become one
    turn ``e5,Qh4``; otherwise each space-separated item is already a turn (G8)."""
    words = [w for w in movetext.split() if w not in RESULTS]
    if not series:
        return [w for w in words if not w.rstrip(".").isdigit()]
    turns = []
    for word in words:
        if word.endswith(".") and word[:-1].isdigit():
            turns.append([])
        else:
            turns[-1].append(word)
    return [",".join(moves) for moves in turns]


@pytest.mark.parametrize("variant", ["progressive-scottish", "progressive-italian"])
@pytest.mark.parametrize("title,movetext,result", PUBLISHED, ids=[p[0].split(":")[0] for p in PUBLISHED])
def test_published_progressive_games_agree(variant, title, movetext, result):
    """The 1996 championship games of tests/test_progressive.py, played by both to the
    same final position and the same result."""
    played = agree({"op": "play", "moves": record_turns(movetext, series=True)}, variant)
    assert played["status"]["over"] and played["status"]["result"] == result


@pytest.mark.parametrize("record", [MONSTER_GAME, MONSTER_MATE], ids=["playstrategy-line", "wikipedia-mate"])
def test_monster_game_records_agree(record):
    head, _, movetext = record.partition("\n\n")
    fen = re.search(r'\[FEN "(.*)"\]', head)
    request = {"op": "play", "moves": record_turns(movetext, series=False)}
    if fen:
        request["fen"] = fen[1]
    played = agree(request, "monster")
    assert played["status"]["reason"] == "checkmate" and played["status"]["result"] == "1-0"
