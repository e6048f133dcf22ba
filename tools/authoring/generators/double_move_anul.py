"""Generated double-move-anul cases: perft tables and seeded random games.

Perft (moves and complete turns, G7) from the start position, from four
well-known middlegame test positions full of captures, checks, promotions
and en passant, and from one position in the middle of a turn. Depths are
chosen so the whole table takes the oracle about ten seconds.

The random games: the oracle plays six games, each move chosen by
``random.Random(game number)`` among the legal moves (sorted), a second move
whenever the turn goes on, for at most 100 turns or until the game ends
(game 4 ends in mate). After every twentieth turn the cases record the
number of legal turns and the legal first moves, and the legal second moves
after the first move of the next two-move turn; each game also lists its
shortest set of legal turns in full, and the FEN and status at its end.
``tests/test_double_move_anul.py`` checks every value against an independent
implementation of the turn machine on top of python-chess.
"""

from doublecheck.authoring.deep import SECOND_WALK, DeepPerft
from doublecheck.authoring.generators import Kit, checked_by, random_game, runs

VARIANT = "double-move-anul"
GAMES = 6
MAX_TURNS = 100
EVERY = 20
SOURCE = checked_by("python-chess in tests/test_double_move_anul.py")
PERFT_RULES = ["G7", "A1", "A3"]
TURN_RULES = ["A1", "DA-2", "DA-5", "DA-6", "DA-no-pass", "G8"]
PLAY_RULES = ["A1", "A4", "A5", "G9"]


# (slug, description, FEN or None for the start, its perft runs: generators.runs)
POSITIONS = [
    ("start", "the start position", None,
     runs(3, 1, divide=("m3",))),
    ("kiwipete", "a crowded middlegame with castling, pins and en passant chances",
     "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
     runs(3, 1, divide=("m2",))),
    ("rook-endgame", "a rook endgame where pawn double steps meet en passant and checks",
     "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
     runs(4, 2, divide=("t2",))),
    ("promotions-in-check", "White in check, with promotions and captures on both sides",
     "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
     runs(3, 1, divide=("m3",))),
    ("promotion-race", "a pawn on d7 that promotes with capture or check, and a knight fork on f2",
     "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
     runs(3, 1)),
    ("kiwipete-mid-turn", "the crowded middlegame after White's quiet first move Rb1 (field 7 m)",
     "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/1R2K2R w Kkq - 1 1 m",
     runs(3, 2, divide=("m2",))),
]


# The deep tier (doublecheck generate --deep): positions of POSITIONS above, one or
# two plies deeper; tests/test_deep_tier.py recounts them with the python-chess adapter.
ADAPTER = "recounted with the python-chess adapter in tests/test_deep_tier.py (-m deep)"
FENS = {slug: fen for slug, _, fen, _ in POSITIONS}
DEEP_PERFT = [
    DeepPerft("start", 5, rules=tuple(PERFT_RULES), note=ADAPTER),
    DeepPerft("start", 2, turns=True, rules=tuple(PERFT_RULES), note=ADAPTER),
    DeepPerft("kiwipete", 4, fen=FENS["kiwipete"], rules=tuple(PERFT_RULES), note=ADAPTER),
    DeepPerft("rook-endgame", 6, fen=FENS["rook-endgame"], rules=tuple(PERFT_RULES), note=ADAPTER),
    DeepPerft("rook-endgame", 3, turns=True, fen=FENS["rook-endgame"], rules=tuple(PERFT_RULES), note=ADAPTER),
    # over 100 million: checked by a second walk when generated
    DeepPerft("start", 6, rules=tuple(PERFT_RULES), note=SECOND_WALK, check=True),
    DeepPerft("start", 3, turns=True, rules=tuple(PERFT_RULES), note=SECOND_WALK, check=True),
]


KIT = Kit(VARIANT, SOURCE)
case_file = KIT.case_file


PERFT_ABOUT = ("Perft in moves and in complete turns from the start, four middlegame test "
               "positions and one position in the middle of a turn.")


def perft_cases() -> list:
    return KIT.perft_cases(POSITIONS, lambda fen: PERFT_RULES)


PLAYOUTS_ABOUT = (f"{GAMES} seeded random games of whole turns played by the oracle: turn counts and "
                  f"legal moves every {EVERY} turns, one full list of legal turns per game, and the "
                  f"FEN and status at the end.")


def playout_cases() -> list:
    cases = []
    for game in range(1, GAMES + 1):
        line = random_game(VARIANT, game, MAX_TURNS)
        cases += KIT.checkpoint_cases(game, line, EVERY, TURN_RULES)
        cases.append(KIT.final_case(game, line, PLAY_RULES))
    return cases


def files() -> list[tuple[str, dict]]:
    return KIT.perft_and_playouts(PERFT_ABOUT, perft_cases(), PLAYOUTS_ABOUT, playout_cases())
