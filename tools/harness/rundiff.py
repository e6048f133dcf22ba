"""``doublecheck diff OLD.json NEW.json``: what changed between two runs of one engine.

Both reports are JSON reports of ``doublecheck run --json FILE``. Cases are matched by id,
and each pair of outcomes is one kind of change, read from ``TRANSITIONS``: fixed, newly
failing, still failing, added, removed, otherwise changed (or the same, not reported). An
expected failure counts as what the engine did (its ``actual``), since the diff is about the
engine, not about what an xfail file lets through.

Failing cases are grouped by cause: the report's ``causes`` entry the case names, or, in a
report without causes (an older doublecheck), the case's first line (its leader's, when the
case has ``same_cause_as``). A named cause is known across the two reports by its id, a
digest of its signature that every run gives alike. A still failing case whose cause
differs says so, when both reports name causes the same way (a cause and a first line never
match).

The headers are compared too (engine name and source, report version, suite version, each
declared option): comparing runs made under different ones is allowed, and each difference
is printed before the cases as a warning.

Only what the diff needs of a report is kept once it is read (outcomes and causes), so
memory and time are linear in the reports' sizes. Everything a report holds reaches the
text and markdown output through ``visible`` (and ``_md``): the reports quote engines.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from typing import Callable

from doublecheck.casefiles import DataError, UnreadableFile, read_data_text
from doublecheck.harness.report import OUTCOMES, XFAIL_OUTCOMES, _md
from doublecheck.harness.report_shared import visible
from doublecheck.oracle.errors import FILE_NOT_FOUND, UNREADABLE_FILE, clip, quote
from doublecheck.resource_limits import loads

DIFF_VERSION = 1      # the JSON output's shape (docs/harness.md, "Comparing two runs")
GROUP_IDS = 20        # case ids listed under one cause or change before "and N more"
SUMMARY_CHARS = 300   # characters shown of one cause's summary
WRAP = 100            # columns of a wrapped list of ids in the text output
UNKNOWN = "unknown"   # the suite version of a report that does not say it
FAILING = ("failed", "error")


# --- the changes ------------------------------------------------------------------

# Each kind of change: (its words in the totals line, its section's title), in the
# totals' order (also the JSON keys' order).
KINDS = {"fixed": ("fixed", "Fixed"), "newly_failing": ("newly failing", "Newly failing"),
         "still_failing": ("still failing", "Still failing"), "added": ("added", "Added"),
         "removed": ("removed", "Removed"), "changed": ("otherwise changed", "Otherwise changed")}
BY_CAUSE = ("newly_failing", "fixed", "still_failing")   # grouped by cause; this order, most urgent first
BY_OUTCOMES = ("added", "removed", "changed")            # grouped by their two outcomes

# The outcome before (a row; None: the old report lacks the case) and the outcome now (a
# column; None: the new report lacks it) make one kind of change. A case that was not run
# before (new, or skipped) and fails now is a failure the new run brings: newly failing.
_NOW = ("passed", "failed", "error", "skipped", None)
_GRID = {
    "passed":  ("same",    "newly_failing", "newly_failing", "changed", "removed"),
    "failed":  ("fixed",   "still_failing", "still_failing", "changed", "removed"),
    "error":   ("fixed",   "still_failing", "still_failing", "changed", "removed"),
    "skipped": ("changed", "newly_failing", "newly_failing", "same",    "removed"),
    None:      ("added",   "newly_failing", "newly_failing", "added",   None),
}
TRANSITIONS = {(before, now): kind for before, row in _GRID.items() for now, kind in zip(_NOW, row)}

# The outcome pairs each kind is named after: any other pair is shown beside the case id.
USUAL = {"fixed": {("failed", "passed")}, "newly_failing": {("passed", "failed")},
         "still_failing": {("failed", "failed"), ("error", "error")}}


@dataclass(frozen=True)
class Cause:
    """Why a case fails, as one report says it: its ``causes`` entry, or its first line."""

    key: str                 # the same for the cases of one report with this cause
    summary: str
    named: bool              # a ``causes`` entry (not a first line)
    id: str | None = None
    rules: tuple = ()
    example: str | None = None
    command: str | None = None


@dataclass(frozen=True)
class Side:
    """What the diff keeps of one report: its header, and each case's outcome and cause."""

    header: dict             # as the JSON output shows it (``header_of``)
    outcomes: dict           # case id -> passed, failed, error or skipped, in report order
    causes: dict             # case id -> Cause, for the failing cases


