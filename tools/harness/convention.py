"""An undeclared convention behind a failure: the engine's answer is the oracle's under a
rule option value it did not declare (docs/options.md).

An engine that captures kings instead of testing for check, or plays no draw rules, fails
every case where that convention changes the answer. Its few real bugs would drown in them,
so each failing case is asked whether the oracle, playing one more option value, gives the
engine's very answer, and the value is kept as the engine's convention only when the engine
passes no case that value changes with an answer the value does not give
(``keep_consistent``). Only values the generated record (``cases/options/<variant>.json``)
says change the case's answer are tried, each one alone on top of what the case was judged
under, so a failure costs at most a few answers of the oracle, and none when no value
changes it. The causes then file such failures under the convention, with the option to
declare (``doublecheck.harness.causes``).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from doublecheck.harness.compare import difference, judged_as
from doublecheck.harness.declared import expected_under, option_record
from doublecheck.oracle.options import exclusion


def conventions_of(case, answer: dict, under: dict | None = None) -> list[dict]:
    """``[{"option", "value"}]``: each option value not among ``under`` (the options the case
    was judged under) under which the oracle answers ``case`` as the engine did."""
    under = dict(under or {})
    found = []
    for name, value in changing_values(case):   # (each a [name, value] pair)
        options = {**under, name: value}
        if name not in under and not exclusion(options) and agrees_under(case, answer, options):
            found.append({"option": name, "value": value})
    return found


def changing_values(case) -> list[list[str]]:
    """The (option, value) pairs the record says change the case's expected answer."""
    try:
        tree = Path(case.path).resolve().parents[1] if getattr(case, "path", None) else None
        record = option_record(case.variant, str(tree) if tree else None)
    except Exception:   # a case of no tree: no record, so no convention to try
        return []
    found = [key.split("=", 1) for key, entry in record.items()
             if case.id in (entry.get("changed") or ()) and case.id not in
             (entry.get("not_recomputed") or {})]
    return [[name, value] for name, value in found]


def agrees_under(case, answer: dict, options: dict) -> bool:
    try:
        expect = expected_under(case, {**(getattr(case, "options", None) or {}), **options})
        return difference(judged_as(case.variant, options), expect, answer, case.request) is None
    except Exception:   # the oracle cannot say: no convention is named
        return False


def convention_line(found: dict) -> str:
    """The line a failure's report gives a convention."""
    said = f"{found['option']}={found['value']}"
    return (f"the engine's answer is the oracle's under {said}: it plays that convention "
            f"without declaring it (declare it in its hello or with --option {said}; "
            "doublecheck docs options)")


def keep_consistent(results) -> None:
    """Name one convention per failure, and only one the engine keeps: a value is the
    engine's only when no case that value changes passes with an answer the value does not
    give (an engine whose castling ignores an attacked square answers a few cases as king
    capture would, and the rest of them as the default rules do). Of the values a failure
    matches, the one most failures match is named (king capture, which also means no dead
    position, rather than no dead position alone)."""
    matched = {id(r): getattr(r, "conventions", ()) for r in results}
    counts = Counter((r.case.variant, pair(m)) for r in results for m in matched[id(r)])
    refuted = {key for key in counts if refuted_by_a_pass(key, results)}
    for r in results:
        kept = [m for m in matched[id(r)] if (r.case.variant, pair(m)) not in refuted]
        if (r.diff or {}).get("convention"):
            said = convention_line(r.diff.pop("convention"))
            r.lines = [line for line in r.lines if line != said]
        if kept:
            r.diff["convention"] = max(kept, key=lambda m: counts[r.case.variant, pair(m)])
            r.lines.insert(0, convention_line(r.diff["convention"]))


def pair(found: dict) -> tuple[str, str]:
    return found["option"], found["value"]


def refuted_by_a_pass(key: tuple, results) -> bool:
    """Whether a passing case of the variant, which the value changes, has an answer the
    oracle does not give under the value (each asked until one is found)."""
    variant, (name, value) = key
    return any(not agrees_under(r.case, r.answer or {}, {**(r.judged_under or {}), name: value})
               for r in results if r.outcome == "passed" and r.case.variant == variant
               and [name, value] in changing_values(r.case))
