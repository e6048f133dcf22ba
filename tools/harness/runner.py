"""Run conformance cases against an engine and report the results.

A case ends as ``passed``, ``failed`` (the answer differs; diff lines say how),
``error`` (the engine broke: a crash, a timeout, an answer that does not
follow the protocol, or an internal error it reported) or ``skipped`` (not
run, with the reason: the engine does not claim the variant or operation in
its hello, or a perft case is larger than ``--max-nodes``). With an xfail
file, a listed case that fails or errors becomes ``xfailed`` and a listed
case that passes becomes ``xpassed`` (an unexpected pass, which fails the run).

When a perft count differs and the engine answers ``divide``, the runner
descends the perft tree against the oracle to the first position whose move
list differs, and shows the line that leads there (``drill_down``).
"""

from __future__ import annotations

import fnmatch
import queue
import shutil
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from doublecheck.harness import report as reports
from doublecheck.casefiles import CASES_DIR, load_cases, select, select_tier
from doublecheck.harness.compare import SanNamer, compare, move_list
from doublecheck.harness.engines import Engine, EngineFailure, EngineSpec, HelloError, OracleEngine
from doublecheck.harness.protocol import response_problems
from doublecheck.harness.report import OUTCOMES, XFAIL_OUTCOMES

GIVE_UP = 5  # crashes or timeouts in a row after which an engine gets no more cases

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


@dataclass
class Result:
    case: object  # doublecheck.casefiles.Case
    outcome: str
    lines: list[str] = field(default_factory=list)
    seconds: float = 0.0
    broke: bool = False       # the engine crashed, hung or lost step (counts toward giving up)
    actual: str | None = None  # the outcome before the xfail list was applied
    reason: str | None = None  # the xfail reason


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
    xfail_file: str | None = None
    stale_xfail: list[str] = field(default_factory=list)  # listed ids that no case has

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
    def matches(case_id, p):
        return fnmatch.fnmatchcase(case_id, p) or case_id.startswith(p.rstrip("/") + "/")
    return [c for c in select(cases, variant, rule)
            if not patterns or any(matches(c.id, p) for p in patterns)]


# --- one case ---------------------------------------------------------------

def skip_reason(case, claims: dict, engine_name: str, max_nodes=None) -> str | None:
    op = case.request.get("op")
    if case.variant not in claims.get("variants", ()):
        return f"{engine_name} does not claim variant {case.variant} in its hello"
    if op not in claims.get("ops", ()):
        return f"{engine_name} does not claim operation {op} in its hello"
    nodes = case.expect.get("nodes", sum(case.expect.get("divide", {}).values()))
    if max_nodes is not None and nodes > max_nodes:
        return f"expects {nodes} nodes, more than --max-nodes {max_nodes}"
    return None


def run_case(case, engine: Engine, claims: dict, max_nodes=None, drill=True) -> Result:
    why = skip_reason(case, claims, engine.name, max_nodes)
    if why:
        return Result(case, "skipped", [why])
    start = time.perf_counter()
    result = _judge(case, engine, drill)
    result.seconds = time.perf_counter() - start
    return result


def _judge(case, engine, drill) -> Result:
    op = case.request.get("op")
    try:
        answer = engine.request(dict(case.request))
    except EngineFailure as e:
        return Result(case, "error", e.lines(), broke=e.kind in ("crash", "timeout"))
    except Exception as e:
        return Result(case, "error", [f"the engine failed: {type(e).__name__}: {e}"])
    if not isinstance(answer, dict) or not isinstance(answer.get("ok"), bool):
        return Result(case, "error", [f"protocol-error: malformed answer: {answer!r:.200}"])
    wrong = response_problems(op, {"id": 0, **answer})
    if wrong:
        return Result(case, "error", [f"protocol-error: the answer to {op} does not follow "
                                      "the protocol schema:"] + [f"  {w}" for w in wrong])
    if not answer["ok"] and answer["error"]["code"] == "internal-error":
        return Result(case, "error", [f"internal-error: {answer['error']['message']}"])
    if not answer["ok"] and answer["error"]["code"] == "unsupported" \
            and case.expect.get("error", {}).get("code") != "unsupported":
        # the engine declined this one request (e.g. a UCI engine cannot express it)
        return Result(case, "skipped", [f"the engine does not support this request: "
                                        f"{answer['error']['message']}"])
    try:
        lines = compare(case.variant, case.expect, answer, case.request)
    except Exception as e:
        return Result(case, "error", [f"could not compare the answer: {type(e).__name__}: {e}"])
    if lines and drill and op == "perft" and answer["ok"] and "error" not in case.expect \
            and case.request.get("depth", 0) >= 1:
        lines += drill_down(case, engine)
    return Result(case, "failed" if lines else "passed", lines)


