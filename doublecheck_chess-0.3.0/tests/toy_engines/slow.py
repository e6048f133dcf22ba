"""Toy engine: answers like the oracle, but spends --perft-seconds S (default 2) more on every
perft request, as a slow but correct engine would."""

import sys
import time

import toy


def before(request, opts):
    if request["op"] == "perft":
        print(f"toy engine: counting slowly ({opts.perft_seconds:g} s)", file=sys.stderr, flush=True)
        time.sleep(opts.perft_seconds)


if __name__ == "__main__":
    if "--perft-seconds" not in sys.argv:
        sys.argv += ["--perft-seconds", "2"]
    toy.serve(before=before)