@dataclass(frozen=True)
class Change:
    id: str
    before: str | None
    now: str | None
    cause: Cause | None      # fixed: the old one; failing now: the new one
    cause_was: Cause | None = None   # still failing under another cause: the old one


@dataclass(frozen=True)
class Diff:
    old: Side
    new: Side
    header_changes: list
    kinds: dict              # kind -> [Change], each in report order

    def exit_code(self) -> int:
        return 1 if self.kinds["newly_failing"] else 0


def compare(old: Side, new: Side) -> Diff:
    kinds = {kind: [] for kind in KINDS}
    for cid in list(new.outcomes) + [cid for cid in old.outcomes if cid not in new.outcomes]:
        kind = TRANSITIONS[old.outcomes.get(cid), new.outcomes.get(cid)]
        if kind != "same":
            kinds[kind].append(change(cid, kind, old, new))
    return Diff(old, new, header_changes(old.header, new.header), kinds)


def change(cid: str, kind: str, old: Side, new: Side) -> Change:
    cause = (old if kind == "fixed" else new).causes.get(cid)
    was = old.causes.get(cid) if kind == "still_failing" else None
    return Change(cid, old.outcomes.get(cid), new.outcomes.get(cid), cause,
                  was if cause_changed(was, cause) else None)


def cause_changed(was: Cause | None, now: Cause | None) -> bool:
    """Whether two reports give one case different causes: named causes by their id (a
    digest of the cause's signature, the same in every run; the summary quotes the cause's
    first case, which may change), first lines by their text. A first line is not compared
    with a named cause (they would always differ)."""
    if not (was and now) or was.named != now.named:
        return False
    return was.id != now.id if was.named else was.summary != now.summary


def by_cause(changes) -> list[tuple[Cause, list[Change]]]:
    """(cause, its changes), the largest group first (the first met first among equals)."""
    groups = {}
    for c in changes:
        groups.setdefault(c.cause.key, (c.cause, []))[1].append(c)
    return sorted(groups.values(), key=lambda group: -len(group[1]))


def by_outcomes(changes) -> list[tuple[str, list[Change]]]:
    """("before -> now", its changes), in the order first met."""
    groups = {}
    for c in changes:
        groups.setdefault(f"{shown_outcome(c.before)} -> {shown_outcome(c.now)}", []).append(c)
    return list(groups.items())


def shown_outcome(outcome: str | None) -> str:
    return outcome or "absent"


# --- the headers -------------------------------------------------------------------

def compared_fields(header: dict) -> dict:
    """The header fields compared, by the name a warning gives them."""
    return {"engine name": header["engine"]["name"], "engine source": header["engine"]["source"],
            "report version": header["report_version"], "suite version": header["suite_version"],
            **{f"option {name}": value for name, value in header["options"].items()}}


def header_changes(old: dict, new: dict) -> list[dict]:
    """{"field", "old", "new"} for each header field that differs; an option one report
    does not declare is null there."""
    before, now = compared_fields(old), compared_fields(new)
    fields = list(before) + [f for f in now if f not in before]
    return [{"field": f, "old": before.get(f), "new": now.get(f)}
            for f in fields if before.get(f) != now.get(f)]


# --- reading a report ------------------------------------------------------------------

# What the diff reads of a report, and what each must be: (key, type, required).
REPORT_SHAPE = (("report_version", int, True), ("engine", dict, True), ("cases", list, True),
                ("options", list, False), ("suite", dict, False), ("causes", list, False))
ENGINE_SHAPE = (("name", str, True), ("source", str, True))
SUITE_SHAPE = (("version", str, True),)
OPTION_SHAPE = (("name", str, True), ("value", str, True))
CAUSE_SHAPE = (("id", str, True), ("summary", str, True), ("rules", list, False),
               ("example", str, False), ("command", str, False))
CASE_SHAPE = (("id", str, True), ("outcome", str, True), ("actual", str, False),
              ("lines", list, False), ("cause", str, False), ("same_cause_as", str, False))
