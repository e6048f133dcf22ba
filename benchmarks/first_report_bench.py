"""Time to a first report for a slow engine: `doublecheck run --quick --variant chess` against
a JSON-lines engine that counts perft at about RATE nodes a second.

The engine is the python-chess adapter (``doublecheck.adapters.python_chess_adapter``) served
over the protocol, claiming chess only, and held back so that a perft answer takes at least
``nodes / RATE`` seconds: the pace of a straightforward engine written in a scripting language
(the issue's chess.js engine ran the full chess run in 18 minutes).  Prints the seconds of the
``--quick`` run and its verdict; with ``--full`` also those of the default run (minutes).

    python3 benchmarks/first_report_bench.py            # the --quick run only
    python3 benchmarks/first_report_bench.py --full     # and the default run, to compare

(Run as ``--serve`` it is the engine itself.)  A benchmark prints; no test asserts on time.
"""

import argparse
import shlex
import subprocess
import sys
import time

RATE = 10_000   # perft nodes per second the engine is held to


def serve() -> int:
    from doublecheck.adapter import serve as serve_adapter
    from doublecheck.adapters.python_chess_adapter import PythonChessAdapter

    class Throttled(PythonChessAdapter):
        def hello(self):
            return {**super().hello(), "name": f"python-chess at {RATE} nodes/s", "variants": ["chess"]}

        def handle(self, request):
            began = time.perf_counter()
            answer = super().handle(request)
            nodes = answer.get("nodes") or sum((answer.get("divide") or {}).values())
            time.sleep(max(0.0, nodes / RATE - (time.perf_counter() - began)))
            return answer

    return serve_adapter(Throttled())


def timed_run(*options) -> tuple[float, str]:
    engine = " ".join(shlex.quote(a) for a in (sys.executable, __file__, "--serve"))
    argv = ["doublecheck", "run", "--engine", engine, "--variant", "chess", "--quiet", *options]
    began = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True)
    seconds = time.perf_counter() - began
    verdict = (proc.stdout.strip().splitlines() or [proc.stderr.strip()])[-1]
    return seconds, verdict


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--serve", action="store_true", help="be the throttled engine")
    parser.add_argument("--full", action="store_true", help="also time the default run")
    args = parser.parse_args()
    if args.serve:
        return serve()
    print(f"engine: the python-chess adapter over the protocol, chess only, perft held to {RATE} nodes/s")
    runs = [("--quick", ("--quick",))] + ([("default", ())] if args.full else [])
    for name, options in runs:
        seconds, verdict = timed_run(*options)
        print(f"doublecheck run --variant chess {name:<8} {seconds:7.1f} s   {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
