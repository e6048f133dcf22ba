"""Check a UCI chess engine on what UCI can express: legal moves and perft in chess.

UCI has no command that asks for the legal moves, a status or a FEN, but most
engines (Stockfish, Fairy-Stockfish and many others) answer ``go perft N``
with one line per legal move and the count of the tree below it, then the
total::

    e2e4: 20
    g1f3: 20
    ...
    Nodes searched: 400

``UciEngine`` is a harness engine (see tools/engines.py) built on that. It
answers ``perft`` (depth 1 or more, with or without divide) and ``moves`` (the
moves ``go perft 1`` lists) for ``chess``, after ``position fen ... moves ...``
with the request's FEN in normal form and its moves turned into UCI
coordinates by the oracle. Everything else is refused with the code
``unsupported`` and a reason, and is reported as skipped (docs/uci-bridge.md):
other variants and operations, perft depth 0 (``go perft 0`` starts a normal
search in Stockfish), and requests the oracle rejects (an invalid FEN, an
illegal move): a UCI engine has no way to refuse a position, so those are not
sent to it.

Every request has a timeout; an engine that crashes, hangs or answers
something unreadable is killed, the request raises ``EngineFailure``, and the
next request starts a fresh process.
"""

from __future__ import annotations

import os
import re
import selectors
import shlex
import subprocess
import time
from collections import deque
from pathlib import Path

from doublecheck.oracle import api, variants
from doublecheck.oracle.errors import RulesError
from doublecheck.harness.protocol import EngineFailure, HelloError, kill_engine

DIVIDE_LINE = re.compile(r"([a-h][1-8][a-h][1-8][qrbn]?): *(\d+)")
NODES_LINE = re.compile(r"Nodes searched: *(\d+)")
START_TIMEOUT = 10.0      # seconds for uci/uciok at start-up, at least
MAX_LINE = 64 * 1024      # a longer line is garbage
MAX_LINES = 10_000        # one perft answer has at most 218 divide lines
STDERR_LINES = 12         # lines of the engine's stderr kept for reports
CLAIMS = {"protocol": "1", "variants": ["chess"], "ops": ["moves", "perft"]}


