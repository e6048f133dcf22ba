"""Time oracle perft against python-chess perft on the standard perft positions.

    python benchmarks/perft_bench.py                 # default depths, median of 3 runs
    python benchmarks/perft_bench.py --runs 1 --depth-offset -1   # quicker
    python benchmarks/perft_bench.py --jobs-only       # just perft --jobs 2 against one process

python-chess is driven the plain way, with a push and a pop for every leaf
(no bulk counting).  The oracle runs its own perft (doublecheck.oracle.perft.perft), which
generates the legal moves of each last-but-one position and counts them.
Both must report the same node count; the script says so if they do not.
The ratio is oracle speed / python-chess speed (higher is better for the oracle).
A second column plays every leaf in the oracle too, for a like-for-like comparison.
This is a measurement script, not a test: nothing here asserts on time.
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))   # python_chess_perft

import chess  # noqa: E402

from doublecheck.oracle import variants  # noqa: E402
from doublecheck.oracle.perft import perft as oracle_perft  # noqa: E402
from doublecheck.perft.parallel import count  # noqa: E402
from python_chess_perft import perft_every_leaf as python_chess_perft  # noqa: E402

POSITIONS = [
    ("start", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 4),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 3),
    ("position3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 5),
    ("position4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 3),
    ("position5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 3),
    ("position6", "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", 3),
]


def oracle_perft_every_leaf(rules, pos, depth):
    """Like python-chess's loop above: every leaf is reached by playing its move."""
    if depth == 0:
        return 1
    return sum(oracle_perft_every_leaf(rules, rules.play(pos, m), depth - 1) for m in rules.legal_moves(pos))


def timed(fn, runs):
    times, result = [], None
    for _ in range(runs):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return result, statistics.median(times)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3, help="runs per measurement; the median is shown (default 3)")
    ap.add_argument("--depth-offset", type=int, default=0, help="add this to every default depth")
    ap.add_argument("--positions", nargs="*", help="names of positions to run (default all)")
    ap.add_argument("--jobs-only", action="store_true", help="only compare perft --jobs 2 with one process")
    args = ap.parse_args(argv)
    if args.jobs_only:
        return compare_jobs()
    rules = variants.get("chess")
    print(f"{'position':<10} {'depth':>5} {'nodes':>9} {'oracle n/s':>11} {'py-chess n/s':>12} {'ratio':>6}"
          f" {'oracle, every leaf played':>26} {'ratio':>6}")
    worst = None
    for name, fen, depth in POSITIONS:
        if args.positions and name not in args.positions:
            continue
        depth = max(1, depth + args.depth_offset)
        pos = rules.parse_fen(fen)
        ours, t_ours = timed(lambda: oracle_perft(rules, pos, depth), args.runs)
        theirs, t_theirs = timed(lambda: python_chess_perft(chess.Board(fen), depth), args.runs)
        leaves, t_leaves = timed(lambda: oracle_perft_every_leaf(rules, pos, depth), args.runs)
        ratio = (ours / t_ours) / (theirs / t_theirs)
        leaf_ratio = (leaves / t_leaves) / (theirs / t_theirs)
        worst = ratio if worst is None else min(worst, ratio)
        flag = "" if ours == theirs == leaves else f"  COUNT MISMATCH: oracle {ours}/{leaves} python-chess {theirs}"
        print(f"{name:<10} {depth:>5} {ours:>9} {ours / t_ours:>11.0f} {theirs / t_theirs:>12.0f} {ratio:>6.2f}"
              f" {leaves / t_leaves:>26.0f} {leaf_ratio:>6.2f}{flag}")
    others = [v for v in variants.VARIANT_NAMES if v != "chess"]
    if others:
        print(f"\n{'variant start position':<26} {'depth':>5} {'nodes':>9} {'oracle n/s':>11}")
        for name in others:
            v = variants.get(name)
            pos = v.parse_fen(v.start_fen)
            nodes, t = timed(lambda: oracle_perft(v, pos, 3), 1)
            print(f"{name:<26} {3:>5} {nodes:>9} {nodes / t:>11.0f}")
    if worst is not None:
        print(f"\nlowest oracle/python-chess ratio: {worst:.2f}")
    compare_jobs()


def compare_jobs(name="position5", depth=4):
    """perft split over 2 processes against one process (both the plain walk, no cache),
    on a count that takes well over 10 s.  benchmarks/deep_perft_bench.py measures the cache."""
    fen = dict((n, f) for n, f, _ in POSITIONS)[name]
    rules = variants.get("chess")
    t0 = time.perf_counter()
    one = oracle_perft(rules, rules.parse_fen(fen), depth)
    t_one = time.perf_counter() - t0
    t0 = time.perf_counter()
    two = count(rules, rules.parse_fen(fen), depth, hash_mb=0, jobs=2)["nodes"]
    t_two = time.perf_counter() - t0
    flag = "" if one == two else f"  COUNT MISMATCH: {one} vs {two}"
    print(f"\nperft --jobs 2, {name} depth {depth} ({one} nodes): one process {t_one:.1f} s, "
          f"two processes {t_two:.1f} s, speed-up {t_one / t_two:.2f}x{flag}")


if __name__ == "__main__":
    main()
