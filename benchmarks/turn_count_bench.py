"""Counting a progressive series' turns against listing them (a measurement, not a test).

The turn count that ``doublecheck show``, the desk's turn panel and turn-perft's
last ply ask for is ``rules.count_turns(pos)``.  In progressive chess it counts
the last moves of the series instead of playing each one (P1: every legal move
there ends the series); ``len(rules.turns(pos))`` lists every series first.  For
each position below, both forms: the count (the same by both ways), the CPU
time of each way (best of ``--runs``), and the ratio.

Run: python3 benchmarks/turn_count_bench.py [--runs N]
"""

from __future__ import annotations

import argparse
import time

from doublecheck.oracle import variants

POSITIONS = {   # FEN fields 7-9: series length, moves played, quiet series (P6.2)
    "start of series 2 (Black)": "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 2 0 0",
    "start of series 3 (White)": "rnbqkbnr/ppp1p1pp/3p4/5p2/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2 3 0 0",
    "open game, series 3": "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 0 3 3 0 0",
    "series 4 with 1 played": "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 0 3 4 1 0",
}


def best_cpu(fn, runs: int) -> tuple[float, object]:
    best, value = float("inf"), None
    for _ in range(runs):
        began = time.process_time()
        value = fn()
        best = min(best, time.process_time() - began)
    return best, value


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="runs of each way; the best CPU time is kept")
    args = ap.parse_args()
    print(f"{'variant':<22} {'position':<27} {'turns':>8} {'listed s':>9} {'counted s':>10} {'ratio':>6}")
    for variant in ("progressive-scottish", "progressive-italian"):
        rules = variants.get(variant)
        for name, fen in POSITIONS.items():
            pos = rules.parse_fen(fen)
            listed, n = best_cpu(lambda: len(rules.turns(pos)), args.runs)
            counted, m = best_cpu(lambda: rules.count_turns(pos), args.runs)
            assert n == m, (variant, name, n, m)
            print(f"{variant:<22} {name:<27} {n:>8,} {listed:>9.3f} {counted:>10.3f} {listed / counted:>5.1f}x",
                  flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
