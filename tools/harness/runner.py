"""Run conformance cases against an engine and report the results.

A case ends as ``passed``, ``failed`` (the answer differs; the structured
difference and the diff lines say how), ``error`` (the engine broke: a crash,
a timeout, an answer that does not follow the protocol, or an internal error
it reported; or the case was never sent, the run having stopped sending cases
to the engine after ``--give-up`` crashes or timeouts in a row) or ``skipped``
(not run, with the reason: the engine does not claim the variant or operation
in its hello, or a perft case is larger than ``--max-nodes``; a skip reason
always wins, whatever else happened). With an
xfail file, a listed case that fails or errors becomes ``xfailed`` and a
listed case that passes becomes ``xpassed`` (an unexpected pass, which fails
the run).

Time limits fit the work: a request may take ``--timeout`` seconds, and a
perft request also ``expected nodes / SLOW_RATE`` seconds more (see
``time_limit``).

When a perft count differs and the engine answers ``divide``, the runner
descends the perft tree against the oracle to the first position whose move
list differs, and records the line that leads there (``drill_down``).
"""

from __future__ import annotations

import fnmatch
import queue
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from doublecheck.casefiles import (CASES_DIR, case_ids, check_cases_dir, expected_nodes, load_cases, schema,
                                   select, select_tier)
from doublecheck.harness import deepsplit
from doublecheck.harness.convention import convention_line, conventions_of, keep_consistent
from doublecheck.harness.divergence import first_divergence
from doublecheck.harness import report as reports
from doublecheck.harness.compare import CASE_DOUBT, DIFF_ITEMS, SanNamer, diff_lines, difference, judged_as
from doublecheck.harness.engines import Engine, EngineFailure, EngineSpec, HelloError, OracleEngine
from doublecheck.harness.process import message_lines
from doublecheck.harness.declared import NO_OPTIONS
from doublecheck.harness.protocol import response_problems
from doublecheck.harness.reasons import REASON_ITEMS, other_side_note, reasons, turn_end_why
from doublecheck.harness.report import OUTCOMES, XFAIL_OUTCOMES
from doublecheck.oracle import api, variants
from doublecheck.oracle.errors import CRASH, HARNESS_ERROR, INTERNAL_ERROR, PROTOCOL_ERROR, UNSUPPORTED
from doublecheck.oracle.errors import TIMEOUT as TIMED_OUT   # TIMEOUT here is --timeout's default
from doublecheck.progress import Progress

GIVE_UP = 5            # crashes or timeouts in a row after which an engine gets no more cases
from doublecheck.defaults import (CASES_PER_JOB, QUICK_MAX_NODES, SLOW_RATE, SLOW_TURN_RATE,  # noqa: E402
                                  TIMEOUT)
from doublecheck.resource_limits import JOBS_AUTO, auto_jobs  # noqa: E402

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


@dataclass
class Result:
    case: object  # doublecheck.casefiles.Case
    outcome: str
    lines: list[str] = field(default_factory=list)
    seconds: float = 0.0
    broke: bool = False        # the engine crashed, hung or lost step (counts toward giving up)
    actual: str | None = None  # the outcome before the xfail list was applied
    reason: str | None = None  # the xfail reason
    answer: dict | None = None   # the engine's answer, as received
    diff: dict | None = None     # how the answer differs (compare.difference, plus drill_down)
    problem: dict | None = None  # for an error: {"kind", "message"}
    limit: float | None = None   # the time limit the request had, in seconds (None: none)
    span: tuple[float, float] | None = None  # when it ran, in seconds from the start of the run
    doubts_previous: bool = False  # stray output seen before this request: the last answer is in doubt
    restarted: bool = False        # the engine process was ended after this request
    answer_cut: dict | None = None  # what reports.keep_for_reports cut from the answer
    by_options: bool = False   # skipped because of a declared option (docs/options.md)
    judged_under: dict | None = None   # the rule options its expected answer holds under


@dataclass
class RunOptions:
    """What ``doublecheck run`` was asked to do (the command line, as data)."""

    cases_dir: object = CASES_DIR
    variant: str | None = None
    rule: str | None = None
    patterns: tuple = ()
    max_nodes: int | None = None
    timeout: float | None = TIMEOUT  # the base limit per request; None: no limit
    jobs: int = 1
    give_up: int = GIVE_UP
    fmt: str = "text"          # the report on stdout: a name of reports.STDOUT_FORMATS
    files: dict = field(default_factory=dict)  # report files: a name of reports.REPORT_FILES -> path
    xfail_file: object = None
    write_xfail: object = None
    force: bool = False
    quiet: bool = False        # no progress on stderr
    deep: bool = False         # also the deep-tier cases (docs/perft.md)
    declared: dict = field(default_factory=dict)   # --option values, checked (docs/options.md)
    list_only: bool = False    # --list: print the selection, run nothing (harness/listing.py)
    scheduler: str | None = None   # --scheduler: the Dask cluster the split deep cases use


