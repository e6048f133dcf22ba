"""Reports of a run: plain text, markdown (CI job summaries), JSON, JUnit XML, xfail files.

Every function takes a ``doublecheck.harness.runner.Run``. The JSON report follows
``schemas/report.schema.json``; the xfail file format is described in
docs/harness.md and in ``read_xfail``.
"""

from __future__ import annotations

import json
import os
import tempfile
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

OUTCOMES = ("passed", "failed", "error", "skipped")
XFAIL_OUTCOMES = ("xfailed", "xpassed")
REPORT_VERSION = 1
MARKDOWN_DETAILS = 50  # failing cases shown in full in a markdown report
GROUP_SKIPS = 3        # a skip reason shared by more cases than this is shown once


def columns(run) -> tuple[str, ...]:
    return OUTCOMES + (XFAIL_OUTCOMES if run.xfail_used else ())


def table(run) -> list[tuple[str, str, Counter]]:
    """(variant, op, counts) rows: each op, then each variant's total when it has several ops."""
    rows = {}
    for r in run.results:
        rows.setdefault((r.case.variant, r.case.request.get("op", "?")), Counter())[r.outcome] += 1
    out = []
    for variant in sorted({v for v, _ in rows}):
        ops = sorted(op for v, op in rows if v == variant)
        out += [(variant, op, rows[variant, op]) for op in ops]
        if len(ops) > 1:
            out.append((variant, "(all)", sum((rows[variant, op] for op in ops), Counter())))
    return out


def verdict(run) -> str:
    c = run.counts()
    word = "INTERRUPTED" if run.interrupted else ("OK" if run.exit_code() == 0 else "FAILED")
    text = (f"{word}: {c['passed']} passed, {c['failed']} failed, {c['error']} errors, "
            f"{c['skipped']} skipped")
    if run.xfail_used:
        text += f", {c['xfailed']} xfailed, {c['xpassed']} unexpected passes"
    if run.problems:
        text += f", {len(run.problems)} case file problems"
    if run.interrupted:
        text += f" ({len(run.results)} of {run.selected} cases ran)"
    return text


def describe(result) -> str:
    """A failing (or erroring, or unexpectedly passing) case: what was asked, and the diff."""
    case, req = result.case, result.case.request
    extras = " ".join(f"{k}={v}" for k, v in req.items()
                      if k not in ("op", "variant", "fen", "moves"))
    label = "UNEXPECTED PASS" if result.outcome == "xpassed" else result.outcome.upper()
    lines = [f"{label} {case.id}",
             f"  description: {case.description}",
             f"  file:        {shown(case.path)}",
             f"  request:     variant={req.get('variant')} op={req.get('op')} {extras}".rstrip(),
             f"  fen:         {req.get('fen', '(start position)')}"]
    if req.get("moves"):
        lines.append(f"  moves:       {' '.join(req['moves'])}")
    lines += [f"    {line}" for line in result.lines]
    return "\n".join(lines)


