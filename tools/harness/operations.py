"""The operations of the protocol, one row each: everything the tools know of an operation.

The oracle answers each operation (``doublecheck.oracle.api.ANSWERS``, one
function per operation: the oracle imports nothing of the tools, so that half
stays with it).  A row here, an ``Operation``, holds all the rest, and nothing
else lists the operations or branches on their names:

- ``request``: the fields the operation reads besides those every request
  has (``COMMON``: ``fen`` and ``moves``), and ``result``: the fields of its
  answer.  Each is a ``Field``: its JSON Schema, its fast shape check
  (``fits``, which the harness asks before the schema: ``protocol``), and
  for an answer's field its judge (how ``compare`` judges the answer's value
  against the value a case expects);
- ``summary``, ``help``, ``options`` and ``command``: the command of the same
  name (its line in ``doublecheck --help``, its ``--help`` text, its own
  options, and the function that runs it, imported when it runs);
- ``text``: its answer as the plain text the command prints;
- ``desk``: whether the rules desk answers it.

``doublecheck generate`` writes the schemas' part of each row
(``doublecheck.authoring.derived``): in the protocol schema the answer's
definition ``$defs.<op>-response``, the list of answers and the request
fields (``protocol_defs``), in the case-file schema what a case may expect
and send (``case_defs``); and
``check_rows`` refuses, at import, a row without one of its parts or two rows
that give one field two meanings.  That the rows are the oracle's operations
is checked by tests/test_one_source.py, not here: importing the oracle to
build the command line would cost every command (--version included) its
start-up.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Callable

from doublecheck.defaults import HASH_MB
from doublecheck.resource_limits import AUTO_JOBS_CAP, JOBS_AUTO, JOBS_PER_CORE
from doublecheck.oracle.errors import INVALID_FEN, UNSUPPORTED, RulesError

DIFF_ITEMS = 200   # moves kept in one missing/extra list of the structured difference
FEN_FIELDS = ("placement", "side to move", "castling", "en passant",
              "halfmove clock", "fullmove number")


# --- how an answer's value is judged (harness.compare; the kinds are report.schema.json's) ---

def short_json(value, limit=200) -> str:
    """A value as JSON (as the case files and the protocol write it), cut after ``limit``."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False, default=repr)
    except (ValueError, RecursionError):   # NaN from an in-process adapter, or a deep nest
        text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def malformed(wanted: str, got) -> dict:
    return {"kind": "malformed", "wanted": wanted, "got": short_json(got)}


def same(variant, want, got):
    """Judged exactly (kind ``value``)."""
    return None if want == got else {"kind": "value", "expected": want, "got": got}


def same_set(variant, want, got):
    """A list of moves or turns, judged as a set (kind ``set``); a token given twice is named."""
    if not isinstance(got, list) or not all(isinstance(m, str) for m in got):
        return malformed("a list of strings", got)
    missing = sorted(set(want) - set(got))
    extra = sorted(set(got) - set(want))
    seen, twice = set(), set()
    for m in got:
        (twice if m in seen else seen).add(m)
    if not (missing or extra or twice):
        return None
    return {"kind": "set", "expected_count": len(set(want)), "got_count": len(got),
            "missing": missing[:DIFF_ITEMS], "missing_count": len(missing),
            "extra": extra[:DIFF_ITEMS], "extra_count": len(extra),
            "repeated": sorted(twice)[:DIFF_ITEMS]}


def same_position(variant, want, got):
    """A FEN, judged by the position it names (``api.same_fen``), field by field (kind ``fen``)."""
    from doublecheck.oracle import api   # on demand: building the command line imports this module
    if not isinstance(got, str):
        return malformed("a FEN string", got)
    try:
        want_norm = _normal_fen(variant, want)
    except RulesError as e:
        return {"kind": INVALID_FEN, "side": "expected", "fen": want,
                "code": e.code, "message": e.message}
    try:
        got_norm = _normal_fen(variant, got)
    except RulesError as e:
        return {"kind": INVALID_FEN, "side": "answer", "fen": got,
                "code": e.code, "message": e.message}
    if api.same_fen(variant, want, got):
        return None
    a, b = want_norm.split(), got_norm.split()
    differing = []
    for i in range(max(len(a), len(b))):
        x = a[i] if i < len(a) else "(absent)"
        y = b[i] if i < len(b) else "(absent)"
        if x != y:
            name = FEN_FIELDS[i] if i < len(FEN_FIELDS) else f"field {i + 1}"
            differing.append({"field": name, "expected": x, "got": y})
    return {"kind": "fen", "expected": want, "got": got, "differing": differing}