@dataclass
class Run:
    """Everything the reports need about one ``doublecheck run``."""

    results: list[Result]
    problems: list[str]
    engine: str                    # the name from hello
    source: str                    # what was run: the oracle, an adapter, a command
    claims: dict = field(default_factory=dict)
    selected: int = 0
    interrupted: bool = False
    seconds: float = 0.0
    started: str = ""
    jobs: int = 1
    timeout: float | None = TIMEOUT
    xfail_file: str | None = None
    stale_xfail: list[str] = field(default_factory=list)  # listed ids that no case has
    hints: list[str] = field(default_factory=list)        # advice printed above the verdict
    declared: object = None   # the options judged under (harness.declared.Declared), or None
    rerun: str = ""           # the run arguments that choose the engine again (EngineSpec.arguments)

    @property
    def xfail_used(self) -> bool:
        return self.xfail_file is not None

    def counts(self) -> dict:
        out = dict.fromkeys(OUTCOMES + XFAIL_OUTCOMES, 0)
        for r in self.results:
            out[r.outcome] += 1
        return out

    def exit_code(self) -> int:
        if self.interrupted:
            return EXIT_INTERRUPTED
        if self.problems:
            return EXIT_USAGE
        bad = {"failed", "error", "xpassed"}
        return EXIT_FAILED if any(r.outcome in bad for r in self.results) else EXIT_OK


def select_cases(cases, variant=None, rule=None, patterns=()):
    """Cases of ``variant`` citing ``rule`` whose id matches one of ``patterns``.

    A pattern is a shell-style glob over case ids (``chess/castling/*``); a
    pattern without wildcards also selects every id below it (``chess/castling``).
    """
    return [c for c in select(cases, variant, rule)
            if not patterns or any(_id_matches(c.id, p) for p in patterns)]


def _id_matches(case_id: str, pattern: str) -> bool:
    return fnmatch.fnmatchcase(case_id, pattern) or case_id.startswith(pattern.rstrip("/") + "/")


def case_filter(variant=None, rule=None, patterns=()):
    """For ``load_cases(wanted=...)``: whether a raw case of a file would be selected by
    ``select_cases`` (None: every case is, so every file is loaded)."""
    if variant is None and rule is None and not patterns:
        return None

    def wanted(file_variant, raw) -> bool:
        return ((variant is None or file_variant == variant)
                and (rule is None or rule in (raw.get("rules") or ()))
                and (not patterns or any(_id_matches(raw["id"], p) for p in patterns)))
    return wanted


# --- time limits --------------------------------------------------------------

def slow_rate(case) -> int:
    """The perft nodes per second a slow engine manages on this case (turns cost more)."""
    return SLOW_TURN_RATE if case.request.get("turns") else SLOW_RATE


def time_limit(case, base: float | None) -> float | None:
    """Seconds a case's request may take: ``base``, plus ``expected nodes / slow_rate`` for
    perft (a case expecting 4,865,609 nodes gets 10 + 243 s by default); None: no limit."""
    if base is None:
        return None
    return base + expected_nodes(case) / slow_rate(case)


def timeout_hint(case, base: float | None) -> str:
    """What the limit was made of, and the options that help."""
    nodes = expected_nodes(case)
    if nodes:
        return (f"this case expects {nodes} perft nodes, so its limit was {time_limit(case, base):g} s "
                f"(--timeout {base:g} plus {nodes} / {slow_rate(case)} nodes per second); allow more with "
                "--timeout SECONDS (0: no limit), or leave large perft cases out with --max-nodes N")
    return (f"the limit for this request is --timeout {base:g} s; allow more with --timeout SECONDS "
            "(0: no limit)")


# --- one case ---------------------------------------------------------------

def skip_reason(case, claims: dict, engine_name: str, max_nodes=None) -> str | None:
    op = case.request.get("op")
    if case.variant not in claims.get("variants", ()):
        return f"{engine_name} does not claim variant {case.variant} in its hello"
    if op not in claims.get("ops", ()):
        return f"{engine_name} does not claim operation {op} in its hello"
    nodes = expected_nodes(case)
    if max_nodes is not None and nodes > max_nodes:
        return f"expects {nodes} nodes, more than --max-nodes {max_nodes}"
    return None


def run_case(case, engine: Engine, claims: dict, max_nodes=None, drill=True,
             timeout: float | None = None, declared=None, memo: dict | None = None) -> Result:
    """Send one case (unless it is skipped) and judge the answer.

    ``timeout`` is the base limit per request (``--timeout``); None leaves
    every request to the engine's own limit.  ``declared`` (a ``declared.Declared``):
    the options the engine plays with; the case is judged under them or skipped
    with the option that rules it out. ``memo`` keeps the engine's answers along
    the games already searched for a first divergence, so the cases of one game
    ask them once (one dict per engine).
    """
    why = skip_reason(case, claims, engine.name, max_nodes)
    if why:
        return Result(case, "skipped", [why])
    note, reference, under = None, None, None
    if declared or getattr(case, "options", None):   # a case written for an option value too
        plan = (declared or NO_OPTIONS).plan(case)
        if plan.skip:
            return Result(case, "skipped", [plan.skip], by_options=plan.by_declared)
        case, note, reference, under = plan.case, plan.note, plan.reference(), plan.options or None
    start = time.perf_counter()
    result = _judge(case, engine, drill, timeout, reference, claims, {} if memo is None else memo, under,
                    adjust=(declared or NO_OPTIONS).adjust)
    result.seconds = time.perf_counter() - start
    if note and result.outcome != "passed":
        result.lines.insert(0, note)
    result.judged_under = under
    return result


