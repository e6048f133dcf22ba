"""Toy engine: for the trigger position it closes its stdout and stays alive, never exiting."""

import os
import sys
import time

import toy


def before(request, opts):
    if toy.triggered(request):
        print("toy engine: closing my output, but staying alive", file=sys.stderr, flush=True)
        sys.stdout.flush()
        os.close(1)
        while True:
            time.sleep(60)


if __name__ == "__main__":
    toy.serve(before=before)
