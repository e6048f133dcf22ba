"""Reports of a run: plain text, markdown (CI job summaries), JSON, JUnit XML, xfail files.

Every function takes a ``doublecheck.harness.runner.Run``. The JSON report follows
``schemas/report.schema.json``: each case carries its request, its expectation,
the engine's answer (cut by ``cut_answer``) and the structured difference
(``doublecheck.harness.compare``), from which the text, markdown, JUnit and
HTML reports are written. The xfail file format is described in
docs/harness.md and in ``read_xfail``. What these reports share with the HTML page
(``visible``, the options line, ``write_file``) lives in
``doublecheck.harness.report_shared``, and the causes of the failures in
``doublecheck.harness.causes``, which both read.
"""

from __future__ import annotations

import json
import math
import re
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Callable

from doublecheck.harness.causes import (JUDGED, cause_ids, followers_of, run_causes, same_cause,
                                        show_command, signature_of)
from doublecheck.harness.compare import CASE_DOUBT, divergence_text, short_diff
from doublecheck.harness.report_shared import (anchor, declared_of, options_line, skipped_by_options,
                                               visible, write_file)
from doublecheck.oracle.errors import INVALID_XFAIL, UNREADABLE_FILE, clip, quote

OUTCOMES = ("passed", "failed", "error", "skipped")
XFAIL_OUTCOMES = ("xfailed", "xpassed")
REPORT_VERSION = 2
MARKDOWN_DETAILS = 50  # failing cases shown in full in a markdown report
GROUP_SKIPS = 3        # a skip reason shared by more cases than this is shown once
ANSWER_ITEMS = 200     # entries kept of each list or object in an answer in the JSON report
ANSWER_CHARS = 2000    # characters kept of each string in it
ANSWER_KEEP = 64 * 1024          # characters of JSON kept of one answer (after the cuts above)
ANSWERS_TOTAL = 16 * 1024 * 1024  # characters of JSON kept of all the answers of a run
ANSWER_DEPTH = 16      # levels of nesting kept of an answer (deeper values become a summary)
LINE_CHARS = 1000      # characters shown of one line of a case's text (an error message, a diff)
CASE_LINES = 200       # lines kept of one case's text

def columns(run) -> tuple[str, ...]:
    return OUTCOMES + (XFAIL_OUTCOMES if run.xfail_used else ())


def table(run) -> list[tuple[str, str, Counter, float]]:
    """(variant, op, counts, seconds) rows: each op, then each variant's total when it has
    several ops. ``seconds`` is wall time: how long at least one of the row's cases was running."""
    rows = {}
    for r in run.results:
        rows.setdefault((r.case.variant, r.case.request.get("op", "?")), []).append(r)
    out = []
    for variant in sorted({v for v, _ in rows}):
        ops = sorted(op for v, op in rows if v == variant)
        out += [(variant, op, Counter(r.outcome for r in rows[variant, op]), wall(rows[variant, op]))
                for op in ops]
        if len(ops) > 1:
            mine = [r for op in ops for r in rows[variant, op]]
            out.append((variant, "(all)", Counter(r.outcome for r in mine), wall(mine)))
    return out


def claimed_table(run) -> tuple[list, list[str]]:
    """The rows of ``table`` worth reading, and a line for the others: a variant the engine
    does not claim whose cases were all skipped has only zeros but for its skips, so it is
    left out and counted (its skip reason is listed with the others)."""
    claimed = run.claims.get("variants")
    rows = table(run)
    if claimed is None:   # (no hello to go by: every row)
        return rows, []
    ran = {r.case.variant for r in run.results if r.outcome != "skipped"}
    hidden = sorted({v for v, *_ in rows} - set(claimed) - ran)
    if not hidden:
        return rows, []
    skipped = sum(r.case.variant in hidden for r in run.results)
    return [row for row in rows if row[0] not in hidden], [
        f"{len(hidden)} variant{'s' if len(hidden) > 1 else ''} not claimed by the engine: "
        f"{skipped} case{'s' if skipped != 1 else ''} skipped ({', '.join(hidden)})"]