# --- perft drill-down -------------------------------------------------------

_oracle = None


def _reference():
    global _oracle
    if _oracle is None:
        _oracle = OracleEngine()
    return _oracle


def drill_down(case, engine: Engine, oracle=None) -> list[str]:
    """Walk the perft tree against the oracle to the first position whose move list differs.

    At each depth both sides are asked for ``divide`` at the position reached
    by the case's moves plus the line so far; the first step (in sorted order)
    whose count differs is added to the line, until the steps themselves differ.
    """
    oracle = oracle or _reference()
    req = case.request
    turns = bool(req.get("turns"))
    unit = "turns" if turns else "moves"
    base = {k: req[k] for k in ("variant", "fen") if k in req}
    start = list(req.get("moves") or [])
    depth, line = req["depth"], []
    out = [f"drill-down (the engine's perft divide against the oracle's, counting {unit}):"]
    while depth >= 1:
        ask = {"op": "perft", **base, "depth": depth, "divide": True, "turns": turns}
        if start or line:
            ask["moves"] = start + line
        want = oracle.request(dict(ask))
        if not want.get("ok"):
            return out + [f"  stopped: the oracle refuses this position: {want['error']['message']}"]
        try:
            got = engine.request(dict(ask))
        except EngineFailure as e:
            return out + [f"  stopped: {e.kind}: {e.message}"]
        except Exception as e:
            return out + [f"  stopped: the engine failed: {type(e).__name__}: {e}"]
        if not isinstance(got, dict) or got.get("ok") is not True \
                or not isinstance(got.get("divide"), dict):
            why = (got.get("error") or {}) if isinstance(got, dict) else {}
            detail = f"{why.get('code')}: {why.get('message')}" if why else "no divide in its answer"
            return out + [f"  not possible: the engine does not answer perft with divide ({detail})"]
        w, g = want["divide"], got["divide"]
        if set(w) != set(g):
            return out + _difference(case, start, line, depth, unit, w, g, oracle, base)
        differing = [m for m in sorted(w) if w[m] != g[m]]
        if not differing:
            return out + [f"  depth {depth}: the engine's divide here matches the oracle's, but the "
                          "count one level up did not: its perft and its divide disagree"]
        step = differing[0]
        where = f"after {' '.join(line)}, " if line else ""
        out.append(f"  depth {depth}: {where}{step} has {g[step]} below it, expected {w[step]}")
        line.append(step)
        depth -= 1
    return out + [f"  at depth 1 the engine counts {line[-1]} as more than one node"]


def _difference(case, start, line, depth, unit, want, got, oracle, base) -> list[str]:
    """The lines that show where the two move lists part."""
    namer = SanNamer(case.variant, case.request)
    shown = " ".join(line) if line else "(none: the case position itself)"
    san = f" ({namer.line(line)})" if line else ""
    out = [f"  line from the case position: {shown}{san}"]
    ask = {"op": "fen", **base}
    if start or line:
        ask["moves"] = start + line
    fen = oracle.request(ask)
    if fen.get("ok"):
        out.append(f"  position: {fen['fen']}")
    here = SanNamer(case.variant, {"fen": base.get("fen"), "moves": start + line})
    missing, extra = sorted(set(want) - set(got)), sorted(set(got) - set(want))
    out.append(f"  {unit} there: expected {len(want)}, got {len(got)} (depth {depth})")
    if missing:
        out.append("  missing (expected, not produced): " + move_list(missing, here))
    if extra:
        out.append("  extra (produced, not expected): " + move_list(extra, here))
    return out


# --- many cases -------------------------------------------------------------

