"""Time per turn of replaying long games: flat when replay is linear in the game's length.

    python3 benchmarks/replay_bench.py                       # 1,000, 4,000, 16,000 turns
    python3 benchmarks/replay_bench.py --turns 500 2000      # other lengths
    python3 benchmarks/replay_bench.py --variant marseillais

The games are seeded random playouts of quiet moves (no pawn moves, no
captures, no checks), so their length is exactly what is asked: the pieces
wander behind their pawns, positions repeat, and the game is over on the
board long before its end (the seventy-five-move rule, fivefold repetition),
which replay only reports for the final position.  That is the worst case
for the repetition history: every turn adds to it and many keys are equal.

Three paths are timed, the best of ``--runs`` for each length:

- ``api.replay``: the oracle's line player (``doublecheck play``, ``serve``,
  the harness, the desk's line), with the status of the final position;
- ``doublecheck replay``: a PGN record checked turn by turn with the reasons
  (``pgn.replay_text``, what the command and the desk's ``replay`` run);
- the desk's ``replay`` operation, for records within its limit of turns.

The numbers are CPU milliseconds per turn; "flat" means the column does not grow
with the length.  This is a measurement script, not a test.
"""

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from doublecheck.desk import ops  # noqa: E402
from doublecheck.lookups import pgn  # noqa: E402
from doublecheck.oracle import api, variants  # noqa: E402
from doublecheck.oracle.position import BLACK, WHITE  # noqa: E402

OTHER = {WHITE: BLACK, BLACK: WHITE}


def quiet(rules, pos, move) -> bool:
    """No pawn move, no capture, no check: the game's length stays ours to choose."""
    piece = pos.board[move.frm] if move.frm is not None else None
    if piece is None or piece[-1] in "Pp" or pos.board[move.to] is not None or move.en_passant:
        return False
    after = rules.play(pos, move)
    return not (rules.has_check and rules.in_check(after, OTHER[pos.turn]))


def playout(rules, turns: int, seed: int) -> list[str]:
    """Move tokens of ``turns`` whole turns of quiet moves, chosen at random (seeded)."""
    rng = random.Random(seed)
    pos, tokens, done = rules.start, [], 0
    while done < turns:
        moves = [m for m in rules.legal_moves(pos) if quiet(rules, pos, m)]
        move = rng.choice(moves)
        tokens.append(rules.move_text(pos, move))
        pos = rules.play(pos, move)
        done += not rules.mid_turn(pos)
    return tokens


def per_turn(work, turns: int, runs: int) -> float:
    """CPU milliseconds per turn of ``work``, the best of ``runs`` (CPU time, not wall time:
    on a shared machine other processes' load would otherwise be counted too)."""
    best = float("inf")
    for _ in range(runs):
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return best * 1000 / turns


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, nargs="+", default=[1000, 4000, 16000])
    parser.add_argument("--variant", action="append",
                        help="chess and marseillais unless given (repeatable)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--runs", type=int, default=3, help="runs of each; the best is kept")
    args = parser.parse_args()
    print(f"{'variant':<14}{'turns':>7}{'api.replay':>13}{'replay (PGN)':>15}{'desk replay':>14}"
          "   (ms per turn)")
    for name in args.variant or ["chess", "marseillais"]:
        rules = variants.get(name)
        for turns in args.turns:
            tokens = playout(rules, turns, args.seed)
            record = pgn.pgn_for_line(name, None, tokens)

            def oracle():
                line = api.replay(rules, None, tokens)
                rules.status(line.final, line.history)

            def desk():
                ops.replay({"pgn": record})

            a = per_turn(oracle, turns, args.runs)
            b = per_turn(lambda: pgn.replay_text(record), turns, args.runs)
            c = f"{per_turn(desk, turns, args.runs):14.3f}" if turns <= ops.MAX_MOVES \
                else f"{'(over limit)':>14}"
            print(f"{name:<14}{turns:>7}{a:13.3f}{b:15.3f}{c}", flush=True)


if __name__ == "__main__":
    main()