def _error(case, kind: str, lines: list[str], message: str | None = None, **more) -> Result:
    """An error result; ``message`` defaults to the first line without its ``kind: `` prefix."""
    if message is None:
        message = lines[0].removeprefix(f"{kind}: ") if lines else kind
    return Result(case, "error", lines, problem={"kind": kind, "message": message}, **more)


def _judge(case, engine, drill, timeout, reference=None, claims=None, memo=None, options=None,
           adjust=None) -> Result:
    """``reference``: the oracle the case's answer comes from, when not the default one
    (declared ``options``); what a doubt, a drill-down, a reason or a first divergence
    compares with.  ``adjust(answer, expect)``: the answer as the declared capabilities
    have it judged (``Declared.adjust``)."""
    op = case.request.get("op")
    limit = time_limit(case, timeout)
    try:
        answer = engine.request(dict(case.request), timeout=limit)
    except EngineFailure as e:
        lines = e.lines()
        if e.kind == TIMED_OUT and timeout is not None:
            lines.insert(1, timeout_hint(case, timeout))
        return _error(case, e.kind, lines, e.message, broke=e.kind in (CRASH, TIMED_OUT),
                      limit=limit, doubts_previous=getattr(e, "doubts_previous", False),
                      restarted=e.restarted)
    except Exception as e:
        return _error(case, HARNESS_ERROR, [f"the engine failed: {type(e).__name__}: {e}"],
                      limit=limit)
    if not isinstance(answer, dict) or not isinstance(answer.get("ok"), bool):
        return _error(case, PROTOCOL_ERROR, [f"protocol-error: malformed answer: {answer!r:.200}"],
                      limit=limit)
    if adjust is not None and answer["ok"]:
        answer = adjust(answer, case.expect)
    kept = dict(answer=answer, limit=limit)
    wrong = response_problems(op, {"id": 0, **answer})
    if wrong:
        return _error(case, PROTOCOL_ERROR, [f"protocol-error: the answer to {op} does not follow "
                                               "the protocol schema:"] + [f"  {w}" for w in wrong], **kept)
    if not answer["ok"] and answer["error"]["code"] == INTERNAL_ERROR:
        message = answer["error"]["message"]   # (whole in the problem: the JSON report's data)
        return _error(case, INTERNAL_ERROR, message_lines("internal-error: ", message), message, **kept)
    if not answer["ok"] and answer["error"]["code"] == UNSUPPORTED \
            and case.expect.get("error", {}).get("code") != UNSUPPORTED:
        # the engine declined this one request (e.g. a UCI engine cannot express it)
        return Result(case, "skipped", message_lines("the engine does not support this request: ",
                                                     answer["error"]["message"]), **kept)
    try:
        diff = difference(judged_as(case.variant, options), case.expect, answer, case.request)
    except Exception as e:
        return _error(case, HARNESS_ERROR,
                      [f"could not compare the answer: {type(e).__name__}: {e}"], **kept)
    doubt = oracle_doubt(case, engine, answer, limit, reference, options) if diff else None
    if diff and drill and not doubt and op == "perft" and answer["ok"] and "error" not in case.expect \
            and case.request.get("depth", 0) >= 1:
        diff["drill_down"] = drill_down(case, engine, reference, timeout=limit)
    played = []
    if diff and not doubt:
        explain_diff(case, diff, options)
        played = conventions_of(case, answer, options)
        if played:   # (the run names one of them: convention.keep_consistent)
            diff["convention"] = played[0]
        if drill and case.request.get("moves") and "error" not in case.expect:
            found = first_divergence(case, engine, claims or {}, limit, {} if memo is None else memo,
                                     reference or _reference(), options)
            if found:
                diff["first_divergence"] = found
    lines = ([doubt] if doubt else []) + diff_lines(diff)
    if diff and diff.get("convention"):
        lines.insert(0, convention_line(diff["convention"]))
    result = Result(case, "failed" if diff else "passed", lines, diff=diff, **kept)
    result.conventions = played
    return result


# --- a case that may be wrong ------------------------------------------------

def _built_in(case) -> bool:
    """Whether the case comes with doublecheck (checked against the oracle by its own tests)."""
    return Path(case.path).resolve().is_relative_to(CASES_DIR.resolve())


def oracle_doubt(case, engine, answer, limit, reference=None, options=None) -> str | None:
    """For a failed case of a user's own tree: CASE_DOUBT when the built-in oracle does not
    give the expected answer either (said before anything blames the engine), else None."""
    if _built_in(case):
        return None
    if not isinstance(engine, OracleEngine):
        try:
            answer = (reference or _reference()).request(dict(case.request), timeout=limit)
        except Exception as e:   # the oracle cannot say in time: no verdict on the case
            return f"(the oracle could not check this case: {type(e).__name__}: {e})"
    try:
        wrong = difference(judged_as(case.variant, options), case.expect, answer, case.request)
    except Exception:
        return None
    return CASE_DOUBT if wrong else None


