"""One engine process, spoken to line by line: the transport of the protocol client and the UCI bridge.

``LineProcess`` starts a program in its own session (and so its own process
group), writes lines to its stdin, reads lines from its stdout before a
``Deadline``, keeps the last 16 KiB of its stderr for reports, and ends it
together with everything it started. All three pipes are non-blocking and
every wait is a ``select`` bounded by the deadline, so nothing the program
does with its pipes can hold the harness past the request's limit: closing
stdout and living on, dying while a child of it still holds stderr open, not
reading its input, or writing without ever ending a line.

Whatever goes wrong becomes an ``EngineFailure`` whose ``kind`` the reports
show: ``crash`` (the program exited or closed its stdout or stdin),
``timeout`` (no line before the deadline) or ``protocol-error`` (a line
longer than the limit). The process is ended before the failure is raised,
since its output can no longer be trusted to be in step (``restarted``).

Ending an engine (after a failure, and at ``close``, even after a clean exit):

1. ``SIGKILL`` to its process group: the engine and every descendant that
   stayed in the group.
2. On Linux, descendants that left the group (a helper that called
   ``setsid()``) are found through ``/proc`` and killed too: the process tree
   below the engine, and every process whose environment carries this
   engine's mark. Each engine is started with a unique value in
   ``DOUBLECHECK_ENGINE_MARK``, which everything it starts inherits, so a
   descendant is found even after its parent has died. This repeats until a
   scan finds nothing new, so a descendant that forks while being ended is
   caught as well.
3. On Linux the harness makes itself a child subreaper
   (``prctl(PR_SET_CHILD_SUBREAPER)``) the first time it starts an engine:
   a descendant whose parent dies is re-parented to the harness rather than
   to init, and the ones it kills are reaped by it, so no zombie stays
   behind either.

docs/harness.md says what is and is not cleaned up on each platform.
"""

from __future__ import annotations

import ctypes
import itertools
import os
import secrets
import selectors
import shlex
import signal
import subprocess
import sys
import textwrap
import time
from collections import deque

from doublecheck.harness.deadline import Deadline
from doublecheck.harness.output import write_available
from doublecheck.oracle.errors import CRASH, PROTOCOL_ERROR, TIMEOUT, clip as clip_text

MAX_LINE = 16 * 1024 * 1024  # longest line read from an engine, unless the caller says otherwise
STDERR_KEEP = 16 * 1024      # bytes of the engine's stderr kept for reports
STDERR_LINES = 12            # lines of it shown with a crash or a timeout
EXIT_GRACE = 1.0             # seconds an engine has to exit after its input is closed
CRASH_GRACE = 1.0            # seconds to collect a crashing engine's exit status, then its last stderr
KILL_WAIT = 5.0              # seconds to wait for a killed engine to be gone
REAP_WAIT = 1.0              # seconds to wait for killed descendants to be reaped
MARK = "DOUBLECHECK_ENGINE_MARK"
PR_SET_CHILD_SUBREAPER = 36  # from linux/prctl.h
CHUNK = 1 << 20


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


def message_lines(head: str, message) -> list[str]:
    """``head`` with the first line of an engine's message, then its further lines indented as
    the stderr tail is (at most STDERR_LINES, each clipped): a stack trace in a message reads as
    lines, not as one line of escaped line breaks."""
    first, *rest = str(message).splitlines() or [""]
    rest = [line.rstrip() for line in textwrap.dedent("\n".join(rest)).splitlines() if line.strip()]
    out = [f"{head}{first}"] + [f"  | {clip(line)}" for line in rest[:STDERR_LINES]]
    if len(rest) > STDERR_LINES:
        out.append(f"  | ... and {len(rest) - STDERR_LINES} more lines")
    return out


class HelloError(Exception):
    """The engine cannot be used at all: it does not start, refuses hello or speaks another version."""


def clip(text: str, limit: int = 300) -> str:
    """At most ``limit`` characters of an engine's text, then ``... (N characters)``."""
    return clip_text(text, limit)


def size(n: int) -> str:
    return f"{n // (1024 * 1024)} MiB" if n >= 1024 * 1024 and n % (1024 * 1024) == 0 else f"{n} bytes"


