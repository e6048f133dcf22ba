"""Implementations the harness can check, behind one small interface.

The harness talks to every implementation through an ``Engine``:

- ``hello()`` returns the claims: ``name``, ``variants``, ``ops`` (and
  ``protocol`` for a subprocess, ``options`` when the engine declares the
  conventions it plays with: harness.declared); raises ``HelloError`` when
  the engine cannot be used at all;
- ``request(req, timeout=None)`` answers one request: ``{"ok": True, **result}``
  or ``{"ok": False, "error": {"code": ..., "message": ...}}``; raises
  ``EngineFailure`` when there is no usable answer (crash, timeout, garbage).
  ``timeout`` is this request's limit in seconds (None: the engine's own);
- ``close()`` releases what the engine holds.

The classes: ``OracleEngine`` (the built-in reference, in-process),
``AdapterEngine`` (a Python class of the engine author's, in-process),
``SubprocessEngine`` (a program speaking the JSON-lines protocol) and
``uci.UciEngine`` (a UCI chess engine). Every one keeps to the request's time
limit: the processes through ``process.LineProcess``, the in-process ones
through ``deadline.time_limit``. ``ENGINE_KINDS`` at the end is the one table
of what the command line can name and how each kind is made.

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
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Protocol

from doublecheck.harness.deadline import TimeLimitExceeded, time_limit
from doublecheck.harness.process import split_command
from doublecheck.harness.protocol import (BUDGET_EXCEEDED, OPS, Client, EngineFailure, HelloError,
                                          claim_problems, clip)
from doublecheck.oracle import api
from doublecheck.oracle.errors import INTERNAL_ERROR, PROTOCOL_ERROR, TIMEOUT, EngineError

__all__ = ["Engine", "EngineError", "EngineFailure", "HelloError", "OracleAdapter",
           "OracleEngine", "AdapterEngine", "SubprocessEngine", "error", "load_adapter",
           "EngineSpec", "EngineKind", "ENGINE_KINDS", "engine_spec", "split_command"]


class Engine(Protocol):
    name: str

    def hello(self) -> dict:
        """Name, variants and operations the engine claims to support."""

    def request(self, req: dict, timeout: float | None = None) -> dict:
        """Answer one request: {"ok": True, ...} or {"ok": False, "error": {...}}.

        ``timeout``: this request's limit in seconds; None: the engine's own limit (which
        may be None, no limit); 0: no limit. Past it, EngineFailure("timeout", ...)."""

    def close(self) -> None:
        """Release whatever the engine holds (a process, a file)."""


def error(code: str, message: str) -> dict:
    return {"ok": False, "error": {"code": code, "message": message}}


def cached_counter(rules):
    """The perft counter the oracle answers with: the plain walk's counts, through a table."""
    from doublecheck.perft.cache import Counter, Table
    return Counter(rules, Table())


class OracleAdapter:
    """The oracle as an adapter: the reference for ``--adapter`` and ``doublecheck serve``.

    ``options`` ({NAME: VALUE}, checked against doublecheck.oracle.options): the oracle
    plays each variant under the rule options it takes, and its hello declares them all
    (``serve --option``, docs/options.md)."""

    def __init__(self, options: dict | None = None):
        self.options = dict(options or {})

    def hello(self) -> dict:
        claims = api.hello()
        if self.options:
            claims["options"] = dict(self.options)
        return claims

    def handle(self, request: dict) -> dict:
        # perft counts through a fresh transposition table per request (docs/perft.md)
        return api.handle(request, rules=self.rules(request), counter=cached_counter)

    def rules(self, request: dict):
        """The rules object under the options (None: the request's variant as it is)."""
        if not self.options or not isinstance(request, dict):
            return None
        from doublecheck.oracle import variants
        variant = request.get("variant", "chess")
        if not isinstance(variant, str):
            return None   # api.handle refuses it with its own words
        return variants.get(variant, self.options)   # the options it does not take change nothing


def check_claims(claims, who: str) -> dict:
    """The hello answer, checked for what the harness needs from it."""
    if not isinstance(claims, dict):
        raise HelloError(f"{who}: hello() must return a dict, not {type(claims).__name__}")
    problems = claim_problems(claims)
    if problems:
        raise HelloError(f"{who}: the hello answer is too large: " + "; ".join(problems))
    if not isinstance(claims.get("name"), str) or not claims.get("name"):
        problems.append("'name' must be a non-empty string")
    for key in ("variants", "ops"):
        value = claims.get(key)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            problems.append(f"'{key}' must be a list of strings")
    options = claims.get("options", {})
    if not isinstance(options, dict) or not all(isinstance(v, str) for v in options.values()):
        problems.append("'options' must be an object of option names and values, all strings "
                        "(doublecheck docs options)")
    unknown = [op for op in claims.get("ops") or [] if op not in OPS]
    if isinstance(claims.get("ops"), list) and unknown:
        problems.append(f"unknown ops {unknown} (known: {', '.join(OPS)})")
    if problems:
        raise HelloError(f"{who}: the hello answer is not usable: " + "; ".join(problems))
    return claims


