"""The engine protocol: message checks and the client that talks to a subprocess engine.

The protocol (docs/protocol.md, schemas/protocol.schema.json) is JSON lines:
the harness writes one request object per line to the engine's stdin and
reads one response object per line from its stdout. Every request has an
``id`` and an ``op``; every response echoes the ``id`` and says ``ok``.

``Client`` owns one long-lived engine process. It never blocks for longer
than its timeout, and it turns every way an engine can misbehave into an
``EngineFailure`` with a kind the report can show:

- ``crash``: the process exited, or closed its stdout;
- ``timeout``: no complete answer within the timeout (the process is killed);
- ``protocol-error``: the answer is not one JSON object, is longer than the
  line limit, or carries another request's id.

After a crash, a timeout or an unreadable answer the process is gone (or
killed, since its stdout can no longer be trusted to be in step); the next
request starts a fresh one and says hello again.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import time
from collections import deque
from functools import lru_cache
from itertools import islice

from jsonschema import Draft202012Validator

from doublecheck.casefiles import schema as packaged_schema
from doublecheck.oracle.api import OPS
from doublecheck.oracle.errors import clip as clip_text

VERSIONS = ("1",)          # the protocol versions this harness speaks, newest first
MAX_LINE = 16 * 1024 * 1024  # longest answer line read from an engine
HELLO_TIMEOUT = 10.0       # the first answer may take this long (engine start-up)
STDERR_KEEP = 16 * 1024    # bytes of the engine's stderr kept for reports
STDERR_LINES = 12          # lines of it shown with a crash or a timeout


class EngineFailure(Exception):
    """The engine gave no usable answer. ``kind``: crash, timeout, protocol-error, internal-error.

    ``restarted`` says that the process was dropped and the next request starts a new one.
    """

    def __init__(self, kind: str, message: str, stderr: str = "", restarted: bool = False):
        super().__init__(f"{kind}: {message}")
        self.kind = kind
        self.message = message
        self.stderr = stderr
        self.restarted = restarted

    def lines(self) -> list[str]:
        out = [f"{self.kind}: {self.message}" + ("; it will be restarted" if self.restarted else "")]
        if self.stderr:
            out.append("engine stderr (last lines):")
            out += [f"  | {line}" for line in self.stderr.splitlines()]
        return out


class HelloError(Exception):
    """The engine cannot be used at all: it does not start, refuses hello or speaks another version."""


# --- message checks ---------------------------------------------------------

def _schema() -> dict:
    return packaged_schema("protocol.schema.json")


@lru_cache(maxsize=None)
def validator(kind: str) -> Draft202012Validator:
    """A validator for one message kind of the protocol schema (``moves-response``, ``request``...)."""
    schema = _schema()
    if kind not in schema["$defs"]:
        raise KeyError(f"no message kind {kind!r} in protocol.schema.json")
    return Draft202012Validator({"$schema": schema["$schema"], "$ref": f"#/$defs/{kind}",
                                 "$defs": schema["$defs"]})


def problems(kind: str, message) -> list[str]:
    """What is wrong with ``message`` as a ``kind`` message; empty when it is fine.

    Only the first few errors are collected: a list of a million wrong items
    must not make a million error objects."""
    first = islice(validator(kind).iter_errors(message), 5)
    errors = sorted(first, key=lambda e: [(isinstance(p, int), p) for p in e.path])
    out = []
    for e in errors:
        where = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in e.path)
        out.append(f"{where}: {clip(e.message, 200)}")
    return out


def response_problems(op: str, answer: dict) -> list[str]:
    """Check an answer to ``op``: an error response, or that op's result shape."""
    if answer.get("ok") is False:
        return [] if _plain_error(answer) else problems("error-response", answer)
    if op not in OPS and op != "hello":
        return []
    if _plain_result(op, answer):
        return []
    return problems(f"{op}-response", answer)


def request_problems(request: dict) -> list[str]:
    """Check a request to an operation (not hello)."""
    return [] if _plain_request(request) else problems("op-request", request)


# jsonschema takes tens of microseconds per list item, which adds up over a
# suite. These checks accept only what the schema accepts, in a fraction of
# the time; anything they do not accept goes to the schema, which decides
# and says what is wrong.

def _strings(value) -> bool:
    return type(value) is list and all(type(v) is str for v in value)


def _count(value) -> bool:
    return type(value) is int and value >= 0


def _id(value) -> bool:
    return type(value) in (int, str)


_RESULTS = {"1-0", "0-1", "1/2-1/2", None}


def _plain_status(status) -> bool:
    return (type(status) is dict and type(status.get("over")) is bool
            and "result" in status and status["result"] in _RESULTS
            and "reason" in status and (status["reason"] is None or type(status["reason"]) is str)
            and _strings(status.get("claimable")))