# --- the reasons of a failure -------------------------------------------------

def explain_diff(case, diff: dict, options=None) -> None:
    """Add the oracle's reasons for the extra and missing moves of a failure (at most
    REASON_ITEMS for the case, the rest counted): ``diff["reasons"]`` for those at the
    request's position, ``diff["drill_down"]["reasons"]`` for those where a drill-down
    stopped. Only failing cases pay for it. ``options``: the rule options the case was
    judged under (the reasons are the oracle's under them). A list the engine left empty
    is said once (``none_listed``), not move by move; a list of the other side's moves
    says why the sides differ (``other_side``)."""
    where = {k: case.request[k] for k in ("fen", "moves") if k in case.request}
    left = REASON_ITEMS
    for key, f in diff["fields"].items():
        if f["kind"] in ("set", "divide") and left > 0:
            turns = key == "turns" or (f["kind"] == "divide" and bool(case.request.get("turns")))
            left -= explain_list(diff, case.variant, where, turns, f, left, options)
            break   # one list of moves per case: a case expects moves, turns or a divide
    if "error" in diff["fields"] and diff["fields"]["error"]["got"] is None:
        explain_accepted(case, diff, options)
    drill = diff.get("drill_down") or {}
    if drill.get("end") == "lists-differ" and left > 0:
        at = {**where, "moves": list(where.get("moves") or []) + drill["line"]}
        explain_list(drill, case.variant, at, drill["unit"] == "turns", drill, left, options)


def explain_accepted(case, diff: dict, options=None) -> None:
    """For an engine that answered a request the oracle refuses: the oracle's reason for
    the first move of the line it refuses (as for an extra move), in ``diff["reasons"]``."""
    try:
        rules = variants.get(case.variant, options)
        line = api.Line(rules, api.replay(rules, case.request.get("fen")).final)
        halves = api.split_tokens(list(case.request.get("moves") or []))
        n = next((i for i, half in enumerate(halves) if isinstance(line.try_play(half), api.Refused)),
                 None)
    except Exception:   # text that is no move, a FEN the oracle refuses: no reason here
        return
    if n is not None:
        where = {**{k: case.request[k] for k in ("fen",) if k in case.request}, "moves": halves[:n]}
        explain_refused(diff, case.variant, where, halves[n], options)


def explain_refused(diff: dict, variant: str, where: dict, token: str, options=None) -> None:
    """Why the oracle refuses ``token`` at ``where``, which the engine accepted: the same side
    moving again after the oracle's turn ended (``other_side``); a comma saying the turn goes
    on after a move that ends it (a ``turn-end`` reason); else the refusal, as for an extra
    move (with its comma: a move the oracle refuses only as a turn that goes on)."""
    note = other_side_note(variant, where, [token.rstrip(",")], options)
    ended = turn_end_why(variant, where, token.rstrip(","), options) if token.endswith(",") else None
    if note:
        diff["other_side"] = note
        return
    found = {"items": [ended], "more": 0} if ended else \
        reasons(variant, where, False, [token], [], 1, options)
    if found["items"] and found["items"][0]["rule"]:
        diff["reasons"] = found


def explain_list(into: dict, variant: str, where: dict, turns: bool, f: dict, left: int,
                 options=None) -> int:
    """The reasons (or the one note) for one list's extra and missing moves, put ``into``
    the diff or drill-down; how many reasons were given."""
    got = f.get("got_count", len(f["extra"]))
    if got == 0 and f.get("expected_count", len(f["missing"])) > 0:
        into["none_listed"] = {"expected": f.get("expected_count", len(f["missing"]))}
        return 0
    note = other_side_note(variant, where, list(f["extra"]), options)
    if note:
        into["other_side"] = note
    found = reasons(variant, where, turns, list(f["extra"]), list(f["missing"]), left, options)
    found["more"] += max(f.get("extra_count", 0) - len(f["extra"]), 0) \
        + max(f.get("missing_count", 0) - len(f["missing"]), 0)
    if found["items"] or found["more"]:
        into["reasons"] = found
    return len(found["items"])


# --- perft drill-down -------------------------------------------------------

_oracle = None


def _reference():
    global _oracle
    if _oracle is None:
        _oracle = OracleEngine()
    return _oracle


def drill_down(case, engine: Engine, oracle=None, timeout: float | None = None) -> dict:
    """Walk the perft tree against the oracle to the first position whose move list differs.

    At each depth both sides are asked for ``divide`` at the position reached
    by the case's moves plus the line so far; the first step (in sorted order)
    whose count differs is added to the line, until the steps themselves differ.
    Returns ``{"unit", "steps", "line", "end", ...}`` (``compare.drill_down_lines``
    renders it; ``schemas/report.schema.json`` describes it). ``timeout`` is the
    limit of each request to the engine.
    """
    oracle = oracle or _reference()
    found = _descend(case, engine, oracle, timeout)
    if found["end"] != "lists-differ":   # where it stopped, for the reader to look at
        base = {k: case.request[k] for k in ("variant", "fen") if k in case.request}
        moves = list(case.request.get("moves") or []) + found["line"]
        at = oracle.request({"op": "fen", **base, **({"moves": moves} if moves else {})})
        found["position"] = at["fen"] if at.get("ok") else None
        found["line_san"] = SanNamer(case.variant, case.request).line(found["line"])
    return found


