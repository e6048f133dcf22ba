"""Toy engine: answers like the oracle, but at start it leaves two processes that would outlive it.

One calls setsid() (it leaves the engine's process group, its parent the engine); the other is
a daemon (setsid() and a double fork: its parent exits at once, so it is re-parented). Both sleep
for an hour. For the trigger position the engine hangs, so that it is killed mid-run.
"""

import time

import toy


def before(request, opts):
    if toy.triggered(request):
        while True:
            time.sleep(60)


if __name__ == "__main__":
    toy.linger(new_session=True)
    toy.linger(new_session=True, orphan=True)
    toy.serve(before=before)
