"""The engine protocol: message checks and the client that talks to a subprocess engine.

The protocol (docs/protocol.md, schemas/protocol.schema.json) is JSON lines:
the harness writes one request object per line to the engine's stdin and
reads one response object per line from its stdout. Every request has an
``id`` and an ``op``; every response echoes the ``id`` and says ``ok``.

``Client`` owns one long-lived engine process (a ``process.LineProcess``).
It never waits longer than the request's limit, whatever the engine does with
its pipes, and it turns every way an engine can misbehave into an
``EngineFailure`` with a kind the report can show:

- ``crash``: the process exited, or closed its stdout;
- ``timeout``: no complete answer within the limit (the process is killed);
- ``protocol-error``: the answer is not one strict-JSON object (no NaN or
  Infinity, nested at most 64 deep), is longer than the line limit, carries
  another request's id, or the engine wrote a line that answers no request
  sent (before the request, or a second line with its answer). Such stray
  output also sets ``doubts`` on the failure: the id of the last answer taken
  from that process, which may have been written for no request either
  (the runner then turns the cases judged on that process's answers into
  errors).

A line that does not start with ``{`` (after blanks), or is blank, can be no
answer at all: a log line written to stdout by mistake. It is skipped and
counted (``noise``, ``noise_first``), never taken for an answer, and the
process keeps running: the answer that follows is still matched by its id,
so skipping it cannot put a wrong answer to a request. A line that starts
with ``{`` is always read as an answer, and is a protocol error when it is
not one. The run's report then says how many lines were skipped and asks for
logs on stderr (``runner.noise_hint``).

After a crash, a timeout or an unreadable answer the process is gone (or
killed, since its stdout can no longer be trusted to be in step); the next
request starts a fresh one and says hello again.
"""

from __future__ import annotations

import json
from functools import lru_cache
from itertools import islice

from jsonschema import Draft202012Validator, validators

from doublecheck.casefiles import schema as packaged_schema
from doublecheck.harness.deadline import Deadline
from doublecheck.harness.process import (MAX_LINE, EngineFailure, HelloError, LineProcess, clip,
                                         size)
from doublecheck.harness.operations import OPERATIONS, is_id, request_fields
from doublecheck.resource_limits import loads
from doublecheck.oracle.api import OPS
from doublecheck.oracle.errors import BUDGET_EXCEEDED, CRASH, PROTOCOL_ERROR

__all__ = ["VERSIONS", "MAX_LINE", "HELLO_TIMEOUT", "BUDGET_EXCEEDED", "EngineFailure", "HelloError", "Client",
           "problems", "claim_problems", "response_problems", "request_problems", "validator", "clip",
           "size", "OPS", "MAX_HELLO_LINE", "MAX_CLAIMS", "MAX_NAME"]

VERSIONS = ("1",)          # the protocol versions this harness speaks, newest first
HELLO_TIMEOUT = 10.0       # the first answer may take this long (engine start-up)
MAX_HELLO_LINE = 64 * 1024  # bytes of the hello answer (the oracle's is under 300)
MAX_CLAIMS = 64            # entries of its variants and of its ops (the suite has 7 and 6)
MAX_NAME = 100             # characters of its name, and of each variant id and op name


# --- message checks ---------------------------------------------------------

def _schema() -> dict:
    return packaged_schema("protocol.schema.json")


# Every number of the protocol is an integer, and an integer is a JSON number without a
# fraction or exponent: 20.0 is no perft count (JSON Schema itself counts 20.0 an integer).
StrictValidator = validators.extend(Draft202012Validator, type_checker=Draft202012Validator.TYPE_CHECKER.redefine(
    "integer", lambda checker, value: type(value) is int))


@lru_cache(maxsize=None)
def validator(kind: str) -> Draft202012Validator:
    """A validator for one message kind of the protocol schema (``moves-response``, ``request``...)."""
    schema = _schema()
    if kind not in schema["$defs"]:
        raise KeyError(f"no message kind {kind!r} in protocol.schema.json")
    return StrictValidator({"$schema": schema["$schema"], "$ref": f"#/$defs/{kind}",
                            "$defs": schema["$defs"]})


