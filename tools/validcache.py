"""Remembering which data files have already passed validation, by content hash.

Validating a case file (its JSON Schema, then every request against the
oracle) costs far more than reading it, and the packaged files never change
between two commands.  So ``doublecheck.casefiles`` asks here first: a file
whose key is on record passed every per-file check before, with the same
bytes, the same path and the same checking code, and need not be checked
again.  Only files without a single problem are recorded; a file with
problems is checked (and its problems reported) every time.

- **The key** of a file is the SHA-256 of its path relative to the case tree
  and its bytes (the checks read the path: the variant directory and the
  topic must match the file's contents).
- **The fingerprint** of the checking code is the SHA-256 of the schemas, of
  ``casefiles.py`` and ``limits.py``, and of every source file of the oracle
  (FEN reading and move parsing decide whether a request is well formed).
  Keys are stored per fingerprint, so a change to any of them starts afresh.
- **Where**: ``$DOUBLECHECK_CACHE`` if set (``off`` turns the cache off),
  else ``$XDG_CACHE_HOME/doublecheck``, else ``~/.cache/doublecheck``.  A
  cache that cannot be read or written is ignored: it only saves time.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import tempfile
from functools import lru_cache
from pathlib import Path

KEEP_FINGERPRINTS = 4        # record files of older code versions kept besides the current one
MAX_KEYS = 20_000            # a record file never grows past this many keys
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
    return (sorted(schemas_dir.glob("*.json")) + [_TOOLS / "casefiles.py", _TOOLS / "limits.py"]
            + sorted(oracle.rglob("*.py")))


@lru_cache(maxsize=None)
def fingerprint(schemas_dir: Path) -> str:
    """A hash of everything the per-file checks depend on besides the file itself."""
    digest = hashlib.sha256()
    for path in _code_files(schemas_dir):
        digest.update(path.name.encode() + b"\0")
        try:
            digest.update(path.read_bytes())
        except OSError:
            digest.update(b"(unreadable)")
    return digest.hexdigest()[:24]


def file_key(relative: str, data: bytes) -> str:
    return hashlib.sha256(relative.encode("utf-8") + b"\0" + data).hexdigest()


class Record:
    """The keys of the files that passed with one fingerprint: ``known`` and ``add``, then ``save``."""

    def __init__(self, schemas_dir: Path, extra: str = ""):
        """``extra``: anything else the checks depend on (the installed variants)."""
        folder = cache_dir()
        code = hashlib.sha256((fingerprint(schemas_dir) + "\0" + extra).encode()).hexdigest()[:24]
        self.path = folder / f"validated-{code}.json" if folder else None
        self.keys = self._read()
        self.added = False

    def _read(self) -> set:
        if self.path is None:
            return set()
        try:
            keys = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return set()
        return set(k for k in keys if isinstance(k, str)) if isinstance(keys, list) else set()

    def known(self, key: str) -> bool:
        return key in self.keys

    def add(self, key: str) -> None:
        if key not in self.keys and len(self.keys) < MAX_KEYS:
            self.keys.add(key)
            self.added = True

    def save(self) -> None:
        """Write the record (atomically: another process may be reading it); errors are ignored."""
        if self.path is None or not self.added:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, temp = tempfile.mkstemp(dir=self.path.parent, prefix=".validated-", suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(sorted(self.keys), f)
            os.replace(temp, self.path)
            self.added = False
            _prune(self.path.parent, self.path)
        except OSError:
            pass


def _prune(folder: Path, current: Path) -> None:
    """Drop the record files of all but the newest few other fingerprints."""
    others = sorted((p for p in folder.glob("validated-*.json") if p != current),
                    key=lambda p: p.stat().st_mtime, reverse=True)
    for old in others[KEEP_FINGERPRINTS:]:
        old.unlink(missing_ok=True)
