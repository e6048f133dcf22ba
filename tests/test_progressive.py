"""Progressive chess beyond the cases: published games replayed in the series notation,
an independent count of series built on python-chess, the desk's series panel and the
bounded walks (P8)."""

import chess
import pytest

from doublecheck.desk import ops
from doublecheck.lookups.pgn import pgn_for_line, replay_text
from doublecheck.oracle import api, variants
from doublecheck.oracle.errors import INVALID_REQUEST, RulesError
from doublecheck.oracle.perft import perft

FORMS = ("progressive-scottish", "progressive-italian")

# Games of the final round of the 1996 World Internet Progressive Chess Championship
# (played under the Scottish rules), as published with Bill Taylor's comments on Tapani
# Hollo's progressive chess pages.  Every check in them comes with the last move of its
# series, so they are legal under the Italian rules too.
PUBLISHED = [
    ("Galvin - Gordon: an en passant capture opens the mating series",
     "1. d4 2. c5 cxd4 3. e4 Bd3 Ke2 4. dxe3 Qc7 Qf4 Qxf2# 0-1", "0-1"),
    ("Brodie - Geissler", "1. e4 2. Nc6 d5 3. Qg4 Qxc8 Qxd8+ 4. Kxd8 dxe4 Nf6 h5 "
     "5. f3 fxe4 e5 exf6 Be2 6. Nd4 Nxe2 Ng3 Rh6 Rxf6 Rf1# 0-1", "0-1"),
    ("Lorinc - Geissler: mated by an underpromotion", "1. d4 2. c5 cxd4 3. Qxd4 Qb6 Qxd8+ "
     "4. Kxd8 d5 e5 Bb4+ 5. Bd2 Bxb4 f4 fxe5 Bd6 6. Nf6 Ne4 d4 d3 dxc2 c1=R# 0-1", "0-1"),
    ("Lorinc - Kivijarvi", "1. d4 2. d5 c5 3. dxc5 Qxd5 Qxd8+ 4. Kxd8 Kc7 e5 Bxc5 "
     "5. Bh6 Nc3 Rd1 Rd6 Nb5# 1-0", "1-0"),
]


@pytest.mark.parametrize("variant", FORMS)
@pytest.mark.parametrize("title,movetext,result", PUBLISHED, ids=[p[0].split(":")[0] for p in PUBLISHED])
def test_published_game_replays_to_its_result(variant, title, movetext, result):
    report = replay_text(f'[Variant "{variant}"]\n[Result "{result}"]\n\n{movetext}\n')["games"][0]
    assert report["legal"], report["illegal"]
    assert report["status"]["over"] and report["status"]["result"] == result
    assert report["result_agrees"] is True


def test_the_en_passant_game_takes_a_pawn_that_stepped_before_two_more_moves():
    """In Galvin - Gordon the e-pawn stepped two squares on the first of White's three
    moves (P3: any move of the last series), and dxe3 is Black's first move."""
    report = replay_text('[Variant "progressive-scottish"]\n\n1. d4 2. c5 cxd4 3. e4 Bd3 Ke2 4. dxe3,\n')
    game = report["games"][0]
    assert game["legal"] and game["final_fen"].startswith("rnbqkbnr/pp1ppppp/8/8/8/3Bp3/PPP1KPPP/RNBQ2NR")


def test_a_game_written_is_read_back_in_series_notation():
    moves = ["e2e4", "e7e5", "b8c6", "f1c4", "d1h5", "h5f7"]
    text = pgn_for_line("progressive-scottish", None, moves)
    assert "1. e4 2. e5 Nc6 3. Bc4 Qh5 Qxf7#" in text and '[Result "1-0"]' in text
    again = replay_text(text)["games"][0]
    assert again["legal"] and again["result_agrees"] is True


def test_a_series_written_with_fullmove_numbers_is_refused_where_the_series_is_wrong():
    """Fullmove-pair notation puts two of Black's moves under one number and White's
    next under the following one: read as series it gives White a series of two."""
    report = replay_text('[Variant "progressive-scottish"]\n\n1. e4 e5 Nc6 2. Bc4 Qh5 Qxf7\n')
    assert not report["games"][0]["legal"]


