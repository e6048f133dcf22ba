"""Generated progressive chess cases, for both forms: perft tables and seeded random games.

``build(variant)`` makes the two generated files of ``progressive-scottish`` (this
module's VARIANT) or ``progressive-italian`` (``progressive_italian.py`` asks for
it), so both forms share one table of positions:

- perft in moves and in complete series (G7, P8) from the start, from a position
  with two live en passant targets (P3), from inside a series with a pending
  target, from a position full of checks (where the forms differ: PS1, PI1), and
  from a crowded middlegame;
- six seeded random games of at most ``MAX_SERIES`` series (series grow, so a
  game soon holds dozens of moves), three from the start and three from kings,
  rooks and pawns.  Each move is drawn by ``random.Random(game number)`` among
  the legal moves (sorted).  The cases record the legal moves at every
  ``EVERY``-th series boundary, the legal moves in the middle of the next series,
  the ways to finish a series whose last move is next (a turn list a walk can
  give, P8), the FEN at the first boundary with a usable target, and the FEN and
  status at the end.

Move lists are given move by move (the moves of one series can pass the 64
characters one item of ``moves`` may hold).  Every count is recounted by a
second walk in tests/test_progressive.py.
"""

import random

from doublecheck.authoring.deep import ADAPTER_WALK, DeepPerft
from doublecheck.authoring.generators import Kit, checked_by, runs
from doublecheck.oracle import variants

VARIANT = "progressive-scottish"
GAMES = 6
MAX_SERIES = 12
EVERY = 3
SOURCE = checked_by("the independent series walk of tests/test_progressive.py")
PERFT_RULES = ["G7", "P1", "PS1", "P3", "P4"]
MOVE_RULES = ["P1", "PI2", "G8"]
PLAY_RULES = ["P6", "P6.2", "G9"]
ROOKS = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"

# (slug, description, FEN or None for the start, its perft runs: generators.runs)
START = ("start", "the start position", None, runs(4, 2, divide=("m3", "t2")))
POSITIONS = [
    ("two-targets", "two live targets c3 and e3 at the start of Black's series of 4",
     "4k3/8/8/8/1pPpP3/8/8/4K3 b - c3,e3 0 2", runs(4, 1, divide=("m2",))),
    ("pending-target", "inside White's series of 3 after e4 (field 4 holds the pending e3)",
     "4k3/8/8/8/3pP3/8/8/4K1N1 w - e3 0 2 3 1 0", runs(4, 1, divide=("m3",))),
    ("checks", "queens and rooks facing open kings in a series of two, where checks end or break series",
     "3qk3/8/8/8/8/8/8/R2QK2R w KQ - 0 2 2 0 0", runs(3, 1, divide=("m2",))),
    ("kiwipete", "a crowded middlegame with castling, pins and en passant chances, in a series of two",
     "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 2 2 0 0", runs(3, 1)),
]


def perft_cases(kit) -> list:
    return kit.perft_cases([START] + POSITIONS, lambda fen: PERFT_RULES)


def random_series(variant, seed, fen=None):
    """A seeded random game as a list of series, each a list of move texts."""
    rules = variants.get(variant)
    rng = random.Random(seed)
    pos, history, line = rules.parse_fen(fen or rules.start_fen), [], []
    while len(line) < MAX_SERIES and not rules.status(pos, history)["over"]:
        history.append(rules.identity(pos))
        series = []
        while True:
            moves = sorted(rules.legal_moves(pos), key=lambda m: rules.move_text(pos, m))
            move = rng.choice(moves)
            series.append(rules.move_text(pos, move))
            pos = rules.play(pos, move)
            if not rules.mid_turn(pos):
                break
        line.append(series)
    return line


def flat(series_list) -> list:
    return [m for s in series_list for m in s]


def playout_cases(kit) -> list:
    cases = []
    for game in range(1, GAMES + 1):
        fen = None if game <= 3 else ROOKS
        origin = {"fen": fen} if fen else {}
        line = random_series(kit.variant, game, fen)
        prefix = f"{kit.variant}/generated-playouts/game-{game}"
        for n in range(EVERY, len(line), EVERY):
            played = flat(line[:n])
            cases.append(kit.case(f"{prefix}-moves-after-{n}", MOVE_RULES,
                                  f"legal first moves of series {n + 1} of random game {game}",
                                  {"op": "moves", **origin, "moves": played},
                                  {"moves": sorted(kit.ask(op="moves", **origin, moves=played)["moves"])}))
            nxt = line[n]
            if len(nxt) > 2:
                inside = played + nxt[:2]
                cases.append(kit.case(f"{prefix}-moves-inside-{n + 1}", MOVE_RULES + ["P3"],
                                      f"legal third moves of series {n + 1} of random game {game}",
                                      {"op": "moves", **origin, "moves": inside},
                                      {"moves": sorted(kit.ask(op="moves", **origin, moves=inside)["moves"])}))
                last = played + nxt[:-1]
                turns = sorted(kit.ask(op="turns", **origin, moves=last)["turns"])
                cases.append(kit.case(f"{prefix}-last-move-of-{n + 1}", ["P1", "G7", "G8"],
                                      f"the ways to finish series {n + 1} of random game {game} "
                                      f"when its last move is next",
                                      {"op": "turns", **origin, "moves": last}, {"turns": turns}))
        cases += target_cases(kit, game, line, origin)
        result = kit.ask(op="play", **origin, moves=flat(line))
        cases.append(kit.case(f"{prefix}-play", PLAY_RULES + ["P4", "P5"],
                              f"FEN and status after the {len(line)} series of random game {game}",
                              {"op": "play", **origin, "moves": flat(line)},
                              {"fen": result["fen"], "status": result["status"]}))
    return cases


def target_cases(kit, game, line, origin) -> list:
    """The FEN at the first series boundary of the game with a usable target."""
    for n in range(1, len(line)):
        fen = kit.ask(op="fen", **origin, moves=flat(line[:n]))["fen"]
        if fen.split()[3] != "-":
            return [kit.case(f"{kit.variant}/generated-playouts/game-{game}-targets-after-{n}",
                             ["P3", "P6.2"], f"the FEN after series {n} of random game {game}, with "
                             f"a usable en passant target",
                             {"op": "fen", **origin, "moves": flat(line[:n])}, {"fen": fen})]
    return []


def build(variant: str) -> list[tuple[str, dict]]:
    kit = Kit(variant, SOURCE)
    return kit.perft_and_playouts(
        "Perft in moves and in complete series from the start, from two live en passant "
        "targets, from inside a series, from a position full of checks and from a crowded "
        "middlegame.", perft_cases(kit),
        f"{GAMES} seeded random games of at most {MAX_SERIES} series played by the oracle: legal "
        f"moves every {EVERY} series and inside the next one, the ways to finish a series whose "
        f"last move is next, a FEN with a usable target, and the FEN and status at the end.",
        playout_cases(kit))


def deep_perft(variant: str) -> list:
    """The deep tier: perft 6 by moves and turn-perft 3 (1 + 2 + 3 = 6 moves) from the
    start, each over 100 million and checked by a second walk when generated."""
    return [DeepPerft("start", 5, rules=tuple(PERFT_RULES), note=ADAPTER_WALK),
            DeepPerft("start", 6, rules=tuple(PERFT_RULES), note=ADAPTER_WALK, check=True, second="adapter"),
            DeepPerft("start", 3, turns=True, rules=tuple(PERFT_RULES), note=ADAPTER_WALK, check=True,
                      second="adapter")]


DEEP_PERFT = deep_perft(VARIANT)


def files() -> list[tuple[str, dict]]:
    return build(VARIANT)