def problems(kind: str, message) -> list[str]:
    """What is wrong with ``message`` as a ``kind`` message; empty when it is fine.

    Only the first few errors are collected: a list of a million wrong items
    must not make a million error objects."""
    first = islice(validator(kind).iter_errors(message), 5)
    errors = sorted(first, key=lambda e: [(isinstance(p, int), p) for p in e.path])
    out = []
    for e in errors:
        where = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in e.path)
        out.append(f"{where}: {clip(e.message, 200)}")
    return out


def claim_problems(claims: dict) -> list[str]:
    """What makes the claims of a hello answer too large to use (MAX_CLAIMS, MAX_NAME):
    checked before the schema, whose check of a huge answer takes minutes."""
    out = []
    name = claims.get("name")
    if isinstance(name, str) and len(name) > MAX_NAME:
        out.append(f"$.name: {len(name)} characters; at most {MAX_NAME}")
    for key in ("variants", "ops"):
        value = claims.get(key)
        if isinstance(value, list) and len(value) > MAX_CLAIMS:
            out.append(f"$.{key}: {len(value)} entries; at most {MAX_CLAIMS}")
        elif isinstance(value, list) and any(isinstance(v, str) and len(v) > MAX_NAME for v in value):
            out.append(f"$.{key}: an entry longer than {MAX_NAME} characters")
    options = claims.get("options")
    if isinstance(options, dict) and len(options) > MAX_CLAIMS:
        out.append(f"$.options: {len(options)} entries; at most {MAX_CLAIMS}")
    elif isinstance(options, dict) and any(len(str(k)) > MAX_NAME or len(str(v)) > MAX_NAME
                                           for k, v in options.items()):
        out.append(f"$.options: a name or value longer than {MAX_NAME} characters")
    return out


def response_problems(op: str, answer: dict) -> list[str]:
    """Check an answer to ``op``: an error response, or that op's result shape."""
    if answer.get("ok") is False:
        return [] if _plain_error(answer) else problems("error-response", answer)
    if op not in OPERATIONS and op != "hello":
        return []
    if _plain_result(op, answer):
        return []
    return problems(f"{op}-response", answer)


def request_problems(request: dict) -> list[str]:
    """Check a request to an operation (not hello)."""
    return [] if _plain_request(request) else problems("op-request", request)


# jsonschema takes tens of microseconds per list item, which adds up over a
# suite. These checks accept only what the schema accepts, in a fraction of
# the time (each field's ``fits``, from its operation's row); anything they do
# not accept goes to the schema, which decides and says what is wrong.

def _plain_result(op: str, answer: dict) -> bool:
    if not is_id(answer.get("id")) or answer.get("ok") is not True or op not in OPERATIONS:
        return False
    return all(f.fits(answer[key]) if key in answer else not f.required
               for key, f in OPERATIONS[op].result.items())


def _plain_error(answer: dict) -> bool:
    error = answer.get("error")
    return ((answer.get("id") is None or is_id(answer.get("id"))) and type(error) is dict
            and type(error.get("code")) is str and error["code"] != ""
            and type(error.get("message")) is str)


def _plain_request(request: dict) -> bool:
    op = request.get("op")
    if not (is_id(request.get("id")) and type(op) is str and op in OPERATIONS
            and type(request.get("variant")) is str and request["variant"] != ""):
        return False
    # every field any operation reads is checked whatever the op (the schema's properties are
    # shared); the op's own required ones must be there
    return (all(f.fits(request[key]) for key, f in request_fields().items() if key in request)
            and all(key in request for key, f in OPERATIONS[op].request.items() if f.required))


# --- the subprocess client --------------------------------------------------

def _not_json(constant: str):
    raise ValueError(f"{constant} is not JSON; the protocol is strict JSON (RFC 8259)")


def is_noise(line: bytes) -> bool:
    """A line that cannot be an answer (see the module docstring): blank, or not a JSON object."""
    return not line.lstrip().startswith(b"{")


def _shown(raw: bytes) -> str:
    return repr(clip(raw.decode("utf-8", "replace"), 200))