# The parts of a report with a shape of their own: (key, shape, a list of them).
PARTS = (("engine", ENGINE_SHAPE, False), ("suite", SUITE_SHAPE, False), ("options", OPTION_SHAPE, True),
         ("causes", CAUSE_SHAPE, True), ("cases", CASE_SHAPE, True))
TYPE_NAMES = {int: "a whole number", dict: "an object", list: "a list", str: "a string"}
KNOWN_OUTCOMES = OUTCOMES + XFAIL_OUTCOMES
ACTUAL = ("passed", "failed", "error")   # what an xfailed or xpassed case did
# An expected failure or unexpected pass is what the engine did: ``actual``, else this.
AS_RUN = {"xfailed": "failed", "xpassed": "passed"}


def read_report(path) -> Side:
    """The report at ``path``; DataError (file-not-found, unreadable-file) when it is none."""
    data = parsed(report_text(path), path)
    problem = report_problem(data)
    if problem:
        raise DataError(UNREADABLE_FILE, f"{path} is not a doublecheck report ('doublecheck run "
                                         f"--json FILE' writes one): {problem}")
    return side_of(data, path)


def report_text(path) -> str:
    """The file's text, read as every data file is (at most 16 MiB of UTF-8; a FIFO or a
    device refused, never waited on)."""
    if not os.path.exists(path):   # (a link to nothing too)
        raise DataError(FILE_NOT_FOUND, f"no such file: {path}")
    try:
        return read_data_text(path)
    except UnreadableFile as e:
        raise DataError(UNREADABLE_FILE, f"{path}: {e}") from None


def parsed(text: str, path):
    try:
        return loads(text)
    except ValueError as e:   # malformed, or nested deeper than any report is
        where = f" at line {e.lineno}, column {e.colno}" if isinstance(e, json.JSONDecodeError) else ""
        reason = e.msg if isinstance(e, json.JSONDecodeError) else clip(str(e), 240)
        raise DataError(UNREADABLE_FILE, f"{path} is not JSON{where}: {reason}") from None


def report_problem(data) -> str | None:
    """What keeps ``data`` from being a report the diff can read (the first found), or None."""
    return shape_problem(data, REPORT_SHAPE, "the report") or next(part_problems(data), None)


def shape_problem(value, shape, where: str) -> str | None:
    if not isinstance(value, dict):
        return f"{where} is not an object"
    missing = [key for key, _, required in shape if required and key not in value]
    wrong = [(key, kind) for key, kind, _ in shape if key in value and not is_a(value[key], kind)]
    if missing:
        return f"{where} has no {missing[0]!r}"
    return f"{where}: {wrong[0][0]!r} is not {TYPE_NAMES[wrong[0][1]]}" if wrong else None


def is_a(value, kind) -> bool:
    return isinstance(value, kind) and not (kind is int and isinstance(value, bool))


def part_problems(data):
    """The parts' problems (lazily: a case's outcome is looked at once every part has its shape)."""
    for key, shape, many in PARTS:
        values = data.get(key, []) if many else [data[key]] if key in data else []
        for i, value in enumerate(values):
            problem = shape_problem(value, shape, f"{key}[{i}]" if many else key)
            if problem:
                yield problem
    yield from case_problems(data["cases"])


def case_problems(cases):
    seen = set()
    for i, case in enumerate(cases):
        where = f"cases[{i}] ({quote(case['id'], 80)})"
        if case["outcome"] not in KNOWN_OUTCOMES:
            yield f"{where}: the outcome {quote(case['outcome'], 40)} is none of {', '.join(KNOWN_OUTCOMES)}"
        if case.get("actual", "passed") not in ACTUAL:
            yield f"{where}: 'actual' is {quote(case['actual'], 40)}, not passed, failed or error"
        if case["id"] in seen:
            yield f"{where}: a second case with this id"
        seen.add(case["id"])


def side_of(report: dict, path) -> Side:
    named = {entry["id"]: entry for entry in report.get("causes", [])}
    outcomes, causes, first = {}, {}, {}
    for case in report["cases"]:
        outcomes[case["id"]] = as_run(case)
        if outcomes[case["id"]] in FAILING:
            first[case["id"]] = first_line(case)
            causes[case["id"]] = cause_of(case, named, first)
    return Side(header_of(report, path), outcomes, causes)


def as_run(case: dict) -> str:
    outcome = case["outcome"]
    return case.get("actual", AS_RUN[outcome]) if outcome in AS_RUN else outcome