def _normal_fen(variant, fen):
    from doublecheck.oracle import api, variants
    rules = variants.rules_of(variant)
    return api.handle({"op": "fen", "variant": rules.name, "fen": fen}, rules=rules)["fen"]


def same_status(variant, want, got):
    """A game status: over, result and reason exactly, claimable as a set (kind ``status``)."""
    if not isinstance(got, dict):
        return malformed("an object", got)
    keys = []
    for key, value in want.items():
        if key not in got:
            keys.append({"key": key, "expected": value, "absent": True})
        elif key == "claimable":
            if not isinstance(got[key], list) or set(value) != set(got[key]):
                keys.append({"key": key, "expected": value, "got": got[key]})
        elif value != got[key]:
            keys.append({"key": key, "expected": value, "got": got[key]})
    return {"kind": "status", "differing": keys} if keys else None


def same_counts(variant, want, got):
    """A perft divide, each first step's count exactly (kind ``divide``)."""
    if not isinstance(got, dict):
        return malformed("an object", got)
    differing = [{"move": m, "expected": want[m], "got": got[m]}
                 for m in sorted(set(want) & set(got)) if want[m] != got[m]]
    missing = {m: want[m] for m in sorted(set(want) - set(got))[:DIFF_ITEMS]}
    extra = {m: got[m] for m in sorted(set(got) - set(want))[:DIFF_ITEMS]}
    if not (differing or missing or extra):
        return None
    return {"kind": "divide", "differing": differing[:DIFF_ITEMS], "missing": missing, "extra": extra}


# --- fast shape checks: each accepts only what its field's schema accepts -----------------
# jsonschema takes tens of microseconds per list item, which adds up over a suite; what
# these do not accept goes to the schema, which decides and says what is wrong.

def is_id(value) -> bool:
    return type(value) in (int, str)


def is_text(value) -> bool:
    return type(value) is str


def is_flag(value) -> bool:
    return type(value) is bool


def is_count(value) -> bool:
    return type(value) is int and value >= 0


def is_strings(value) -> bool:
    return type(value) is list and all(type(v) is str for v in value)


def is_move_texts(value) -> bool:
    return type(value) is list and all(type(m) is str and m != "" for m in value)


def is_counts(value) -> bool:
    return type(value) is dict and all(is_count(n) for n in value.values())


RESULTS = {"1-0", "0-1", "1/2-1/2", None}


def is_status(status) -> bool:
    return (type(status) is dict and type(status.get("over")) is bool
            and "result" in status and status["result"] in RESULTS
            and "reason" in status and (status["reason"] is None or type(status["reason"]) is str)
            and is_strings(status.get("claimable")))


@dataclass(frozen=True)
class Field:
    """One field of a request or of an answer."""
    schema: dict                            # its JSON Schema in schemas/protocol.schema.json
    fits: Callable[[object], bool]          # the fast shape check (see above)
    judge: Callable = same                  # an answer's field: (variant, expected, got) -> difference or None
    required: bool = True                   # the message must have it
    case: dict | None = None                # its schema in a case file, where its words differ (None: schema)

    def optional(self) -> "Field":
        return replace(self, required=False)

    def in_case(self) -> dict:
        return self.schema if self.case is None else self.case


COUNT = {"type": "integer", "minimum": 0}
MOVE_LIST = Field({"type": "array", "items": {"type": "string"}}, is_strings, same_set,
                  case={"$ref": "#/$defs/moveList"})
FEN = Field({"type": "string"}, is_text, same_position, case={"type": "string", "minLength": 1})
STATUS = Field({"$ref": "#/$defs/status"}, is_status, same_status)
NODES = Field(COUNT, is_count)
DIVIDE = Field({"type": "object", "additionalProperties": COUNT}, is_counts, same_counts)


def flag(description: str) -> Field:
    """An optional true/false of a request."""
    return Field({"type": "boolean"}, is_flag, required=False,
                 case={"description": description, "type": "boolean"})


# What every request of an operation may carry besides id, op and variant.
COMMON = {"fen": Field({"type": "string"}, is_text, required=False,
                       case={"description": "Starting position; the variant's start position when absent.",
                             "type": "string", "minLength": 1}),
          "moves": Field({"type": "array", "items": {"$ref": "#/$defs/moveText"}}, is_move_texts,
                         required=False,
                         case={"description": "Move tokens (coordinates or SAN) applied to the position first.",
                               "type": "array", "items": {"type": "string", "minLength": 1}})}


# --- the command line ---------------------------------------------------------------------

