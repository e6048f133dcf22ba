"""Implementations the harness can check.

An engine answers protocol-style requests (see ``oracle.api.handle``). Every
answer is a dict: ``{"ok": True, **result}`` on success, or
``{"ok": False, "error": {"code": ..., "message": ...}}`` when the engine
rejects the request. Engines never raise for a bad request; an unexpected
failure inside an engine becomes the code ``internal-error``.
"""

from typing import Protocol

from oracle import api
from oracle.errors import RulesError


class Engine(Protocol):
    name: str

    def hello(self) -> dict:
        """Name, variants and operations the engine claims to support."""

    def request(self, req: dict) -> dict:
        """Answer one request: {"ok": True, ...} or {"ok": False, "error": {...}}."""

    def close(self) -> None:
        """Release whatever the engine holds (a process, a file)."""


def error(code: str, message: str) -> dict:
    return {"ok": False, "error": {"code": code, "message": message}}


class OracleEngine:
    """The built-in reference implementation, called in-process."""

    name = "oracle"

    def hello(self) -> dict:
        return api.hello()

    def request(self, req: dict) -> dict:
        try:
            return {"ok": True, **api.handle(req)}
        except RulesError as e:
            return error(e.code, e.message)
        except Exception as e:  # a bug in the oracle must not stop the run
            return error("internal-error", f"{type(e).__name__}: {e}")

    def close(self) -> None:
        pass