def wall(results) -> float:
    """Seconds during which at least one of ``results`` was running (their spans joined)."""
    total, end = 0.0, None
    for a, b in sorted(r.span for r in results if r.span):
        if end is None or a > end:
            total, end = total + b - a, b
        elif b > end:
            total, end = total + b - end, b
    return total


NOT_JUDGED = "neither passed nor failed"   # what a case never sent (--give-up) is


def verdict(run) -> str:
    c = run.counts()
    word = "INTERRUPTED" if run.interrupted else ("OK" if run.exit_code() == 0 else "FAILED")
    unsent = sum(map(not_run, run.results))   # errors by outcome (as in the table), but never sent
    errors = f"{c['error']} errors" + (f" ({unsent} of them not run: never sent, so {NOT_JUDGED})"
                                       if unsent else "")
    text = f"{word}: {c['passed']} passed, {c['failed']} failed, {errors}, {c['skipped']} skipped"
    if declared_of(run):
        text += f" ({skipped_by_options(run)} of them because of the declared options)"
    if run.xfail_used:
        text += f", {c['xfailed']} xfailed, {c['xpassed']} unexpected passes"
    if run.problems:
        text += f", {len(run.problems)} case file problems"
    if run.interrupted:
        text += f" ({len(run.results)} of {run.selected} cases ran)"
    return text


def options_json(run) -> list[dict]:
    declared = declared_of(run)
    return declared.items() if declared else []


def headline(result) -> str:
    """One line saying what went wrong (or why the case was skipped): the short diff of a
    failure, the kind and message of an error, else the first line."""
    short = short_diff(result.diff) if result.outcome in ("failed", "xfailed") else ""
    if short and result.lines[:1] == [CASE_DOUBT]:   # said first wherever the case is summed up
        return visible(f"{CASE_DOUBT}; {short}")
    if short:
        return visible(short)
    if result.problem and result.outcome in ("error", "xfailed"):   # (a stack trace: its first line)
        first, *more = str(result.problem["message"]).splitlines() or [""]
        return visible(f"{result.problem['kind']}: {first}" + (" ..." if more else ""))
    return visible(result.lines[0]) if result.lines else ""


def describe(result, followers=()) -> str:
    """A failing (or erroring, or unexpectedly passing) case: what was asked, and the diff."""
    return "\n".join(describe_lines(result, followers))


SAME_CAUSE_IDS = 20   # ids listed under a case whose first divergence others share


def run_groups(run) -> dict:
    """``same_cause`` of a run's results."""
    return same_cause((r.case.id, r.outcome, r.diff) for r in run.results)


def same_cause_line(result, leader: str) -> str:
    """The one line of a failure whose cause was described with ``leader``."""
    d = result.diff["first_divergence"]
    return visible(f"{result.outcome.upper()} {result.case.id}: same cause as {leader} (first "
                   f"divergence: {divergence_text(d)})")


def rules_line(case) -> str:
    """The rule ids a case tests and the command that prints one."""
    ids = list(case.rules or [])
    if not ids:
        return "(none named)"
    return f"{', '.join(ids)}   (read one: doublecheck rules {ids[0]})"


def describe_lines(result, followers=()) -> list[str]:
    """The lines of ``describe``, each shown ``visible`` (none holds a line break).
    ``followers``: the ids of later failures with the same first divergence."""
    case, req = result.case, result.case.request
    extras = " ".join(f"{k}={v}" for k, v in req.items()
                      if k not in ("op", "variant", "fen", "moves"))
    label = "UNEXPECTED PASS" if result.outcome == "xpassed" else result.outcome.upper()
    lines = [f"{label} {case.id}",
             f"  description: {case.description}",
             f"  file:        {shown(case.path)}",
             f"  rules:       {rules_line(case)}",
             *cause_line(result),
             f"  request:     variant={req.get('variant')} op={req.get('op')} {extras}".rstrip(),
             f"  fen:         {req.get('fen', '(start position)')}"]
    if req.get("moves"):
        lines.append(f"  moves:       {' '.join(req['moves'])}")
    lines += [f"    {line}" for line in result.lines]
    if followers:
        shown_ids = ", ".join(followers[:SAME_CAUSE_IDS])
        more = f" and {len(followers) - SAME_CAUSE_IDS} more" if len(followers) > SAME_CAUSE_IDS else ""
        lines.append(f"  same cause: {len(followers)} more failing case{'s' if len(followers) > 1 else ''} "
                     f"first part from the oracle at this move: {shown_ids}{more}")
    return [visible(line) for line in lines]


