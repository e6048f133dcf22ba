"""``doublecheck serve``: the oracle (or any adapter) speaking the JSON-lines protocol.

Reads one request per line from stdin and writes one response per line to
stdout, flushing after each, until end of input. Nothing a client sends can
stop it: every line gets exactly one answer. A line that is empty, not a JSON
object, over a size limit (docs/protocol.md, "Limits": line length, nesting
depth, id length, perft depth), lacks an id or an op, or has a field of the
wrong type gets ``{"ok": false, "error": {"code": "invalid-request", ...}}``;
an operation the engine does not offer gets ``unsupported``; a failure inside
the engine gets ``internal-error``; a request that runs longer than the
server's budget (``--budget``) is stopped and gets ``budget-exceeded``, and the
next request is answered as usual. Messages quote at most a short prefix of
what the client sent.

With ``--option NAME=VALUE`` the oracle plays under those rule options and
its hello declares them (docs/options.md); an adapter's hello declares them.

First-use set-up (the variant plugins, each variant's rules object and move
tables, the modules an operation imports on demand) is done once by
``warm_up`` before the first line is read, outside any request's budget: a
budget too short for the set-up would otherwise stop it on every request, and
a stop inside an import would be postponed there anyway (``deadline``).
"""

from __future__ import annotations

import json
import sys

from doublecheck.harness.deadline import TimeLimitExceeded, time_limit
from doublecheck.harness.protocol import BUDGET_EXCEEDED, MAX_LINE, OPS, VERSIONS, request_problems, size
from doublecheck.resource_limits import MAX_ID, MAX_ID_LENGTH, TooDeep, loads
from doublecheck.oracle import variants
from doublecheck.oracle.errors import (INTERNAL_ERROR, INVALID_REQUEST, UNKNOWN_VARIANT, UNSUPPORTED,
                                       RulesError, quote)
from doublecheck.oracle.request_limits import check_perft_depth

# Seconds one request may run (docs/protocol.md, "Time budget per request"): two hours, room
# for a perft request of 300 million nodes at 50,000 nodes per second.
from doublecheck.defaults import SERVE_BUDGET as DEFAULT_BUDGET  # noqa: E402