def exit_status(code: int | None) -> str:
    if code is None:
        return "still running, killed"
    if code >= 0:
        return f"exit status {code}"
    try:
        return f"killed by signal {signal.Signals(-code).name}"
    except ValueError:
        return f"killed by signal {-code}"


def split_command(command, what: str = "--engine") -> list[str]:
    """A command line split into words like a shell would (a list is taken as it is);
    HelloError if that is not possible or leaves nothing to run."""
    try:
        argv = shlex.split(command) if isinstance(command, str) else [str(a) for a in command]
    except ValueError as e:
        raise HelloError(f"{what} {command!r} cannot be split into words: {e}") from None
    if not argv:
        raise HelloError(f"{what} was given an empty command")
    return argv


class LineProcess:
    """A program that reads lines on stdin and writes lines on stdout (see the module docstring)."""

    def __init__(self, argv, env: dict | None = None, max_line: int = MAX_LINE):
        self.argv = [str(a) for a in argv]
        if not self.argv:
            raise HelloError("the engine command is empty")
        self.command = " ".join(shlex.quote(a) for a in self.argv)
        self.env = env
        self.max_line = max_line
        self.proc = None
        self.mark = None
        self._sel = None
        self._buf = bytearray()
        self._scanned = 0
        self._stderr = deque()
        self._stderr_size = 0
        self.trailing = b""   # output nobody read, found at close

    @property
    def running(self) -> bool:
        return self.proc is not None

    def start(self) -> None:
        """Start the program (ending a previous one); HelloError if it cannot be started."""
        self.kill()
        _become_subreaper()
        self.mark = f"{os.getpid()}.{next(_serial)}.{secrets.token_hex(4)}"
        env = dict(os.environ if self.env is None else self.env)
        env[MARK] = ":".join(m for m in (env.get(MARK), self.mark) if m)  # an outer harness's too
        try:
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, env=env, start_new_session=True)
        except (OSError, ValueError) as e:
            self.proc = None
            raise HelloError(f"cannot start the engine {self.command!r}: {e}") from None
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            os.set_blocking(stream.fileno(), False)
        self._sel = selectors.DefaultSelector()
        self._sel.register(self.proc.stdout, selectors.EVENT_READ, "out")
        self._sel.register(self.proc.stderr, selectors.EVENT_READ, "err")
        self._buf = bytearray()
        self._scanned = 0
        self._stderr.clear()
        self._stderr_size = 0

    def send(self, line: str, deadline: Deadline) -> None:
        """Write one line to the program's stdin, reading its output meanwhile (no deadlock)."""
        data = memoryview((line + "\n").encode("utf-8"))
        fd = self.proc.stdin.fileno()
        while True:
            try:
                data = write_available(fd, data)
            except OSError:
                raise self.crashed("the engine stopped reading its input") from None
            if not data:
                return
            if deadline.passed():
                raise self.failure(TIMEOUT, f"the engine did not read its input within "
                                              f"{deadline.seconds:g} s; the engine was killed")
            self._pump(deadline.left(), write=True)

    def read_line(self, deadline: Deadline, max_line: int | None = None) -> bytes:
        """The next line of output, without its newline; EngineFailure if none comes in time
        (``max_line``: a smaller limit than the process's for this one line)."""
        max_line = min(max_line or self.max_line, self.max_line)
        while True:
            nl = self._buf.find(b"\n", self._scanned)
            if 0 <= nl <= max_line:
                line = bytes(self._buf[:nl])
                del self._buf[:nl + 1]
                self._scanned = 0
                return line
            self._scanned = len(self._buf)
            if len(self._buf) > max_line:
                raise self.failure(PROTOCOL_ERROR,
                                   f"the answer is longer than {size(max_line)}; cut off there")
            if deadline.passed():
                raise self.failure(TIMEOUT, f"no answer within {deadline.seconds:g} s; "
                                              "the engine was killed")
            self._pump(deadline.left())

    def unread(self) -> bytes:
        """Output the program has written that nobody has read yet (looks without waiting)."""
        self._pump(0)
        return bytes(self._buf)

    def buffered(self) -> bytes:
        """Output already read from the pipe that no line has been taken from (no waiting)."""
        return bytes(self._buf)

    def take_lines(self, wanted) -> list[bytes]:
        """Take the complete lines at the start of the unread output for which ``wanted(line)``
        is true (without their newlines), up to the first that is not; no waiting."""
        taken = []
        while True:
            nl = self._buf.find(b"\n")
            if nl < 0 or not wanted(bytes(self._buf[:nl])):
                self._scanned = 0
                return taken
            taken.append(bytes(self._buf[:nl]))
            del self._buf[:nl + 1]

    def stderr_tail(self, lines: int = STDERR_LINES) -> str:
        text = b"".join(self._stderr).decode("utf-8", "replace")
        kept = [clip(line.rstrip(), 300) for line in text.splitlines() if line.strip()]
        return "\n".join(kept[-lines:])

    def failure(self, kind: str, message: str) -> EngineFailure:
        """End the program (its output can no longer be trusted) and say why."""
        tail = self.stderr_tail()
        self.kill()
        return EngineFailure(kind, message, tail, restarted=True)

    def crashed(self, what: str) -> EngineFailure:
        """The program is gone or going: collect its exit status and last stderr, then end it."""
        proc = self.proc
        exited = _exited(proc, CRASH_GRACE)
        self._drain_stderr(Deadline(CRASH_GRACE))
        tail = self.stderr_tail()
        self.kill()
        status = exit_status(proc.returncode if exited else None)
        return EngineFailure(CRASH, f"{what} ({status})", tail, restarted=True)

    def close(self, goodbye: str | None = None) -> None:
        """Say ``goodbye`` (if given), close stdin, give the program EXIT_GRACE seconds to exit,
        then end it and everything it started."""
        if self.proc is None:
            return
        try:
            if goodbye is not None:
                self.send(goodbye, Deadline(EXIT_GRACE))
            self.proc.stdin.close()
            _exited(self.proc, EXIT_GRACE)
            self._read_rest()
        except (EngineFailure, OSError):
            pass
        self.trailing = bytes(self._buf)
        self.kill()

    def _read_rest(self) -> None:
        """Take what is left on stdout into the buffer, without waiting."""
        while True:
            try:
                data = os.read(self.proc.stdout.fileno(), CHUNK)
            except (BlockingIOError, OSError):
                return
            if not data:
                return
            self._buf += data

    def kill(self) -> None:
        """End the program, its process group and its descendants, and close the pipes."""
        proc, self.proc = self.proc, None
        if self._sel is not None:
            self._sel.close()
            self._sel = None
        if proc is None:
            return
        end_engine(proc, self.mark)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            try:
                stream.close()
            except OSError:
                pass

    # The pipes.

    def _pump(self, wait: float | None, write: bool = False) -> bool:
        """One round of waiting (at most ``wait`` seconds, None: until something happens): read
        whatever stdout and stderr hold. With ``write``, also wait for stdin to take more; returns
        whether it can."""
        if write:
            self._sel.register(self.proc.stdin, selectors.EVENT_WRITE, "in")
        try:
            events = self._sel.select(wait)
        finally:
            if write:
                self._sel.unregister(self.proc.stdin)
        writable = False
        for key, _ in events:
            if key.data == "in":
                writable = True
                continue
            try:
                data = os.read(key.fd, CHUNK)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if key.data == "out":
                if not data:
                    raise self.crashed("the engine closed its output")
                self._buf += data
            elif data:
                self._keep_stderr(data)
            else:
                self._sel.unregister(key.fileobj)
        return writable

    def _keep_stderr(self, data: bytes) -> None:
        self._stderr.append(data)
        self._stderr_size += len(data)
        while self._stderr_size - len(self._stderr[0]) >= STDERR_KEEP:
            self._stderr_size -= len(self._stderr.popleft())

    def _drain_stderr(self, deadline: Deadline) -> None:
        """Keep what is still coming on stderr, until it ends or the deadline passes."""
        stderr = self.proc.stderr
        if self._sel is None or stderr not in {k.fileobj for k in self._sel.get_map().values()}:
            return
        with selectors.DefaultSelector() as sel:
            sel.register(stderr, selectors.EVENT_READ)
            while not deadline.passed() and sel.select(deadline.left()):
                try:
                    data = os.read(stderr.fileno(), CHUNK)
                except BlockingIOError:
                    continue
                except OSError:
                    return
                if not data:
                    return
                self._keep_stderr(data)