def _shown_id(answer: dict) -> str:
    return clip(repr(answer.get("id")), 60)


class Client:
    """One engine process, started on demand and restarted after it breaks."""

    def __init__(self, argv: list[str], timeout: float | None = 10.0, max_line: int = MAX_LINE,
                 env: dict | None = None, versions=VERSIONS):
        """``timeout``: seconds allowed for each request unless ``call`` says otherwise
        (None or 0: no limit)."""
        self.process = LineProcess(argv, env=env, max_line=max_line)
        self.argv = self.process.argv
        self.timeout = timeout or None
        self.versions = list(versions)
        self.hello_answer = None  # the first hello's answer, kept for reports
        self.starts = 0
        self._next_id = 0
        self.last_id = None   # the id of the last answer taken from this process (None: none yet)
        self.noise = 0        # lines skipped as no answer at all (is_noise), over every process
        self.noise_first = None   # the first of them, cut to 200 characters

    @property
    def proc(self):
        """The running process (a ``subprocess.Popen``), or None."""
        return self.process.proc

    # The public side: hello(), call(), close().

    def hello(self) -> dict:
        """Start the engine and agree on a version; raises HelloError if that fails."""
        try:
            self._start()
        except EngineFailure as e:
            raise HelloError("\n".join([f"the engine did not answer hello: {e.kind}: {e.message}"]
                                       + e.lines()[1:])) from None
        return self.hello_answer

    def call(self, request: dict, timeout: float | None = None) -> dict:
        """Send one request and return its answer (a dict with ``ok``); EngineFailure otherwise.

        ``timeout``: this request's limit in seconds (None: the client's own; 0: none)."""
        if not self.process.running:
            try:
                self._start()
            except HelloError as e:
                raise EngineFailure(CRASH, f"could not restart the engine: {e}") from None
            except EngineFailure as e:
                e.message = f"while restarting, at hello: {e.message}"
                e.restarted = False
                raise
        rid = self._new_id()
        limit = self.timeout if timeout is None else timeout
        return self._exchange({**request, "id": rid}, rid, Deadline(limit))

    def close(self):
        """Close stdin (a well-behaved engine exits on end of input); then end it and
        everything it started."""
        self.process.close()

    def stderr_tail(self) -> str:
        return self.process.stderr_tail()

    # The private side.

    def _new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def _start(self):
        self.process.start()
        self.last_id = None
        self.starts += 1
        rid = self._new_id()
        wait = max(self.timeout, HELLO_TIMEOUT) if self.timeout else None
        answer = self._exchange({"id": rid, "op": "hello", "protocol": self.versions}, rid,
                                Deadline(wait), MAX_HELLO_LINE)
        if answer.get("ok") is not True:
            error = answer.get("error") if isinstance(answer.get("error"), dict) else {}
            self.process.kill()
            raise HelloError(f"the engine refused hello: {clip(str(error.get('code')), 100)}: "
                             f"{clip(str(error.get('message')), 1000)} (the harness speaks "
                             f"protocol version {', '.join(self.versions)})")
        wrong = claim_problems(answer) or problems("hello-response", answer)
        if wrong:
            self.process.kill()
            raise HelloError("the engine's hello answer does not follow the protocol: "
                             + "; ".join(wrong))
        if answer["protocol"] not in self.versions:
            self.process.kill()
            raise HelloError(f"the engine speaks protocol version {answer['protocol']!r}; "
                             f"this harness speaks {', '.join(self.versions)}")
        if self.hello_answer is None:
            self.hello_answer = answer
        elif answer["protocol"] != self.hello_answer["protocol"]:
            self.process.kill()
            raise HelloError(f"after a restart the engine picked protocol {answer['protocol']!r}, "
                             f"not {self.hello_answer['protocol']!r} as before")

    def _exchange(self, request: dict, rid, deadline: Deadline, max_line: int | None = None) -> dict:
        """Send ``request`` and read its answer. Output the engine wrote before the request
        was sent (found just before sending, or while the request was being written, or a
        second line already there with the answer) answers nothing: a protocol error naming
        its id and this request's, which also puts the previous answer in doubt."""
        self.process.unread()
        self._refuse_early(self._skip_noise(), rid)
        self.process.send(json.dumps(request), deadline)
        self._refuse_early(self._skip_noise(), rid)
        raw = self.process.read_line(deadline, max_line)
        while is_noise(raw):
            self._note_noise([raw])
            raw = self.process.read_line(deadline, max_line)
        answer = self._parse(raw)
        if answer.get("id") != rid or type(answer.get("id")) is not type(rid):
            failure = self.process.failure(PROTOCOL_ERROR, f"the answer has id {_shown_id(answer)}, "
                                           f"{self._which(answer.get('id'), rid)}; the request had "
                                           f"id {rid!r}")
            got = answer.get("id")
            if type(got) is int and 0 < got < rid:   # a second answer to an earlier request:
                failure.doubts = self.last_id          # the answers before it prove nothing
            raise failure
        if not isinstance(answer.get("ok"), bool):
            raise EngineFailure(PROTOCOL_ERROR, f"the answer has no boolean 'ok': {_shown(raw)}",
                                self.stderr_tail())
        self._refuse_early(self._skip_noise(), rid, sent=True)
        self.last_id = rid
        return answer

    def _skip_noise(self) -> bytes:
        """Drop the complete noise lines at the start of the unread output; what is left
        (an unfinished line that is noise so far counts as nothing yet)."""
        self._note_noise(self.process.take_lines(is_noise))
        left = self.process.buffered()
        return b"" if b"\n" not in left and is_noise(left) else left

    def _note_noise(self, lines) -> None:
        for line in lines:
            self.noise += 1
            if self.noise_first is None:
                self.noise_first = clip(line.decode("utf-8", "replace"), 200)

    def _parse(self, raw: bytes) -> dict:
        """One answer line as a JSON object: strict JSON (no NaN or Infinity, which the JSON
        report could not carry; no key twice in one object, which readers take differently)
        nested at most MAX_JSON_DEPTH deep; a protocol error if not."""
        try:
            answer = loads(raw.decode("utf-8"), parse_constant=_not_json, object_pairs_hook=_once_each)
        except (UnicodeDecodeError, ValueError, RecursionError) as e:
            why = "nested too deeply" if isinstance(e, RecursionError) else clip(str(e), 200)
            raise self.process.failure("protocol-error",
                                       f"the answer is not a JSON object ({why}): {_shown(raw)}") from None
        if not isinstance(answer, dict):
            raise self.process.failure("protocol-error", f"the answer is not a JSON object: {_shown(raw)}")
        return answer

    @staticmethod
    def _which(got, rid, sent: bool = True) -> str:
        """What the id ``got`` of a line read around request ``rid`` is."""
        if type(got) is int and 0 < got < rid:
            return f"the id of request {got}, already answered"
        if got == rid:
            return f"request {rid}'s id again" if sent else f"the id of request {rid}, not sent yet"
        return "an id no request had"

    def _refuse_early(self, early: bytes, rid, sent: bool = False) -> None:
        """A protocol error for output that arrived before request ``rid`` was sent (``sent``:
        a second line with its answer)."""
        if not early:
            return
        first = early.split(b"\n", 1)[0]
        try:
            got = json.loads(first.decode("utf-8")).get("id")
            what = f"an answer with id {clip(repr(got), 60)} ({self._which(got, rid, sent)})"
        except (ValueError, AttributeError, RecursionError):
            what = f"output {_shown(first)}"
        when = (f"a second line with its answer to request {rid!r}" if sent
                else f"before request {rid!r} was sent")
        failure = self.process.failure("protocol-error", f"the engine wrote {when}: {what}; "
                                       "output must answer a request already sent")
        failure.doubts = self.last_id   # the engine writes lines nobody asked for: its last answer too
        raise failure


def _once_each(pairs) -> dict:
    """A JSON object whose keys are all different (json's object_pairs_hook)."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen = set()
        twice = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise ValueError(f"the key {clip(repr(twice), 60)} appears twice in one object")
    return out