def _plain_result(op: str, answer: dict) -> bool:
    if not _id(answer.get("id")) or answer.get("ok") is not True:
        return False
    if op in ("moves", "turns"):
        return _strings(answer.get(op))
    if op == "fen":
        return type(answer.get("fen")) is str
    if op == "status":
        return _plain_status(answer.get("status"))
    if op == "play":
        return type(answer.get("fen")) is str and _plain_status(answer.get("status"))
    if op == "perft":
        divide = answer.get("divide", {})
        return (_count(answer.get("nodes")) and type(divide) is dict
                and all(_count(n) for n in divide.values()))
    return False


def _plain_error(answer: dict) -> bool:
    error = answer.get("error")
    return ((answer.get("id") is None or _id(answer.get("id"))) and type(error) is dict
            and type(error.get("code")) is str and error["code"] != ""
            and type(error.get("message")) is str)


def _plain_request(request: dict) -> bool:
    op = request.get("op")
    return (_id(request.get("id")) and op in OPS
            and type(request.get("variant")) is str and request["variant"] != ""
            and type(request.get("fen", "")) is str
            and type(request.get("moves", [])) is list
            and all(type(m) is str and m != "" for m in request.get("moves", []))
            and (_count(request.get("depth")) if op == "perft" else
                 "depth" not in request or _count(request["depth"]))
            and type(request.get("divide", False)) is bool
            and type(request.get("turns", False)) is bool)


def clip(text: str, limit: int = 300) -> str:
    return clip_text(text, limit)


def size(n: int) -> str:
    return f"{n // (1024 * 1024)} MiB" if n >= 1024 * 1024 and n % (1024 * 1024) == 0 else f"{n} bytes"


# --- the subprocess client --------------------------------------------------