def _descend(case, engine, oracle, timeout) -> dict:
    """The walk of ``drill_down``."""
    req = case.request
    turns = bool(req.get("turns"))
    base = {k: req[k] for k in ("variant", "fen") if k in req}
    start = list(req.get("moves") or [])
    depth = req["depth"]
    out = {"unit": "turns" if turns else "moves", "steps": [], "line": []}
    line = out["line"]
    while depth >= 1:
        ask = {"op": "perft", **base, "depth": depth, "divide": True, "turns": turns}
        if start or line:
            ask["moves"] = start + line
        want = oracle.request(dict(ask))
        if not want.get("ok"):
            return {**out, "end": "stopped",
                    "message": f"the oracle refuses this position: {want['error']['message']}"}
        try:
            got = engine.request(dict(ask), timeout=timeout)
        except EngineFailure as e:
            return {**out, "end": "stopped", "message": f"{e.kind}: {e.message}"}
        except Exception as e:
            return {**out, "end": "stopped", "message": f"the engine failed: {type(e).__name__}: {e}"}
        if not isinstance(got, dict) or got.get("ok") is not True \
                or not isinstance(got.get("divide"), dict):
            why = (got.get("error") or {}) if isinstance(got, dict) else {}
            detail = f"{why.get('code')}: {why.get('message')}" if why else "no divide in its answer"
            return {**out, "end": "no-divide", "message": detail}
        w, g = want["divide"], got["divide"]
        if set(w) != set(g):
            return {**out, **_lists_differ(case, start, line, depth, w, g, oracle, base)}
        differing = [m for m in sorted(w) if w[m] != g[m]]
        if not differing:
            return {**out, "end": "divide-agrees", "depth": depth}
        step = differing[0]
        out["steps"].append({"depth": depth, "line": list(line), "move": step,
                             "expected": w[step], "got": g[step]})
        line.append(step)
        depth -= 1
    return {**out, "end": "leaf"}


def _lists_differ(case, start, line, depth, want, got, oracle, base) -> dict:
    """Where the two move lists part: the position, and what is missing and extra there."""
    ask = {"op": "fen", **base}
    if start or line:
        ask["moves"] = start + line
    fen = oracle.request(ask)
    here = SanNamer(case.variant, {"fen": base.get("fen"), "moves": start + line})
    missing, extra = sorted(set(want) - set(got)), sorted(set(got) - set(want))
    return {"end": "lists-differ", "depth": depth,
            "line_san": SanNamer(case.variant, case.request).line(line),
            "position": fen["fen"] if fen.get("ok") else None,
            "expected_count": len(want), "got_count": len(got),
            "missing": missing[:DIFF_ITEMS], "missing_count": len(missing),
            "extra": extra[:DIFF_ITEMS], "extra_count": len(extra),
            "san": here.names(missing[:DIFF_ITEMS] + extra[:DIFF_ITEMS])}


# --- many cases -------------------------------------------------------------

class Worker:
    """Runs cases one after another on one engine, and gives up on an engine that keeps breaking."""

    def __init__(self, engine: Engine, claims: dict, options: RunOptions, progress=None, clock=None,
                 keeper: reports.AnswerKeeper | None = None, declared=None):
        self.engine = engine
        self.declared = declared
        self.keeper = keeper or reports.AnswerKeeper()
        self.claims = claims
        self.options = options
        self.progress = progress
        self.clock = clock or time.perf_counter
        self.broken_in_a_row = 0
        self.answered = []   # results judged on answers of the engine's current process
        self.memo = {}       # answers along the games searched for a first divergence (run_case)

    @property
    def given_up(self) -> bool:
        give_up = self.options.give_up
        return bool(give_up) and self.broken_in_a_row >= give_up

    def unsent(self, case) -> Result:
        """A case this engine will not get: skipped if it would have been anyway, else an error."""
        why = skip_reason(case, self.claims, self.engine.name, self.options.max_nodes)
        if why:
            return Result(case, "skipped", [why])
        if self.declared or getattr(case, "options", None):
            plan = (self.declared or NO_OPTIONS).plan(case)
            if plan.skip:
                return Result(case, "skipped", [plan.skip], by_options=plan.by_declared)
        n = self.broken_in_a_row
        times = "crash or timeout" if n == 1 else "crashes or timeouts"
        # (an error by its outcome, so the run fails, but the engine never saw the case)
        why = (f"never sent, because the run stopped sending cases to this engine after {n} {times} "
               f"in a row (--give-up {self.options.give_up})")
        return _error(case, "not-run", [f"not run: {why}; {reports.NOT_JUDGED}"], why)

    def _follow(self, result: Result) -> None:
        """Keep the results whose answers came from the engine's current process: stray
        output from it puts every one of them in doubt, and a failure ends the process."""
        if result.doubts_previous:
            self.doubt_answers()
        if result.outcome in ("passed", "failed"):
            self.answered.append(result)
        elif result.restarted:
            self.answered = []

    def doubt_answers(self) -> None:
        for earlier in self.answered:
            doubt(earlier)
        self.answered = []

    def finish(self) -> None:
        """Close the engine; output it wrote that answered nothing puts its answers in doubt."""
        trailing = getattr(self.engine, "trailing_output", None)
        if trailing is not None and trailing():
            self.doubt_answers()

    def run(self, case) -> Result:
        if self.progress:
            self.progress.start(case.id)
        began = self.clock()
        result = None
        try:
            if self.given_up:
                result = self.unsent(case)
            else:
                result = run_case(case, self.engine, self.claims, self.options.max_nodes,
                                  timeout=self.options.timeout, declared=self.declared,
                                  memo=self.memo)
                if result.outcome != "skipped":
                    result.span = (began, self.clock())
                reports.keep_for_reports(result, self.keeper)
                self._follow(result)
                if result.broke:
                    self.broken_in_a_row += 1
                elif result.outcome != "skipped":
                    self.broken_in_a_row = 0
            return result
        finally:
            if self.progress:
                bad = result is not None and result.outcome in ("failed", "error")
                self.progress.finish(case.id, bad)


