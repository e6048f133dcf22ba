"""Which curated cases kill each mutant: the record the coverage matrix and docs/mutants.md read.

``doublecheck mutants`` stops after a few killing cases; the matrix needs
the whole set, over curated cases only (a generated perft or playout case is
not a reason anyone wrote down, so it does not count), to mark a mutant that
one edited case would let live.  Playing every curated case against every
mutant takes a minute or two, so the answer is kept in
``curated-kills.json`` beside this module, per variant, with a fingerprint
of everything it depends on: the curated cases of that variant, the oracle's
code, the mutant modules and the comparison the harness makes (their syntax,
not their comments and docstrings).  A variant
whose fingerprint still matches is read from the record; any other is played
again.  So a stale record never gives a wrong count, only a slower answer;
``doublecheck generate`` writes the record and ``generate --check`` reports
it as differing when a fingerprint moved.
"""

from __future__ import annotations

import ast
import hashlib
import json
from pathlib import Path

from doublecheck.authoring.mirrors import independent
from doublecheck.authoring.mutants import CATALOGUE
from doublecheck.authoring.mutants.kill import DEFAULT_MAX_NODES, CaseEngines
from doublecheck.harness import compare as compare_module
from doublecheck.harness import operations as operations_module
from doublecheck.harness.compare import compare, judged_as
from doublecheck.harness.runner import expected_nodes
from doublecheck.oracle import api

RECORD = Path(__file__).with_name("curated-kills.json")
THIN_BELOW = 2        # a mutant or rule with fewer curated cases than this is "thin"


def curated(cases, variant: str) -> list:
    """The curated cases of a variant the kill run plays (perft above the run's node budget
    is left out, as ``doublecheck mutants`` leaves it out)."""
    return [c for c in cases if c.variant == variant and not c.generated
            and expected_nodes(c) <= DEFAULT_MAX_NODES]


def _source_files() -> list[Path]:
    """The files a kill depends on: the oracle, the mutants and their entries, the comparison
    (compare and the judges of the operations table)."""
    oracle = Path(api.__file__).parent
    mutants = Path(__file__).parent
    entries = sorted(p for p in mutants.glob("*.json")
                     if p != RECORD)     # which classes, and their bases
    return (sorted(oracle.rglob("*.py")) + sorted(mutants.glob("*.py")) + entries
            + [Path(compare_module.__file__), Path(operations_module.__file__)])


def _source_digest() -> str:
    h = hashlib.sha256()
    for path in _source_files():
        h.update(path.name.encode() + b"\0" + _code_of(path) + b"\0")
    return h.hexdigest()


def _code_of(path: Path) -> bytes:
    """What a kill can depend on in a file: for Python source its syntax tree without
    comments and docstrings (nothing reads ``__doc__`` here), so that an edit of prose
    does not make the record stale; any other file as it is."""
    if path.suffix != ".py":
        return path.read_bytes()
    tree = ast.parse(path.read_bytes())
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and _is_docstring(body[0]):
            node.body = body[1:] or [ast.Pass()]
    return ast.dump(tree).encode()


def _is_docstring(statement) -> bool:
    return (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)
            and isinstance(statement.value.value, str))


def fingerprint(cases, variant: str, source: str) -> str:
    """A digest of what the variant's kills depend on (``source``: ``_source_digest()``)."""
    h = hashlib.sha256(source.encode())
    for c in curated(cases, variant):
        h.update(json.dumps([c.id, c.request, c.expect, c.options], sort_keys=True).encode())
    return h.hexdigest()[:32]


def killers(m, cases) -> list[str]:
    """Ids of every curated case of the mutant's variant that the mutant fails."""
    engines = CaseEngines(m)
    return [c.id for c in curated(cases, m.variant)
            if compare(judged_as(c.variant, c.options), c.expect, engines.answer(c))]


def stored(path: Path = RECORD) -> dict:
    """The record on disk, or an empty one when it is missing or unreadable (it is then
    rebuilt: a cache, never the only source)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return data if isinstance(data.get("variants"), dict) else {"variants": {}}
    except (OSError, ValueError, AttributeError):
        return {"variants": {}}


def kill_record(cases, variants=None, path: Path = RECORD, progress=None) -> dict:
    """{"variants": {variant: {"fingerprint": ..., "killers": {mutant: [case ids]}}}} for
    the variants of the catalogue (or those named), reusing every entry still fresh.
    ``progress`` (a ``doublecheck.progress.Progress`` over the variants) hears of each
    variant as its mutants are run, which takes minutes when the cases changed."""
    source = _source_digest()
    old = stored(path)["variants"]
    out = {}
    for v in recorded_variants(variants):
        if progress:
            progress.start(v)
        digest = fingerprint(cases, v, source)
        entry = old.get(v)
        if not _fresh(entry, digest, v):
            entry = {"fingerprint": digest,
                     "killers": {m.name: killers(m, cases) for m in CATALOGUE.values() if m.variant == v}}
        out[v] = entry
        if progress:
            progress.finish(v)
    return {"variants": out}


def recorded_variants(variants=None) -> list[str]:
    """The variants ``kill_record`` goes through, in order: those of the catalogue's mutants
    (only those named, when ``variants`` is given)."""
    return sorted({m.variant for m in CATALOGUE.values() if variants is None or m.variant in variants})


def _fresh(entry, digest: str, variant: str) -> bool:
    """Is a stored entry well formed, of the same fingerprint, and about the same mutants?"""
    if not isinstance(entry, dict) or entry.get("fingerprint") != digest:
        return False
    found = entry.get("killers")
    return (isinstance(found, dict) and all(isinstance(ids, list) for ids in found.values())
            and set(found) == {m.name for m in CATALOGUE.values() if m.variant == variant})


def counts_of(record: dict, cases=None) -> dict[str, int]:
    """mutant name -> how many curated cases kill it, from a ``kill_record``.  Given the
    ``cases``, a case and its colour mirror count once (``doublecheck.authoring.mirrors``):
    two kills by one position seen from both sides rest on one idea."""
    if cases is None:
        return {name: len(ids) for entry in record["variants"].values()
                for name, ids in entry["killers"].items()}
    requests = {c.id: c.request for c in cases}
    return {name: independent(requests.get(i, {"op": ("unknown case", i)}) for i in ids)
            for entry in record["variants"].values() for name, ids in entry["killers"].items()}


def record_text(record: dict) -> str:
    """The text ``doublecheck generate`` writes for a ``kill_record``."""
    return json.dumps({"generated": True,
                       "description": "Written by `doublecheck generate`: per variant, the curated "
                                      "cases that kill each mutant (doublecheck docs mutants).",
                       **record}, indent=1) + "\n"