class Client:
    """One engine process, started on demand and restarted after it breaks."""

    def __init__(self, argv: list[str], timeout: float | None = 10.0, max_line: int = MAX_LINE,
                 env: dict | None = None, versions=VERSIONS):
        if not argv:
            raise HelloError("the engine command is empty")
        self.argv = list(argv)
        self.timeout = timeout or None
        self.max_line = max_line
        self.env = env
        self.versions = list(versions)
        self.proc = None
        self.hello_answer = None  # the first hello's answer, kept for reports
        self.starts = 0
        self._next_id = 0
        self._buf = bytearray()
        self._stderr = deque()
        self._stderr_size = 0
        self._sel = None

    # The public side: hello(), call(), close().

    def hello(self) -> dict:
        """Start the engine and agree on a version; raises HelloError if that fails."""
        try:
            self._start()
        except EngineFailure as e:
            raise HelloError("\n".join([f"the engine did not answer hello: {e.kind}: {e.message}"]
                                       + e.lines()[1:])) from None
        return self.hello_answer

    def call(self, request: dict) -> dict:
        """Send one request and return its answer (a dict with ``ok``); EngineFailure otherwise."""
        if self.proc is None:
            try:
                self._start()
            except HelloError as e:
                raise EngineFailure("crash", f"could not restart the engine: {e}") from None
            except EngineFailure as e:
                e.message = f"while restarting, at hello: {e.message}"
                e.restarted = False
                raise
        if self._buf:
            stray = clip(bytes(self._buf).decode("utf-8", "replace").strip(), 200)
            self._discard()
            raise EngineFailure("protocol-error", "before this request the engine had written "
                                f"output nobody asked for: {stray!r}", self.stderr_tail(),
                                restarted=True)
        rid = self._new_id()
        return self._exchange({**request, "id": rid}, rid, self.timeout)

    def close(self):
        """Close stdin (a well-behaved engine exits on end of input); kill it if it lingers."""
        proc = self.proc
        if proc is None:
            return
        try:
            proc.stdin.close()
        except OSError:
            pass
        try:
            proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            pass
        self._discard()

    def stderr_tail(self) -> str:
        text = b"".join(self._stderr).decode("utf-8", "replace")
        lines = [clip(line.rstrip(), 300) for line in text.splitlines() if line.strip()]
        return "\n".join(lines[-STDERR_LINES:])

    # The private side.

    def _new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def _start(self):
        self._discard()
        try:
            self.proc = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                env=self.env, start_new_session=True)
        except OSError as e:
            self.proc = None
            raise HelloError(f"cannot start the engine {' '.join(self.argv)!r}: {e}") from None
        self.starts += 1
        self._buf = bytearray()
        self._stderr.clear()
        self._stderr_size = 0
        self._sel = selectors.DefaultSelector()
        self._sel.register(self.proc.stdout, selectors.EVENT_READ, "out")
        self._sel.register(self.proc.stderr, selectors.EVENT_READ, "err")
        rid = self._new_id()
        wait = max(self.timeout or 0, HELLO_TIMEOUT) if self.timeout else None
        answer = self._exchange({"id": rid, "op": "hello", "protocol": self.versions}, rid, wait)
        if answer.get("ok") is not True:
            error = answer.get("error") if isinstance(answer.get("error"), dict) else {}
            self._discard()
            raise HelloError(f"the engine refused hello: {error.get('code')}: {error.get('message')}"
                             f" (the harness speaks protocol version {', '.join(self.versions)})")
        wrong = problems("hello-response", answer)
        if wrong:
            self._discard()
            raise HelloError("the engine's hello answer does not follow the protocol: "
                             + "; ".join(wrong))
        if answer["protocol"] not in self.versions:
            self._discard()
            raise HelloError(f"the engine speaks protocol version {answer['protocol']!r}; "
                             f"this harness speaks {', '.join(self.versions)}")
        if self.hello_answer is None:
            self.hello_answer = answer
        elif answer["protocol"] != self.hello_answer["protocol"]:
            self._discard()
            raise HelloError(f"after a restart the engine picked protocol {answer['protocol']!r}, "
                             f"not {self.hello_answer['protocol']!r} as before")

    def _exchange(self, request: dict, rid, timeout) -> dict:
        try:
            self.proc.stdin.write((json.dumps(request) + "\n").encode("utf-8"))
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._crashed("the engine stopped reading its input") from None
        raw = self._read_line(timeout)
        try:
            answer = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as e:
            self._discard()
            raise EngineFailure("protocol-error", f"the answer is not a JSON object ({e}): "
                                f"{clip(raw.decode('utf-8', 'replace'), 200)!r}",
                                self.stderr_tail(), restarted=True) from None
        if not isinstance(answer, dict):
            self._discard()
            raise EngineFailure("protocol-error", f"the answer is not a JSON object: "
                                f"{clip(raw.decode('utf-8', 'replace'), 200)!r}",
                                self.stderr_tail(), restarted=True)
        if answer.get("id") != rid or isinstance(answer.get("id"), bool):
            self._discard()
            raise EngineFailure("protocol-error", f"the answer has id {answer.get('id')!r}, "
                                f"the request had id {rid!r}", self.stderr_tail(), restarted=True)
        if not isinstance(answer.get("ok"), bool):
            raise EngineFailure("protocol-error", "the answer has no boolean 'ok': "
                                f"{clip(raw.decode('utf-8', 'replace'), 200)!r}", self.stderr_tail())
        return answer

    def _read_line(self, timeout) -> bytes:
        deadline = None if timeout is None else time.monotonic() + timeout
        scanned = 0
        while True:
            nl = self._buf.find(b"\n", scanned)
            if nl >= 0:
                line = bytes(self._buf[:nl])
                del self._buf[:nl + 1]
                return line
            scanned = len(self._buf)
            if len(self._buf) > self.max_line:
                self._discard()
                raise EngineFailure("protocol-error", f"the answer is longer than {size(self.max_line)}"
                                    "; cut off there", self.stderr_tail(), restarted=True)
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                self._discard()
                raise EngineFailure("timeout", f"no answer within {timeout:g} s; the engine was killed",
                                    self.stderr_tail(), restarted=True)
            for key, _ in self._sel.select(left):
                data = os.read(key.fileobj.fileno(), 1 << 20)
                if key.data == "err":
                    if data:
                        self._keep_stderr(data)
                    else:
                        self._sel.unregister(key.fileobj)
                elif data:
                    self._buf += data
                else:
                    raise self._crashed("the engine closed its output")

    def _keep_stderr(self, data: bytes):
        self._stderr.append(data)
        self._stderr_size += len(data)
        while self._stderr_size - len(self._stderr[0]) >= STDERR_KEEP:
            self._stderr_size -= len(self._stderr.popleft())

    def _crashed(self, what: str) -> EngineFailure:
        """The process is gone or going: collect its exit status and last stderr."""
        proc = self.proc
        try:
            code = proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            code = None
        self._drain_stderr(1.0)
        tail = self.stderr_tail()
        self._discard()
        if code is None:
            status = "still running, killed"
        elif code < 0:
            try:
                status = f"killed by signal {signal.Signals(-code).name}"
            except ValueError:
                status = f"killed by signal {-code}"
        else:
            status = f"exit status {code}"
        return EngineFailure("crash", f"{what} ({status})", tail, restarted=True)

    def _drain_stderr(self, seconds: float):
        deadline = time.monotonic() + seconds
        while self._sel and self._sel.get_map():
            err = [k for k in self._sel.get_map().values() if k.data == "err"]
            left = deadline - time.monotonic()
            if not err or left <= 0:
                return
            if not self._sel.select(left):
                return
            data = os.read(err[0].fileobj.fileno(), 1 << 20)
            if not data:
                self._sel.unregister(err[0].fileobj)
                return
            self._keep_stderr(data)

    def _discard(self):
        """Kill the current process (if any) and forget it."""
        proc, self.proc = self.proc, None
        if self._sel is not None:
            self._sel.close()
            self._sel = None
        if proc is not None:
            kill_engine(proc)


def kill_engine(proc) -> None:
    """End an engine process started in its own session (and so anything it started),
    and close its pipes."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        if proc.poll() is None:
            proc.kill()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        try:
            stream.close()
        except OSError:
            pass