def over_budget(message: str) -> EngineFailure:
    """An engine's ``budget-exceeded`` answer: it stopped the request at its own time limit,
    which the harness reports like its own timeout."""
    return EngineFailure(TIMEOUT, f"the engine stopped the request at its own time limit "
                                    f"({BUDGET_EXCEEDED}: {clip(message, 200)})")


class AdapterEngine:
    """An in-process Python adapter (see the module docstring)."""

    def __init__(self, adapter, label: str | None = None, timeout: float | None = None):
        """``timeout``: seconds allowed for each request unless ``request`` says otherwise
        (None or 0: no limit); the request is stopped inside ``handle`` (deadline.time_limit)."""
        self.adapter = adapter
        self.label = label or type(adapter).__name__
        self.name = self.label
        self.timeout = timeout or None

    def hello(self) -> dict:
        try:
            claims = self.adapter.hello()
        except Exception as e:
            raise HelloError(f"{self.label}: hello() raised {type(e).__name__}: {e}") from None
        claims = check_claims(claims, self.label)
        self.name = claims["name"]
        return claims

    def request(self, req: dict, timeout: float | None = None) -> dict:
        limit = self.timeout if timeout is None else timeout
        try:
            with time_limit(limit):
                result = self.adapter.handle(dict(req))
        except TimeLimitExceeded as e:
            raise EngineFailure(TIMEOUT, f"no answer within {e.seconds:g} s; "
                                           "the request was stopped") from None
        except Exception as e:
            code = getattr(e, "code", None)
            if code == BUDGET_EXCEEDED:
                raise over_budget(str(getattr(e, "message", e))) from None
            if isinstance(code, str) and code:
                return error(code, str(getattr(e, "message", e)))
            where = traceback.extract_tb(e.__traceback__)[-1]
            return error(INTERNAL_ERROR, f"{type(e).__name__}: {e} "
                                           f"({Path(where.filename).name}:{where.lineno})")
        if not isinstance(result, dict):
            raise EngineFailure(PROTOCOL_ERROR, f"handle() returned {type(result).__name__}, "
                                                  "not a dict of result fields")
        return {"ok": True, **result}

    def close(self) -> None:
        close = getattr(self.adapter, "close", None)
        if callable(close):
            close()


class OracleEngine(AdapterEngine):
    """The built-in reference implementation, called in-process (under ``options``, if any)."""

    def __init__(self, timeout: float | None = None, options: dict | None = None):
        super().__init__(OracleAdapter(options), "oracle", timeout)
        self.name = "oracle"

    def hello(self) -> dict:
        claims = super().hello()
        self.name = "oracle"
        return claims


class SubprocessEngine:
    """A program speaking the JSON-lines protocol: one long-lived process, restarted after it breaks."""

    def __init__(self, command: str | list[str], timeout: float | None = 10.0, max_line=None,
                 env: dict | None = None):
        argv = split_command(command)
        self.command = " ".join(shlex.quote(a) for a in argv)
        kwargs = {"max_line": max_line} if max_line else {}
        self.client = Client(argv, timeout=timeout, env=env, **kwargs)
        self.name = argv[0]
        self.fixed_name = None   # reported instead of the hello's name (see _served)
        self.last_id = None   # the protocol id of the last request answered

    def hello(self) -> dict:
        claims = check_claims(dict(self.client.hello()), self.command)
        claims.pop("id", None)
        claims.pop("ok", None)
        self.name = self.fixed_name or claims["name"]
        return claims

    def request(self, req: dict, timeout: float | None = None) -> dict:
        previous, self.last_id = self.last_id, None
        try:
            answer = self.client.call(req, timeout)
        except EngineFailure as e:  # stray output after our last answer: that answer is in doubt
            e.doubts_previous = previous is not None and getattr(e, "doubts", None) == previous
            raise
        self.last_id = self.client.last_id
        answer.pop("id", None)
        if answer["ok"] is False and isinstance(answer.get("error"), dict) \
                and answer["error"].get("code") == BUDGET_EXCEEDED:
            raise over_budget(str(answer["error"].get("message")))
        return answer

    @property
    def restarts(self) -> int:
        return max(self.client.starts - 1, 0)

    def stdout_noise(self) -> tuple[int, str | None]:
        """(lines on stdout that were no answer and were skipped, the first of them)."""
        return self.client.noise, self.client.noise_first

    def close(self) -> None:
        self.client.close()

    def trailing_output(self) -> bytes:
        """Close the engine; the output it wrote that answered nothing (an extra line)."""
        self.client.close()
        return self.client.process.trailing


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


# --- the kinds of engine ----------------------------------------------------

@dataclass(frozen=True)
class EngineKind:
    """One kind of implementation: how the command line names it and how it is made.

    ``make(spec)`` makes one engine (in this process for the oracle and adapters);
    ``make_process(spec)`` makes one that runs as its own process, for ``--jobs``.
    """

    name: str
    syntax: str                       # how the command line names it
    describe: Callable[[str | None], str]
    make: Callable[["EngineSpec"], Engine]
    make_process: Callable[["EngineSpec"], Engine]
    prefix: str | None = None         # an --engine value starting with this names this kind


