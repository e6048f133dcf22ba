"""Time one deep perft case through ``doublecheck run --deep`` against the oracle: one process
against ``--jobs auto`` (the case split over every usable core), side by side.

    python3 benchmarks/deep_run_bench.py              # chess start perft 6 (119,060,324 nodes)
    python3 benchmarks/deep_run_bench.py --perft7     # chess start perft 7 (3,195,901,860 nodes)
    python3 benchmarks/deep_run_bench.py --jobs 2     # a given number of processes, not auto

Each configuration is ``doublecheck run --deep --quiet CASE`` in a subprocess;
printed per configuration: the wall time, the CPU time of the run and its
processes, whether the case passed (the count is the published one either
way), and the load average before and after (on a shared machine CPU time
well below wall time x processes means others had the cores). Then the
speed-up. This is a measurement script, not a test: nothing here asserts on
time.
"""

import argparse
import os
import resource
import subprocess
import sys
import time

CASES = {6: "chess/generated-deep-perft/start-perft-6", 7: "chess/generated-deep-perft/start-perft-7"}
NODES = {6: 119_060_324, 7: 3_195_901_860}


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(case: str, jobs: str) -> dict:
    argv = [sys.executable, "-m", "doublecheck", "run", "--deep", "--quiet", "--jobs", jobs,
            "--timeout", "0", case]
    load = os.getloadavg()[0]
    cpu, wall = children_cpu(), time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - wall, children_cpu() - cpu
    verdict = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else proc.stderr.strip()[-200:]
    return {"jobs": jobs, "wall": wall, "cpu": cpu, "verdict": verdict, "code": proc.returncode,
            "load": (load, os.getloadavg()[0])}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--perft7", action="store_true", help="chess start perft 7 instead of 6 "
                    "(about 8 minutes in one process on a quiet machine)")
    ap.add_argument("--jobs", default="auto", help="the split run's --jobs (default: auto)")
    args = ap.parse_args()
    depth = 7 if args.perft7 else 6
    print(f"chess start perft {depth} ({NODES[depth]:,} nodes) through doublecheck run --deep, "
          f"against the oracle; {os.cpu_count()} CPUs here")
    print(f"{'--jobs':>8} {'wall s':>9} {'cpu s':>9} {'Mnodes/s':>9}  {'load before/after':>17}  verdict",
          flush=True)
    rows = []
    for jobs in ("1", args.jobs):   # each row as soon as it is measured
        r = timed(CASES[depth], jobs)
        rows.append(r)
        print(f"{r['jobs']:>8} {r['wall']:9.1f} {r['cpu']:9.1f} {NODES[depth] / r['wall'] / 1e6:9.2f}  "
              f"{r['load'][0]:8.2f}/{r['load'][1]:<8.2f}  {r['verdict']}", flush=True)
    one, split = rows
    print(f"speed-up of --jobs {args.jobs} over one process: {one['wall'] / split['wall']:.2f}x "
          f"(wall time)")
    return 0 if all(r["code"] == 0 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
