"""Toy engine: never answers a request about the trigger position.

When it starts hanging it creates the file named by $TOY_HANG_MARKER, if set.
"""

import os
import sys
import time

import toy


def before(request, opts):
    if toy.triggered(request):
        print("toy engine: thinking forever", file=sys.stderr, flush=True)
        if os.environ.get("TOY_HANG_MARKER"):  # lets a test know the hang has begun
            open(os.environ["TOY_HANG_MARKER"], "w").close()
        while True:
            time.sleep(60)


if __name__ == "__main__":
    toy.serve(before=before)
