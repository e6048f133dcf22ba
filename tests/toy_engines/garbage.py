"""Toy engine: prints a line that is not JSON for the trigger position, then its answer.

The line is a log line (skipped by the harness) by default; with --brace it
starts with a brace, so it reads as a broken answer. With --huge it prints
17 MiB of text without a newline instead (more than the harness reads as one
answer line).
"""

import sys

import toy


def before(request, opts):
    if toy.triggered(request):
        if opts.huge:
            chunk = "x" * (1 << 20)
            for _ in range(17):
                sys.stdout.write(chunk)
            sys.stdout.flush()
        else:
            brace = "{" if opts.brace else ""
            print(f"{brace}moves: e1g1 e1f1 (this is not JSON)", flush=True)


if __name__ == "__main__":
    toy.serve(before=before)