def first_line(case: dict) -> str:
    lines = case.get("lines") or [""]
    return lines[0] if isinstance(lines[0], str) else quote(lines[0], 80)


def cause_of(case: dict, named: dict, first: dict) -> Cause:
    """The report's cause for ``case``; without one, the first line of the case whose cause
    it shares (``same_cause_as``, an earlier failure), else its own."""
    entry = named.get(case.get("cause"))
    if entry is None:
        line = first.get(case.get("same_cause_as"), first[case["id"]]) or "(no description)"
        return Cause(key=f"line:{line}", summary=line, named=False)
    return Cause(key=f"cause:{entry['id']}", summary=entry["summary"], named=True, id=entry["id"],
                 rules=tuple(map(str, entry.get("rules", ()))), example=entry.get("example"),
                 command=entry.get("command"))


def header_of(report: dict, path) -> dict:
    """A report's header, as the JSON output's ``old`` and ``new``."""
    return {"file": str(path), "engine": {k: report["engine"][k] for k in ("name", "source")},
            "report_version": report["report_version"],
            "suite_version": report.get("suite", {}).get("version", UNKNOWN),
            "options": {o["name"]: o["value"] for o in report.get("options", [])},
            "cases": len(report["cases"]), "causes_named": "causes" in report}


# --- text ------------------------------------------------------------------------------

def totals_line(diff: Diff) -> str:
    """``2 fixed, 1 newly failing, 40 still failing, 3 added, 0 removed, 0 otherwise changed``"""
    return ", ".join(f"{len(diff.kinds[kind])} {words}" for kind, (words, _) in KINDS.items())


WARNING_NOTE = "some of the changes below may come from that, not from the engine"


def warning_lines(diff: Diff) -> list[str]:
    """One line per header field that differs."""
    return [f"{c['field']} differs: {header_value(c['old'])} in {diff.old.header['file']}, "
            f"{header_value(c['new'])} in {diff.new.header['file']}" for c in diff.header_changes]


def header_value(value) -> str:
    return "not declared" if value is None else clip(str(value), SUMMARY_CHARS)


def case_label(c: Change, kind: str) -> str:
    """The case id, with its two outcomes when they are not the ones its kind is named after."""
    usual = (c.before, c.now) in USUAL.get(kind, ())
    return c.id if usual else f"{c.id} ({shown_outcome(c.before)} -> {shown_outcome(c.now)})"


def some(items: list) -> tuple[list, int]:
    """The first GROUP_IDS of ``items``, and how many more there are."""
    return items[:GROUP_IDS], max(len(items) - GROUP_IDS, 0)


def listed(labels: list[str]) -> list[str]:
    """The first GROUP_IDS labels, then "and N more", as the items of a list written out
    (each but the last with its comma), for a line to break only between them."""
    shown, more = some(labels)
    items = shown + ([f"and {more} more"] if more else [])
    return [f"{item}," for item in items[:-1]] + items[-1:]


def plural(n: int, word: str = "case") -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


def cause_title(cause: Cause, count: int) -> str:
    rules = f" (rules: {', '.join(cause.rules)})" if cause.rules else ""
    return f"{clip(cause.summary, SUMMARY_CHARS)}: {plural(count)}{rules}"


def cause_notes(cause: Cause, changes: list[Change]) -> list[str]:
    """The lines under a cause's ids: its command (the example's id is mostly among the ids
    already shown: the JSON output has it), and the cases whose cause changed."""
    notes = [f"see: {cause.command}"] if cause.command else []
    moved = [c for c in changes if c.cause_was]
    shown, more = some(moved)
    notes += [f"cause changed: {c.id} (was: {clip(c.cause_was.summary, SUMMARY_CHARS)})" for c in shown]
    return notes + ([f"and {more} more whose cause changed"] if more else [])


def text_groups(diff: Diff, kind: str) -> list[tuple[str, list[str], list[str]]]:
    """(title, case labels, notes) for each group of a kind of change."""
    if kind in BY_CAUSE:
        return [(cause_title(cause, len(changes)), [case_label(c, kind) for c in changes],
                 cause_notes(cause, changes)) for cause, changes in by_cause(diff.kinds[kind])]
    return [(f"{pair}: {plural(len(changes))}", [c.id for c in changes], [])
            for pair, changes in by_outcomes(diff.kinds[kind])]


