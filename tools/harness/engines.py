"""Implementations the harness can check, behind one small interface.

The harness talks to every implementation through an ``Engine``:

- ``hello()`` returns the claims: ``name``, ``variants``, ``ops`` (and
  ``protocol`` for a subprocess); raises ``HelloError`` when the engine cannot
  be used at all;
- ``request(req)`` answers one request: ``{"ok": True, **result}`` or
  ``{"ok": False, "error": {"code": ..., "message": ...}}``; raises
  ``EngineFailure`` when there is no usable answer (crash, timeout, garbage);
- ``close()`` releases what the engine holds.

Three kinds exist: ``OracleEngine`` (the built-in reference, in-process),
``AdapterEngine`` (a Python class of the engine author's, in-process) and
``SubprocessEngine`` (a program speaking the JSON-lines protocol).

An adapter class is the small interface documented in docs/protocol.md::

    class MyAdapter:
        def hello(self) -> dict:            # {"name": ..., "variants": [...], "ops": [...]}
        def handle(self, request) -> dict:  # the result, e.g. {"moves": [...]}
        def close(self): ...                # optional

``handle`` rejects a request by raising an exception with a string ``code``
attribute and a ``message`` (``EngineError`` below, or ``doublecheck.oracle.errors.RulesError``).
Any other exception is reported as the engine's ``internal-error``.
"""

from __future__ import annotations

import importlib
import os
import shlex
import sys
import traceback
from pathlib import Path
from typing import Protocol

from doublecheck.adapter import EngineError
from doublecheck.oracle import api
from doublecheck.harness.protocol import OPS, Client, EngineFailure, HelloError

__all__ = ["Engine", "EngineError", "EngineFailure", "HelloError", "OracleAdapter",
           "OracleEngine", "AdapterEngine", "SubprocessEngine", "error", "load_adapter",
           "EngineSpec"]


class Engine(Protocol):
    name: str

    def hello(self) -> dict:
        """Name, variants and operations the engine claims to support."""

    def request(self, req: dict, timeout: float | None = None) -> dict:
        """Answer one request: {"ok": True, ...} or {"ok": False, "error": {...}}.
        ``timeout``: this request's limit in seconds (None: the engine's own)."""

    def close(self) -> None:
        """Release whatever the engine holds (a process, a file)."""


def error(code: str, message: str) -> dict:
    return {"ok": False, "error": {"code": code, "message": message}}


class OracleAdapter:
    """The oracle as an adapter: the reference for ``--adapter`` and ``doublecheck serve``."""

    def hello(self) -> dict:
        return api.hello()

    def handle(self, request: dict) -> dict:
        return api.handle(request)


def check_claims(claims, who: str) -> dict:
    """The hello answer, checked for what the harness needs from it."""
    if not isinstance(claims, dict):
        raise HelloError(f"{who}: hello() must return a dict, not {type(claims).__name__}")
    problems = []
    if not isinstance(claims.get("name"), str) or not claims.get("name"):
        problems.append("'name' must be a non-empty string")
    for key in ("variants", "ops"):
        value = claims.get(key)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            problems.append(f"'{key}' must be a list of strings")
    unknown = [op for op in claims.get("ops") or [] if op not in OPS]
    if isinstance(claims.get("ops"), list) and unknown:
        problems.append(f"unknown ops {unknown} (known: {', '.join(OPS)})")
    if problems:
        raise HelloError(f"{who}: the hello answer is not usable: " + "; ".join(problems))
    return claims


class AdapterEngine:
    """An in-process Python adapter (see the module docstring)."""

    def __init__(self, adapter, label: str | None = None):
        self.adapter = adapter
        self.label = label or type(adapter).__name__
        self.name = self.label

    def hello(self) -> dict:
        try:
            claims = self.adapter.hello()
        except Exception as e:
            raise HelloError(f"{self.label}: hello() raised {type(e).__name__}: {e}") from None
        claims = check_claims(claims, self.label)
        self.name = claims["name"]
        return claims

    def request(self, req: dict, timeout: float | None = None) -> dict:
        try:
            result = self.adapter.handle(dict(req))
        except Exception as e:
            code = getattr(e, "code", None)
            if isinstance(code, str) and code:
                return error(code, str(getattr(e, "message", e)))
            where = traceback.extract_tb(e.__traceback__)[-1]
            return error("internal-error", f"{type(e).__name__}: {e} "
                                           f"({Path(where.filename).name}:{where.lineno})")
        if not isinstance(result, dict):
            raise EngineFailure("protocol-error", f"handle() returned {type(result).__name__}, "
                                                  "not a dict of result fields")
        return {"ok": True, **result}

    def close(self) -> None:
        close = getattr(self.adapter, "close", None)
        if callable(close):
            close()