class Worker:
    """Runs cases one after another on one engine, and gives up on an engine that keeps breaking."""

    def __init__(self, engine: Engine, claims: dict, max_nodes=None, give_up=GIVE_UP):
        self.engine = engine
        self.claims = claims
        self.max_nodes = max_nodes
        self.give_up = give_up
        self.broken_in_a_row = 0

    @property
    def given_up(self) -> bool:
        return bool(self.give_up) and self.broken_in_a_row >= self.give_up

    def not_run(self, case) -> Result:
        return Result(case, "error", [f"not run: the engine crashed or timed out "
                                      f"{self.broken_in_a_row} times in a row"])

    def run(self, case) -> Result:
        if self.given_up:
            return self.not_run(case)
        result = run_case(case, self.engine, self.claims, self.max_nodes)
        if result.broke:
            self.broken_in_a_row += 1
        elif result.outcome != "skipped":
            self.broken_in_a_row = 0
        return result


def run_cases(cases, engine: Engine, max_nodes=None, stream=None, give_up=GIVE_UP) -> list[Result]:
    """Run ``cases`` one by one on ``engine`` (hello first); returns the results."""
    claims = engine.hello()
    results, _ = _sequential(cases, Worker(engine, claims, max_nodes, give_up),
                             Progress(stream or sys.stderr))
    return results


def _sequential(cases, worker, progress):
    results = []
    try:
        for i, case in enumerate(cases):
            progress.show(f"[{i + 1}/{len(cases)}] {case.id}")
            results.append(worker.run(case))
    except KeyboardInterrupt:
        return results, True
    finally:
        progress.clear()
    return results, False


def _parallel(cases, engines, claims, max_nodes, give_up, progress):
    """Each engine gets its own thread; cases go to whichever is free. Results keep case order."""
    todo = queue.Queue()
    for item in enumerate(cases):
        todo.put(item)
    done = queue.Queue()
    stop = threading.Event()

    workers = [Worker(engine, claims, max_nodes, give_up) for engine in engines]

    def work(worker):
        while not stop.is_set() and not worker.given_up:  # a broken engine leaves the rest to others
            try:
                i, case = todo.get_nowait()
            except queue.Empty:
                return
            try:
                result = worker.run(case)
            except BaseException as e:  # keep the run going; this case is an error
                result = Result(case, "error", [f"harness error: {type(e).__name__}: {e}"])
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
            progress.show(f"[{len(got)}/{len(cases)}] {cases[i].id}")
    except KeyboardInterrupt:
        stop.set()
        return [got[i] for i in sorted(got)], True
    finally:
        progress.clear()
    while not todo.empty():  # every engine gave up
        i, case = todo.get_nowait()
        got[i] = workers[0].not_run(case)
    return [got[i] for i in sorted(got)], False


class Progress:
    """One self-overwriting status line, only when ``stream`` is a terminal."""

    def __init__(self, stream):
        self.stream = stream
        self.on = hasattr(stream, "isatty") and stream.isatty()
        self.width = shutil.get_terminal_size().columns - 1

    def show(self, text):
        if self.on:
            self.stream.write("\r" + text[:self.width].ljust(self.width))
            self.stream.flush()

    def clear(self):
        self.show("")
        if self.on:
            self.stream.write("\r")


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

def report(results, problems, engine_name, out=None):
    """Print the plain-text report (kept for callers of the earlier interface)."""
    reports.text(Run(results, problems, engine_name, engine_name, selected=len(results)),
                 out or sys.stdout)


def describe(result: Result) -> str:
    return reports.describe(result)


def exit_code(results, problems) -> int:
    return Run(results, problems, "", "").exit_code()


class _Terminated(KeyboardInterrupt):
    """SIGTERM, handled like Ctrl-C so the reports of finished cases are still written."""


