"""Generated Marseillais cases, for both forms: perft tables and seeded random games.

``build(variant)`` makes the two generated files of ``marseillais`` (this
module's VARIANT) or ``marseillais-classic`` (``marseillais_classic.py`` asks
for it), so both forms share one table of positions:

- perft in moves and in complete turns (G7) from the start position, where the
  two forms differ (M2), and from positions with live en passant targets: two
  targets at once (the Alekhine rule), a target that only move two can take, a
  pawn race full of double steps, a position between the two moves with a
  pending target, the usual rook endgame and a crowded middlegame;
- six seeded random games of at most 80 turns, three from the start and three
  from kings and pawns only (``PAWNS``; one ends in mate, one in stalemate).
  Each move is drawn by
  ``random.Random(game number)`` among the legal moves (sorted), with en passant
  captures and double steps weighted up so that targets come into play. The
  cases record the number of legal turns and the legal moves every 20 turns,
  the second moves of the next turn, one full turn list per game, the FEN at
  the first two turn boundaries with a usable target, and the FEN and status
  at the end.

Every value is checked against the independent python-chess adapter by
tests/test_adapter_vs_oracle.py (all of them; the largest with ``-m deep``).
"""

from doublecheck.authoring.deep import SECOND_WALK, DeepPerft
from doublecheck.authoring.generators import Kit, checked_by, random_game, runs

VARIANT = "marseillais"
GAMES = 6
MAX_TURNS = 80
EVERY = 20
SOURCE = checked_by("the python-chess adapter in tests/test_adapter_vs_oracle.py")
PERFT_RULES = ["G7", "M1", "M3", "M4", "M5"]
TURN_RULES = ["M1", "M3", "M4", "M8", "G8"]
PLAY_RULES = ["M6", "M7", "G9"]
WEIGHTS = {"en passant": 20, "double step": 4, "other": 1}
PAWNS = "4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 2"

# (slug, description, FEN or None for the start, its perft runs: generators.runs)
START = ("start", "the start position", None,
         runs(4, 2, divide=("m3",)))
POSITIONS = [
    ("alekhine", "two live targets c3 and e3, both of which Black may take in one turn",
     "4k3/8/8/8/1pPpP3/8/8/4K3 b - c3,e3 0 2 -",
     runs(4, 2, divide=("m2", "t2"))),
    ("move-two-target", "a target only move two can take, after an en passant move one unpins a pawn",
     "7k/5b2/8/2pPpP2/8/8/K7/8 w - c6,e6 0 2 -",
     runs(4, 2, divide=("m2",))),
    ("pawn-race", "pawns on both sides facing each other's double steps",
     "4k3/3p1p2/8/2P1P1P1/8/8/1P1P1P2/4K3 b - - 0 2",
     runs(4, 2, divide=("m4",))),
    ("pending-target", "between White's moves after e4 (field 4 holds the pending e3)",
     "4k3/8/8/8/3pP3/8/8/4K1N1 w - e3 0 2 m",
     runs(4, 3, divide=("m2",))),
    ("rook-endgame", "a rook endgame where double steps meet en passant and checks",
     "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 2",
     runs(4, 2, divide=("t2",))),
    ("kiwipete", "a crowded middlegame with castling, pins and en passant chances",
     "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 2",
     runs(3, 1, divide=("m2",))),
]


def perft_cases(kit) -> list:
    return kit.perft_cases([START] + POSITIONS,
                           lambda fen: PERFT_RULES + (["M2"] if fen is None else []))


def kind(rules, pos, move) -> str:
    if move.en_passant:
        return "en passant"
    return "double step" if rules.passed_square(pos, move) is not None else "other"


def start_of(game: int):
    """Games 1-3 start from the start position, games 4-6 from PAWNS."""
    return None if game <= 3 else PAWNS


def weighted(rng, rules, pos, moves):
    """Draws a move with en passant captures and double steps weighted up (WEIGHTS)."""
    return rng.choices(moves, [WEIGHTS[kind(rules, pos, m)] for m in moves])[0]


