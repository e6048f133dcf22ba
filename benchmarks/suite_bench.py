"""Time the whole suite as users run it: defaults (--jobs auto), --jobs 1, and --quick, side by side.

    python3 benchmarks/suite_bench.py               # the three runs once each
    python3 benchmarks/suite_bench.py --runs 2      # each twice, interleaved; the best is kept
    python3 benchmarks/suite_bench.py --serve       # also --engine "doublecheck serve"

Each run is ``doublecheck run --quiet --json FILE`` in a subprocess against the
built-in oracle, with the default time limits. Printed per configuration: the
wall time, the CPU time the run and its engine processes used, the verdict,
and the 1-minute load average before and after (on a shared machine, CPU
time much below wall time times the jobs means others were using the
cores). Then the cases that dominate, from the JSON report of the default run.
This is a measurement script, not a test: nothing here asserts on time.
"""

import argparse
import json
import os
import resource
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUN = [sys.executable, "-m", "doublecheck", "run", "--quiet"]
SERVE = " ".join(shlex.quote(a) for a in [sys.executable, "-m", "doublecheck", "serve"])
CONFIGS = [("defaults (--jobs auto)", []), ("--jobs 1", ["--jobs", "1"]),
           ("--quick", ["--quick"])]
TOP = 10  # cases listed as dominating


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(argv: list[str], report: Path) -> dict:
    load = os.getloadavg()[0]
    cpu = children_cpu()
    start = time.perf_counter()
    done = subprocess.run(RUN + argv + ["--json", str(report)], cwd=ROOT, capture_output=True,
                          text=True)
    wall = time.perf_counter() - start
    lines = done.stdout.strip().splitlines()
    return {"wall": wall, "cpu": children_cpu() - cpu, "code": done.returncode,
            "verdict": lines[-1] if lines else done.stderr.strip()[-200:],
            "load": (load, os.getloadavg()[0]), "report": json.loads(report.read_text())}


def dominating(report: dict) -> list[str]:
    cases = sorted(report["cases"], key=lambda c: -c["seconds"])
    total = sum(c["seconds"] for c in cases) or 1.0
    out, share = [], 0.0
    for c in cases[:TOP]:
        nodes = c["expect"].get("nodes", sum(c["expect"].get("divide", {}).values()))
        share += c["seconds"] / total
        out.append(f"  {c['seconds']:7.2f} s  {c['seconds'] / total:5.1%}  (running {share:5.1%})  "
                   f"{nodes:>9} nodes  {c['id']}")
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=1, help="runs of each; the best is kept")
    parser.add_argument("--serve", action="store_true",
                        help='also time --engine "doublecheck serve" (the oracle over the protocol)')
    args = parser.parse_args()
    configs = CONFIGS + ([("--engine serve", ["--engine", SERVE])] if args.serve else [])

    print(f"machine: {os.cpu_count()} cores; load average now "
          + " / ".join(f"{x:.2f}" for x in os.getloadavg()), flush=True)
    best = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(args.runs):
            for label, argv in configs:  # interleaved, so a change in load hits every one alike
                got = timed(argv, Path(tmp) / f"report-{n}-{len(best)}.json")
                print(f"  run {n + 1}: {label:<24} {got['wall']:7.1f} s wall, {got['cpu']:7.1f} s CPU, "
                      f"load {got['load'][0]:.1f} -> {got['load'][1]:.1f}: {got['verdict']}", flush=True)
                if label not in best or got["wall"] < best[label]["wall"]:
                    best[label] = got
    base = best["defaults (--jobs auto)"]["wall"]
    print()
    print(f"doublecheck run, best of {args.runs}:")
    print(f"  {'configuration':<24} {'wall s':>8} {'CPU s':>8} {'vs defaults':>12}  verdict")
    for label, _ in configs:
        got = best[label]
        print(f"  {label:<24} {got['wall']:8.1f} {got['cpu']:8.1f} {got['wall'] / base:11.2f}x  "
              f"{got['verdict']}")
    print()
    report = best["defaults (--jobs auto)"]["report"]
    print(f"cases that dominate the default run ({len(report['cases'])} cases, "
          f"{sum(c['seconds'] for c in report['cases']):.1f} s in cases):")
    for line in dominating(report):
        print(line)
    quick = best["--quick"]["report"]
    skipped = [c for c in quick["cases"] if c["outcome"] == "skipped"]
    print()
    print(f"--quick skips {len(skipped)} of {len(quick['cases'])} cases: "
          + ", ".join(c["id"] for c in skipped))


if __name__ == "__main__":
    main()