def shown(path) -> str:
    try:
        return str(Path(path).resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _skips(results) -> list[str]:
    """One line per skipped case, or one per reason when many cases share it."""
    by_reason = {}
    for r in results:
        if r.outcome == "skipped":
            by_reason.setdefault(r.lines[0] if r.lines else "", []).append(r.case.id)
    lines = []
    for reason, ids in by_reason.items():
        if len(ids) > GROUP_SKIPS:
            lines.append(f"{len(ids)} cases: {reason} (first: {ids[0]})")
        else:
            lines += [f"{i}: {reason}" for i in ids]
    return lines


def text(run, out) -> None:
    def p(line=""):
        print(line, file=out)

    cols = columns(run)
    rows = table(run)
    w = max([len("variant")] + [len(v) for v, _, _ in rows])
    jobs = f", {run.jobs} jobs" if run.jobs > 1 else ""
    p(f"Engine: {run.engine}" + (f" ({run.source})" if run.source != run.engine else "")
      + f", {len(run.results)} cases{jobs}")
    header = f"{'variant':<{w}}  {'op':<7}" + "".join(f"{o:>9}" for o in cols)
    p(header)
    total = Counter(r.outcome for r in run.results)
    for variant, op, counts in rows + [("all", "", total)]:
        p(f"{variant:<{w}}  {op:<7}" + "".join(f"{counts[o]:>9}" for o in cols))
    skips = _skips(run.results)
    if skips:
        p()
        p("Skipped:")
        for line in skips:
            p(f"  {line}")
    xfailed = [r for r in run.results if r.outcome == "xfailed"]
    if xfailed:
        p()
        p(f"Expected failures (listed in {run.xfail_file}):")
        for r in xfailed:
            p(f"  {r.case.id} ({r.actual}): {r.reason}")
    for r in run.results:
        if r.outcome in ("failed", "error", "xpassed"):
            p()
            p(describe(r))
    if run.problems:
        p()
        p(f"Problems in the case files ({len(run.problems)}):")
        for problem in run.problems:
            p(f"  {problem}")
    p()
    p(verdict(run))


def markdown(run, out) -> None:
    def p(line=""):
        print(line, file=out)

    cols = columns(run)
    p(f"## doublecheck: {_md(run.engine)}")
    p()
    p(f"**{_md(verdict(run))}**")
    p()
    p("| variant | op | " + " | ".join(cols) + " |")
    p("|---|---|" + "---:|" * len(cols))
    total = Counter(r.outcome for r in run.results)
    for variant, op, counts in table(run) + [("**all**", "", total)]:
        p(f"| {variant} | {op} | " + " | ".join(str(counts[o]) for o in cols) + " |")
    bad = [r for r in run.results if r.outcome in ("failed", "error", "xpassed")]
    if bad:
        p()
        p(f"### Failures ({len(bad)})")
        for r in bad[:MARKDOWN_DETAILS]:
            p()
            first = r.lines[0] if r.lines else ""
            p(f"<details><summary>{r.outcome.upper()} <code>{_html(r.case.id)}</code>: "
              f"{_html(first[:120])}</summary>")
            p()
            p("```text")
            p(describe(r).replace("```", "'''"))
            p("```")
            p()
            p("</details>")
        if len(bad) > MARKDOWN_DETAILS:
            p()
            p(f"... and {len(bad) - MARKDOWN_DETAILS} more; see the full report.")
    skips = _skips(run.results)
    if skips:
        p()
        p(f"<details><summary>Skipped ({total['skipped']})</summary>")
        p()
        for line in skips:
            p(f"- {_md(line)}")
        p()
        p("</details>")
    if run.problems:
        p()
        p("### Problems in the case files")
        p()
        for problem in run.problems:
            p(f"- {_md(problem)}")


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("<", "&lt;")


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


# --- JSON ---------------------------------------------------------------------

def as_json(run) -> dict:
    totals = run.counts()
    summary = []
    for variant, op, counts in table(run):
        if op != "(all)":
            summary.append({"variant": variant, "op": op, **{o: counts[o] for o in totals}})
    cases = []
    for r in run.results:
        entry = {"id": r.case.id, "variant": r.case.variant, "op": r.case.request.get("op"),
                 "outcome": r.outcome, "lines": list(r.lines), "seconds": round(r.seconds, 6),
                 "file": shown(r.case.path)}
        if r.actual is not None:
            entry["actual"] = r.actual
        if r.reason is not None:
            entry["xfail_reason"] = r.reason
        cases.append(entry)
    return {
        "report_version": REPORT_VERSION,
        "engine": {"name": run.engine, "source": run.source,
                   **{k: run.claims[k] for k in ("protocol", "variants", "ops") if k in run.claims}},
        "started": run.started,
        "seconds": round(run.seconds, 3),
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
        "cases": cases,
    }


def write_json(run, path) -> None:
    _write(path, json.dumps(as_json(run), indent=1) + "\n")


# --- JUnit XML ----------------------------------------------------------------

def junit(run) -> str:
    root = ET.Element("testsuites", name="doublecheck")
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
                                 file=shown(r.case.path), time=f"{r.seconds:.3f}")
            first = _xml_safe(r.lines[0]) if r.lines else ""
            body = _xml_safe(describe(r))
            if r.outcome == "failed":
                ET.SubElement(case, "failure", message=first, type="failed").text = body
            elif r.outcome == "error":
                ET.SubElement(case, "error", message=first, type="error").text = body
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
        props = ET.SubElement(root, "properties")
        ET.SubElement(props, "property", name="interrupted",
                      value=f"{len(run.results)} of {run.selected} cases ran")
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _xml_safe(text: str) -> str:
    """Drop the control characters XML 1.0 cannot carry (engine output may contain them)."""
    return "".join(ch for ch in text if ch in "\t\n\r" or ord(ch) >= 0x20)


def write_junit(run, path) -> None:
    _write(path, junit(run))


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
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        return {}, [f"cannot read the xfail file {path}: {e}"]
    entries, problems = {}, []
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        cid, _, reason = line.partition(" ")
        cid, reason = cid.strip(), reason.strip()
        if cid.count("/") != 2:
            problems.append(f"{path}:{n}: {cid!r} is not a case id (variant/topic/slug)")
        elif cid in entries:
            problems.append(f"{path}:{n}: {cid} is listed twice")
        else:
            entries[cid] = reason or "(no reason given)"
    return entries, problems


def xfail_entries(run, old: dict) -> dict:
    """The new baseline: every case that failed or errored now, with its reason.

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
        elif r.outcome in ("failed", "error"):
            first = " ".join((r.lines[0] if r.lines else "").split())
            entries[r.case.id] = f"{r.outcome}: {first[:160]}"
    return dict(sorted(entries.items()))


def write_xfail(run, path, old: dict) -> None:
    entries = xfail_entries(run, old)
    body = XFAIL_HEADER + f"# engine: {run.engine}\n"
    body += "".join(f"{cid}  {reason}\n" for cid, reason in entries.items())
    _write(path, body)


def _write(path, text: str) -> None:
    """Write a whole file or nothing: a temporary file next to it, then a rename."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent if str(path.parent) else ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