@dataclass(frozen=True)
class Option:
    """One option of an operation's command, as ``argparse.add_argument`` takes it.  ``type``
    names one of the command line's value checks (``doublecheck.cli.VALUE_TYPES``); options of
    one ``group`` exclude each other; ``shared``: the command line's own option of that name."""
    flags: tuple[str, ...]
    help: str = ""
    type: str | None = None
    action: str | None = None
    default: object = None
    metavar: str | None = None
    required: bool = False
    group: str | None = None
    shared: bool = False

    def arguments(self) -> dict:
        """The keyword arguments of ``add_argument`` (``type`` still a name)."""
        out = {"help": self.help}
        for name in ("type", "action", "default", "metavar"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        if self.required:
            out["required"] = True
        return out


LOOKUP = "doublecheck.lookups.commands:lookup_command"   # one oracle request, printed

PERFT_OPTIONS = (
    Option(("--depth",), "number of moves (or turns), up to the variant's limit "
                         "(doublecheck docs protocol, \"Limits\")", type="count", required=True),
    Option(("--divide",), "also count below each first move", action="store_true"),
    Option(("--turns",), "count complete turns, not moves", action="store_true"),
    Option(("--hash",), "transposition table size per counting process "
                        "(default: %(default)s; doublecheck docs perft)",
           type="megabytes", default=HASH_MB, metavar="MB", group="table"),
    Option(("--no-hash",), "no table: count with the plain reference walk", action="store_true",
           group="table"),
    Option(("--jobs",), "split the tree into subtrees counted by N local processes (default: "
                        f"auto, the usable cores up to {AUTO_JOBS_CAP} for a count of millions of "
                        f"nodes, else 1; at most {JOBS_PER_CORE} per CPU core)",
           type="jobs", default=JOBS_AUTO, metavar="N", group="where"),
    Option(("--scheduler",), "count the subtrees on the Dask cluster whose scheduler is at ADDRESS "
                             "(tcp://host:8786; needs 'doublecheck-chess[cluster]')",
           type="address", metavar="ADDRESS", group="where"),
    Option(("--quiet",), shared=True),
)


# --- the plain text of an answer ----------------------------------------------------------

STATUS_REASONS = {
    "checkmate": "checkmate", "stalemate": "stalemate", "dead-position": "dead position",
    "seventy-five-moves": "the seventy-five-move rule", "fivefold-repetition": "fivefold repetition",
    "no-legal-turn": "having no legal turn", "no-king": "loss of both kings",
    # the endings of draws=automatic (doublecheck docs options)
    "threefold-repetition": "threefold repetition", "fifty-moves": "the fifty-move rule",
}


def status_sentence(status: dict) -> str:
    claims = " or ".join({"fifty-moves": "the fifty-move rule",
                          "threefold-repetition": "threefold repetition"}.get(c, c)
                         for c in status.get("claimable", []))
    claim = f" A draw can be claimed by {claims}." if claims else ""
    if not status.get("over"):
        return "The game is in progress." + claim
    result = status.get("result")
    winner = {"1-0": "White wins", "0-1": "Black wins", "1/2-1/2": "drawn"}.get(result, result)
    reason = STATUS_REASONS.get(status.get("reason"), status.get("reason"))
    return f"The game is over: {winner} ({result}) by {reason}."


def _status_text(result: dict) -> str:
    return status_sentence(result["status"])


def _perft_text(result: dict) -> str:
    lines = [f"{m}: {n}" for m, n in sorted(result.get("divide", {}).items())]
    return "\n".join(lines + ([""] if lines else []) + [f"Nodes: {result['nodes']}"])


# --- the rows -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Operation:
    summary: str                    # the command's line in ``doublecheck --help``
    help: str                       # its ``doublecheck OP --help`` text, its examples last
    text: Callable[[dict], str]     # its answer as the plain text the command prints
    result: dict[str, Field]        # the fields of its answer (besides id and ok)
    request: dict[str, Field] = field(default_factory=dict)   # what it reads besides COMMON
    note: str = ""                  # said of its answer in the schema ($defs.<op>-response)
    options: tuple[Option, ...] = ()   # its command's own options
    command: str = LOOKUP           # "module:function" that runs its command
    desk: bool = True               # the rules desk answers it (perft can run for hours: not there)


OPERATIONS = {
    "moves": Operation(
        "list the legal next moves", """\
Prints the legal moves of the side to move, one per line, in coordinate
notation (e2e4, e7e8q, e1g1 for castling).

examples:
  doublecheck moves
  doublecheck moves --moves "e2e4 e7e5" --json
  doublecheck moves --variant chess --fen '8/8/8/4k3/8/8/4P3/4K3 w - - 0 1'
""",
        text=lambda result: "\n".join(sorted(result["moves"])),
        result={"moves": MOVE_LIST}),
    "turns": Operation(
        "list the legal complete turns", """\
A turn is everything one side does before the other side moves: one move in
chess, one or two in the double-move variants. The moves of a turn are joined
by commas (g3g8,g8h7). From a position in the middle of a turn, lists the ways
to finish it.

examples:
  doublecheck turns --variant double-move-anul
  doublecheck turns --moves "e2e4" --json
""",
        text=lambda result: "\n".join(sorted(result["turns"])),
        result={"turns": MOVE_LIST},
        options=(Option(("--grouped",), "group the turns by their first move, in SAN and coordinates",
                        action="store_true"),),
        command="doublecheck.lookups.commands:turns_command"),
    "perft": Operation(
        "count move sequences to a given depth", """\
Counts the sequences of DEPTH moves (or complete turns, with --turns) that the
rules allow (ruling G7). --divide also prints the count below each first move:
compare it with your engine's to find the move whose subtree is wrong.

Counts already made are remembered in a transposition table of --hash MB per
counting process, so a position reached again at the same remaining depth is
not counted twice; --no-hash counts with the plain reference walk instead.
--jobs N (default: auto, every usable core for a large count) splits the
tree into subtrees counted by N local processes, each with its own table,
handing out together the subtrees that meet the same positions further down;
--scheduler ADDRESS sends them to a running Dask cluster (pip install
'doublecheck-chess[cluster]'). Progress goes to stderr (--quiet: none).
More in: doublecheck docs perft.

examples:
  doublecheck perft --depth 3               prints  Nodes: 8902
  doublecheck perft --depth 2 --divide      one 'e2e4: 20' line per move, then the total
  doublecheck perft --depth 2 --turns --variant double-move --json
  doublecheck perft --depth 6               119060324 nodes (about a minute)
  doublecheck perft --depth 5 --no-hash --jobs 2   the plain walk on two processes
  doublecheck perft --depth 7 --divide --scheduler tcp://10.0.0.5:8786
""",
        text=_perft_text,
        request={"depth": Field(COUNT, is_count, case={"description": "Perft depth.", **COUNT}),
                 "divide": flag("Perft: also report the count below each first step."),
                 "turns": flag("Perft: count complete turns instead of moves.")},
        result={"nodes": NODES, "divide": DIVIDE.optional()},
        note="divide (first step -> count below it) is present when the request asked for it.",
        options=PERFT_OPTIONS, command="doublecheck.lookups.commands:perft_command", desk=False),
    "play": Operation(
        "play moves and show the resulting position and status", """\
Plays the moves given with --moves (space-separated, coordinate text or SAN)
from --fen or the start position, then prints the FEN and the game status.
Repetitions are counted over the positions the moves pass through.

examples:
  doublecheck play --moves "e2e4 e7e5 g1f3"
  doublecheck play --moves "f3 e5 g4 Qh4#" --json
""",
        text=lambda result: result["fen"] + "\n" + _status_text(result),
        result={"fen": FEN, "status": STATUS},
        options=(Option(("--pgn",), "also write the line as PGN to FILE ('-': print only the PGN)",
                        metavar="FILE"),),
        command="doublecheck.lookups.commands:play_command"),
    "status": Operation(
        "say whether the game is over, and why", """\
Prints whether the game is over (and the result and reason), and which draws
the side to move could claim.

examples:
  doublecheck status --fen '7k/5Q2/6K1/8/8/8/8/8 b - - 0 1'
  doublecheck status --moves "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8" --json
""",
        text=_status_text,
        result={"status": STATUS}),
    "fen": Operation(
        "check a FEN and print it normalised", """\
Reads a FEN (after playing --moves, if given) and prints it in normal form;
an invalid FEN is reported with the reason.

examples:
  doublecheck fen --fen 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1'
  doublecheck fen --moves "e2e4 c7c5" --json
""",
        text=lambda result: result["fen"],
        result={"fen": FEN}),
}
# Listed in the order ``doublecheck --help`` shows them.


def operation(op: str, table: dict | None = None) -> Operation:
    """The row of ``op``; RulesError(unsupported) for an operation nobody answers."""
    table = OPERATIONS if table is None else table
    if type(op) is not str or op not in table:
        raise RulesError(UNSUPPORTED, f"unknown operation {op!r}; known: {', '.join(table)}")
    return table[op]


def _union(fields_of, table: dict) -> dict[str, Field]:
    """Every field the rows name (a name means one thing in every row: ``check_rows``)."""
    out = {}
    for row in table.values():
        out.update(fields_of(row))
    return out


def result_fields(table: dict | None = None) -> dict[str, Field]:
    """Every answer field of every operation: how ``compare`` judges each key a case expects."""
    return _union(lambda row: row.result, OPERATIONS if table is None else table)


def request_fields(table: dict | None = None) -> dict[str, Field]:
    """Every request field, ``COMMON`` first: a request may carry any of them, whatever its op."""
    return {**COMMON, **_union(lambda row: row.request, OPERATIONS if table is None else table)}


def judge_of(key: str, table: dict | None = None) -> Callable:
    """How an answer's field ``key`` is judged (exactly, for a key no row names)."""
    found = result_fields(table).get(key)
    return found.judge if found is not None else same


# --- the schema's part of each row (written by doublecheck generate) ------------------------

def response_def(row: Operation) -> dict:
    """``$defs.<op>-response`` of schemas/protocol.schema.json."""
    out = {"description": row.note} if row.note else {}
    return {**out, "type": "object",
            "required": ["id", "ok", *[k for k, f in row.result.items() if f.required]],
            "properties": {"id": {"$ref": "#/$defs/id"}, "ok": {"const": True},
                           **{k: f.schema for k, f in row.result.items()}}}


def protocol_defs(table: dict | None = None) -> dict:
    """The parts of schemas/protocol.schema.json's ``$defs`` the rows write: each answer's
    definition, the list of answers (``response.anyOf``), and the fields of a request
    (``op-request.properties``)."""
    table = OPERATIONS if table is None else table
    fixed = {"id": {"$ref": "#/$defs/id"}, "op": {"$ref": "#/$defs/op"},
             "variant": {"$ref": "#/$defs/variant"}}
    return {"responses": [{"$ref": f"#/$defs/{kind}"}
                          for kind in ("error-response", "hello-response",
                                       *[f"{op}-response" for op in table])],
            "request_properties": {**fixed, **{k: f.schema for k, f in request_fields(table).items()}},
            "defs": {f"{op}-response": response_def(row) for op, row in table.items()}}


def case_defs(table: dict | None = None) -> dict:
    """The parts of schemas/case-file.schema.json's ``$defs`` the rows write, in a case
    file's words (``Field.case``): what a case may expect (``expectResult.properties``), what
    its request may carry (``request.properties``), and which operation each field of one
    operation's own belongs to (``request.dependentSchemas``)."""
    table = OPERATIONS if table is None else table
    readers = {}
    for op, row in table.items():
        for key in row.request:
            readers.setdefault(key, []).append(op)
    return {"expect_properties": {k: f.in_case() for k, f in result_fields(table).items()},
            "request_properties": {"op": {"$ref": "#/$defs/op"},
                                   **{k: f.in_case() for k, f in request_fields(table).items()}},
            "request_owners": {k: {"properties": {"op": {"const": ops[0]} if len(ops) == 1 else {"enum": ops}}}
                               for k, ops in readers.items()}}


# --- every row has every part --------------------------------------------------------------

def check_rows(table: dict) -> list[str]:
    """What is missing or contradictory in a table of operations; empty when nothing is."""
    out = []
    seen = {"request": dict(COMMON), "result": {}}
    for op, row in table.items():
        where = f"operation {op!r}"
        if not isinstance(row, Operation):
            out.append(f"{where}: not an Operation")
            continue
        if not op or not op.replace("-", "").isalnum() or op == "hello":
            out.append(f"{where}: not a usable operation name")
        if not row.summary or "examples:" not in row.help:
            out.append(f"{where}: needs its summary and a --help text ending in its examples")
        if not callable(row.text):
            out.append(f"{where}: its text is not a function")
        if not row.result:
            out.append(f"{where}: its answer has no field")
        module, colon, function = row.command.partition(":")
        if not (module and colon and function):
            out.append(f"{where}: its command {row.command!r} is not 'module:function'")
        for part in ("request", "result"):
            for key, f in getattr(row, part).items():
                if not isinstance(f, Field) or not callable(f.fits) or not callable(f.judge):
                    out.append(f"{where}: {part} field {key!r} is not a Field with fits and judge")
                    continue
                other = seen[part].setdefault(key, f)
                if (other.schema, other.fits, other.judge, other.case) != (f.schema, f.fits, f.judge, f.case):
                    out.append(f"{where}: {part} field {key!r} means something else in another row")
        for option in row.options:
            if not isinstance(option, Option) or not option.flags:
                out.append(f"{where}: an option is not an Option with its flags")
    return out


def _refuse_broken(table: dict) -> None:
    problems = check_rows(table)
    if problems:
        raise TypeError("doublecheck.harness.operations: " + "; ".join(problems))


_refuse_broken(OPERATIONS)
