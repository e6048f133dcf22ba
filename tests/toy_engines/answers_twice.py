"""Toy engine: writes every answer twice, the copy under the next id (an answer to a request
not sent yet). ``--delay S`` waits S seconds before writing the copy."""

import json
import sys
import time

import toy

DELAY = 0.0


def after(request, reply):
    if request["op"] == "hello":
        return
    time.sleep(DELAY)
    print(json.dumps({"id": request["id"] + 1, **reply}), flush=True)


if __name__ == "__main__":
    if "--delay" in sys.argv:
        at = sys.argv.index("--delay")
        DELAY = float(sys.argv[at + 1])
        del sys.argv[at:at + 2]
    toy.serve(after=after)
