"""Remembering which data files have already passed validation, by content hash.

Validating a case file (its JSON Schema, then every request against the
oracle) costs far more than reading it, and the packaged files never change
between two commands.  So ``doublecheck.casefiles`` asks here first: a file
whose key is on record passed every per-file check before, with the same
bytes, the same path and the same checking code, and need not be checked
again.  Only files without a single problem are recorded; a file with
problems is checked (and its problems reported) every time.

The record is a cache, never a source of truth: with it broken in any way,
every result is what ``DOUBLECHECK_CACHE=off`` gives, only slower.

- **The key** of a file is a keyed hash (HMAC-SHA-256, ``entry``) of the
  fingerprint below, the file's path relative to its case tree and its bytes
  (the checks read the path: the variant directory and the topic must match
  the file's contents).  The hash key is a random secret kept in the cache
  folder (``SECRET_NAME``, created on first use, readable by its owner only):
  an entry copied from elsewhere or written by anything else does not match,
  and is ignored.  A file found on record is still parsed strictly and its
  shape checked before use (``casefiles``); a file whose shape is wrong is
  checked in full, as if it had no entry.
- **The fingerprint** covers everything the per-file checks depend on: the
  schemas, ``casefiles.py`` and ``resource_limits.py``, every source file of the
  oracle (FEN reading and move parsing decide whether a request is well
  formed), doublecheck's version, the variants installed, and the source
  files of every variant plugin's package and rules module (``plugin_code``).
  Keys are stored per fingerprint, so a change to any of them starts afresh.
- **Where**: ``$DOUBLECHECK_CACHE`` if set (``off`` turns the cache off),
  else ``$XDG_CACHE_HOME/doublecheck``, else ``~/.cache/doublecheck``.
- **What it touches**: it reads only regular files (no FIFO, no device: opened
  without waiting, checked with fstat), at most ``MAX_RECORD_BYTES`` of a
  record; it deletes only record files it wrote (their name *and* their
  first bytes, ``MARKER``) and its own temporary files; a temporary file is
  removed again when the record cannot be replaced.  A cache that cannot be
  read or written is ignored: it only saves time.
"""

from __future__ import annotations

import hashlib
import hmac
import importlib.util
import json
import os
import stat
import sys
import tempfile
import time
from functools import lru_cache
from pathlib import Path

KEEP_FINGERPRINTS = 4        # record files of older code versions kept besides the current one
MAX_KEYS = 20_000            # a record file never grows past this many keys
MAX_RECORD_BYTES = MAX_KEYS * 80 + 4096   # a record longer than this is not read (keys are 64 hex digits)
MAX_PLUGIN_FILES = 2_000     # source files of one plugin read into the fingerprint (then: changes start afresh)
MARKER = b'{"doublecheck-validation-record": 2,'   # how every record file this module writes begins
SECRET_NAME = "validation-secret"
TEMP_PREFIX, TEMP_SUFFIX = ".validated-", ".tmp"
STALE_TEMP_SECONDS = 3600    # a temporary file of ours this old was left by a process that died
_TOOLS = Path(__file__).resolve().parent


def cache_dir() -> Path | None:
    """The folder of the record files, or None when the cache is turned off."""
    chosen = os.environ.get("DOUBLECHECK_CACHE")
    if chosen is not None:
        return None if chosen.strip().lower() in ("", "off", "0", "no") else Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "doublecheck"


def _code_files(schemas_dir: Path) -> list[Path]:
    # find_spec locates the oracle package (a sibling folder in the repository, a
    # subfolder in a wheel) without importing it
    oracle = Path(list(importlib.util.find_spec("doublecheck.oracle").submodule_search_locations)[0])
    return (sorted(schemas_dir.glob("*.json")) + [_TOOLS / "casefiles.py", _TOOLS / "resource_limits.py"]
            + sorted(oracle.rglob("*.py")))


def _add_files(digest, paths) -> None:
    for path in paths:
        digest.update(str(path.name).encode() + b"\0")
        data = read_regular(path, 64 * 1024 * 1024)
        digest.update(b"(unreadable)" if data is None else data)


@lru_cache(maxsize=None)
def fingerprint(schemas_dir: Path) -> str:
    """A hash of everything the per-file checks depend on besides the file itself."""
    from doublecheck import __version__
    digest = hashlib.sha256(f"doublecheck {__version__}\0".encode())
    _add_files(digest, _code_files(schemas_dir))
    return digest.hexdigest()[:24]


def plugin_code() -> str:
    """A hash of the source files of every variant plugin: its package folder and the module
    of its rules class (a plugin's code decides what its cases' requests mean)."""
    from doublecheck.oracle import variants
    digest = hashlib.sha256()
    for variant in variants.plugins():
        digest.update(variant.id.encode() + b"\0")
        _add_files(digest, _plugin_files(variant))
    return digest.hexdigest()[:24]


