"""Toy engine: dies (exit status 3, after a message on stderr) when asked about the trigger position."""

import sys

import toy


def before(request, opts):
    if toy.triggered(request):
        print("toy engine: the trigger position breaks me", file=sys.stderr, flush=True)
        sys.exit(3)


if __name__ == "__main__":
    toy.serve(before=before)
