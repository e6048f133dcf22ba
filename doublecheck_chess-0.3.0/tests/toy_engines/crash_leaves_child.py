"""Toy engine: for the trigger position it starts a child that holds its stderr open, then dies
(exit status 3). The child stays in the engine's process group and sleeps for an hour."""

import sys

import toy


def before(request, opts):
    if toy.triggered(request):
        toy.linger(hold_stderr=True)
        print("toy engine: dying, my child keeps my stderr", file=sys.stderr, flush=True)
        sys.exit(3)


if __name__ == "__main__":
    toy.serve(before=before)