# ----------------------------------------------------------- an independent count

def series_perft(board: chess.Board, depth: int, left: int, length: int, italian: bool) -> int:
    """Perft by moves of progressive chess on python-chess (no en passant is reachable in
    the positions asked): a move keeps the turn with a null move while the series goes on."""
    if depth == 0:
        return 1
    total = 0
    for move in list(board.legal_moves):
        board.push(move)
        check = board.is_check()
        if check and italian and left > 1:
            board.pop()
            continue
        if left == 1 or check:
            total += series_perft(board, depth - 1, length + 1, length + 1, italian)
        else:
            board.push(chess.Move.null())
            total += series_perft(board, depth - 1, left - 1, length, italian)
            board.pop()
        board.pop()
    return total


@pytest.mark.parametrize("variant", FORMS)
@pytest.mark.parametrize("fen,length,depth", [
    (chess.STARTING_FEN, 1, 3),
    ("3qk3/8/8/8/8/8/8/R2QK2R w K - 0 2", 2, 3),
    ("4k3/8/8/8/8/8/8/R3K3 w - - 0 2", 3, 4),
])
def test_perft_agrees_with_a_python_chess_series_walk(variant, fen, length, depth):
    rules = variants.get(variant)
    pos = rules.parse_fen(f"{fen} {length} 0 0")
    board = chess.Board(fen)
    expected = series_perft(board, depth, length, length, variant.endswith("italian"))
    assert perft(rules, pos, depth) == expected


# ----------------------------------------------------------------- the desk

def test_desk_turn_panel_has_one_slot_per_move_of_the_series():
    view = ops.position({"variant": "progressive-scottish", "moves": ["e2e4", "e7e5", "g8f6", "f1c4"]})
    slots = view["turn"]["slots"]
    assert [s["name"] for s in slots] == ["Move 1", "Move 2", "Move 3"]
    assert [s["state"] for s in slots] == ["played", "next", "waiting"]


def test_desk_names_the_check_that_ended_a_series():
    view = ops.position({"variant": "progressive-scottish", "fen": "4k3/8/8/8/8/8/8/R3K3 w - - 0 2 3 0 0",
                         "moves": ["a1a8"]})
    ended = view["line"][-1]
    assert ended["slots"] == ["Move 1", "Move 2", "Move 3"]
    assert ended["end"]["rule"] == "PS1" and "on move 1 ended the series" in ended["end"]["words"]


def test_desk_panel_counts_moves_played_before_the_fen():
    view = ops.position({"variant": "progressive-italian", "fen": "4k3/8/8/8/8/8/8/R3K3 w - - 0 3 5 2 0"})
    assert [s["state"] for s in view["turn"]["slots"]] == ["played", "played", "next", "waiting", "waiting"]


# ----------------------------------------------------------------- P8

def test_long_series_turn_count_is_reported_as_unknown_not_an_error():
    view = ops.position({"variant": "progressive-scottish", "fen": "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/"
                         "2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 4 7 0 0"})
    assert view["turn_count"] is None and view["moves"]


def test_a_series_walk_stops_at_its_limit(monkeypatch):
    from doublecheck.oracle.variants import progressive
    monkeypatch.setattr(progressive, "SERIES_WALK_LIMIT", 50)
    rules = variants.get("progressive-scottish")
    with pytest.raises(RulesError) as caught:
        rules.turns(rules.parse_fen("4k3/8/8/8/8/8/8/R3K3 w - - 0 2 3 0 0"))
    assert caught.value.code == INVALID_REQUEST


def test_explain_says_an_early_italian_check_is_illegal_and_why():
    from doublecheck.lookups import lookup
    result = lookup.explain("progressive-italian", "4k3/8/8/8/8/8/8/R3K3 w - - 0 2 3 0 0", [], move="Ra8")
    assert not result["legal"] and result["rule"] == "PI1"
    assert "before the last move of the series" in result["reason"]