def doubt(result: Result) -> None:
    """The engine process that gave ``result``'s answer also wrote a line nobody asked for
    (an engine writing each answer twice): its answers prove nothing."""
    if result.outcome not in ("passed", "failed"):
        return
    message = ("the engine process that gave this answer also wrote a line that answered no "
               "request, so this answer may not have been written for this request either")
    result.outcome, result.diff = "error", None
    result.problem = {"kind": "protocol-error", "message": message}
    result.lines = [f"protocol-error: {message}"]


def run_cases(cases, engine: Engine, options: RunOptions | None = None) -> list[Result]:
    """Run ``cases`` one by one on ``engine`` (hello first), without progress; returns the results."""
    options = options or RunOptions()
    claims = engine.hello()
    declared = judged_under(claims, options)
    results, _ = _sequential(cases, Worker(engine, claims, options, declared=declared))
    keep_consistent(results)
    return results


def judged_under(claims: dict, options: RunOptions):
    """The options a run judges under (``declared.Declared``): the hello's, overridden by
    --option.  RulesError(unknown-option) naming the known ones, for either."""
    from doublecheck.harness.declared import Declared
    declared = Declared.of(claims.get("options"), options.declared, options.cases_dir)
    declared.check_playable(claims.get("variants") or ())
    return declared


def _sequential(cases, worker):
    results = []
    try:
        for case in cases:
            results.append(worker.run(case))
    except KeyboardInterrupt:
        return results, True
    return results, False


def _parallel(cases, workers):
    """Each worker gets its own thread; cases go to whichever is free, the most expensive
    first (so two long perft cases do not end up last on one engine). Results keep case order."""
    todo = queue.Queue()
    for i in sorted(range(len(cases)), key=lambda i: -expected_nodes(cases[i])):
        todo.put((i, cases[i]))
    done = queue.Queue()
    stop = threading.Event()

    def work(worker):
        while not stop.is_set() and not worker.given_up:  # a broken engine leaves the rest to others
            try:
                i, case = todo.get_nowait()
            except queue.Empty:
                return
            try:
                result = worker.run(case)
            except BaseException as e:  # keep the run going; this case is an error
                result = _error(case, HARNESS_ERROR, [f"harness error: {type(e).__name__}: {e}"])
            if not stop.is_set():
                done.put((i, result))

    threads = [threading.Thread(target=work, args=(w,), daemon=True) for w in workers]
    for t in threads:
        t.start()
    got = {}
    try:
        while len(got) < len(cases) and (any(t.is_alive() for t in threads) or not done.empty()):
            try:
                i, result = done.get(timeout=0.1)
            except queue.Empty:
                continue
            got[i] = result
    except KeyboardInterrupt:
        stop.set()
        return [got[i] for i in sorted(got)], True
    while not todo.empty():  # every engine gave up
        i, case = todo.get_nowait()
        got[i] = workers[0].unsent(case)
    return [got[i] for i in sorted(got)], False


# --- xfail ------------------------------------------------------------------

def apply_xfail(results, xfail: dict) -> None:
    """Listed cases: a failure or error becomes xfailed, a pass becomes xpassed."""
    for r in results:
        if r.case.id not in xfail:
            continue
        r.reason = xfail[r.case.id]
        if r.outcome in ("failed", "error"):
            r.actual, r.outcome = r.outcome, "xfailed"
        elif r.outcome == "passed":
            r.actual, r.outcome = r.outcome, "xpassed"
            r.lines = [f"unexpected pass: the case is listed as an expected failure ({r.reason}); "
                       "remove it from the xfail file"]


# --- the command ------------------------------------------------------------

class _Terminated(KeyboardInterrupt):
    """SIGTERM, handled like Ctrl-C so the reports of finished cases are still written."""


class _Stop(Exception):
    """The run cannot go on; the message has been printed. ``code`` is the exit status."""

    def __init__(self, code: int):
        super().__init__(code)
        self.code = code