def unsupported(why: str) -> dict:
    return {"ok": False, "error": {"code": "unsupported", "message": why}}


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
    """A UCI engine process behind the harness's engine interface (tools/engines.py)."""

    def __init__(self, command, timeout: float | None = 10.0):
        """``command``: the engine's path, a command line (``"python3 my_engine.py --uci"``)
        or an argument list; ``timeout``: seconds allowed for each request."""
        if isinstance(command, str):
            command = [command] if os.path.exists(command) else shlex.split(command)
        if not command:
            raise HelloError("the UCI engine command is empty")
        self.argv = [str(a) for a in command]
        self.timeout = timeout or None
        self.name = Path(self.argv[0]).name
        self.proc = None
        self.sel = None
        self.buf = bytearray()
        self.stderr = deque(maxlen=STDERR_LINES)
        self.starts = 0

    # --- the engine interface ------------------------------------------------

    def hello(self) -> dict:
        try:
            self.start()
        except EngineFailure as e:
            raise HelloError("\n".join([f"{self.argv[0]} does not work as a UCI engine: "
                                        f"{e.kind}: {e.message}"] + e.lines()[1:])) from None
        return {**CLAIMS, "name": self.name}

    def request(self, request: dict) -> dict:
        why = why_not(request)
        if why:
            return unsupported(why)
        try:
            fen, moves = position(request)
        except RulesError as e:
            return unsupported(f"the oracle refuses this request ({e.code}: {e.message}); a UCI "
                               f"engine cannot refuse a position or a move, so it is not sent")
        divide, nodes = self.perft(fen, moves, request.get("depth", 1))
        if request["op"] == "moves":
            return {"ok": True, "moves": sorted(divide)}
        answer = {"ok": True, "nodes": nodes}
        if request.get("divide"):
            answer["divide"] = divide
        return answer

    def close(self) -> None:
        if self.proc is not None:
            try:
                self.send("quit")
                self.proc.wait(timeout=1.0)
            except (EngineFailure, subprocess.TimeoutExpired):
                pass
        self.discard()

    @property
    def restarts(self) -> int:
        return max(self.starts - 1, 0)

    # --- UCI -----------------------------------------------------------------

    def start(self) -> None:
        """Start the process and wait for ``uciok`` and ``readyok``."""
        self.discard()
        try:
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, start_new_session=True)
        except OSError as e:
            raise EngineFailure("crash", f"cannot start {self.argv[0]!r}: {e}") from None
        self.starts += 1
        self.buf = bytearray()
        self.stderr.clear()
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.proc.stdout, selectors.EVENT_READ, "out")
        self.sel.register(self.proc.stderr, selectors.EVENT_READ, "err")
        deadline = time.monotonic() + max(self.timeout or 0, START_TIMEOUT)
        self.send("uci")
        for line in self.lines(deadline):
            if line.startswith("id name "):
                self.name = line[len("id name "):].strip() or self.name
            if line == "uciok":
                break
        self.send("isready")
        self.wait_for("readyok", deadline)

    def perft(self, fen: str, moves: list[str], depth: int) -> tuple[dict, int]:
        """``go perft depth`` at the position: the divide lines and the node total."""
        if self.proc is None:
            self.start()
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        self.send("isready")            # anything left over from before ends here
        self.wait_for("readyok", deadline)
        self.send(f"position fen {fen}" + (" moves " + " ".join(moves) if moves else ""))
        self.send(f"go perft {depth}")
        divide = {}
        for line in self.lines(deadline):
            if line.startswith("Nodes searched"):
                total = NODES_LINE.fullmatch(line)
                if not total:
                    raise self.failure("protocol-error", f"unreadable node total {line[:80]!r}")
                return divide, int(total[1])
            step = DIVIDE_LINE.fullmatch(line)
            if step and step[1] in divide:
                raise self.failure("protocol-error", f"the perft output lists {step[1]} twice")
            if step:
                divide[step[1]] = int(step[2])
        raise AssertionError("lines() ends only by raising")

    def wait_for(self, word: str, deadline) -> None:
        for line in self.lines(deadline):
            if line == word:
                return

    def send(self, command: str) -> None:
        try:
            self.proc.stdin.write((command + "\n").encode())
            self.proc.stdin.flush()
        except OSError:
            raise self.crashed("the engine stopped reading its input") from None

    def lines(self, deadline):
        """The engine's output lines, stripped, until the caller stops or the
        deadline passes; a crash, a hang or runaway output raises EngineFailure."""
        for _ in range(MAX_LINES):
            yield self.read_line(deadline)
        raise self.failure("protocol-error", f"more than {MAX_LINES} lines without the expected answer")

    def read_line(self, deadline) -> str:
        while True:
            nl = self.buf.find(b"\n")
            if nl >= 0:
                line = bytes(self.buf[:nl]).decode("utf-8", "replace").strip()
                del self.buf[:nl + 1]
                return line
            if len(self.buf) > MAX_LINE:
                raise self.failure("protocol-error", f"an output line longer than {MAX_LINE} bytes")
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise self.failure("timeout", f"no answer within {self.timeout or START_TIMEOUT:g} s; "
                                              f"the engine was killed")
            for key, _ in self.sel.select(left):
                data = os.read(key.fileobj.fileno(), 1 << 16)
                if key.data == "out" and not data:
                    raise self.crashed("the engine closed its output")
                if key.data == "out":
                    self.buf += data
                elif data:
                    self.stderr.extend(data.decode("utf-8", "replace").splitlines())
                else:
                    self.sel.unregister(key.fileobj)

    # --- failures ------------------------------------------------------------

    def failure(self, kind: str, message: str) -> EngineFailure:
        """Kill the process (its output can no longer be trusted) and say why."""
        tail = "\n".join(self.stderr)
        self.discard()
        return EngineFailure(kind, message, tail, restarted=True)

    def crashed(self, what: str) -> EngineFailure:
        try:
            code = self.proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            code = None
        self.drain_stderr()
        status = ("still running, killed" if code is None else
                  f"killed by signal {-code}" if code < 0 else f"exit status {code}")
        return self.failure("crash", f"{what} ({status})")

    def drain_stderr(self, seconds: float = 0.5) -> None:
        """What a crashing engine still writes to stderr is kept for the report."""
        deadline = time.monotonic() + seconds
        while self.sel is not None and time.monotonic() < deadline:
            err = [key for key in self.sel.get_map().values() if key.data == "err"]
            if not err or not self.sel.select(deadline - time.monotonic()):
                return
            data = os.read(err[0].fileobj.fileno(), 1 << 16)
            if not data:
                return
            self.stderr.extend(data.decode("utf-8", "replace").splitlines())

    def discard(self) -> None:
        proc, self.proc = self.proc, None
        if self.sel is not None:
            self.sel.close()
            self.sel = None
        if proc is None:
            return
        kill_engine(proc)