def _plugin_files(variant) -> list[Path]:
    folders = []
    if variant.package is not None:
        folders.append(Path(str(variant.case_tree())).parent)
    cls = variant.rules_class()
    module = sys.modules.get(getattr(cls, "__module__", ""), None)
    source = getattr(module, "__file__", None)
    files = [Path(source)] if source else []
    for folder in folders:
        files += sorted(p for p in folder.rglob("*.py"))[:MAX_PLUGIN_FILES]
    return files


def file_key(relative: str, data: bytes) -> str:
    return hashlib.sha256(relative.encode("utf-8") + b"\0" + data).hexdigest()


def read_regular(path: Path, limit: int, prefix: bool = False) -> bytes | None:
    """The bytes of a regular file of at most ``limit`` bytes (with ``prefix``: its first
    ``limit`` bytes), or None (missing, not a regular file, too long, unreadable).  Opened
    without waiting (a FIFO has no writer) and without following a final symbolic link (a
    link to a device)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(fd, "rb") as f:
            fd = None
            data = f.read(limit + 1)
    except OSError:
        return None
    finally:
        if fd is not None:
            os.close(fd)
    return data[:limit] if prefix or len(data) <= limit else None


class Record:
    """The keys of the files that passed with one fingerprint: ``known`` and ``add``, then ``save``."""

    def __init__(self, schemas_dir: Path, extra: str = ""):
        """``extra``: anything else the checks depend on (the installed variants)."""
        folder = cache_dir()
        self.code = hashlib.sha256((fingerprint(schemas_dir) + "\0" + extra).encode()).hexdigest()[:24]
        self.secret = _secret(folder) if folder else None
        self.path = folder / f"validated-{self.code}.json" if folder and self.secret else None
        self.keys = self._read()
        self.added = False

    def entry(self, key: str) -> str:
        """The record's entry for a file key: keyed by this cache's secret and this fingerprint."""
        return hmac.new(self.secret, f"{self.code}\0{key}".encode(), hashlib.sha256).hexdigest()

    def _read(self) -> set:
        if self.path is None:
            return set()
        data = read_regular(self.path, MAX_RECORD_BYTES)
        if data is None or not data.startswith(MARKER):
            return set()
        try:
            record = json.loads(data.decode("utf-8"))
        except ValueError:
            return set()
        keys = record.get("keys") if record.get("fingerprint") == self.code else None
        return set(k for k in keys if isinstance(k, str)) if isinstance(keys, list) else set()

    def known(self, key: str) -> bool:
        return self.path is not None and self.entry(key) in self.keys

    def add(self, key: str) -> None:
        if self.path is None or key is None:
            return
        entry = self.entry(key)
        if entry not in self.keys and len(self.keys) < MAX_KEYS:
            self.keys.add(entry)
            self.added = True

    def save(self) -> None:
        """Write the record (atomically: another process may be reading it); errors are ignored,
        and the temporary file is removed when the record cannot be replaced."""
        if self.path is None or not self.added:
            return
        temp = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, temp = tempfile.mkstemp(dir=self.path.parent, prefix=TEMP_PREFIX, suffix=TEMP_SUFFIX)
            with os.fdopen(fd, "wb") as f:
                f.write(MARKER + json.dumps({"fingerprint": self.code, "keys": sorted(self.keys)})[1:].encode())
            os.replace(temp, self.path)
            temp = None
            self.added = False
            _prune(self.path.parent, self.path)
        except OSError:
            pass
        finally:
            if temp is not None:
                try:
                    os.unlink(temp)
                except OSError:
                    pass


def _secret(folder: Path) -> bytes | None:
    """This cache's secret (created on first use), or None when it cannot be had."""
    path = folder / SECRET_NAME
    data = read_regular(path, 256)
    if data is None and not os.path.lexists(path):
        try:
            folder.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(os.urandom(32).hex().encode())
        except OSError:
            pass
        data = read_regular(path, 256)
    return data if data is not None and len(data) == 64 else None


def ours(path: Path) -> bool:
    """A file this module wrote: a record of its name pattern that begins with MARKER."""
    return read_regular(path, len(MARKER), prefix=True) == MARKER


def _prune(folder: Path, current: Path) -> None:
    """Drop the record files of all but the newest few other fingerprints, and temporary files
    of ours left by a process that died; never a file this module did not write."""
    mine = []
    for p in folder.glob("validated-*.json"):
        try:
            if p != current and ours(p):
                mine.append((p.lstat().st_mtime, p))
        except OSError:
            continue
    for _, old in sorted(mine, reverse=True)[KEEP_FINGERPRINTS:]:
        old.unlink(missing_ok=True)
    now = time.time()
    for temp in folder.glob(f"{TEMP_PREFIX}*{TEMP_SUFFIX}"):
        try:
            if now - temp.lstat().st_mtime > STALE_TEMP_SECONDS and (temp.stat().st_size == 0 or ours(temp)):
                temp.unlink()
        except OSError:
            continue