def run_command(options: RunOptions | None = None, engine=None, spec: EngineSpec | None = None,
                out=None, err=None) -> int:
    """``doublecheck run``: load, select, run, report; returns the exit code.

    Deep-tier cases run only with ``deep``; ``max_nodes`` only leaves cases out.

    ``engine`` is a ready engine (tests); otherwise ``spec`` says what to start
    (the oracle by default). Reports are written even when the run is
    interrupted, with the cases finished so far.
    """
    options = options or RunOptions()
    out, err = out or sys.stdout, err or sys.stderr
    spec = spec or EngineSpec(timeout=options.timeout)
    try:
        xfail, cases, problems, chosen = _prepare(options, err)
        if options.list_only:
            from doublecheck.harness.listing import list_cases
            return list_cases(chosen, options, out)
        run = _execute(options, chosen, engine, spec, err)
    except _Stop as stop:
        return stop.code
    known = {c.id for c in cases} if not xfail or case_filter(
        options.variant, options.rule, options.patterns) is None else case_ids(options.cases_dir)
    run.problems = problems
    run.xfail_file = str(options.xfail_file) if options.xfail_file else None
    run.stale_xfail = sorted(i for i in xfail if i not in known)
    apply_xfail(run.results, xfail)
    if run.interrupted:
        print(f"interrupted: reporting the {len(run.results)} of {len(chosen)} cases that finished",
              file=err)
    for stale in run.stale_xfail:
        print(f"warning: {options.xfail_file}: no case has the id {stale}", file=err)
    reports.STDOUT_FORMATS[options.fmt](run, out)
    return _write_reports(run, options, xfail, run.exit_code(), err)


def _prepare(options, err):
    """(xfail entries, every case, case file problems, the selected cases); _Stop if unusable."""
    if options.write_xfail and Path(options.write_xfail).exists() and not options.force:
        print(f"error: {options.write_xfail} exists; pass --force to replace it "
              "(or choose another file)", file=err)
        raise _Stop(EXIT_USAGE)
    if options.variant is not None:
        variants.get(options.variant)  # RulesError unknown-variant, naming the known ids
    xfail = {}
    if options.xfail_file:
        xfail, trouble = reports.read_xfail(options.xfail_file)
        if trouble:
            for line in trouble:
                print(f"error: {line}", file=err)
            raise _Stop(EXIT_USAGE)
    cases_dir = check_cases_dir(options.cases_dir)   # DataError: the CLI prints it, exit 2
    schema("protocol.schema.json")                   # the answers are checked against it
    wanted = case_filter(options.variant, options.rule, options.patterns)
    cases, problems = load_cases(cases_dir, deep=True, wanted=wanted)   # only the files that are run
    found = select_cases(cases, options.variant, options.rule, options.patterns)
    chosen = select_tier(found, options.deep, options.max_nodes)
    if not chosen:
        wanted = ", ".join(f"{k}={v}" for k, v in (("variant", options.variant), ("rule", options.rule),
                                                   ("pattern", " ".join(options.patterns))) if v)
        hint = "; only deep-tier cases match: add --deep" if found else ""
        print(f"error: no cases selected ({wanted or 'no cases found'} in {_searched(options, cases_dir)}){hint}",
              file=err)
        for problem in problems:
            print(f"  {problem}", file=err)
        raise _Stop(EXIT_USAGE)
    return xfail, cases, problems, chosen


def _searched(options, cases_dir) -> str:
    """The case tree a run of ``--variant`` read: a plugin variant's own (its package's) unless
    the tree given holds the variant's cases itself."""
    from doublecheck.casefiles import plugin_trees
    trees = [tree for tree, ids in plugin_trees(cases_dir) if options.variant in ids]
    return f"{trees[0]} (variant plugin {variants.descriptor(options.variant).plugin})" if trees else str(cases_dir)


def run_jobs(options, chosen) -> int:
    """The engine processes of a run: --jobs N, or for --jobs auto the usable cores, one
    per CASES_PER_JOB selected cases (a run of one case file stays in this process)."""
    return options.jobs if options.jobs != JOBS_AUTO else auto_jobs(len(chosen), CASES_PER_JOB)