def playout_cases(kit) -> list:
    cases = []
    for game in range(1, GAMES + 1):
        fen = start_of(game)
        origin = {"fen": fen} if fen else {}
        line = random_game(kit.variant, game, MAX_TURNS, fen, weighted)
        cases += kit.checkpoint_cases(game, line, EVERY, TURN_RULES, origin)
        cases += target_cases(kit, game, line, origin)
        cases.append(kit.final_case(game, line, PLAY_RULES, origin))
    return cases


def target_cases(kit, game, line, origin) -> list:
    """The FEN at the first two turn boundaries of the game with a usable target."""
    cases = []
    for n in range(1, len(line)):
        fen = kit.ask(op="fen", **origin, moves=line[:n])["fen"]
        if fen.split()[3] == "-":
            continue
        cases.append(kit.case(
            f"{kit.variant}/generated-playouts/game-{game}-targets-after-{n}", ["M4", "M7"],
            f"the FEN after turn {n} of random game {game}, with a usable en passant target",
            {"op": "fen", **origin, "moves": line[:n]}, {"fen": fen}))
        if len(cases) == 2:
            break
    return cases


def build(variant: str) -> list[tuple[str, dict]]:
    kit = Kit(variant, SOURCE)
    return [
        (f"{variant}/generated-perft.json", kit.case_file(
            "generated-perft",
            "Perft in moves and in complete turns from the start and from positions with live "
            "en passant targets (two at once, one only move two can take, one pending between "
            "the moves), a rook endgame and a crowded middlegame.", perft_cases(kit))),
        (f"{variant}/generated-playouts.json", kit.case_file(
            "generated-playouts",
            f"{GAMES} seeded random games of whole turns played by the oracle, en passant and "
            f"double steps weighted up: turn counts and legal moves every {EVERY} turns, one full "
            f"list of legal turns per game, FENs with usable targets, and the FEN and status at "
            f"the end.", playout_cases(kit))),
    ]


ALEKHINE = next(fen for slug, _, fen, _ in POSITIONS if slug == "alekhine")
ADAPTER = "recounted with the python-chess adapter in tests/test_deep_tier.py (-m deep)"


# knights and pawns only, after the first turn: about 470 two-move turns a side, so
# three turns come to just over 100 million sequences
KNIGHTS_AND_PAWNS = "1n2k1n1/pppppppp/8/8/8/8/PPPPPPPP/1N2K1N1 w - - 0 2"


def deep_perft(variant: str) -> list:
    """The deep tier: perft 5 from the start and perft 6 with two live targets (the
    Alekhine rule, M4) in both forms; turn-perft 3 from the start in the balanced form
    (4.9 million turn sequences) and from the two-target position in the classic form.
    Then the counts of over 100 million, each checked by a second walk when generated:
    perft 6 from the start in both forms, and turn-perft 3 from the start in the classic
    form (131 million) or, in the balanced form, whose first turn is a single move, from
    a knights-and-pawns position."""
    turn_perft = (DeepPerft("start", 3, turns=True, rules=tuple(TURN_RULES), note=ADAPTER)
                  if variant == "marseillais" else
                  DeepPerft("alekhine", 3, turns=True, fen=ALEKHINE, rules=tuple(TURN_RULES), note=ADAPTER))
    big_turns = (DeepPerft("knights-and-pawns", 3, turns=True, fen=KNIGHTS_AND_PAWNS, rules=tuple(TURN_RULES),
                           note=SECOND_WALK, check=True)
                 if variant == "marseillais" else
                 DeepPerft("start", 3, turns=True, rules=tuple(TURN_RULES), note=SECOND_WALK, check=True))
    return [DeepPerft("start", 5, rules=tuple(PERFT_RULES), note=ADAPTER), turn_perft,
            DeepPerft("alekhine", 6, fen=ALEKHINE, rules=tuple(PERFT_RULES), note=ADAPTER),
            DeepPerft("start", 6, rules=tuple(PERFT_RULES), note=SECOND_WALK, check=True), big_turns]


DEEP_PERFT = deep_perft(VARIANT)


def files() -> list[tuple[str, dict]]:
    return build(VARIANT)
