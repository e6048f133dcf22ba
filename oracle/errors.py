"""The error codes, and the exception types that carry them.

Every error carries a stable ``code`` that scripts and the case files compare
against, and a ``message`` written for a person that names what is wrong.
``RulesError`` is what the oracle raises for bad input; ``EngineError`` what an
adapter raises to refuse a request (``doublecheck.adapter`` hands it to adapter
authors); ``UsageError`` what the command line raises for a bad command line.
They live here, at the bottom, so that every layer can raise or catch them
without importing the layers above it.
"""

import reprlib

INVALID_FEN = "invalid-fen"
UNKNOWN_VARIANT = "unknown-variant"
ILLEGAL_MOVE = "illegal-move"
INVALID_MOVE_TEXT = "invalid-move-text"
INVALID_REQUEST = "invalid-request"
UNSUPPORTED = "unsupported"
INTERNAL_ERROR = "internal-error"       # a bug: the program failed where it should have answered
BUDGET_EXCEEDED = "budget-exceeded"     # the request ran past the engine's own time budget

# What the harness reports of an engine, and the command line of itself: not answers to a
# request, but codes all the same (reports, --json errors, the desk's API).
CRASH = "crash"                         # the engine process died
TIMEOUT = "timeout"                     # no answer within the request's time
PROTOCOL_ERROR = "protocol-error"       # an answer that breaks the protocol
UNUSABLE_ENGINE = "unusable-engine"     # an engine that cannot be used at all (its hello)
USAGE = "usage"                         # a command line argparse refuses
UNKNOWN_RULE = "unknown-rule"
UNKNOWN_MUTANT = "unknown-mutant"
UNKNOWN_OPTION = "unknown-option"       # a declared option name or value the table does not know
CASES_NOT_FOUND = "cases-not-found"     # the case tree is missing or holds nothing usable
INVALID_RECORD = "invalid-record"       # a generated record (cases/options/<variant>.json) that cannot be used
SCHEMA_UNUSABLE = "schema-unusable"     # a schema file is missing, unreadable or not a schema
FORBIDDEN = "forbidden"                 # the rules desk refuses a request from another origin
HARNESS_ERROR = "harness-error"         # the harness itself failed on a case (a bug of ours)
CANNOT_WRITE = "cannot-write"           # an output file the user named cannot be written
CANNOT_LISTEN = "cannot-listen"         # the rules desk cannot open its port
FILE_NOT_FOUND = "file-not-found"
UNREADABLE_FILE = "unreadable-file"     # an input file the user named cannot be read
INVALID_XFAIL = "invalid-xfail"         # an xfail file's line names no case id, or one twice
PGN_SYNTAX = "pgn-syntax"               # a game record that is not PGN
UNKNOWN_RESULT = "unknown-result"       # a PGN Result tag that is no result
CLUSTER_UNAVAILABLE = "cluster-unavailable"   # perft --scheduler: no Dask cluster to use
WORKERS_LOST = "workers-lost"           # perft --scheduler: the cluster lost its workers
# the rules desk's HTTP answers
NOT_FOUND = "not-found"
METHOD_NOT_ALLOWED = "method-not-allowed"
LENGTH_REQUIRED = "length-required"
TOO_LARGE = "too-large"
UNSUPPORTED_MEDIA_TYPE = "unsupported-media-type"
FILE_TOO_LARGE = "file-too-large"        # a file read by a command is over its size limit
BUSY = "busy"                            # the desk's queue is full: try again (HTTP 503)
REQUEST_TIMEOUT = "request-timeout"      # a desk request did not arrive in time (HTTP 408)
FIGURES_NOT_FOUND = "figures-not-found"   # the chess figure drawings are missing: a damaged install

# Command-line only (never in a protocol answer)
UNKNOWN_TOPIC = "unknown-topic"   # `doublecheck docs NAME`: no such page or schema

QUOTE_LIMIT = 200   # characters of an offending input a message shows


def clip(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text``, or its first ``limit`` characters followed by ``... (N characters)``."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def quote(value, limit: int = QUOTE_LIMIT) -> str:
    """``value`` as a message shows it: a string's repr, or the repr of its first
    ``limit`` characters followed by ``... (N characters)``, so that a huge input
    never makes a huge message.  Other values are shown by a shortened repr
    (a few items of a list, a few levels of nesting, the size of a huge number)."""
    if isinstance(value, str):
        if len(value) <= limit:
            return repr(value)
        return f"{value[:limit]!r}... ({len(value)} characters)"
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 3 * limit:
        return f"a whole number of about {int(value.bit_length() * 0.30103)} digits"
    return _SHORT.repr(value)


_SHORT = reprlib.Repr()
_SHORT.maxlevel = 3
_SHORT.maxstring = _SHORT.maxother = _SHORT.maxlong = QUOTE_LIMIT


class RulesError(Exception):
    """Bad input: an invalid FEN, an unknown variant, an illegal or unreadable move."""

    def __init__(self, code: str, message: str):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message

    def as_dict(self) -> dict:
        return {"code": self.code, "message": self.message}


class EngineError(Exception):
    """Raise from an adapter's ``handle`` to refuse a request with one of the codes above
    and a message for people (``doublecheck.adapter.ERROR_CODES``).

    Any exception with a string ``code`` attribute and a ``message`` is taken
    the same way; any other exception is reported as the adapter's internal error.
    """

    def __init__(self, code: str, message: str):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class UsageError(Exception):
    """A command line that cannot be run (printed like every other error, code ``usage``)."""

    code = USAGE

    def __init__(self, message: str, prog: str):
        super().__init__(message)
        self.message = f"{prog}: {message} (see '{prog} --help')"
