"""Deep perft: the transposition cache and the process split, measured side by side.

    python benchmarks/deep_perft_bench.py                    # everything (an hour or more)
    python benchmarks/deep_perft_bench.py --chess-only --positions start --depth-offset -1
    python benchmarks/deep_perft_bench.py --variants-only

Part 1, chess, on the six standard perft positions: the oracle with the
transposition cache (``doublecheck.perft``, default ``--hash``), the plain
oracle walk (``oracle/perft.py``), and python-chess, all three counting the
last ply in bulk (the legal moves of each last-but-one position are counted,
not played).  A second line gives the same with a push/pop (a ``play``) for
every leaf, as a plain perft loop does.  Ratios are speeds relative to
python-chess (higher is better for the oracle); "cache x" is cached speed over
plain speed.  The default depths are those where python-chess's bulk count
takes roughly 10-130 s on a quiet machine of the development kind (start
position: perft 6, the depth of the issue's goal).

Part 2, each variant's start position at its deep-tier depth: the plain walk and
the cached one, each in one process and with ``--jobs 2`` (the split that keeps
transpositions in one process: ``doublecheck.perft.split``); with ``--dask`` also
the cached count on a local Dask cluster of two one-thread workers.

Part 3, the peak memory (RSS) of ``doublecheck perft`` with the default
``--hash`` on the largest chess count.

Part 4, the deep tier's counts as recorded when they were generated: nodes, how
they were counted, the seconds it took, and the second walk that checked them.

Every row prints the machine load (``os.getloadavg``) when it started: on a
shared machine the numbers move with it.  Part 2 also prints the CPU seconds of
all the processes of each count: on a busy Linux machine with autogroup
scheduling (``/proc/sys/kernel/sched_autogroup_enabled``) the processes of one
session share that session's slice, so ``--jobs 2`` shows its wall-time gain only
on free cores, while the CPU line shows how much work the split adds.  Nothing
here asserts on time.
"""

import argparse
import os
import resource
import re
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))   # python_chess_perft

import chess  # noqa: E402

from doublecheck.authoring.generate import discover  # noqa: E402
from doublecheck.oracle import perft as plain  # noqa: E402
from doublecheck.oracle import variants  # noqa: E402
from doublecheck.perft.cache import DEFAULT_HASH_MB, Counter, Table  # noqa: E402
from doublecheck.perft.parallel import count  # noqa: E402
from perft_bench import oracle_perft_every_leaf, python_chess_perft  # noqa: E402  (every leaf played)
from python_chess_perft import perft as python_chess_bulk  # noqa: E402  (the last ply counted, not played)