# --- ending an engine and everything it started -------------------------------

_serial = itertools.count(1)
_subreaper = None  # None: not tried yet; then whether this process is a child subreaper


def _become_subreaper() -> bool:
    """On Linux, make orphaned descendants of this process its children (once per process)."""
    global _subreaper
    if _subreaper is None:
        _subreaper = False
        if sys.platform.startswith("linux"):
            try:
                libc = ctypes.CDLL(None, use_errno=True)
                _subreaper = libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
            except (OSError, AttributeError):
                pass
    return _subreaper


def _processes() -> dict[int, int]:
    """Every process's parent, by pid, from /proc; empty where there is no /proc."""
    parents = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return parents
    for name in entries:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
            parents[int(name)] = int(stat[stat.rindex(b")") + 2:].split()[1])
        except (OSError, ValueError, IndexError):
            continue  # gone meanwhile
    return parents


def _carries(pid: int, mark: str) -> bool:
    """Whether the process's environment holds ``mark`` in DOUBLECHECK_ENGINE_MARK."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            environ = f.read()
    except OSError:
        return False  # gone, a zombie, or another user's
    prefix = MARK.encode() + b"="
    for item in environ.split(b"\0"):
        if item.startswith(prefix):
            return mark.encode() in item[len(prefix):].split(b":")
    return False


def descendants(root: int, mark: str | None) -> set[int]:
    """The processes below ``root`` in the process tree, and every process carrying ``mark``
    with the processes below it (Linux; elsewhere the empty set)."""
    parents = _processes()
    children = {}
    for pid, parent in parents.items():
        children.setdefault(parent, []).append(pid)
    me = os.getpid()
    tops = [root] + [pid for pid in parents if mark and pid not in (root, me) and _carries(pid, mark)]
    found, stack = set(), list(tops)
    while stack:
        pid = stack.pop()
        if pid != root:
            found.add(pid)
        stack += [c for c in children.get(pid, ()) if c not in found and c != me]
    return found


def _exited(proc: subprocess.Popen, seconds: float) -> bool:
    """Whether the process exits within ``seconds``. Where the platform allows it is not reaped
    yet, so that its pid (its process group's id) cannot be reused before the group is ended."""
    if proc.returncode is not None:
        return True
    if not hasattr(os, "waitid"):
        try:
            proc.wait(timeout=seconds)
            return True
        except subprocess.TimeoutExpired:
            return False
    deadline, pause = Deadline(seconds), 0.001
    while True:
        try:
            if os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
                return True
        except ChildProcessError:
            return True
        if deadline.passed():
            return False
        time.sleep(min(pause, deadline.left()))
        pause = min(pause * 2, 0.05)


def end_engine(proc: subprocess.Popen, mark: str | None) -> None:
    """Kill an engine started in its own session, its process group and its descendants,
    and reap them (module docstring)."""
    victims = set()
    for round_ in range(5):
        found = descendants(proc.pid, mark)
        if round_ == 0:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        if round_ > 0 and not found - victims:
            break
        victims |= found
    if proc.poll() is None:
        try:
            proc.kill()
        except OSError:
            pass
    try:
        proc.wait(timeout=KILL_WAIT)
    except subprocess.TimeoutExpired:
        pass
    _reap(victims, proc.pid)


def _reap(pids: set[int], engine: int) -> None:
    """Collect the exit status of the killed descendants that became children of this process
    (it is a subreaper), so that none stays a zombie. Others are their parents' to reap."""
    left = set(pids)
    deadline = Deadline(REAP_WAIT)
    while left and not deadline.passed():
        parents = None
        for pid in sorted(left):
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                parents = parents if parents is not None else _processes()
                parent = parents.get(pid)
                # not (yet) a child of this process: wait while its parent is being ended
                if parent is None or parent not in left and parent != engine:
                    left.discard(pid)
                continue
            if done:
                left.discard(pid)
        if left:
            time.sleep(0.005)
