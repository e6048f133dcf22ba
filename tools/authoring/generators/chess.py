"""Generated chess cases: seeded random games and small perft tables on their positions.

The oracle plays six games, each move chosen by ``random.Random(game number)``
among the legal moves (sorted, so the choice does not depend on generation
order), for at most 60 plies or until the game ends. The cases record the FEN
and status after each whole game and the legal moves after every tenth ply;
a perft table (depth 2 with divide, and depth 3) covers ten of those positions.
``tests/test_generated.py`` checks every value against python-chess.
"""

import random

from doublecheck.authoring.deep import DeepPerft
from doublecheck.authoring.generators import Kit, checked_by, perft_request

VARIANT = "chess"
GAMES = 6
MAX_PLIES = 60
EVERY = 10
SOURCE = checked_by("python-chess in tests/test_generated.py")
MOVE_RULES = ["FIDE-3.1", "FIDE-3.9.2", "G8"]
PLAY_RULES = ["FIDE-3.9.2", "G2", "G3", "G3.1", "G9"]
PERFT_RULES = ["FIDE-3.9.2", "G7"]

# The deep tier (doublecheck generate --deep): four of the standard perft positions
# of cases/chess/perft.json one ply deeper (Kiwipete 5 and position 6 5, 194 and 164
# million nodes, are left for a machine with time to spare), and the start position
# two plies deeper (perft 7, 3.2 billion: the count engine authors quote); the counts
# are the published ones, and tests/test_deep_tier.py recounts those under 200
# million with python-chess.
POSITION3 = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"
POSITION4 = "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1"
POSITION5 = "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8"
CHECKED = "the published perft table; recounted with python-chess in tests/test_deep_tier.py (-m deep)"
DEEP_PERFT = [
    DeepPerft("start", 6, rules=tuple(PERFT_RULES), note=CHECKED),
    DeepPerft("start", 7, rules=tuple(PERFT_RULES),
              note="the published perft table (3,195,901,860); too large for the python-chess recount"),
    DeepPerft("position3", 6, fen=POSITION3, rules=tuple(PERFT_RULES), note=CHECKED),
    DeepPerft("position3", 6, turns=True, fen=POSITION3, rules=("G1", "G7"),
              note="in chess a turn is one move, so this equals perft 6; " + CHECKED),
    DeepPerft("position4", 5, fen=POSITION4, rules=tuple(PERFT_RULES), note=CHECKED),
    DeepPerft("position5", 5, fen=POSITION5, rules=tuple(PERFT_RULES), note=CHECKED),
]


KIT = Kit(VARIANT, SOURCE)
ask, case, case_file = KIT.ask, KIT.case, KIT.case_file


def playout(seed: int) -> list[tuple[str, dict]]:
    """The moves of one random game, each with the oracle's ``play`` answer after it."""
    rng = random.Random(seed)
    line, played = [], [ask(op="play", moves=[])]
    while len(line) < MAX_PLIES and not played[-1]["status"]["over"]:
        line.append(rng.choice(sorted(ask(op="moves", fen=played[-1]["fen"])["moves"])))
        played.append(ask(op="play", moves=line))
    return line, played


def files() -> list[tuple[str, dict]]:
    playouts, positions = [], []
    for game in range(1, GAMES + 1):
        line, played = playout(game)
        for ply in range(EVERY, len(line) + 1, EVERY):
            fen = played[ply]["fen"]
            moves = sorted(ask(op="moves", fen=fen)["moves"])
            playouts.append(case(
                f"chess/generated-playouts/game-{game}-moves-after-{ply}", MOVE_RULES,
                f"legal moves after ply {ply} of random game {game}",
                {"op": "moves", "moves": line[:ply]}, {"moves": moves}))
            if moves:
                positions.append((game, ply, fen))
        playouts.append(case(
            f"chess/generated-playouts/game-{game}-play", PLAY_RULES,
            f"FEN and status after the {len(line)} plies of random game {game}",
            {"op": "play", "moves": line}, played[-1]))

    perft = []
    for game, ply, fen in positions[::max(1, len(positions) // 10)][:10]:
        perft.append(KIT.perft_case(
            f"chess/generated-perft/game-{game}-ply-{ply}-depth-2", PERFT_RULES,
            f"perft 2 with divide after ply {ply} of random game {game}",
            perft_request(2, fen, divide=True)))
        perft.append(KIT.perft_case(
            f"chess/generated-perft/game-{game}-ply-{ply}-depth-3", PERFT_RULES,
            f"perft 3 after ply {ply} of random game {game}", perft_request(3, fen)))

    return [
        ("chess/generated-playouts.json", case_file(
            "generated-playouts",
            f"{GAMES} seeded random games played by the oracle: the FEN and status after each "
            f"game and the legal moves after every {EVERY}th ply.", playouts)),
        ("chess/generated-perft.json", case_file(
            "generated-perft",
            "Perft to depth 2 with divide, and to depth 3, from ten positions of the generated random games.",
            perft)),
    ]