# ------------------------------------------------------------ counting turns

PROGRESSIVE = ("progressive-scottish", "progressive-italian")


def series_positions(variant, seed, rules=None):
    """A position inside or at the start of a series of at most 3 moves: up to 8 random
    moves from the start or from a busy middle game (a series of 4 is walkable, P8, but
    takes seconds a walk)."""
    import random
    rules = rules or variants.get(variant)
    rng = random.Random(seed)
    start = rng.choice([rules.start_fen, "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 0 3 3 0 0"])
    pos = rules.parse_fen(start)
    for _ in range(rng.randrange(9)):
        moves = sorted(rules.legal_moves(pos), key=lambda m: rules.move_text(pos, m))
        after = rules.play(pos, rng.choice(moves)) if moves else None
        if after is None or after.state.length > 3:
            break
        pos = after
    return pos


def listed_or_refused(how, pos):
    try:
        return how(pos)
    except RulesError as e:
        return e.code


def the_mutants_of(variant):
    from doublecheck.authoring.mutants import CATALOGUE
    return [m for m in CATALOGUE.values() if m.variant == variant]


@pytest.mark.parametrize("variant", PROGRESSIVE)
def test_counting_the_turns_agrees_with_listing_them(variant):
    """count_turns counts a series' last moves instead of playing them (P1: each ends the
    series); it must give len(turns) and the same P8 refusals, for the oracle and for
    every catalogued mistake of the variant (whose turn-perft counts go through it)."""
    rules_list = [variants.get(variant)] + [m.rules() for m in the_mutants_of(variant)]
    open_game = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 0 3 3 0 0"   # 24,274 series
    for rules in rules_list:
        for pos in [rules.parse_fen(open_game)] + [series_positions(variant, seed, rules) for seed in range(8)]:
            want = listed_or_refused(lambda p: len(rules.turns(p)), pos)
            assert listed_or_refused(rules.count_turns, pos) == want, (type(rules).__name__, rules.fen(pos))


def test_counting_the_turns_refuses_where_listing_them_does(monkeypatch):
    from doublecheck.oracle.variants import progressive
    rules = variants.get("progressive-scottish")
    pos = rules.parse_fen("4k3/8/8/8/8/8/8/R3K3 w - - 0 2 3 0 0")    # 3 moves of 2 pieces: over 50 walked
    monkeypatch.setattr(progressive, "SERIES_WALK_LIMIT", 50)
    with pytest.raises(RulesError) as caught:
        rules.count_turns(pos)
    assert caught.value.code == INVALID_REQUEST
    monkeypatch.setattr(progressive, "SERIES_WALK_LIMIT", 100_000)
    assert rules.count_turns(pos) == len(rules.turns(pos)) > 50


SMALL_TURN_TREES = (   # turn-perft 2 of at most some 50,000 series, so that the plain walk is quick
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 1 0 0",     # the start: series 1 and 2
    "8/8/8/8/8/8/k7/7K b - - 0 5 2 0 0",                                   # kings: series 2 and 3
    "8/8/8/8/8/8/k7/R6K b - - 0 5 2 0 0",                                  # in check from a rook: 2 and 3
    "8/8/8/8/8/2k5/8/R6K w - - 0 5 3 2 0",                                 # the last move of a series of 3
)


@pytest.mark.parametrize("variant", PROGRESSIVE)
@pytest.mark.parametrize("fen", SMALL_TURN_TREES)
def test_turn_perft_through_the_table_agrees_with_the_plain_walk(variant, fen):
    """Turn-perft through the transposition table counts its last ply with count_turns;
    the plain walk of oracle/perft.py lists every series."""
    from doublecheck.oracle.perft import perft_turns
    from doublecheck.perft.cache import Counter, Table
    rules = variants.get(variant)
    pos = rules.parse_fen(fen)
    want = perft_turns(rules, pos, 2)
    assert want > 0 and Counter(rules, Table(16)).perft_turns(pos, 2) == want
