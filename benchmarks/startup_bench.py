"""Start-up: the CPU time of the commands people wait for, side by side.

    python3 benchmarks/startup_bench.py              # each command 5 times; the median is printed
    python3 benchmarks/startup_bench.py --runs 9 --collect

Each command runs as ``python -m doublecheck ...`` in a subprocess; its CPU time
(user + system, the process and its children) comes from ``getrusage``.
Printed per command: the median and the smallest CPU time over the runs, the
wall time, and the load average when it started.  ``run 'chess/castling/*'``
is measured twice: with an empty validation record (the first call after an
install or a change: the selected file is checked) and with the record filled
(later calls: the file's hash is on record).  ``--collect`` adds the test
collection (``pytest --collect-only -q``).  A measurement, never a test.
"""

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DC = [sys.executable, "-m", "doublecheck"]
COMMANDS = [
    ("doublecheck --version", DC + ["--version"], "warm"),
    ("doublecheck --help", DC + ["--help"], "warm"),
    ("doublecheck moves", DC + ["moves"], "warm"),
    ("doublecheck run 'chess/castling/*' (record empty)", DC + ["run", "--quiet", "chess/castling/*"], "cold"),
    ("doublecheck run 'chess/castling/*' (record filled)", DC + ["run", "--quiet", "chess/castling/*"], "warm"),
]
COLLECT = ("pytest --collect-only -q", [sys.executable, "-m", "pytest", "--collect-only", "-q"], "warm")


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def once(argv, env) -> tuple[float, float]:
    cpu, start = children_cpu(), time.perf_counter()
    subprocess.run(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return children_cpu() - cpu, time.perf_counter() - start


def measure(argv, record: str, runs: int, warm_dir: Path) -> tuple[list, list]:
    cpus, walls = [], []
    for _ in range(runs):
        folder = warm_dir if record == "warm" else Path(tempfile.mkdtemp(prefix="dc-record-"))
        cpu, wall = once(argv, {**os.environ, "DOUBLECHECK_CACHE": str(folder)})
        cpus.append(cpu)
        walls.append(wall)
    return cpus, walls


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--collect", action="store_true", help="also time pytest --collect-only -q")
    args = ap.parse_args(argv)
    warm = Path(tempfile.mkdtemp(prefix="dc-record-warm-"))
    fill = "from doublecheck.casefiles import load_cases; load_cases(deep=True)"   # checks every file once
    once([sys.executable, "-c", fill], {**os.environ, "DOUBLECHECK_CACHE": str(warm)})
    print(f"cpus {os.cpu_count()}, load {os.getloadavg()[0]:.2f} at the start; {args.runs} runs each\n")
    print(f"{'command':<52} {'cpu median':>10} {'cpu min':>8} {'wall med':>9}  load")
    for label, command, record in COMMANDS + ([COLLECT] if args.collect else []):
        load = os.getloadavg()[0]
        cpus, walls = measure(command, record, args.runs if label != COLLECT[0] else max(1, args.runs // 3), warm)
        print(f"{label:<52} {statistics.median(cpus):>9.3f}s {min(cpus):>7.3f}s {statistics.median(walls):>8.2f}s"
              f"  {load:.2f}", flush=True)


if __name__ == "__main__":
    main()