POSITIONS = [
    ("start", chess.STARTING_FEN, 6),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 4),
    ("position3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 6),
    ("position4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 5),
    ("position5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 5),
    ("position6", "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", 4),
]
# each variant's start position at the first depth of its deep tier (moves, or turns): read from
# the DEEP_PERFT lists of the generators, so a new variant brings its own rows.  The deeper counts
# (hundreds of millions to billions: chess perft 7, and those with a second walk) are left to part
# 4, which lists the times they took when generated.
def first_start_depths(module) -> list:
    starts = [spec for spec in getattr(module, "DEEP_PERFT", ())
              if spec.fen is None and not spec.moves and not spec.check]
    return [(module.VARIANT, min(s.depth for s in starts if s.turns == turns), turns)
            for turns in sorted({s.turns for s in starts})]


VARIANT_STARTS = sorted((row for module in discover() for row in first_start_depths(module)),
                        key=lambda row: variants.VARIANT_NAMES.index(row[0]))


def load() -> str:
    return "load %.1f" % os.getloadavg()[0]


def timed(fn):
    started = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - started


def cpu_used() -> float:
    """CPU seconds of this process and of its finished children (a local pool's processes)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


# --------------------------------------------------------------- the oracle

def cached_leaves(rules, pos, depth):
    """The cached walk, except that a last-but-one position not counted yet plays each of its moves
    (an unbounded dict per depth: fine for the positions measured here)."""
    table = [{} for _ in range(depth + 1)]

    def walk(p, d):
        key = rules.perft_key(p)
        n = table[d].get(key)
        if n is None:
            moves = rules.legal_moves(p)
            if d == 1:
                n = sum(1 for m in moves if rules.play(p, m) is not None)
            else:
                n = sum(walk(rules.play(p, m), d - 1) for m in moves)
            table[d][key] = n
        return n

    return walk(pos, depth) if depth else 1


def chosen(rows, names) -> list:
    """The rows (name first) that --positions / --variants asked for; all when none was named."""
    return [row for row in rows if not names or row[0] in names]


def shifted(depth: int, offset: int) -> int:
    """A table's depth moved by a --*depth-offset, never below 1."""
    return max(1, depth + offset)


def chess_table(args):
    rules = variants.get("chess")
    print("Part 1: chess, the six standard positions (nodes per second; ratio = speed / python-chess)")
    print(f"{'position':<10} {'depth':>5} {'nodes':>11} {'counting':<10} {'cached':>10} {'plain':>10} "
          f"{'py-chess':>10} {'cached/pc':>9} {'plain/pc':>8} {'cache x':>7}  load")
    for name, fen, depth in chosen(POSITIONS, args.positions):
        depth = shifted(depth, args.depth_offset)
        pos = rules.parse_fen(fen)
        ways = [("bulk", lambda: Counter(rules, Table(DEFAULT_HASH_MB)).count(pos, depth),
                 lambda: plain.perft(rules, pos, depth), lambda: python_chess_bulk(chess.Board(fen), depth))]
        if not args.skip_leaves:
            ways.append(("every leaf", lambda: cached_leaves(rules, pos, depth),
                         lambda: oracle_perft_every_leaf(rules, pos, depth),
                         lambda: python_chess_perft(chess.Board(fen), depth)))
        for label, cached, plain_walk, theirs in ways:
            started_load = load()
            n_cached, t_cached = timed(cached)
            n_plain, t_plain = (None, None) if args.skip_plain else timed(plain_walk)
            n_theirs, t_theirs = timed(theirs)
            counts = {n_cached, n_theirs} | ({n_plain} if n_plain is not None else set())
            flag = "" if len(counts) == 1 else f"  COUNT MISMATCH {sorted(counts)}"
            speed = {k: n_theirs / t for k, t in (("c", t_cached), ("p", t_plain), ("t", t_theirs)) if t}
            plain_col = f"{speed['p']:>10.0f}" if "p" in speed else f"{'-':>10}"
            plain_ratio = f"{speed['p'] / speed['t']:>8.2f}" if "p" in speed else f"{'-':>8}"
            cache_x = f"{t_plain / t_cached:>7.2f}" if t_plain else f"{'-':>7}"
            print(f"{name:<10} {depth:>5} {n_theirs:>11} {label:<10} {speed['c']:>10.0f} {plain_col} "
                  f"{speed['t']:>10.0f} {speed['c'] / speed['t']:>9.2f} {plain_ratio} {cache_x}"
                  f"  {started_load}{flag}", flush=True)
            print(f"{'':<28} seconds: cached {t_cached:.1f}, plain "
                  f"{'-' if t_plain is None else f'{t_plain:.1f}'}, python-chess {t_theirs:.1f}", flush=True)


def variants_table(args):
    print("\nPart 2: variant start positions at the deep tier, seconds: the plain walk and the cached one, "
          "each in one process and with --jobs 2 ('jobs x' = one process / --jobs 2; 'cache x' = plain / "
          "cached, one process each); the line below each row: the CPU seconds of all its processes")
    print(f"{'variant':<18} {'count':<9} {'nodes':>10} {'plain':>7} {'jobs 2':>7} {'jobs x':>6} "
          f"{'cached':>7} {'cache x':>7} {'jobs 2':>7} {'jobs x':>6} {'dask 2':>7} {'dask x':>6}  load")
    cluster = dask_cluster() if args.dask else None
    for name, depth, turns in chosen(VARIANT_STARTS, args.variants):
        depth = shifted(depth, args.variant_depth_offset)
        rules = variants.get(name)
        pos = rules.start
        started_load = load()
        runs, cpu = {}, {}
        for label, hash_mb, jobs in (("plain", 0, 1), ("plain 2", 0, 2), ("cached", DEFAULT_HASH_MB, 1),
                                     ("cached 2", DEFAULT_HASH_MB, 2)):
            if args.skip_plain and not hash_mb:
                continue
            before = cpu_used()
            runs[label] = timed(lambda: count(rules, pos, depth, turns, hash_mb=hash_mb, jobs=jobs)["nodes"])
            cpu[label] = cpu_used() - before
        if cluster is not None:
            runs["dask 2"] = timed(lambda: count(rules, pos, depth, turns, hash_mb=DEFAULT_HASH_MB,
                                                 scheduler=cluster.scheduler_address)["nodes"])
        counts = {n for n, _ in runs.values()}
        flag = "" if len(counts) == 1 else f"  COUNT MISMATCH {sorted(counts)}"
        t = {label: seconds for label, (_, seconds) in runs.items()}

        def col(label, width=7):
            return f"{t[label]:>{width}.1f}" if label in t else f"{'-':>{width}}"

        def ratio(a, b, width):
            return f"{t[a] / t[b]:>{width}.2f}" if a in t and b in t else f"{'-':>{width}}"

        print(f"{name:<18} {('turns ' if turns else 'perft ') + str(depth):<9} {counts.pop():>10} "
              f"{col('plain')} {col('plain 2')} {ratio('plain', 'plain 2', 6)} {col('cached')} "
              f"{ratio('plain', 'cached', 7)} {col('cached 2')} {ratio('cached', 'cached 2', 6)}"
              f" {col('dask 2')} {ratio('cached', 'dask 2', 6)}  {started_load}{flag}", flush=True)
        print(f"{'':<18} {'CPU s':<9} {'':>10} " + " ".join(
            f"{cpu[label]:>7.1f}" if label in cpu else f"{'-':>7}" for label in ("plain", "plain 2"))
            + f" {'':>6} {cpu.get('cached', 0):>7.1f} {'':>7} {cpu.get('cached 2', 0):>7.1f}"
            + "  (all processes; wall time over CPU time shows how much of the machine the run had)",
            flush=True)
    if cluster is not None:
        cluster.close()


def dask_cluster():
    """A local Dask cluster of two one-thread worker processes (the cluster extra)."""
    from distributed import LocalCluster
    return LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                        dashboard_address=None, worker_dashboard_address=None)


def deep_tier():
    import json
    from doublecheck.packaged import CASES_DIR
    print("\nPart 4: the deep tier as recorded by `doublecheck generate --deep` (every count that "
          "records how it was made)")
    for path in sorted(CASES_DIR.glob("*/generated-deep-perft.json")):
        for case in json.loads(path.read_text())["cases"]:
            made = case.get("computed")
            if made:
                nodes = case["expect"].get("nodes", 0)
                print(f"  {case['id']:<58} {nodes:>15,} {made['seconds']:>8.1f} s  {made['how']}")
                print(f"  {'':<58} {'':>15} check: {made.get('check', 'none recorded yet')}")


def memory(args):
    depth = 6 + args.depth_offset
    command = [sys.executable, "-m", "doublecheck", "perft", "--depth", str(depth), "--quiet"]
    print(f"\nPart 3: peak memory of `doublecheck perft --depth {depth}` (default --hash {DEFAULT_HASH_MB} MB)")
    started_load = load()
    try:
        run = subprocess.run(["/usr/bin/time", "-v", *command], capture_output=True, text=True, check=False)
    except FileNotFoundError:
        print("  /usr/bin/time is not installed (Debian package 'time'); skipped")
        return
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", run.stderr)
    wall = re.search(r"Elapsed \(wall clock\) time.*: (\S+)", run.stderr)
    print(f"  {run.stdout.strip()}; peak RSS {int(peak[1]) / 1024:.0f} MB; wall {wall[1] if wall else '?'}"
          f"  {started_load}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--depth-offset", type=int, default=0, help="add this to every chess depth")
    ap.add_argument("--positions", nargs="*", help="names of chess positions to run (default all)")
    ap.add_argument("--variants", nargs="*", help="names of variants for part 2 (default all)")
    ap.add_argument("--variant-depth-offset", type=int, default=0, help="add this to every part 2 depth")
    ap.add_argument("--skip-leaves", action="store_true", help="no every-leaf line")
    ap.add_argument("--skip-plain", action="store_true", help="no plain (uncached) oracle column")
    part = ap.add_mutually_exclusive_group()
    part.add_argument("--chess-only", action="store_true")
    part.add_argument("--variants-only", action="store_true")
    part.add_argument("--memory-only", action="store_true")
    part.add_argument("--deep-tier-only", action="store_true")
    ap.add_argument("--dask", action="store_true", help="part 2: also on a local Dask cluster (2 workers)")
    args = ap.parse_args(argv)
    print(f"cpus {os.cpu_count()}, {load()} at the start; the machine may be shared, so read ratios, "
          "not absolute times\n")
    only = args.variants_only or args.memory_only or args.chess_only or args.deep_tier_only
    if args.chess_only or not only:
        chess_table(args)
    if args.variants_only or not only:
        variants_table(args)
    if args.memory_only or not only:
        memory(args)
    if args.deep_tier_only or not only:
        deep_tier()


if __name__ == "__main__":
    main()