def respond(line: bytes, adapter, claims: dict, budget: float | None = DEFAULT_BUDGET) -> dict:
    """The response to one request line."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as e:
        return _error(None, INVALID_REQUEST, f"the line is not UTF-8 text "
                                               f"(byte {e.start + 1} is {line[e.start]:#04x})")
    if not text.strip():
        return _error(None, INVALID_REQUEST, "the line is empty; each line holds one request, "
                                               "a JSON object")
    try:
        request = loads(text)
    except TooDeep as e:
        return _error(None, INVALID_REQUEST, f"the line nests too deep: {e}")
    except ValueError as e:
        return _error(None, INVALID_REQUEST, f"the line is not JSON ({e}): {quote(text.strip())}")
    if not isinstance(request, dict):
        return _error(None, INVALID_REQUEST, "a request must be a JSON object")
    rid = request.get("id")
    if not isinstance(rid, (str, int)) or isinstance(rid, bool):
        return _error(None, INVALID_REQUEST, "a request needs an 'id' (a string or an integer)")
    if isinstance(rid, str) and len(rid) > MAX_ID_LENGTH:
        return _error(None, INVALID_REQUEST, f"an 'id' string has at most {MAX_ID_LENGTH} "
                                               f"characters, not {quote(rid, 40)}")
    if isinstance(rid, int) and not -MAX_ID - 1 <= rid <= MAX_ID:
        return _error(None, INVALID_REQUEST, f"an 'id' integer fits in 64 bits, not {quote(rid, 40)}")
    op = request.get("op")
    if not isinstance(op, str):
        return _error(rid, INVALID_REQUEST, "a request needs an 'op' (a string)")
    if op == "hello":
        return hello(request, claims)
    if op not in OPS or op not in claims["ops"]:
        offered = ", ".join(["hello"] + list(claims["ops"]))
        return _error(rid, UNSUPPORTED, f"unknown operation {quote(op)}; this engine offers {offered}")
    wrong = request_problems(request)
    if wrong:
        return _error(rid, INVALID_REQUEST, "; ".join(wrong))
    if request["variant"] not in claims["variants"]:
        return _error(rid, UNKNOWN_VARIANT, f"unknown variant {quote(request['variant'])}; "
                                              f"this engine knows {', '.join(claims['variants'])}")
    if op == "perft" and request["variant"] in variants.VARIANT_NAMES:
        try:  # the documented depth limit holds whatever engine is served
            check_perft_depth(variants.get(request["variant"]), request["depth"],
                              bool(request.get("turns")))
        except RulesError as e:
            return _error(rid, e.code, e.message)
    body = {k: v for k, v in request.items() if k != "id"}
    try:
        with time_limit(budget):
            result = adapter.handle(body)
    except TimeLimitExceeded as e:
        return _error(rid, BUDGET_EXCEEDED, f"the request ran for the server's whole budget of "
                      f"{e.seconds:g} s and was stopped; start the server with a larger "
                      f"'doublecheck serve --budget SECONDS' (0: no limit)")
    except Exception as e:
        code = getattr(e, "code", None)
        if isinstance(code, str) and code:
            return _error(rid, code, str(getattr(e, "message", e)))
        print(f"internal error on request {quote(rid)}: {type(e).__name__}: {quote(str(e))}",
              file=sys.stderr)
        return _error(rid, INTERNAL_ERROR, f"{type(e).__name__}: {quote(str(e))}")
    return {"id": rid, "ok": True, **result}


def hello(request: dict, claims: dict) -> dict:
    """Version negotiation: pick the newest version both sides speak."""
    rid = request["id"]
    offered = request.get("protocol", list(VERSIONS))
    if not isinstance(offered, list) or not all(isinstance(v, str) for v in offered):
        return _error(rid, INVALID_REQUEST, "'protocol' must be a list of version strings")
    common = [v for v in VERSIONS if v in offered]
    if not common:
        return _error(rid, "unsupported-protocol",
                      f"this engine speaks protocol version {', '.join(VERSIONS)}; "
                      f"the request offered {quote(', '.join(offered)) if offered else 'none'}")
    answer = {"id": rid, "ok": True, "protocol": common[0], "name": claims["name"],
              "variants": list(claims["variants"]), "ops": list(claims["ops"])}
    if claims.get("options"):   # the options it plays with (docs/options.md)
        answer["options"] = dict(claims["options"])
    return answer


def _error(rid, code: str, message: str) -> dict:
    return {"id": rid, "ok": False, "error": {"code": code, "message": message}}


def serve(adapter=None, stdin=None, stdout=None, max_line: int = MAX_LINE,
          budget: float | None = DEFAULT_BUDGET) -> int:
    """Answer requests until end of input; returns the exit status (0).

    ``budget``: seconds one request may run before it is answered ``budget-exceeded``
    (None or 0: no limit)."""
    from doublecheck.harness.engines import OracleAdapter, check_claims

    adapter = adapter or OracleAdapter()
    claims = check_claims(adapter.hello(), type(adapter).__name__)
    warm_up(adapter, claims)
    stdin = stdin or sys.stdin.buffer
    stdout = stdout or sys.stdout.buffer
    while True:
        line = stdin.readline(max_line + 1)
        if not line:
            return 0
        if len(line) > max_line and not line.endswith(b"\n"):
            while line and not line.endswith(b"\n"):  # skip the rest of the long line
                line = stdin.readline(1 << 20)
            answer = _error(None, INVALID_REQUEST, f"the line is longer than {size(max_line)}")
        else:
            answer = respond(line, adapter, claims, budget)
        stdout.write(json.dumps(answer, separators=(",", ":")).encode("utf-8") + b"\n")
        stdout.flush()


class Announcing:
    """An adapter whose hello also declares ``options`` (``serve --adapter X --option ...``:
    the adapter plays as it always does; its hello says under what to judge it)."""

    def __init__(self, adapter, options: dict):
        self.adapter, self.options = adapter, options

    def hello(self) -> dict:
        claims = dict(self.adapter.hello())
        claims["options"] = {**(claims.get("options") or {}), **self.options}
        return claims

    def handle(self, request: dict) -> dict:
        return self.adapter.handle(request)


def warm_up(adapter, claims: dict) -> None:
    """The oracle's first-use set-up, for every variant the engine claims, before any budget
    runs (an adapter of someone else's is asked nothing before its first request)."""
    from doublecheck.harness.engines import OracleAdapter

    known = variants.VARIANT_NAMES
    if not isinstance(adapter, OracleAdapter):
        return
    try:  # (bounded: a plugin's rules that loop here must not keep the server from starting)
        with time_limit(WARM_UP_SECONDS):
            for name in claims["variants"]:
                for op in ("moves", "turns", "status", "perft") if name in known else ():
                    _quietly(adapter.handle, {"op": op, "variant": name, "depth": 1})
    except TimeLimitExceeded:
        pass


WARM_UP_SECONDS = 30


def _quietly(handle, request) -> None:
    """One warm-up request; its failure is left to the real request of that kind to report."""
    try:
        handle(request)
    except Exception:  # noqa: BLE001
        pass


def serve_command(adapter_spec: str | None = None, budget: float | None = DEFAULT_BUDGET,
                  options: dict | None = None) -> int:
    """``doublecheck serve``; an adapter that cannot load raises HelloError, a damaged
    install DataError (the CLI prints either as one error line, exit 2).  ``options``
    (``--option``, already checked): the oracle plays under them and its hello declares
    them; an adapter's hello declares them."""
    from doublecheck.casefiles import schema
    from doublecheck.harness.engines import OracleAdapter, load_adapter

    schema("protocol.schema.json")  # every request is checked against it: fail now, not per line
    adapter = load_adapter(adapter_spec)() if adapter_spec else None
    if options:
        # values no variant served takes, or two one of them cannot play together: refused
        # now (RulesError unknown-option, exit 2), not on every request
        from doublecheck.harness.declared import Declared
        from doublecheck.oracle import variants
        Declared.of(options).check_playable(list(variants.registered()))
        adapter = Announcing(adapter, options) if adapter is not None else OracleAdapter(options)
    try:
        return serve(adapter, budget=budget)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0

