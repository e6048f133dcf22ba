"""Writing a file the user named, without replacing what the name points at.

Every report and output file of the tools goes through ``write_output``: the
run reports (``--json``, ``--junit``, ``--html``, ``--write-xfail``), the
lookups' ``svg -o`` and ``play --pgn``, and ``doublecheck generate``. What the
path names decides how it is written (docs/harness.md, "Reports"):

- nothing yet, or a regular file: a temporary file beside it, then a rename
  over it, so the file is written whole or not at all. A new file gets the
  mode any new file gets (0666 less the umask); a replaced one keeps its own.
- a symbolic link: followed, as a shell's ``>`` does. The file it points to
  (through every link) is written by these same rules and the link stays a
  link. ``generate`` refuses a link that leaves its case tree before it gets
  here (``inside``).
- a character device (``/dev/null``, a terminal) or a FIFO: written through,
  in place; never replaced by a regular file. Opening a FIFO that no process
  reads fails at once (it would otherwise wait for a reader forever), and a
  write that makes no progress for ``WRITE_WAIT`` seconds is given up. So is
  any path under ``/dev`` or ``/proc`` (``/dev/stdout`` redirected to a file
  is written through, not renamed over).
- a directory, a block device, a socket: refused.

Whatever goes wrong is an ``OutputError`` with the code ``cannot-write`` and
a message naming the path.
"""

from __future__ import annotations

import errno
import os
import select
import stat
import tempfile
from pathlib import Path

from doublecheck.oracle.errors import CANNOT_WRITE

WRITE_WAIT = 30.0   # seconds a device or FIFO may take to accept more of the text
IN_PLACE = ("/dev/", "/proc/")   # paths written through whatever they resolve to


class OutputError(Exception):
    """A file that cannot be written; ``code`` is ``cannot-write``."""

    code = CANNOT_WRITE

    def __init__(self, path, why: str):
        self.message = f"{path}: {why}"
        super().__init__(f"{self.code}: {self.message}")


def write_output(path, text: str, inside=None) -> None:
    """Write ``text`` (UTF-8) to ``path`` by the rules of the module docstring.
    ``inside``: a folder the file written (its links followed) must be in."""
    data = text.encode("utf-8")
    target = Path(os.path.realpath(path))
    if inside is not None:
        outside_of(path, inside)
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as e:
        raise OutputError(path, e.strerror or str(e)) from None
    if str(path).startswith(IN_PLACE) or mode is not None and (stat.S_ISCHR(mode)
                                                               or stat.S_ISFIFO(mode)):
        _write_through(path, data)
    elif mode is None or stat.S_ISREG(mode):
        _replace(path, target, data, mode)
    else:
        raise OutputError(path, f"it is {_kind(mode)}; write to a file, a FIFO or a "
                                "character device such as /dev/null")


def outside_of(path, inside) -> None:
    """OutputError unless ``path``, its links followed, is inside the folder ``inside``."""
    target = Path(os.path.realpath(path))
    if not target.is_relative_to(os.path.realpath(inside)):
        raise OutputError(path, f"it leads to {target}, outside {inside}; refusing to write "
                                "through a link that leaves the tree")


def _kind(mode: int) -> str:
    return ("a directory" if stat.S_ISDIR(mode) else "a block device" if stat.S_ISBLK(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "not a regular file")


def _replace(path, target: Path, data: bytes, mode: int | None) -> None:
    """A temporary file beside ``target``, then a rename over it."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    except OSError as e:
        raise OutputError(path, e.strerror or str(e)) from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, stat.S_IMODE(mode) if mode is not None else 0o666 & ~_umask())
        os.replace(tmp, target)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise OutputError(path, e.strerror or str(e)) from None
        raise


def write_available(fd: int, data: memoryview) -> memoryview:
    """Write to the non-blocking ``fd`` until it would block; what is left (empty: all of it
    went).  Any other OSError is the caller's to name."""
    while data:
        try:
            data = data[os.write(fd, data):]
        except BlockingIOError:
            break
    return data


def _write_through(path, data: bytes) -> None:
    """Write into an existing device or FIFO, never waiting WRITE_WAIT seconds for progress."""
    # O_APPEND: /dev/stdout redirected to a file adds to it rather than writing over its start
    flags = os.O_WRONLY | os.O_NONBLOCK | os.O_APPEND | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as e:
        why = "a FIFO that no process is reading" if e.errno == errno.ENXIO else e.strerror or str(e)
        raise OutputError(path, why) from None
    try:
        kind = os.fstat(fd).st_mode
        if stat.S_ISREG(kind) and not str(path).startswith(IN_PLACE):
            raise OutputError(path, "it became a regular file while being opened")
        view = write_available(fd, memoryview(data))
        while view:
            if not select.select([], [fd], [], WRITE_WAIT)[1]:
                raise OutputError(path, f"nothing more was accepted within {WRITE_WAIT:g} s")
            view = write_available(fd, view)
    except OSError as e:
        raise OutputError(path, e.strerror or str(e)) from None
    finally:
        os.close(fd)


def _umask() -> int:
    mask = os.umask(0o022)  # reading the umask means setting it; put it straight back
    os.umask(mask)
    return mask