class OracleEngine(AdapterEngine):
    """The built-in reference implementation, called in-process."""

    def __init__(self):
        super().__init__(OracleAdapter(), "oracle")
        self.name = "oracle"

    def hello(self) -> dict:
        claims = super().hello()
        self.name = "oracle"
        return claims


class SubprocessEngine:
    """A program speaking the JSON-lines protocol: one long-lived process, restarted after it breaks."""

    def __init__(self, command: str | list[str], timeout: float | None = 10.0, max_line=None,
                 env: dict | None = None):
        argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not argv:
            raise HelloError("the engine command is empty")
        self.command = " ".join(shlex.quote(a) for a in argv)
        kwargs = {"max_line": max_line} if max_line else {}
        self.client = Client(argv, timeout=timeout, env=env, **kwargs)
        self.name = argv[0]

    def hello(self) -> dict:
        claims = check_claims(dict(self.client.hello()), self.command)
        claims.pop("id", None)
        claims.pop("ok", None)
        self.name = claims["name"]
        return claims

    def request(self, req: dict, timeout: float | None = None) -> dict:
        answer = self.client.call(req, timeout)
        answer.pop("id", None)
        return answer

    @property
    def restarts(self) -> int:
        return max(self.client.starts - 1, 0)

    def close(self) -> None:
        self.client.close()


def load_adapter(spec: str):
    """The class named by ``module:Class`` (the current directory is importable); HelloError if not."""
    module_name, colon, attr = spec.partition(":")
    if not colon or not module_name or not attr:
        raise HelloError(f"--adapter wants module:Class, not {spec!r}")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except Exception as e:
        raise HelloError(f"cannot import {module_name!r} for --adapter: {type(e).__name__}: {e}") from None
    obj = module
    for part in attr.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            raise HelloError(f"module {module_name!r} has no {attr!r} (from --adapter {spec})")
    return obj


class EngineSpec:
    """How to make an engine: what ``--engine``/``--adapter`` said, so each job can make its own."""

    def __init__(self, command: str | None = None, adapter: str | None = None,
                 timeout: float | None = 10.0, max_line=None, factory=None, label: str = ""):
        """``factory``, if given, is a callable making one engine (used for every job), and
        ``label`` says what it is in the reports; it lets other engine kinds plug in."""
        if command is not None and not shlex.split(command):
            raise HelloError("--engine was given an empty command")
        self.command = command
        self.adapter = adapter
        self.timeout = timeout
        self.max_line = max_line
        self.factory = factory
        self.label = label

    def describe(self) -> str:
        if self.factory is not None:
            return self.label or "a custom engine"
        if self.command is not None:
            return f"engine command {self.command!r}"
        if self.adapter is not None:
            return f"adapter {self.adapter}"
        return "the built-in oracle"

    def make(self) -> Engine:
        """The engine itself (in-process for the oracle and adapters)."""
        if self.factory is not None:
            return self.factory()
        if self.command is not None:
            return SubprocessEngine(self.command, self.timeout, self.max_line)
        if self.adapter is not None:
            cls = load_adapter(self.adapter)
            try:
                return AdapterEngine(cls(), self.adapter)
            except Exception as e:
                raise HelloError(f"cannot create the adapter {self.adapter}: "
                                 f"{type(e).__name__}: {e}") from None
        return OracleEngine()

    def make_process(self) -> SubprocessEngine:
        """The engine as a subprocess: an in-process engine is run by ``doublecheck serve``."""
        if self.factory is not None:
            return self.factory()
        if self.command is not None:
            return SubprocessEngine(self.command, self.timeout, self.max_line)
        # The server imports the adapter from the current directory, as --adapter does here.
        argv = [sys.executable, "-m", "doublecheck", "serve"]
        if self.adapter is not None:
            argv += ["--adapter", self.adapter]
        return SubprocessEngine(argv, self.timeout, self.max_line)


# The kinds of engine ``--engine`` names, by prefix: each maps the text after
# the prefix (and the timeout) to an EngineSpec.  A command without a known
# prefix is a program speaking the JSON-lines protocol.
def _uci_spec(path: str, timeout):
    from doublecheck.harness.uci import UciEngine
    return EngineSpec(factory=lambda: UciEngine(path, timeout), label=f"UCI engine {path!r}")


ENGINE_KINDS = {"uci:": _uci_spec}


def engine_spec(engine: str | None = None, adapter: str | None = None, timeout=10.0) -> EngineSpec:
    """What ``--engine`` / ``--adapter`` ask for (neither: the built-in oracle)."""
    for prefix, make in ENGINE_KINDS.items():
        if engine is not None and engine.startswith(prefix):
            return make(engine[len(prefix):], timeout)
    return EngineSpec(command=engine, adapter=adapter, timeout=timeout)
