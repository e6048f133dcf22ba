"""The changelog (docs/changelog.md): what each release brought, case by case, written from the
case trees by ``doublecheck generate``, never by hand.

A release's *case record*, ``changes/<version>.cases.json``, maps every case id
of that release's tree to a fingerprint of what the case asks and expects
(its variant, ``request`` and ``expect``): a case whose fingerprint differs
between two releases *changed* for an engine, whatever happened to its
description or rule ids. ``generate`` writes the record of the version being
built (the package's own version) from the tree as it is; once that version
is released and the version number moves on, its record stays as written. The
records of 0.1.0 and 0.2.0 were written by the same code from those releases'
trees.

The page lists, release by release (newest first), the hand-written summary
``changes/<version>.md`` and then per variant the cases added, changed and
removed: by id for curated files, by number for generated ones (thousands of
seeded playouts and perft counts are regenerated wholesale).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from doublecheck.casefiles import CASES_DIR

CHANGES_DIR = CASES_DIR.parent / "changes"
PAGE = CASES_DIR.parent / "docs" / "changelog.md"
RECORD_SUFFIX = ".cases.json"
VERSION = re.compile(r"^(\d+)\.(\d+)\.(\d+)$")
SHOWN_IDS = 40   # ids listed per case file and kind of change; the rest as a count


def fingerprint(variant: str, case: dict) -> str:
    """What an engine's result depends on: the variant, the request and the expected answer."""
    what = {"variant": variant, "request": case.get("request"), "expect": case.get("expect")}
    text = json.dumps(what, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def tree_record(cases_dir: Path) -> dict[str, dict]:
    """{case id: {"fingerprint", "generated"}} for every case of a case tree, read as raw JSON
    (an old release's tree need not pass today's schemas)."""
    record = {}
    for path in sorted(Path(cases_dir).glob("*/*.json")):
        if path.parent.name == "rules":
            continue
        data = json.loads(path.read_text(encoding="utf-8"))
        for case in data.get("cases", []):
            record[case["id"]] = {"fingerprint": fingerprint(data["variant"], case),
                                  "generated": bool(data.get("generated"))}
    return dict(sorted(record.items()))


def record_text(version: str, record: dict) -> str:
    """One case a line: ``"id": ["fingerprint", generated]`` (a diff of two records reads well)."""
    rows = ",\n".join(f"  {json.dumps(case_id)}: {json.dumps([entry['fingerprint'], entry['generated']])}"
                       for case_id, entry in sorted(record.items()))
    return f'{{"version": {json.dumps(version)}, "cases": {{\n{rows}\n}}}}\n'


def read_record(path: Path) -> dict:
    cases = json.loads(Path(path).read_text(encoding="utf-8"))["cases"]
    return {case_id: {"fingerprint": fp, "generated": generated} for case_id, (fp, generated) in cases.items()}


def _version_key(version: str):
    return tuple(int(part) for part in VERSION.match(version).groups())


def releases(changes_dir: Path) -> list[str]:
    """The versions that have a case record, oldest first."""
    found = [p.name[:-len(RECORD_SUFFIX)] for p in Path(changes_dir).glob(f"*{RECORD_SUFFIX}")]
    return sorted((v for v in found if VERSION.match(v)), key=_version_key)


def _variant(case_id: str) -> str:
    return case_id.split("/", 1)[0]


def _file(case_id: str) -> str:
    return case_id.rsplit("/", 1)[0]


def difference(before: dict, after: dict) -> dict[str, dict[str, list[str]]]:
    """{variant: {"added": [...], "changed": [...], "removed": [...]}} between two records."""
    out: dict[str, dict[str, list[str]]] = {}

    def note(kind, case_id):
        out.setdefault(_variant(case_id), {"added": [], "changed": [], "removed": []})[kind].append(case_id)
    for case_id in sorted(after.keys() | before.keys()):
        if case_id not in before:
            note("added", case_id)
        elif case_id not in after:
            note("removed", case_id)
        elif before[case_id]["fingerprint"] != after[case_id]["fingerprint"]:
            note("changed", case_id)
    return dict(sorted(out.items()))


def _kind_lines(kind: str, ids: list[str], record: dict) -> list[str]:
    """One line per case file: the ids of curated cases, a count for generated ones."""
    by_file: dict[str, list[str]] = {}
    for case_id in ids:
        by_file.setdefault(_file(case_id), []).append(case_id)
    lines = []
    for name, found in by_file.items():
        if record.get(found[0], {}).get("generated"):
            lines.append(f"  - {kind} in `{name}` (generated): {len(found)}")
            continue
        shown = ", ".join(f"`{i.rsplit('/', 1)[1]}`" for i in found[:SHOWN_IDS])
        more = f" and {len(found) - SHOWN_IDS} more" if len(found) > SHOWN_IDS else ""
        lines.append(f"  - {kind} in `{name}` ({len(found)}): {shown}{more}")
    return lines


def release_section(version: str, summary: str, before: dict | None, after: dict) -> str:
    lines = [f"## {version}", ""]
    if summary.strip():
        lines += [summary.strip(), ""]
    if before is None:
        counts: dict[str, int] = {}
        for case_id in after:
            counts[_variant(case_id)] = counts.get(_variant(case_id), 0) + 1
        lines.append(f"The first release: {len(after)} cases "
                     f"({', '.join(f'{v} {n}' for v, n in sorted(counts.items()))}).")
        return "\n".join(lines) + "\n"
    changes = difference(before, after)
    if not changes:
        lines.append("No case was added, changed or removed.")
    for variant, kinds in changes.items():
        total = ", ".join(f"{len(ids)} {kind}" for kind, ids in kinds.items() if ids)
        lines.append(f"- **{variant}**: {total}")
        for kind, ids in kinds.items():
            lines += _kind_lines(kind, ids, after if kind != "removed" else before)
    return "\n".join(lines) + "\n"


HEADER = """\
# Changelog

<!-- written by `doublecheck generate` from the case records changes/<version>.cases.json and the
summaries changes/<version>.md; edit a summary, never this page -->

What each release of doublecheck brought, newest first: a summary, then per
variant the cases added, changed (what the case asks or expects is
different) and removed, by id for curated case files and by number for
generated ones. Pin a version (`doublecheck-chess==0.3.*`) and read the next
release's entry before you move the pin; `doublecheck run --xfail` then
tells you which new cases your engine fails.
"""


def changelog_text(changes_dir: Path, current: str, current_record: dict) -> str:
    """The page, from the records on disk with the current version's taken from the tree."""
    records = {v: read_record(Path(changes_dir) / f"{v}{RECORD_SUFFIX}") for v in releases(changes_dir)}
    records[current] = current_record
    order = sorted(records, key=_version_key)
    sections = []
    for i, version in enumerate(order):
        summary_file = Path(changes_dir) / f"{version}.md"
        summary = summary_file.read_text(encoding="utf-8") if summary_file.exists() else ""
        sections.append(release_section(version, summary, records[order[i - 1]] if i else None,
                                        records[version]))
    return HEADER + "\n" + "\n".join(reversed(sections))


def expected_texts(cases_dir: Path = CASES_DIR, changes_dir: Path = CHANGES_DIR,
                   page: Path = PAGE) -> dict[Path, str]:
    """The current version's case record and the changelog page (a checkout only)."""
    from doublecheck import __version__

    if not Path(changes_dir).is_dir():
        return {}
    record = tree_record(cases_dir)
    return {Path(changes_dir) / f"{__version__}{RECORD_SUFFIX}": record_text(__version__, record),
            Path(page): changelog_text(changes_dir, __version__, record)}