def _adapter(spec: "EngineSpec") -> AdapterEngine:
    cls = load_adapter(spec.target)
    try:
        return AdapterEngine(cls(), spec.target, spec.timeout)
    except Exception as e:
        raise HelloError(f"cannot create the adapter {spec.target}: {type(e).__name__}: {e}") from None


def _served(*options: str, name: str | None = None, plays_options: bool = False):
    """An in-process kind as a process: ``doublecheck serve`` (it imports an adapter from the
    current directory, as --adapter does here). The harness's own per-request limit applies,
    so the server's budget is switched off.  ``name``: the name the in-process engine
    reports under, so a report does not depend on --jobs.  ``plays_options``: the served
    engine plays under the run's --option values (the oracle does; an adapter plays its own)."""
    def make(spec: "EngineSpec") -> SubprocessEngine:
        argv = [sys.executable, "-m", "doublecheck", "serve", "--budget", "0"]
        argv += [o.format(target=spec.target) for o in options]
        if plays_options:
            argv += [f"--option={k}={v}" for k, v in sorted(spec.options.items())]
        engine = SubprocessEngine(argv, spec.timeout, spec.max_line)
        engine.fixed_name = name
        return engine
    return make


def _served_adapter(spec: "EngineSpec") -> SubprocessEngine:
    """An adapter in a ``doublecheck serve`` process of its own (--jobs): the module and the
    class are looked up here first, so that a misspelt name or a module that cannot be
    imported says why (as with --jobs 1), not that a server process exited at hello."""
    found = load_adapter(spec.target)
    if not callable(found):
        raise HelloError(f"--adapter {spec.target} names a {type(found).__name__}, not a class")
    return _serve_adapter(spec)


_serve_adapter = _served("--adapter", "{target}")


def _command(spec: "EngineSpec") -> SubprocessEngine:
    return SubprocessEngine(spec.target, spec.timeout, spec.max_line)


def _uci(spec: "EngineSpec"):
    from doublecheck.harness.uci import UciEngine
    return UciEngine(spec.target, spec.timeout)


# The one table of engine kinds. An --engine value is the first kind whose prefix it
# starts with, else a command; --adapter names an adapter; neither, the oracle.
ENGINE_KINDS = {kind.name: kind for kind in [
    EngineKind("uci", "--engine uci:PATH", lambda t: f"UCI engine {t!r}", _uci, _uci, prefix="uci:"),
    EngineKind("command", '--engine "CMD ARGS"', lambda t: f"engine command {t!r}",
               _command, _command),
    EngineKind("adapter", "--adapter MODULE:CLASS", lambda t: f"adapter {t}",
               _adapter, _served_adapter),
    EngineKind("oracle", "neither --engine nor --adapter", lambda t: "the built-in oracle",
               lambda spec: OracleEngine(spec.timeout, spec.options),
               _served(name="oracle", plays_options=True)),
]}


class EngineSpec:
    """How to make an engine: what ``--engine``/``--adapter`` said, so each job can make its own."""

    def __init__(self, command: str | None = None, adapter: str | None = None,
                 timeout: float | None = 10.0, max_line=None, options: dict | None = None):
        """``command``: an --engine value (any kind ENGINE_KINDS names by prefix, else a
        program's command line); ``adapter``: MODULE:CLASS; neither: the oracle.
        ``timeout``: seconds per request (None or 0: no limit). A command that cannot be
        run is reported (HelloError) when the engine is made.  ``options``: the --option
        values, which the oracle plays under (every other kind is only judged under them)."""
        if adapter is not None:
            self.kind, self.target = ENGINE_KINDS["adapter"], adapter
        elif command is None:
            self.kind, self.target = ENGINE_KINDS["oracle"], None
        else:
            self.kind = next((k for k in ENGINE_KINDS.values()
                              if k.prefix and command.startswith(k.prefix)), ENGINE_KINDS["command"])
            self.target = command[len(self.kind.prefix or ""):]
        self.timeout = timeout or None
        self.max_line = max_line
        self.options = dict(options or {})

    def describe(self) -> str:
        return self.kind.describe(self.target)

    def arguments(self) -> str:
        """The ``doublecheck run`` arguments that choose this engine again (with its
        --option values), quoted for a shell: what a report's commands repeat."""
        words = {"oracle": [], "adapter": ["--adapter", self.target]}.get(
            self.kind.name, ["--engine", (self.kind.prefix or "") + str(self.target)])
        words += [f"--option={k}={v}" for k, v in sorted(self.options.items())]
        return shlex.join(words)

    def make(self) -> Engine:
        """The engine itself (in-process for the oracle and adapters)."""
        return self.kind.make(self)

    def make_process(self) -> Engine:
        """The engine as a process of its own (the oracle and adapters: ``doublecheck serve``)."""
        return self.kind.make_process(self)


def engine_spec(engine: str | None = None, adapter: str | None = None, timeout=10.0,
                options: dict | None = None) -> EngineSpec:
    """What ``--engine`` / ``--adapter`` ask for (neither: the built-in oracle)."""
    return EngineSpec(engine, adapter, timeout, options=options)
