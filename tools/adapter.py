"""What an adapter author imports: the public interface for checking a Python implementation.

An *adapter* is a class the harness creates with no arguments and asks
questions in-process (``doublecheck run --adapter my_module:MyAdapter``)::

    from doublecheck.adapter import EngineError, ILLEGAL_MOVE

    class MyAdapter:
        def hello(self) -> dict:
            return {"name": "my-engine", "variants": ["chess"], "ops": ["moves", "perft"]}

        def handle(self, request: dict) -> dict:
            ...                      # {"moves": [...]}, {"nodes": 8902}, ...
            raise EngineError(ILLEGAL_MOVE, "e2e5: a pawn does not move like that")

        def close(self) -> None:     # optional
            ...

The same class becomes a JSON-lines engine with ``serve(MyAdapter())`` (or
``doublecheck serve --adapter my_module:MyAdapter``).  docs/adapter-guide.md
walks through a complete adapter; docs/protocol.md defines every request and
answer.  Everything listed in ``__all__`` is the supported interface; the
rest of the package may change between versions.
"""

from __future__ import annotations

from typing import Protocol

from doublecheck.oracle.api import OPS, PROTOCOL_VERSION, VARIANTS, perft_request
from doublecheck.oracle.errors import (ILLEGAL_MOVE, INVALID_FEN, INVALID_MOVE_TEXT, INVALID_REQUEST,
                                       UNKNOWN_VARIANT, UNSUPPORTED, EngineError)

__all__ = ["Adapter", "EngineError", "serve", "OPS", "VARIANTS", "PROTOCOL_VERSION", "ERROR_CODES",
           "INVALID_FEN", "ILLEGAL_MOVE", "INVALID_MOVE_TEXT", "INVALID_REQUEST", "UNKNOWN_VARIANT",
           "UNSUPPORTED", "perft_request"]

# The codes an adapter refuses a request with; the cases compare them exactly.
ERROR_CODES = (INVALID_FEN, ILLEGAL_MOVE, INVALID_MOVE_TEXT, INVALID_REQUEST, UNKNOWN_VARIANT,
               UNSUPPORTED)


class Adapter(Protocol):
    """The shape of an adapter class (for type checkers; nothing needs to inherit it)."""

    def hello(self) -> dict:
        """``{"name": str, "variants": [variant ids], "ops": [operations]}``: only what you implement."""

    def handle(self, request: dict) -> dict:
        """The answer's fields for one request (``{"moves": [...]}``), or raise EngineError."""


def serve(adapter, stdin=None, stdout=None) -> int:
    """Speak the JSON-lines protocol for ``adapter`` on stdin/stdout until end of input."""
    from doublecheck.harness.serve import serve as serve_lines
    return serve_lines(adapter, stdin, stdout)