def text(diff: Diff, out) -> None:
    def p(line=""):
        print(visible(line), file=out)

    p(totals_line(diff))
    warnings = warning_lines(diff)
    for line in warnings + ([WARNING_NOTE] if warnings else []):
        p(f"warning: {line}")
    for kind in BY_CAUSE + BY_OUTCOMES:
        if diff.kinds[kind]:
            p()
            p(f"{KINDS[kind][1]} ({len(diff.kinds[kind])}):")
        for title, labels, notes in text_groups(diff, kind):
            p(f"  {title}")
            for line in wrapped(listed(labels)) + notes:
                p(f"    {line}")


def wrapped(items: list[str]) -> list[str]:
    """The items on lines of at most WRAP columns (an item longer than that on its own)."""
    lines = []
    for item in map(visible, items):
        if lines and len(lines[-1]) + 1 + len(item) <= WRAP:
            lines[-1] += f" {item}"
        else:
            lines.append(item)
    return lines


# --- markdown ----------------------------------------------------------------------

def markdown(diff: Diff, out) -> None:
    def p(line=""):
        print(line, file=out)

    p(f"## doublecheck diff: {_md(diff.new.header['engine']['name'])}")
    p()
    p(f"**{_md(totals_line(diff))}**")
    warnings = warning_lines(diff)
    if warnings:
        p()
        p(f"> **Warning:** the runs were made differently; {_md(WARNING_NOTE)}:")
        for line in warnings:
            p(f"> - {_md(line)}")
    for kind in BY_CAUSE + BY_OUTCOMES:
        if diff.kinds[kind]:
            markdown_section(p, f"{KINDS[kind][1]} ({len(diff.kinds[kind])})", text_groups(diff, kind),
                             folded=kind == "still_failing")


def markdown_section(p, title: str, groups, folded: bool) -> None:
    """A section of the markdown output; ``folded``: in a <details> block (a long list that
    changed nothing)."""
    p()
    p(f"<details><summary>{_md(title)}</summary>" if folded else f"### {_md(title)}")
    p()
    for heading, labels, notes in groups:
        p(f"- **{_md(heading)}**: {_md(' '.join(listed(labels)))}")
        for note in notes:
            p(f"  - {_md(note)}")
    if folded:
        p()
        p("</details>")


# --- JSON --------------------------------------------------------------------------

def as_json(diff: Diff) -> dict:
    """The JSON output (docs/harness.md, "Comparing two runs: doublecheck diff")."""
    changes = {kind: groups_json(diff.kinds[kind]) if kind in BY_CAUSE else
               [change_json(c) for c in diff.kinds[kind]] for kind in KINDS}
    return {"diff_version": DIFF_VERSION, "old": diff.old.header, "new": diff.new.header,
            "header_changes": diff.header_changes,
            "totals": {kind: len(found) for kind, found in diff.kinds.items()},
            "exit_code": diff.exit_code(), **changes}


def groups_json(changes) -> list[dict]:
    return [{"cause": cause_json(cause), "count": len(found), "cases": [change_json(c) for c in found]}
            for cause, found in by_cause(changes)]


def cause_json(cause: Cause) -> dict:
    return {"summary": cause.summary, "named": cause.named, "id": cause.id, "rules": list(cause.rules),
            "example": cause.example, "command": cause.command}


def change_json(c: Change) -> dict:
    entry = {"id": c.id, "old": c.before, "new": c.now}
    return {**entry, "cause_was": c.cause_was.summary} if c.cause_was else entry


def json_text(diff: Diff, out) -> None:
    print(json.dumps(as_json(diff), indent=1), file=out)


# --- the command -------------------------------------------------------------------

# The output formats (--format), by name; doublecheck.cli.DIFF_FORMATS names them (a test
# keeps the two equal, so that building the parser need not import this module).
FORMATS: dict[str, Callable] = {"text": text, "markdown": markdown, "json": json_text}


def diff_command(old_path, new_path, fmt: str = "text", out=None) -> int:
    """Compare the two reports and print the changes; exit status 1 when a case newly fails."""
    diff = compare(read_report(old_path), read_report(new_path))
    FORMATS[fmt](diff, out or sys.stdout)
    return diff.exit_code()
