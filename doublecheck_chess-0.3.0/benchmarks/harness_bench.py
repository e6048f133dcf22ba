"""Time the whole suite against the oracle in-process and through `doublecheck serve`.

    python3 benchmarks/harness_bench.py                    # every case, best of 1 run each
    python3 benchmarks/harness_bench.py --max-nodes 10000  # quicker: skip large perft cases
    python3 benchmarks/harness_bench.py --runs 3 --variant chess

Both runs go through the same runner (selection, comparison, answer checks);
the only difference is the engine: the oracle called in-process, or the
oracle served over the JSON-lines protocol by a subprocess. The ratio is
subprocess time / in-process time (1.0 means the protocol costs nothing).
This is a measurement script, not a test: nothing here asserts on time.
"""

import argparse
import io
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from doublecheck.harness.engines import EngineSpec  # noqa: E402
from doublecheck.harness.runner import RunOptions, run_command  # noqa: E402


def timed(spec, args) -> tuple[float, str]:
    out = io.StringIO()
    start = time.perf_counter()
    options = RunOptions(variant=args.variant, max_nodes=args.max_nodes, timeout=None, quiet=True)
    code = run_command(options, spec=spec, out=out, err=io.StringIO())
    seconds = time.perf_counter() - start
    verdict = out.getvalue().strip().splitlines()[-1]
    if code != 0:
        verdict += f" (exit {code})"
    return seconds, verdict


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max-nodes", type=int, help="skip perft cases larger than this")
    parser.add_argument("--variant", help="only this variant's cases")
    parser.add_argument("--runs", type=int, default=1, help="runs of each; the best is kept")
    args = parser.parse_args()

    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    serve = [sys.executable, "-m", "doublecheck", "serve"]
    engines = [("in-process", EngineSpec(timeout=None)),
               ("doublecheck serve", EngineSpec(command=" ".join(serve), timeout=None))]
    best = {}
    for _ in range(args.runs):
        for label, spec in engines:  # alternate, so load changes hit both alike
            seconds, verdict = timed(spec, args)
            print(f"{label:<18} {seconds:8.2f} s   {verdict}", flush=True)
            best[label] = min(best.get(label, seconds), seconds)
    inproc, sub = best["in-process"], best["doublecheck serve"]
    bound = f"--max-nodes {args.max_nodes}" if args.max_nodes else "every case"
    print()
    print(f"suite ({bound}{', ' + args.variant if args.variant else ''}), best of {args.runs}:")
    print(f"  in-process          {inproc:8.2f} s")
    print(f"  doublecheck serve   {sub:8.2f} s")
    print(f"  ratio (serve / in-process): {sub / inproc:.2f}x")


if __name__ == "__main__":
    main()
