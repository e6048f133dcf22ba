"""The record of what each rule option changes: ``cases/options/<variant>.json``.

For every variant that takes at least one rule option (its rules class's
``option_names``; doublecheck.oracle.options), and every value of those options
other than the default, the oracle plays every case of the variant under that one
value (added to the case's own ``options``) and compares its answer with what the
case expects, exactly as the harness compares an engine's.  A case whose answer
differs is *changed* under that value.  A perft case expecting more than
``RECORD_MAX_NODES`` nodes is not played again: it is listed under
``not_recomputed`` with the reason (the harness skips it for an engine that
declares the value), except where the option's own rule says it cannot change a
count (``PERFT_NEUTRAL``; checked on every cheaper perft case the record plays).

The record is written by ``doublecheck generate`` and compared by ``generate
--check``.  Playing every case under every value takes a minute or so, so each
file keeps a fingerprint of what it depends on (the oracle's code, the comparison,
the variant's cases); a file whose fingerprint still matches is kept as it is.

Read it with ``doublecheck.casefiles.option_changes(variant, case_tree=None)``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from doublecheck.casefiles import OPTIONS_DIR, option_record_path
from doublecheck.oracle import options as declared
from doublecheck.oracle import variants
# Options whose rule says they never change a perft count: a perft case above the bound is
# then known unchanged rather than not recomputed.
from doublecheck.oracle.options import PERFT_NEUTRAL

RECORD_MAX_NODES = 200_000   # perft nodes above which a case is not played again under an option


class RecordError(Exception):
    """The oracle contradicts what PERFT_NEUTRAL says of an option (a bug to fix, not a record)."""


def source_digest() -> str:
    """A digest of the code the record depends on: the oracle, the comparison, this module."""
    from doublecheck.authoring.mutants.record import _code_of
    from doublecheck.harness import compare as compare_module
    from doublecheck.harness import operations as operations_module
    from doublecheck.oracle import api
    h = hashlib.sha256()
    code = sorted(Path(api.__file__).parent.rglob("*.py")) + [Path(compare_module.__file__),
                                                             Path(operations_module.__file__), Path(__file__)]
    for path in code:
        h.update(path.name.encode() + b"\0" + _code_of(path) + b"\0")
    return h.hexdigest()


def fingerprint(cases, variant: str, source: str) -> str:
    h = hashlib.sha256(source.encode())
    for c in cases:
        if c.variant == variant:
            h.update(json.dumps([c.id, c.request, c.expect, c.options], sort_keys=True).encode())
    return h.hexdigest()[:32]


def answer(rules, request: dict) -> dict:
    """The oracle's answer (as an engine gives it) under ``rules``, perft through a table."""
    from doublecheck.harness.engines import cached_counter
    from doublecheck.oracle import api
    from doublecheck.oracle.errors import RulesError
    try:
        return {"ok": True, **api.handle(request, rules=rules, counter=cached_counter)}
    except RulesError as e:
        return {"ok": False, "error": {"code": e.code, "message": e.message}}


def changes_of(variant: str, cases) -> dict:
    """{"NAME=VALUE": {"changed": [ids], "not_recomputed": {id: reason}}} for every
    non-default value of every rule option the variant takes."""
    from doublecheck.harness.compare import compare
    from doublecheck.harness.runner import expected_nodes
    mine = [c for c in cases if c.variant == variant]
    out = {}
    cls = variants.descriptor(variant).rules_class()
    for name in declared.taken_by(cls):
        for value in (v for v in declared.values_of(cls, name) if v != declared.default_of(cls, name)):
            changed, skipped = [], {}
            for case in mine:
                if name in case.options or declared.exclusion({**case.options, name: value}):
                    continue   # the case states this option itself, or one that cannot go with it
                nodes = expected_nodes(case)
                if nodes > RECORD_MAX_NODES:
                    if name not in PERFT_NEUTRAL:
                        skipped[case.id] = (f"a perft of {nodes:,} nodes, over the {RECORD_MAX_NODES:,} "
                                            f"the record plays again under {name}={value}")
                    continue
                rules = variants.get(variant, {**case.options, name: value})
                # compared as the harness compares under the value (a FEN read by its rules)
                if compare(rules, case.expect, answer(rules, case.request)):
                    if nodes and name in PERFT_NEUTRAL:
                        raise RecordError(f"{case.id}: {name}={value} changes a perft count, but "
                                          f"{PERFT_NEUTRAL[name]}")
                    changed.append(case.id)
            out[f"{name}={value}"] = {"changed": sorted(changed), "not_recomputed": dict(sorted(skipped.items()))}
    return out


def record_data(variant: str, cases, digest: str) -> dict:
    return {"generated": True, "variant": variant,
            "description": (f"Written by `doublecheck generate`: for each rule option value that "
                            f"{variant} takes other than the default, the cases whose expected "
                            f"answer differs under it, and those not played again under it "
                            f"(doublecheck docs options)."),
            "fingerprint": digest,
            "changes": changes_of(variant, cases)}


def expected_texts(cases_dir: Path, variant_ids, cases=None) -> dict[Path, str]:
    """Every record file of ``variant_ids`` (those taking options) with the text it should
    have; a file on disk whose fingerprint matches is kept as it is.  ``cases`` defaults to
    every case of ``cases_dir``, the deep tier included (its counts are over the bound, so
    an engine declaring a value that may change them skips them, with the reason)."""
    if cases is None:
        from doublecheck.casefiles import load_cases
        cases, _ = load_cases(cases_dir, warn=lambda message: None, deep=True)
    source = source_digest()
    out = {}
    for variant in variant_ids:
        if not declared.taken_by(variants.descriptor(variant).rules_class()):
            continue
        path = option_record_path(cases_dir, variant)
        digest = fingerprint(cases, variant, source)
        old = _stored(path)
        if old is not None and old.get("fingerprint") == digest:
            data = old
        else:
            data = record_data(variant, cases, digest)
        out[path] = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    return out


def _stored(path: Path):
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("changes"), dict) else None


__all__ = ["OPTIONS_DIR", "RECORD_MAX_NODES", "PERFT_NEUTRAL", "expected_texts", "changes_of"]