def run_command(cases_dir=CASES_DIR, variant=None, rule=None, patterns=(), max_nodes=None,
                engine=None, out=None, err=None, spec: EngineSpec | None = None, jobs: int = 1,
                give_up: int = GIVE_UP, fmt: str = "text", json_file=None, junit_file=None,
                xfail_file=None, write_xfail=None, force=False, extra_reports=(),
                deep: bool = False) -> int:
    """``doublecheck run``: load, select, run, report; returns the exit code.

    Deep-tier cases run only with ``deep`` (or when within ``max_nodes``).

    ``engine`` is a ready engine (tests); otherwise ``spec`` says what to start
    (the oracle by default). ``extra_reports`` holds more ``(path, write)``
    pairs, ``write(run, path)`` being called like the JSON and JUnit writers.
    Reports are written even when the run is interrupted, with the cases
    finished so far.
    """
    out, err = out or sys.stdout, err or sys.stderr
    spec = spec or EngineSpec()
    if write_xfail and Path(write_xfail).exists() and not force:
        print(f"error: {write_xfail} exists; pass --force to replace it "
              "(or choose another file)", file=err)
        return EXIT_USAGE
    xfail = {}
    if xfail_file:
        xfail, trouble = reports.read_xfail(xfail_file)
        if trouble:
            for line in trouble:
                print(f"error: {line}", file=err)
            return EXIT_USAGE
    if not Path(cases_dir).is_dir():
        print(f"error: cases directory {cases_dir} does not exist", file=err)
        return EXIT_USAGE
    cases, problems = load_cases(cases_dir, deep=True)
    found = select_cases(cases, variant, rule, patterns)
    chosen = select_tier(found, deep, max_nodes)
    if not chosen:
        wanted = ", ".join(f"{k}={v}" for k, v in
                           (("variant", variant), ("rule", rule), ("pattern", " ".join(patterns)))
                           if v)
        hint = "; only deep-tier cases match: add --deep" if found else ""
        print(f"error: no cases selected ({wanted or 'no cases found'} in {cases_dir}){hint}", file=err)
        for problem in problems:
            print(f"  {problem}", file=err)
        return EXIT_USAGE

    started = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    clock = time.perf_counter()
    engines = []
    previous = _catch_sigterm()
    try:
        try:
            if engine is not None:
                engines = [engine]
            elif jobs > 1:
                engines = [spec.make_process() for _ in range(jobs)]
            else:
                engines = [spec.make()]
            claims = engines[0].hello()
            for other in engines[1:]:
                other.hello()
        except HelloError as e:
            print(f"error: cannot use {spec.describe() if engine is None else engine.name}: {e}",
                  file=err)
            return EXIT_USAGE
        except KeyboardInterrupt:
            print("interrupted before any case ran", file=err)
            return EXIT_INTERRUPTED
        name = engines[0].name
        progress = Progress(err)
        if len(engines) > 1:
            results, interrupted = _parallel(chosen, engines, claims, max_nodes, give_up, progress)
        else:
            results, interrupted = _sequential(chosen, Worker(engines[0], claims, max_nodes,
                                                              give_up), progress)
    finally:
        _restore_sigterm(previous)
        for e in engines:
            try:
                e.close()
            except Exception:
                pass

    known = {c.id for c in cases}
    run = Run(results, problems, name, spec.describe() if engine is None else name,
              claims=claims, selected=len(chosen), interrupted=interrupted,
              seconds=time.perf_counter() - clock, started=started, jobs=len(engines),
              xfail_file=str(xfail_file) if xfail_file else None,
              stale_xfail=sorted(i for i in xfail if i not in known))
    apply_xfail(results, xfail)
    if interrupted:
        print(f"interrupted: reporting the {len(results)} of {len(chosen)} cases that finished",
              file=err)
    for stale in run.stale_xfail:
        print(f"warning: {xfail_file}: no case has the id {stale}", file=err)
    code = run.exit_code()
    (reports.markdown if fmt == "markdown" else reports.text)(run, out)
    written = [(json_file, lambda p: reports.write_json(run, p)),
               (junit_file, lambda p: reports.write_junit(run, p))]
    written += [(path, lambda p, w=write: w(run, p)) for path, write in extra_reports]
    if write_xfail and interrupted:
        print(f"not writing {write_xfail}: the run was interrupted, so the baseline would be "
              "incomplete", file=err)
    elif write_xfail:
        written.append((write_xfail, lambda p: reports.write_xfail(run, p, xfail)))
    for path, write in written:
        if path:
            try:
                write(path)
            except Exception as e:  # one unwritable report must not stop the others
                print(f"error: cannot write {path}: {type(e).__name__}: {e}", file=err)
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