def cause_line(result) -> list[str]:
    """The case's cause (``doublecheck.harness.causes``), as its report entry names it."""
    found = signature_of(result.outcome, result.diff, result.problem)
    return [f"  cause:       {found.words} ({found.id})"] if found else []


def shown(path) -> str:
    try:
        return str(Path(path).resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def in_tree(path) -> str:
    """A case file's path within its case tree (``chess/castling.json``), the same wherever
    the tree is installed."""
    return "/".join(Path(path).parts[-2:])


def _skip_kind(reason: str) -> str:
    """A skip reason without the case's own numbers, so that the perft cases a node limit
    leaves out share one line however many there are."""
    return re.sub(r"^expects \d+ nodes, more than (--max-nodes \d+)$", r"expects more nodes than \1",
                  reason)


def _section(p, title: str, lines) -> None:
    """A titled block of indented lines after a blank line; nothing when there are none."""
    if lines:
        p()
        p(title)
        for line in lines:
            p(f"  {line}")


def _skips(results) -> list[str]:
    """One line per skipped case, or one per reason when many cases share it."""
    by_reason = {}
    for r in results:
        if r.outcome == "skipped":
            reason = r.lines[0] if r.lines else ""
            by_reason.setdefault(_skip_kind(reason), []).append((r.case.id, reason, r.lines[1:]))
    lines = []
    for kind, skipped in by_reason.items():
        if len(skipped) > GROUP_SKIPS:
            lines.append(f"{len(skipped)} cases: {kind} (first: {skipped[0][0]})")
        else:   # (the lines after the first: the rest of an engine's reason, indented)
            lines += [line for i, reason, rest in skipped for line in [f"{i}: {reason}"] + rest]
    return lines


def text(run, out) -> None:
    def p(line=""):
        print(visible(line), file=out)

    cols = columns(run)
    rows, unclaimed = claimed_table(run)
    w = max([len("variant")] + [len(v) for v, *_ in rows])
    jobs = f", {run.jobs} jobs" if run.jobs > 1 else ""
    p(f"Engine: {run.engine}" + (f" ({run.source})" if run.source != run.engine else "")
      + f", {len(run.results)} cases{jobs}, {run.seconds:.1f} s")
    if options_line(run):
        p(options_line(run))
    for line in cause_section(run):
        p(line)
    header = f"{'variant':<{w}}  {'op':<7}" + "".join(f"{o:>9}" for o in cols) + f"{'seconds':>9}"
    p(header)
    total = Counter(r.outcome for r in run.results)
    for variant, op, counts, seconds in rows + [("all", "", total, run.seconds)]:
        p(f"{variant:<{w}}  {op:<7}" + "".join(f"{counts[o]:>9}" for o in cols) + f"{seconds:>9.1f}")
    for line in unclaimed:
        p(line)
    _section(p, "Skipped:", _skips(run.results))
    _section(p, f"Expected failures (listed in {run.xfail_file}):",
             [f"{r.case.id} ({r.actual}): {r.reason}" for r in run.results if r.outcome == "xfailed"])
    follows = run_groups(run)
    led = followers_of(follows)
    for r in run.results:
        if r.case.id in follows and r.outcome == "failed":
            p()
            p(same_cause_line(r, follows[r.case.id]))
        elif r.outcome in ("failed", "error", "xpassed") and not not_run(r):
            p()
            for line in describe_lines(r, led.get(r.case.id, ())):
                p(line)
    _section(p, "Not run:", not_run_lines(run.results))
    _section(p, "Same cause:", same_cause_summary(follows))
    _section(p, f"Problems in the case files ({len(run.problems)}):", run.problems)
    for hint in getattr(run, "hints", ()):
        p()
        p(hint)
    p()
    p(verdict(run))


CAUSE_LINES = 30   # causes listed in the text and markdown reports; the rest are counted


def cause_section(run) -> list[str]:
    """The causes of the failures, one line each, before anything else of the report."""
    causes = run_causes(run)
    if not causes:
        return []
    n = sum(len(c.cases) for c in causes)
    lines = [f"Causes of the {n} failing case{'s' if n > 1 else ''} ({len(causes)}; each: how "
             "many, the cause in the oracle's words, and the command that shows an example):"]
    lines += [f"  {c.line()}; see: {visible(show_command(run, c.cases[0]))}"
              for c in causes[:CAUSE_LINES]]
    if len(causes) > CAUSE_LINES:
        rest = causes[CAUSE_LINES:]
        lines.append(f"  ... and {len(rest)} more causes of {sum(len(c.cases) for c in rest)} cases "
                     "(the JSON report lists every one)")
    return lines


def same_cause_summary(follows: dict) -> list[str]:
    """One line saying how many failures share how many first divergences (none when none do)."""
    if not follows:
        return []
    led = followers_of(follows)
    cases = len(follows) + len(led)
    return [f"{cases} failing cases share {len(led)} first divergence{'s' if len(led) > 1 else ''} "
            "in their lines: each is described in full once, the others say \"same cause as\""]


def not_run(result) -> bool:
    """A case never sent (the engine had been given up on): summarised, not described."""
    return result.outcome == "error" and bool(result.problem) and result.problem["kind"] == "not-run"


def not_run_lines(results) -> list[str]:
    """One line per variant and reason for the cases never sent, however many there are."""
    groups = {}
    for r in results:
        if not_run(r):
            groups.setdefault((r.case.variant, r.problem["message"]), []).append(r.case.id)
    return [f"{variant}: {len(ids)} case{'s' if len(ids) > 1 else ''} {why}; {NOT_JUDGED} (first: {ids[0]})"
            for (variant, why), ids in groups.items()]


def markdown(run, out) -> None:
    def p(line=""):
        print(line, file=out)

    cols = columns(run)
    p(f"## doublecheck: {_md(run.engine)}")
    p()
    if options_line(run):
        p(_md(options_line(run)))
        p()
    p(f"**{_md(verdict(run))}**")
    p()
    for line in markdown_causes(run):
        p(line)
    p("| variant | op | " + " | ".join(cols) + " | seconds |")
    p("|---|---|" + "---:|" * (len(cols) + 1))
    total = Counter(r.outcome for r in run.results)
    rows, unclaimed = claimed_table(run)
    for variant, op, counts, seconds in rows + [("**all**", "", total, run.seconds)]:
        p(f"| {variant} | {op} | " + " | ".join(str(counts[o]) for o in cols) + f" | {seconds:.1f} |")
    for line in unclaimed:
        p()
        p(_md(line))
    bad = [r for r in run.results if r.outcome in ("failed", "error", "xpassed") and not not_run(r)]
    follows = run_groups(run)
    led = followers_of(follows)
    if bad:
        p()
        p(f"### Failures ({len(bad)})")
        for line in same_cause_summary(follows):
            p()
            p(_md(line))
        for r in bad[:MARKDOWN_DETAILS]:
            p()
            if r.case.id in follows and r.outcome == "failed":
                p(f"- {_md(same_cause_line(r, follows[r.case.id]))}")
                continue
            rules = f" [{_html(', '.join(r.case.rules))}]" if r.case.rules else ""
            p(f'<a id="{anchor(r.case.id)}"></a>')
            p(f"<details><summary>{r.outcome.upper()} <code>{_html(r.case.id)}</code>{rules}: "
              f"{_html(headline(r)[:160])}</summary>")
            p()
            p("```text")
            p(describe(r, led.get(r.case.id, ())).replace("```", "'''"))  # (visible already)
            p("```")
            p()
            p("</details>")
        if len(bad) > MARKDOWN_DETAILS:
            p()
            p(f"... and {len(bad) - MARKDOWN_DETAILS} more; see the full report.")
    unsent = not_run_lines(run.results)
    if unsent:
        p()
        p("### Not run")
        p()
        for line in unsent:
            p(f"- {_md(line)}")
    for hint in getattr(run, "hints", ()):
        p()
        p(_md(hint))
    skips = _skips(run.results)
    if skips:
        p()
        p(f"<details><summary>Skipped ({total['skipped']})</summary>")
        p()
        for line in skips:
            p(_md_item(line))
        p()
        p("</details>")
    if run.problems:
        p()
        p("### Problems in the case files")
        p()
        for problem in run.problems:
            p(f"- {_md(problem)}")


def markdown_causes(run) -> list[str]:
    """The causes section of the markdown report: one item per cause, its example linked to
    the case's entry below (when the entry is shown)."""
    causes = run_causes(run)
    if not causes:
        return []
    n = sum(len(c.cases) for c in causes)
    out = [f"### Causes of the {n} failing cases ({len(causes)})", ""]
    for c in causes[:CAUSE_LINES]:
        example = c.cases[0]
        out.append(f"- {_md(c.line())}: e.g. [{_md(example)}](#{anchor(example)}), "
                   f"<code>{_html(show_command(run, example))}</code>")
    if len(causes) > CAUSE_LINES:
        out.append(f"- ... and {len(causes) - CAUSE_LINES} more causes (the JSON report lists every one)")
    return out + [""]


_MARKDOWN = re.compile(r"([\\`*_\[\]|#!~])")


def _md(text: str) -> str:
    """Text shown as itself in markdown: no markup, links, tables or HTML of its own."""
    return _MARKDOWN.sub(r"\\\1", visible(text)).replace("<", "&lt;").replace(">", "&gt;")


def _html(text: str) -> str:
    return visible(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _md_item(line: str) -> str:
    """A line of a list as markdown: an item, or (indented) the rest of the item above it."""
    return f"  {_md(line.strip())}" if line.startswith(" ") else f"- {_md(line)}"


# --- JSON ---------------------------------------------------------------------

def cut_answer(answer):
    """(the answer with every list or object cut to ANSWER_ITEMS entries, every string to
    ANSWER_CHARS characters and the nesting to ANSWER_DEPTH levels, {path: full size} of what
    was cut). What strict JSON cannot carry is written as a string: a number that is not
    finite or has more than 18 digits, a value of another type."""
    cuts = {}

    def walk(value, path, depth):
        if isinstance(value, str):
            if len(value) > ANSWER_CHARS:
                cuts[path or "$"] = len(value)
                return value[:ANSWER_CHARS]
            return value
        if value is None or isinstance(value, bool):
            return value
        if isinstance(value, int):
            return value if abs(value) < 10 ** 18 else quote(value)
        if isinstance(value, float):
            return value if math.isfinite(value) else repr(value)
        if not isinstance(value, (list, tuple, dict)):
            return f"<{type(value).__name__}>"
        if depth >= ANSWER_DEPTH:
            cuts[path or "$"] = len(value)
            return f"<{len(value)} entries nested deeper than {ANSWER_DEPTH} levels>"
        if len(value) > ANSWER_ITEMS:
            cuts[path or "$"] = len(value)
        if isinstance(value, dict):
            return {clip(str(k), ANSWER_CHARS): walk(v, f"{path}.{k}" if path else str(k), depth + 1)
                    for k, v in islice(value.items(), ANSWER_ITEMS)}
        return [walk(v, f"{path}[{i}]", depth + 1) for i, v in enumerate(value[:ANSWER_ITEMS])]
    return walk(answer, "", 0), cuts


class AnswerKeeper:
    """Keeps answers for the reports within ANSWER_KEEP characters of JSON each and
    ANSWERS_TOTAL for a run: an answer over either keeps only its ``ok``, and its
    ``answer_cut`` gives its size at ``$``."""

    def __init__(self, total: int = ANSWERS_TOTAL):
        self.left = total

    def keep(self, answer) -> tuple[dict | None, dict]:
        if answer is None:
            return None, {}
        kept, cuts = cut_answer(answer)
        size = len(json.dumps(kept))
        if size > min(ANSWER_KEEP, self.left) or not isinstance(kept, dict):
            kept, cuts = {"ok": kept.get("ok") if isinstance(kept, dict) else None}, {"$": size}
            size = len(json.dumps(kept))
        self.left = max(self.left - size, 0)
        return kept, cuts


def keep_lines(lines: list[str]) -> list[str]:
    """At most CASE_LINES lines of at most LINE_CHARS characters each."""
    kept = [clip(line, LINE_CHARS) for line in lines[:CASE_LINES]]
    if len(lines) > CASE_LINES:
        kept.append(f"... and {len(lines) - CASE_LINES} more lines")
    return kept


def keep_for_reports(result, keeper: AnswerKeeper) -> None:
    """Bound what ``result`` keeps of the engine's words (documented in docs/harness.md):
    the answer (``AnswerKeeper``), the structured difference (cut like an answer), at most
    CASE_LINES lines of LINE_CHARS characters, and the problem message's LINE_CHARS."""
    result.answer, result.answer_cut = keeper.keep(result.answer)
    if result.diff is not None:
        result.diff = cut_answer(result.diff)[0]
    result.lines = keep_lines(result.lines)
    if result.problem is not None:
        result.problem = {**result.problem, "message": clip(str(result.problem["message"]), LINE_CHARS)}


def case_json(r) -> dict:
    """One case of the JSON report (``$defs/case`` in schemas/report.schema.json)."""
    entry = {"id": r.case.id, "variant": r.case.variant, "op": r.case.request.get("op"),
             "rules": list(r.case.rules or []),
             "outcome": r.outcome, "lines": list(r.lines), "seconds": round(r.seconds, 6),
             "file": shown(r.case.path), "request": r.case.request, "expect": r.case.expect,
             "answer": None, "diff": r.diff, "time_limit": None if r.limit is None else round(r.limit, 3)}
    if r.answer is not None:
        entry["answer"], cuts = cut_answer(r.answer)
        cuts = {**cuts, **(getattr(r, "answer_cut", None) or {})}
        if cuts:
            entry["answer_cut"] = cuts
    if r.problem is not None:
        entry["problem"] = r.problem
    if r.actual is not None:
        entry["actual"] = r.actual
    if r.reason is not None:
        entry["xfail_reason"] = r.reason
    if getattr(r, "judged_under", None):
        entry["options"] = dict(r.judged_under)
    return entry


def suite_json() -> dict:
    """Which suite judged the run: the installed doublecheck's version."""
    from doublecheck import __version__
    return {"version": __version__}


def causes_json(run, causes) -> list[dict]:
    """The ``causes`` of the JSON report: each cause with the ids of its cases, largest first
    (the expected failures of an xfail list too, so that every case's ``cause`` is listed)."""
    return [{"id": c.id, "summary": c.summary, "rules": c.rules, "cases": list(c.cases),
             "example": c.cases[0], "command": show_command(run, c.cases[0])}
            for c in causes]


def as_json(run) -> dict:
    totals = run.counts()
    follows = run_groups(run)
    found = run_causes(run, JUDGED)
    causes = cause_ids(found)
    summary = []
    for variant, op, counts, seconds in table(run):
        if op != "(all)":
            summary.append({"variant": variant, "op": op, **{o: counts[o] for o in totals},
                            "seconds": round(seconds, 3)})
    return {
        "report_version": REPORT_VERSION,
        "engine": {"name": run.engine, "source": run.source,
                   **{k: run.claims[k] for k in ("protocol", "variants", "ops") if k in run.claims}},
        "started": run.started,
        "seconds": round(run.seconds, 3),
        "timeout": run.timeout,
        "jobs": run.jobs,
        "selected": run.selected,
        "interrupted": run.interrupted,
        "exit_code": run.exit_code(),
        "verdict": verdict(run),
        "totals": totals,
        "summary": summary,
        "xfail_file": run.xfail_file,
        "stale_xfail": list(run.stale_xfail),
        "problems": list(run.problems),
        **({"options": options_json(run), "skipped_by_options": skipped_by_options(run)}
           if declared_of(run) else {}),
        "suite": suite_json(),
        "causes": causes_json(run, found),
        "cases": [_with_cause(case_json(r), follows, causes) for r in run.results],
    }


def _with_cause(entry: dict, follows: dict, causes: dict) -> dict:
    if entry["id"] in follows:
        entry["same_cause_as"] = follows[entry["id"]]
    if entry["id"] in causes:
        entry["cause"] = causes[entry["id"]]
    return entry


def write_json(run, path) -> None:
    """The JSON report, strict JSON (no NaN or Infinity: the answers were cut to strict JSON)."""
    write_file(path, json.dumps(as_json(run), indent=1, allow_nan=False) + "\n")


# --- JUnit XML ----------------------------------------------------------------

def junit(run) -> str:
    root = ET.Element("testsuites", name="doublecheck")
    if declared_of(run):   # first, as every report starts with what it judged under
        props = ET.SubElement(root, "properties")
        for item in options_json(run):
            ET.SubElement(props, "property", name=f"option:{item['name']}",
                          value=f"{item['value']} ({item['kind']}, from {item['from']})")
        ET.SubElement(props, "property", name="skipped-by-options", value=str(skipped_by_options(run)))
    follows = run_groups(run)
    led = followers_of(follows)
    causes = {cid: c for c in run_causes(run) for cid in c.cases}   # each case's cause, as the run names it
    suites = {}
    for r in run.results:
        suites.setdefault(r.case.variant, []).append(r)
    for variant, results in suites.items():
        counts = Counter(r.outcome for r in results)
        suite = ET.SubElement(root, "testsuite", name=variant, tests=str(len(results)),
                              failures=str(counts["failed"] + counts["xpassed"]),
                              errors=str(counts["error"]),
                              skipped=str(counts["skipped"] + counts["xfailed"]),
                              time=f"{sum(r.seconds for r in results):.3f}")
        for r in results:
            case = ET.SubElement(suite, "testcase", name=r.case.id,
                                 classname=f"{r.case.variant}.{r.case.topic}",
                                 file=in_tree(r.case.path), time=f"{r.seconds:.3f}")
            found = causes.get(r.case.id)
            if (r.case.rules or found) and r.outcome in ("failed", "error", "xpassed"):   # as data
                props = ET.SubElement(case, "properties")
                for rule in r.case.rules or ():
                    ET.SubElement(props, "property", name="rule", value=rule)
                if found:
                    ET.SubElement(props, "property", name="cause",
                                  value=_xml_safe(f"{found.summary} ({found.id})"))
            first = _xml_safe(headline(r))
            body = _xml_safe(describe(r, led.get(r.case.id, ())))
            if r.case.id in follows and r.outcome == "failed":
                first = _xml_safe(same_cause_line(r, follows[r.case.id]))
            if r.outcome == "failed":
                ET.SubElement(case, "failure", message=first, type="failed").text = body
            elif r.outcome == "error":
                kind = r.problem["kind"] if r.problem else "error"
                ET.SubElement(case, "error", message=first, type=kind).text = body
            elif r.outcome == "xpassed":
                ET.SubElement(case, "failure", message=first, type="unexpected-pass").text = body
            elif r.outcome == "skipped":
                ET.SubElement(case, "skipped", message=first)
            elif r.outcome == "xfailed":
                ET.SubElement(case, "skipped", message=_xml_safe(f"xfail ({r.actual}): {r.reason}"))
    totals = Counter(r.outcome for r in run.results)
    root.set("tests", str(len(run.results)))
    root.set("failures", str(totals["failed"] + totals["xpassed"]))
    root.set("errors", str(totals["error"]))
    root.set("skipped", str(totals["skipped"] + totals["xfailed"]))
    root.set("time", f"{run.seconds:.3f}")
    if run.interrupted:
        props = root.find("properties")
        if props is None:
            props = ET.SubElement(root, "properties")
        ET.SubElement(props, "property", name="interrupted",
                      value=f"{len(run.results)} of {run.selected} cases ran")
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _xml_safe(text: str) -> str:
    """Text XML 1.0 can carry: every control character shown as an escape (``visible``),
    the line breaks between the lines of ``describe`` kept."""
    return "\n".join(visible(line) for line in text.split("\n"))


def write_junit(run, path) -> None:
    write_file(path, junit(run))


# --- xfail files --------------------------------------------------------------

XFAIL_HEADER = """\
# doublecheck expected failures: one case id per line, then the reason.
# Run with `doublecheck run --xfail FILE`: a listed case that fails counts as
# xfailed; one that passes is an unexpected pass and fails the run.
"""


def read_xfail(path) -> tuple[dict, list[str]]:
    """Case id -> reason from an xfail file, and the problems found in it.

    One entry per line: the case id, white space, then the reason (the rest
    of the line). Blank lines and lines starting with ``#`` are ignored.
    """
    from doublecheck.casefiles import UnreadableFile, read_data_text   # on demand (start-up)
    try:  # bounded, and a FIFO or device is refused rather than waited on
        text = read_data_text(Path(path))
    except UnreadableFile as e:
        return {}, [f"{UNREADABLE_FILE}: cannot read the xfail file {path}: {e}"]
    entries, problems = {}, []
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        cid, _, reason = line.partition(" ")
        cid, reason = cid.strip(), reason.strip()
        if cid.count("/") != 2:
            problems.append(f"{INVALID_XFAIL}: {path}:{n}: {quote(cid, 100)} is not a case id "
                            "(variant/topic/slug)")
        elif cid in entries:
            problems.append(f"{INVALID_XFAIL}: {path}:{n}: {cid} is listed twice")
        else:
            entries[cid] = reason or "(no reason given)"
    return entries, problems


def xfail_entries(run, old: dict) -> dict:
    """The new baseline: every case that failed or errored now, with its reason: a failure's
    cause (``doublecheck.harness.causes``) and the cause's id, an error's first line.

    Listed cases that still fail keep their old reason; listed cases that were
    not run this time (not selected, or skipped) stay listed; unexpected passes
    and ids that no case has any more are dropped.
    """
    ran = {r.case.id: r for r in run.results if r.outcome != "skipped"}
    entries = {}
    for cid, reason in old.items():
        if cid not in ran and cid not in run.stale_xfail:
            entries[cid] = reason
    for r in run.results:
        if r.outcome == "xfailed":
            entries[r.case.id] = r.reason
        elif r.outcome == "failed":
            found = signature_of(r.outcome, r.diff, r.problem)
            entries[r.case.id] = f"failed: {' '.join(found.words.split())[:160]} ({found.id})"
        elif r.outcome == "error":   # the error's own words say more than its kind
            first = " ".join((r.lines[0] if r.lines else "").split())
            entries[r.case.id] = f"error: {first[:160]}"
    return dict(sorted(entries.items()))


def write_xfail(run, path, old: dict) -> None:
    """The xfail file, its entries grouped by cause (the largest first), each group under a
    comment naming the cause; the entries kept from the old file, and those of expected
    failures, come last."""
    entries = xfail_entries(run, old)
    body = XFAIL_HEADER + f"# engine: {run.engine}\n"
    for c in run_causes(run):
        body += f"\n# {c.id}: {c.line()}\n"
        body += "".join(f"{cid}  {entries.pop(cid)}\n" for cid in c.cases if cid in entries)
    if entries:
        body += "\n# expected failures, and cases listed before that did not run now\n"
        body += "".join(f"{cid}  {reason}\n" for cid, reason in entries.items())
    write_file(path, body)


# ------------------------------------------------------------ the formats, one table

def _write_html(run, path) -> None:
    # Imported when asked for: the page draws boards with the oracle, which a run that writes
    # no HTML (and `doublecheck --help`, which reads this table) need not load.  The page
    # reads what it shares with these reports from report_shared, never from here.
    from doublecheck.harness.html_report import write_html_report
    write_html_report(run, path)


@dataclass(frozen=True)
class ReportFile:
    """A report ``doublecheck run --<name> FILE`` also writes: its help, and its writer."""

    help: str
    write: Callable   # write(run, path)


# Every report file a run can write, by option name; the command line and the runner read
# only this table (``doublecheck docs harness``).
REPORT_FILES = {
    "json": ReportFile("also write a JSON report (doublecheck docs --schema report)", write_json),
    "junit": ReportFile("also write a JUnit XML report", write_junit),
    "html": ReportFile("also write an HTML report: each failing case with its board (doublecheck docs lookups)",
                       _write_html),
}
# The report printed on stdout (--format), by name.
STDOUT_FORMATS = {"text": text, "markdown": markdown}
