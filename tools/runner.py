"""Run conformance cases against an engine and report the results.

A case ends as ``passed``, ``failed`` (the answer differs; diff lines say how),
``error`` (the engine broke: an internal error, a crash or a malformed answer)
or ``skipped`` (not run, with the reason: the engine does not claim the variant
or operation, or a perft case is larger than ``--max-nodes``).
"""

import fnmatch
import shutil
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from tools.cases import CASES_DIR, load_cases, select
from tools.compare import compare
from tools.engines import Engine, OracleEngine

OUTCOMES = ("passed", "failed", "error", "skipped")


@dataclass
class Result:
    case: object  # tools.cases.Case
    outcome: str
    lines: list[str] = field(default_factory=list)


def select_cases(cases, variant=None, rule=None, patterns=()):
    """Cases of ``variant`` citing ``rule`` whose id matches one of ``patterns``.

    A pattern is a shell-style glob over case ids (``chess/castling/*``); a
    pattern without wildcards also selects every id below it (``chess/castling``).
    """
    def matches(case_id, p):
        return fnmatch.fnmatchcase(case_id, p) or case_id.startswith(p.rstrip("/") + "/")
    return [c for c in select(cases, variant, rule)
            if not patterns or any(matches(c.id, p) for p in patterns)]


def run_case(case, engine: Engine, claims: dict, max_nodes=None) -> Result:
    op = case.request.get("op")
    if case.variant not in claims.get("variants", ()):
        return Result(case, "skipped", [f"{engine.name} does not support variant {case.variant}"])
    if op not in claims.get("ops", ()):
        return Result(case, "skipped", [f"{engine.name} does not support operation {op}"])
    nodes = case.expect.get("nodes", sum(case.expect.get("divide", {}).values()))
    if max_nodes is not None and nodes > max_nodes:
        return Result(case, "skipped", [f"expects {nodes} nodes, more than --max-nodes {max_nodes}"])
    try:
        answer = engine.request(dict(case.request))
    except Exception as e:
        return Result(case, "error", [f"the engine failed: {type(e).__name__}: {e}"])
    if not isinstance(answer, dict) or not isinstance(answer.get("ok"), bool):
        return Result(case, "error", [f"malformed answer from the engine: {answer!r:.200}"])
    if not answer["ok"] and answer.get("error", {}).get("code") == "internal-error":
        return Result(case, "error", [f"internal-error: {answer['error'].get('message')}"])
    try:
        lines = compare(case.variant, case.expect, answer)
    except Exception as e:
        return Result(case, "error", [f"could not compare the answer: {type(e).__name__}: {e}"])
    return Result(case, "failed" if lines else "passed", lines)


def run_cases(cases, engine: Engine, max_nodes=None, stream=None) -> list[Result]:
    claims = engine.hello()
    progress = Progress(stream or sys.stderr)
    results = []
    for i, case in enumerate(cases):
        progress.show(f"[{i + 1}/{len(cases)}] {case.id}")
        results.append(run_case(case, engine, claims, max_nodes))
    progress.clear()
    return results


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


def report(results, problems, engine_name, out=None):
    """Print the summary table, the skipped cases, every failure and load problem."""
    def p(line=""):
        print(line, file=out or sys.stdout)

    rows = {}
    for r in results:
        rows.setdefault((r.case.variant, r.case.request.get("op", "?")), Counter())[r.outcome] += 1
    total = sum(rows.values(), Counter())
    w = max([len("variant")] + [len(v) for v, _ in rows])
    p(f"Engine: {engine_name}, {len(results)} cases")
    p(f"{'variant':<{w}}  {'op':<7}" + "".join(f"{o:>9}" for o in OUTCOMES))
    def row(variant, op, counts):
        p(f"{variant:<{w}}  {op:<7}" + "".join(f"{counts[o]:>9}" for o in OUTCOMES))

    for variant in sorted({v for v, _ in rows}):
        ops = sorted(op for v, op in rows if v == variant)
        for op in ops:
            row(variant, op, rows[variant, op])
        if len(ops) > 1:
            row(variant, "(all)", sum((rows[variant, op] for op in ops), Counter()))
    row("all", "", total)

    skipped = [r for r in results if r.outcome == "skipped"]
    if skipped:
        p()
        p("Skipped:")
        for r in skipped:
            p(f"  {r.case.id}: {r.lines[0]}")
    for r in results:
        if r.outcome in ("failed", "error"):
            p()
            p(describe(r))
    if problems:
        p()
        p(f"Problems in the case files ({len(problems)}):")
        for problem in problems:
            p(f"  {problem}")
    p()
    bad = total["failed"] + total["error"]
    verdict = "FAILED" if bad or problems else "OK"
    p(f"{verdict}: {total['passed']} passed, {total['failed']} failed, "
      f"{total['error']} errors, {total['skipped']} skipped"
      + (f", {len(problems)} case file problems" if problems else ""))


def describe(result: Result) -> str:
    case, req = result.case, result.case.request
    extras = " ".join(f"{k}={v}" for k, v in req.items()
                      if k not in ("op", "variant", "fen", "moves"))
    lines = [f"{result.outcome.upper()} {case.id}",
             f"  description: {case.description}",
             f"  file:        {_shown(case.path)}",
             f"  request:     variant={req.get('variant')} op={req.get('op')} {extras}".rstrip(),
             f"  fen:         {req.get('fen', '(start position)')}"]
    if req.get("moves"):
        lines.append(f"  moves:       {' '.join(req['moves'])}")
    lines += [f"    {line}" for line in result.lines]
    return "\n".join(lines)


def _shown(path) -> str:
    try:
        return str(Path(path).resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def exit_code(results, problems) -> int:
    if problems:
        return 2
    return 1 if any(r.outcome in ("failed", "error") for r in results) else 0


def run_command(cases_dir=CASES_DIR, variant=None, rule=None, patterns=(),
                max_nodes=None, engine=None, out=None, err=None) -> int:
    """``doublecheck run``: load, select, run, report; returns the exit code."""
    out, err = out or sys.stdout, err or sys.stderr
    if not Path(cases_dir).is_dir():
        print(f"error: cases directory {cases_dir} does not exist", file=err)
        return 2
    cases, problems = load_cases(cases_dir)
    chosen = select_cases(cases, variant, rule, patterns)
    if not chosen:
        wanted = ", ".join(f"{k}={v}" for k, v in
                           (("variant", variant), ("rule", rule), ("pattern", " ".join(patterns)))
                           if v)
        print(f"error: no cases selected ({wanted or 'no cases found'} in {cases_dir})", file=err)
        for problem in problems:
            print(f"  {problem}", file=err)
        return 2
    engine = engine or OracleEngine()
    try:
        results = run_cases(chosen, engine, max_nodes, err)
    finally:
        engine.close()
    report(results, problems, engine.name, out)
    return exit_code(results, problems)
