"""The sizes of input the tools accept, and the JSON reader that holds to them.

docs/protocol.md ("Limits") lists every limit with its reason.  The oracle's
own limits (FEN, move text, moves per request, perft depth) live in
``doublecheck.oracle.request_limits``; the protocol line length is
``doublecheck.harness.protocol.MAX_LINE``.  Here:

- ``MAX_JSON_DEPTH``: arrays and objects nest at most this deep in a protocol
  line, a case file or a rule file (the deepest legitimate one nests 6).
  Python's JSON reader recurses once per level and fails somewhere near a
  thousand levels, so the depth is measured on the text before it is parsed.
- ``MAX_ID_LENGTH``, ``MAX_ID``: a request's ``id``, a string or an integer
  that fits in 64 bits (it is echoed in the answer).
- ``MAX_DATA_FILE_BYTES``: a case file or rule file (the largest is about 0.2 MiB).
- ``JOBS_PER_CORE``: ``--jobs`` is at most this many processes per CPU core.
- ``MAX_TIMEOUT``: the longest ``--timeout`` in seconds (0 means no limit).
- ``AUTO_JOBS_CAP``: ``--jobs auto`` (the default of run, perft and mutants) is
  the usable cores, at most this many: beyond it the processes' start-up and
  memory cost more than the cores give, and a shared machine keeps some room.
- ``MIN_TIMEOUT``: the shortest ``--timeout`` or ``--budget`` other than 0, in seconds:
  a shorter limit is no use to anyone (starting a request takes longer) and only tests
  the timers.
"""

from __future__ import annotations

import json
import os
import re
from itertools import accumulate

MAX_JSON_DEPTH = 64
MAX_ID_LENGTH = 100
MAX_ID = 2 ** 63 - 1
MAX_DATA_FILE_BYTES = 16 * 1024 * 1024
JOBS_PER_CORE = 4
MAX_TIMEOUT = 24 * 60 * 60.0
AUTO_JOBS_CAP = 8
JOBS_AUTO = 0          # what the --jobs option gives for "auto"; the command decides how many
MIN_TIMEOUT = 0.001


class TooDeep(ValueError):
    """JSON text whose arrays and objects nest deeper than the limit."""


# A string, or an unterminated one running to the end of the text: once a string has no
# closing quote, no later quote can start one that has (each later quote is escaped in it),
# so taking the rest of the text at once keeps the scan linear. Requiring the closing quote
# made it quadratic: every escaped quote started a fresh scan to the end.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?', re.DOTALL)
_NOT_BRACKET = re.compile(r'[^\[\]{}]+')
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def json_depth(text: str) -> int:
    """How deep the arrays and objects of JSON text nest (0 for a bare value),
    counted on the text, without parsing it.  Brackets inside strings do not
    count; for text that is not JSON the number is only an estimate (and the
    parser refuses such text anyway)."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0)


def loads(text: str, limit: int = MAX_JSON_DEPTH, **kwargs):
    """``json.loads``, refusing with ``TooDeep`` (a ValueError) text that nests
    deeper than ``limit``, before parsing it."""
    if text.count("[") + text.count("{") > limit:   # else it cannot nest deeper: skip the count
        depth = json_depth(text)
        if depth > limit:
            raise TooDeep(f"arrays and objects nest {depth} levels deep; "
                          f"at most {limit} are allowed")
    return json.loads(text, **kwargs)


def cpu_cores() -> int:
    """The CPU cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def max_jobs() -> int:
    return JOBS_PER_CORE * cpu_cores()


def auto_jobs(work: int | None = None, per_job: int = 1) -> int:
    """The processes ``--jobs auto`` uses: the usable cores up to AUTO_JOBS_CAP, and no
    more than one per ``per_job`` units of ``work`` (a small job stays in one process)."""
    jobs = min(cpu_cores(), AUTO_JOBS_CAP)
    if work is not None:
        jobs = min(jobs, max(1, work // max(1, per_job)))
    return max(1, jobs)
