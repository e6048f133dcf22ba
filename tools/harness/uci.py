"""Check a UCI chess engine on what UCI can express: legal moves and perft in chess.

UCI has no command that asks for the legal moves, a status or a FEN, but most
engines (Stockfish, Fairy-Stockfish and many others) answer ``go perft N``
with one line per legal move and the count of the tree below it, then the
total::

    e2e4: 20
    g1f3: 20
    ...
    Nodes searched: 400

``UciEngine`` is a harness engine (see tools/harness/engines.py) built on that. It
answers ``perft`` (depth 1 or more, with or without divide) and ``moves`` (the
moves ``go perft 1`` lists) for ``chess``, after ``position fen ... moves ...``
with the request's FEN in normal form and its moves turned into UCI
coordinates by the oracle. Everything else is refused with the code
``unsupported`` and a reason, and is reported as skipped (docs/uci-bridge.md):
other variants and operations, perft depth 0 (``go perft 0`` starts a normal
search in Stockfish), and requests the oracle rejects (an invalid FEN, an
illegal move): a UCI engine has no way to refuse a position, so those are not
sent to it.

Every request has a time limit; an engine that crashes, hangs or answers
something unreadable is killed (with everything it started), the request
raises ``EngineFailure``, and the next request starts a fresh process. The
process I/O is ``process.LineProcess``, the same as for protocol engines.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from doublecheck.harness.deadline import Deadline
from doublecheck.harness.process import EngineFailure, HelloError, LineProcess, split_command
from doublecheck.harness.protocol import MAX_NAME
from doublecheck.oracle import api, variants
from doublecheck.oracle.errors import CRASH, PROTOCOL_ERROR, UNSUPPORTED, RulesError

DIVIDE_LINE = re.compile(r"([a-h][1-8][a-h][1-8][qrbn]?): *(\d+)")
NODES_LINE = re.compile(r"Nodes searched: *(\d+)")
START_TIMEOUT = 10.0      # seconds for uci/uciok at start-up, at least
MAX_LINE = 64 * 1024      # a longer line is garbage
MAX_LINES = 10_000        # one perft answer has at most 218 divide lines
CLAIMS = {"protocol": "1", "variants": ["chess"], "ops": ["moves", "perft"]}


def unsupported(why: str) -> dict:
    return {"ok": False, "error": {"code": UNSUPPORTED, "message": why}}


def position(request: dict) -> tuple[str, list[str]]:
    """The request's FEN in normal form and its moves in UCI coordinates (the oracle
    reads SAN and coordinates alike). RulesError when the oracle refuses them."""
    rules = variants.get("chess")
    line = api.replay(rules, request.get("fen"), request.get("moves"))
    return rules.fen(line.start), [rules.move_text(s.pos, s.move) for s in line.steps]


def why_not(request: dict) -> str | None:
    """Why the bridge cannot put this request to a UCI engine, or None if it can."""
    variant, op = request.get("variant", "chess"), request.get("op")
    if variant != "chess":
        return f"variant {variant}: a UCI engine is checked on chess only"
    if op not in CLAIMS["ops"]:
        return f"operation {op}: UCI cannot express it; the bridge asks only for moves and perft"
    depth = request.get("depth")
    if op == "perft" and (not isinstance(depth, int) or isinstance(depth, bool) or depth < 1):
        return (f"perft depth {depth!r}: only depths of 1 or more are sent "
                f"('go perft 0' starts a normal search in Stockfish)")
    return None


class UciEngine:
    """A UCI engine process behind the harness's engine interface (tools/harness/engines.py)."""

    def __init__(self, command, timeout: float | None = 10.0):
        """``command``: the engine's path, a command line (``"python3 my_engine.py --uci"``)
        or an argument list; ``timeout``: seconds allowed for each request (None or 0: no limit)."""
        if isinstance(command, str) and os.path.exists(command):
            command = [command]
        self.process = LineProcess(split_command(command, "the UCI engine"), max_line=MAX_LINE)
        self.argv = self.process.argv
        self.timeout = timeout or None
        self.name = Path(self.argv[0]).name
        self.starts = 0

    # --- the engine interface ------------------------------------------------

    def hello(self) -> dict:
        try:
            self.start()
        except EngineFailure as e:
            raise HelloError("\n".join([f"{self.argv[0]} does not work as a UCI engine: "
                                        f"{e.kind}: {e.message}"] + e.lines()[1:])) from None
        return {**CLAIMS, "name": self.name}

    def request(self, request: dict, timeout: float | None = None) -> dict:
        """Answer one request; ``timeout``: its limit in seconds (None: the engine's own; 0: none)."""
        why = why_not(request)
        if why:
            return unsupported(why)
        try:
            fen, moves = position(request)
        except RulesError as e:
            return unsupported(f"the oracle refuses this request ({e.code}: {e.message}); a UCI "
                               f"engine cannot refuse a position or a move, so it is not sent")
        limit = self.timeout if timeout is None else timeout
        divide, nodes = self.perft(fen, moves, request.get("depth", 1), limit)
        if request["op"] == "moves":
            return {"ok": True, "moves": sorted(divide)}
        answer = {"ok": True, "nodes": nodes}
        if request.get("divide"):
            answer["divide"] = divide
        return answer

    def close(self) -> None:
        self.process.close(goodbye="quit")

    @property
    def restarts(self) -> int:
        return max(self.starts - 1, 0)

    # --- UCI -----------------------------------------------------------------

    def start(self) -> None:
        """Start the process and wait for ``uciok`` and ``readyok``."""
        try:
            self.process.start()
        except HelloError as e:
            raise EngineFailure(CRASH, str(e)) from None
        self.starts += 1
        deadline = Deadline(max(self.timeout or 0, START_TIMEOUT))
        self.process.send("uci", deadline)
        for line in self.lines(deadline):
            if line.startswith("id name "):
                # (the reports show the name: cut like a protocol engine's hello name)
                self.name = line[len("id name "):].strip()[:MAX_NAME] or self.name
            if line == "uciok":
                break
        self.process.send("isready", deadline)
        self.wait_for("readyok", deadline)

    def perft(self, fen: str, moves: list[str], depth: int, limit: float | None = None
              ) -> tuple[dict, int]:
        """``go perft depth`` at the position: the divide lines and the node total."""
        if not self.process.running:
            self.start()
        deadline = Deadline(limit)
        self.process.send("isready", deadline)   # anything left over from before ends here
        self.wait_for("readyok", deadline)
        self.process.send(f"position fen {fen}" + (" moves " + " ".join(moves) if moves else ""),
                          deadline)
        self.process.send(f"go perft {depth}", deadline)
        divide = {}
        for line in self.lines(deadline):
            if line.startswith("Nodes searched"):
                total = NODES_LINE.fullmatch(line)
                if not total:
                    raise self.process.failure(PROTOCOL_ERROR, f"unreadable node total {line[:80]!r}")
                return divide, int(total[1])
            step = DIVIDE_LINE.fullmatch(line)
            if step and step[1] in divide:
                raise self.process.failure(PROTOCOL_ERROR, f"the perft output lists {step[1]} twice")
            if step:
                divide[step[1]] = int(step[2])
        raise AssertionError("lines() ends only by raising")

    def wait_for(self, word: str, deadline: Deadline) -> None:
        for line in self.lines(deadline):
            if line == word:
                return

    def lines(self, deadline: Deadline):
        """The engine's output lines, stripped, until the caller stops or the
        deadline passes; a crash, a hang or runaway output raises EngineFailure."""
        for _ in range(MAX_LINES):
            yield self.process.read_line(deadline).decode("utf-8", "replace").strip()
        raise self.process.failure(PROTOCOL_ERROR,
                                   f"more than {MAX_LINES} lines without the expected answer")
