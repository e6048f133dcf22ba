"""A small protocol server around the oracle, for toy engines that each break one promise.

Every toy engine in this directory is this server with one flaw: it answers
like the oracle except where its flaw applies. They are test fixtures for the
harness, run as ``python3 tests/toy_engines/<name>.py``. Flags shared by all:

  --variants a,b   claim only these variants in hello (default: all)
  --ops a,b        claim only these operations (default: all)
  --protocol V     answer hello with version V, whatever the harness offered
"""

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from doublecheck.oracle import api  # noqa: E402
from doublecheck.oracle.errors import RulesError  # noqa: E402

# The position that makes the crash, hang, garbage and wrong-id engines misbehave.
TRIGGER_FEN = "4k3/8/8/8/8/8/8/4K2R w - - 0 1"


def oracle_answer(request: dict) -> dict:
    """The correct result fields, or an error answer."""
    try:
        return {"ok": True, **api.handle({k: v for k, v in request.items() if k != "id"})}
    except RulesError as e:
        return {"ok": False, "error": e.as_dict()}


def options(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--variants")
    parser.add_argument("--ops")
    parser.add_argument("--protocol")
    parser.add_argument("--no-divide", action="store_true")
    parser.add_argument("--huge", action="store_true")
    parser.add_argument("--brace", action="store_true")
    parser.add_argument("--perft-seconds", type=float, default=0.0)
    return parser.parse_args(argv)


def serve(answer=None, before=None, argv=None, after=None):
    """Answer requests until end of input.

    ``answer(request, opts) -> dict`` gives the answer fields (without the id);
    ``before(request, opts)`` runs first and may misbehave on its own (print, exit, sleep);
    ``after(request, reply)`` runs once the answer is written (hello's too).
    """
    answer = answer or (lambda request, opts: oracle_answer(request))
    opts = options(argv)
    hello = api.hello()
    if opts.variants:
        hello["variants"] = opts.variants.split(",")
    if opts.ops:
        hello["ops"] = opts.ops.split(",")
    for line in sys.stdin:
        request = json.loads(line)
        if request["op"] == "hello":
            reply = {"ok": True, **hello, "protocol": opts.protocol or request["protocol"][0]}
        else:
            if before:
                before(request, opts)
            reply = answer(request, opts)
        print(json.dumps({"id": request["id"], **reply}), flush=True)
        if after:
            after(request, reply)


def triggered(request) -> bool:
    return request.get("fen") == TRIGGER_FEN


def linger(new_session: bool = False, orphan: bool = False, hold_stderr: bool = False) -> None:
    """Start a process that sleeps for an hour, to see whether the harness ends it.

    ``new_session``: it calls setsid(), leaving the engine's process group; ``orphan``: its
    parent exits at once (a double fork, as daemons do), so it is re-parented; ``hold_stderr``:
    it keeps the engine's stderr open (stdin and stdout it always lets go). Its command line
    carries $TOY_TAG (for pgrep) and its pid is appended to the file $TOY_PIDS.
    """
    tag = os.environ.get("TOY_TAG", "doublecheck-toy-linger")
    child = os.fork()
    if child:
        if orphan:
            os.waitpid(child, 0)
        return
    try:
        if new_session:
            os.setsid()
        if orphan and os.fork():
            os._exit(0)
        if os.environ.get("TOY_PIDS"):
            with open(os.environ["TOY_PIDS"], "a") as f:
                f.write(f"{os.getpid()}\n")
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1) if hold_stderr else (0, 1, 2):
            os.dup2(devnull, fd)
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(3600)", tag])
    finally:
        os._exit(1)


if __name__ == "__main__":
    serve()  # the oracle, without a flaw