def _execute(options, chosen, engine, spec, err) -> Run:
    """Start the engines, run the chosen cases with progress, close the engines."""
    started = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    clock = time.perf_counter()
    engines = []
    previous = _catch_sigterm()
    try:
        try:
            if engine is not None:
                engines = [engine]
            elif run_jobs(options, chosen) > 1:
                engines = [spec.make_process() for _ in range(run_jobs(options, chosen))]
            else:
                engines = [spec.make()]
            claims = engines[0].hello()
            for other in engines[1:]:
                other.hello()
            declared = judged_under(claims, options)
        except HelloError as e:  # (its text may quote the engine: shown visible, cut)
            shown = "\n".join(reports.visible(line) for line in reports.keep_lines(str(e).splitlines()))
            print(f"error: cannot use {spec.describe() if engine is None else engine.name}: {shown}",
                  file=err)
            raise _Stop(EXIT_USAGE) from None
        except KeyboardInterrupt:
            print("interrupted before any case ran", file=err)
            raise _Stop(EXIT_INTERRUPTED) from None
        tick = lambda: time.perf_counter() - clock  # noqa: E731
        with Progress("doublecheck run", len(chosen), "cases", "failed or errored", stream=err,
                      quiet=options.quiet) as progress:
            keeper = reports.AnswerKeeper()   # one budget for the answers of the whole run
            workers = [Worker(e, claims, options, progress, tick, keeper, declared) for e in engines]
            wide = deepsplit.cases_to_split(chosen, options, spec, engine)   # counted over every job
            rest = [c for c in chosen if id(c) not in {id(w) for w in wide}] if wide else chosen
            if len(workers) > 1:
                results, interrupted = _parallel(rest, workers)
            else:
                results, interrupted = _in_case_order(rest, _sequential(cheap_first(rest), workers[0]))
            for worker in workers:
                worker.finish()
            if wide and not interrupted:
                engines.append(deepsplit.split_engine(options, spec))
                split = Worker(engines[-1], claims, options, progress, tick, keeper, declared)
                more, interrupted = _sequential(cheap_first(wide), split)
                split.finish()
                results, _ = _in_case_order(chosen, (results + more, interrupted))
    finally:
        _restore_sigterm(previous)
        for e in engines:
            try:
                e.close()
            except Exception:
                pass
    keep_consistent(results)
    name = engines[0].name
    run = Run(results, [], name, spec.describe() if engine is None else name, claims=claims,
              selected=len(chosen), interrupted=interrupted, seconds=time.perf_counter() - clock,
              started=started, jobs=len(workers), timeout=options.timeout,
              declared=declared or None, rerun=spec.arguments() if engine is None else "")
    run.hints = speed_hints(run, options.max_nodes) + noise_hint(engines)
    return run


# --- a first report soon ------------------------------------------------------

SLOW_RUN = 60.0   # seconds after which a run that could be quicker says how


def cheap_first(cases) -> list:
    """The cases in the order to run them: every other request first (in case order), then the
    perft counts from the smallest to the largest, so a slow engine shows its first failures
    in seconds and the big counts come last."""
    return sorted(cases, key=expected_nodes)   # stable: equal costs keep the case order


def _in_case_order(cases, outcome):
    """(results in the order of ``cases``, interrupted) from a run made in another order."""
    results, interrupted = outcome
    place = {case.id: i for i, case in enumerate(cases)}   # (a result may hold a copy of its
    return sorted(results, key=lambda r: place[r.case.id]), interrupted   # case: declared options)


def speed_hints(run, max_nodes) -> list[str]:
    """A hint naming --quick and --max-nodes when perft cases timed out or the run was slow,
    unless the run already left the large counts out."""
    if max_nodes is not None and max_nodes <= QUICK_MAX_NODES:
        return []
    late = [r for r in run.results if r.problem and r.problem["kind"] == "timeout"
            and expected_nodes(r.case)]
    if not late and run.seconds < SLOW_RUN:
        return []
    why = (f"{len(late)} perft case{'s' if len(late) > 1 else ''} timed out" if late
           else f"this run took {run.seconds:.0f} s")
    return [f"hint: {why}. For a first report in about a minute, run with --quick (every case "
            f"but the perft counts above {QUICK_MAX_NODES} nodes), or choose a limit with "
            "--max-nodes N; then run everything once the quick run passes."]


def noise_hint(engines) -> list[str]:
    """A hint when engine processes wrote lines on stdout that are no answer (log lines): they
    were skipped and counted (protocol.is_noise), and belong on stderr."""
    total, first = 0, None
    for engine in engines:
        count = getattr(engine, "stdout_noise", None)
        if count is not None:
            n, line = count()
            total, first = total + n, first if first is not None else line
    if not total:
        return []
    lines = f"{total} line{'s' if total > 1 else ''}"
    return [f"hint: the engine wrote {lines} on stdout that answered no request (the first: "
            f"{first!r}); they were skipped. stdout carries answers only: write logs to stderr, "
            "whose last lines a crash or timeout report shows (doublecheck docs protocol)."]


def _write_reports(run, options, xfail, code, err) -> int:
    """Write the report files asked for; an unwritable one makes the exit status 2."""
    written = [(path, reports.REPORT_FILES[name].write) for name, path in options.files.items()]
    if options.write_xfail and run.interrupted:
        print(f"not writing {options.write_xfail}: the run was interrupted, so the baseline would "
              "be incomplete", file=err)
    elif options.write_xfail:
        written.append((options.write_xfail, lambda r, p: reports.write_xfail(r, p, xfail)))
    for path, write in written:
        if path:
            try:
                write(run, path)
            except Exception as e:  # one unwritable report must not stop the others
                why = e if getattr(e, "code", None) else f"cannot write {path}: {type(e).__name__}: {e}"
                print(f"error: {why}", file=err)
                code = max(code, EXIT_USAGE) if code != EXIT_INTERRUPTED else code
    return code


def _catch_sigterm():
    if threading.current_thread() is not threading.main_thread():
        return None

    def stop(signum, frame):
        raise _Terminated()
    return signal.signal(signal.SIGTERM, stop)


def _restore_sigterm(previous):
    if previous is not None:
        signal.signal(signal.SIGTERM, previous)
