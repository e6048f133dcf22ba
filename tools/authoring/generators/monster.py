"""Generated Monster chess cases: perft tables and seeded random games.

- perft in moves and in complete turns (G7) from the start position and from
  positions where the rules of the variant decide many moves at once: Black's
  king near White's king (the two-move check, MO4), White's king attacked
  between its moves (MO3), a Black double step White may take en passant on
  move one only (MO6), Black castling past squares White could reach (MO7), and
  White's promoted pieces against a thinned army;
- four seeded random games of at most 60 turns from the start, each move drawn
  by ``random.Random(game number)`` among the legal moves (sorted), with king
  moves and pawn moves of White weighted up so that the kings meet.  The cases
  record the number of legal turns and the legal moves every 15 turns, White's
  second moves, one full turn list per game, and the FEN and status at the end.

The counts are recounted by the independent python-chess walk of
tests/test_monster.py.
"""

from doublecheck.authoring.deep import ADAPTER_WALK, DeepPerft
from doublecheck.authoring.generators import Kit, checked_by, random_game, runs

VARIANT = "monster"
GAMES = 4
MAX_TURNS = 60
EVERY = 15
SOURCE = checked_by("the independent python-chess walk in tests/test_monster.py")
PERFT_RULES = ["G7", "MO2", "MO3", "MO4", "MO6"]
TURN_RULES = ["MO2", "MO4", "G8"]
PLAY_RULES = ["MO5", "MO8", "G9"]

START = ("start", "the start position", None, runs(4, 2, divide=("m3", "t2")))
POSITIONS = [
    ("kings-close", "the kings three steps apart, where every Black king move is tested by MO4",
     "8/8/3k4/8/8/3K4/2P2P2/8 b - - 0 10 -", runs(4, 2, divide=("m2",))),
    ("white-king-attacked", "White's king in check from a rook, to be answered by the end of the turn",
     "4k3/8/8/8/8/8/2PP4/r3K3 w - - 0 10 -", runs(3, 2, divide=("m2",))),
    ("en-passant", "a Black double step just made beside White's pawn (target d6)",
     "rnbqkbnr/ppp1pppp/8/3pP3/8/8/2PP1P2/4K3 w kq d6 0 3 -", runs(3, 2, divide=("m2",))),
    ("black-castling", "Black's castling with White's pawns and king close to the king's side",
     "r3k2r/pppppppp/8/8/8/4P3/3K1P2/8 b kq - 0 8 -", runs(3, 2, divide=("m1",))),
    ("promoted", "White with a promoted bishop and knight against a thinned army",
     "k1r5/pp6/8/8/8/1B3N2/3PP3/4K3 w - - 0 20 -", runs(3, 2, divide=("m2",))),
]


def perft_cases(kit) -> list:
    return kit.perft_cases([START] + POSITIONS,
                           lambda fen: PERFT_RULES + (["MO1"] if fen is None else []))


def weighted(rng, rules, pos, moves):
    """White's king and pawn moves weighted up, so that the kings meet and pawns promote."""
    weights = [3 if pos.turn == "w" else 1 for _ in moves]
    return rng.choices(moves, weights)[0]


def playout_cases(kit) -> list:
    cases = []
    for game in range(1, GAMES + 1):
        line = random_game(kit.variant, game, MAX_TURNS, None, weighted)
        cases += kit.checkpoint_cases(game, line, EVERY, TURN_RULES)
        cases.append(kit.final_case(game, line, PLAY_RULES))
    return cases


def files() -> list[tuple[str, dict]]:
    kit = Kit(VARIANT, SOURCE)
    return kit.perft_and_playouts(
        "Perft in moves and in complete turns from the start and from positions where the two-move "
        "check (MO4), White's king between its moves (MO3), en passant timing (MO6) and Black's "
        "castling (MO7) decide many moves.", perft_cases(kit),
        f"{GAMES} seeded random games of whole turns played by the oracle: turn counts and legal "
        f"moves every {EVERY} turns, White's second moves, one full list of legal turns per game, "
        f"and the FEN and status at the end.", playout_cases(kit))


# The deep tier.  From the start: perft 6 (White's turn, Black's reply, White's turn, Black's
# reply) and turn-perft 3.  Then the counts of over 100 million, each checked by the
# python-chess adapter: a Black move costs the most (it asks whether any White move one
# leads to a capture, MO4), so they are counted from a position where Black has few moves
# and White's pieces many, ending on White's move two: perft 6 and turn-perft 4 (Black,
# White's two moves, Black, White's two moves: the same sequences, walked by turns).
SMALL = "below 100 million nodes: counted once, with the transposition cache"
PIECES = "r4rk1/pp3ppp/2n5/8/8/2N5/2PPBP2/2B1K1N1 b - - 0 30 -"
DEEP_PERFT = [DeepPerft("start", 6, rules=tuple(PERFT_RULES), note=SMALL),
              DeepPerft("start", 3, turns=True, rules=tuple(TURN_RULES), note=SMALL),
              DeepPerft("pieces", 6, fen=PIECES, rules=tuple(PERFT_RULES), note=ADAPTER_WALK, check=True,
                        second="adapter"),
              DeepPerft("pieces", 4, turns=True, fen=PIECES, rules=tuple(TURN_RULES), note=ADAPTER_WALK,
                        check=True, second="adapter")]
