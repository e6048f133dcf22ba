"""The pair table: rules that can hold at the same moment, and the cases where they do.

Each variant may declare, in ``cases/rules/pairs/<variant>.json`` (schema:
``doublecheck docs --schema pairs``), the *conditions* that can hold at one
moment (end conditions such as checkmate, stalemate, a dead position, the
seventy-five-move rule, M5; turn rules such as a brake on move one or the
Double Move's opening; state carried between moves such as an en passant
target), each with the *moment* it is judged at (a turn boundary, the choice
of a move one, an en passant capture, ...), and, for every two conditions of
one moment, either the ruling that decides which one names the result
together with the curated cases where both hold, or the reason the two can
never hold together.  Nothing here names a variant: the
table is read from the file found by the variant's id, so a new variant
declares its pairs by adding its file.

A pair is

- *covered* when at least two of its cases exist in the variant and are not
  colour mirrors of each other (``doublecheck.authoring.mirrors``), with a
  case about White and one about Black unless the entry says why the pair
  concerns one colour (``one_colour``);
- *impossible* when the entry gives the reason instead of cases;
- *thin* when it has cases but fewer than that;
- *missing* when two declared conditions have no entry at all.

``doublecheck rules --matrix`` prints the table under the rule matrix and
exits 1 on a missing or thin pair.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

from doublecheck.casefiles import schema
from doublecheck.packaged import CASES_DIR

PAIRS_DIR = ("rules", "pairs")       # below the case tree: rules/pairs/<variant>.json
NEEDED = 2                           # independent cases a covered pair needs


def pairs_file(variant: str, cases_dir=CASES_DIR) -> Path:
    return Path(cases_dir).joinpath(*PAIRS_DIR, f"{variant}.json")


def load(variant: str, cases_dir=CASES_DIR) -> dict | None:
    """The variant's pair catalogue, or None when it declares none.  A file that does not
    pass its schema is a ValueError naming what is wrong."""
    path = pairs_file(variant, cases_dir)
    if not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    import jsonschema
    try:
        jsonschema.validate(data, schema("pairs.schema.json"))
    except jsonschema.ValidationError as e:
        raise ValueError(f"{path.name}: {e.message}") from None
    if data["variant"] != variant:
        raise ValueError(f"{path.name}: says it is about {data['variant']!r}, not {variant!r}")
    return data


@dataclass
class Row:
    conditions: tuple
    state: str                       # covered, impossible, thin, missing
    ruling: str | None = None
    cases: int = 0                   # cases named that exist
    independent: int = 0             # of them, not colour mirrors of each other
    colours: tuple = ()
    why: str = ""                    # the reason (impossible) or what is lacking (thin, missing)
    probe: str | None = None         # the catalogued mutant applying the two in the wrong order
    search: tuple = ()               # the witness options that find the probe out (--clock, --repeat)

    def as_json(self) -> dict:
        return {"conditions": list(self.conditions), "state": self.state, "ruling": self.ruling,
                "cases": self.cases, "independent": self.independent, "colours": list(self.colours),
                "why": self.why, "probe": self.probe, "search": list(self.search)}


@dataclass
class Table:
    variant: str
    declared: bool
    conditions: dict = field(default_factory=dict)
    rows: list = field(default_factory=list)
    problems: list = field(default_factory=list)

    def failing(self) -> list:
        return [r for r in self.rows if r.state in ("thin", "missing")]

    def counts(self) -> dict:
        out = dict.fromkeys(("covered", "impossible", "thin", "missing"), 0)
        for r in self.rows:
            out[r.state] += 1
        return out

    def as_json(self) -> dict:
        return {"variant": self.variant, "declared": self.declared, "conditions": self.conditions,
                "pairs": [r.as_json() for r in self.rows], "counts": self.counts(),
                "problems": self.problems}


def build(variant: str, cases, catalogue: dict, cases_dir=CASES_DIR) -> Table:
    """The pair table of one variant from its pair catalogue and its cases."""
    from doublecheck.authoring.mirrors import mirror_key
    from doublecheck.lookups.matrix import case_colour
    try:
        data = load(variant, cases_dir)
    except ValueError as e:
        return Table(variant, True, problems=[str(e)])
    if data is None:
        return Table(variant, False)
    table = Table(variant, True, {name: c["rule"] for name, c in data["conditions"].items()})
    mine = {c.id: c for c in cases if c.variant == variant}
    for name, rid in table.conditions.items():
        if rid not in catalogue or variant not in catalogue[rid]["variants"]:
            table.problems.append(f"condition {name}: {rid} is not a catalogue rule of {variant}")
    entries = {}
    for entry in data["pairs"]:
        key = frozenset(entry["conditions"])
        unknown = [c for c in entry["conditions"] if c not in table.conditions]
        if unknown or len(key) != 2:
            table.problems.append(f"pair {' + '.join(entry['conditions'])}: not two declared conditions")
            continue
        if key in entries:
            table.problems.append(f"pair {' + '.join(entry['conditions'])}: listed twice")
        entries[key] = entry
    moment = {name: c["moment"] for name, c in data["conditions"].items()}
    for a, b in combinations(table.conditions, 2):
        if moment[a] != moment[b]:
            continue                 # never at the same moment: no pair
        entry = entries.get(frozenset((a, b)))
        if entry is None:
            table.rows.append(Row((a, b), "missing", why="no entry: give the ruling and cases, or why "
                                                         "the two cannot hold together"))
            continue
        row = _row((a, b), entry, mine, catalogue, variant, table.problems, mirror_key, case_colour)
        row.probe, row.search = entry.get("probe"), tuple(entry.get("search", ()))
        if row.probe is not None and not _is_probe_of(row.probe, variant):
            table.problems.append(f"pair {' + '.join((a, b))}: probe {row.probe} is not a catalogued "
                                  f"mutant of {variant} (doublecheck mutants --list)")
        table.rows.append(row)
    return table


def _is_probe_of(name: str, variant: str) -> bool:
    """Is ``name`` a catalogued mutant of ``variant`` (the probe a pair entry may name)?"""
    from doublecheck.authoring.mutants import CATALOGUE
    mutant = CATALOGUE.get(name)
    return mutant is not None and mutant.variant == variant


def _row(pair, entry, mine, catalogue, variant, problems, mirror_key, case_colour) -> Row:
    if "impossible" in entry:
        return Row(pair, "impossible", why=entry["impossible"])
    ruling = entry["ruling"]
    if ruling not in catalogue or variant not in catalogue[ruling]["variants"]:
        problems.append(f"pair {' + '.join(pair)}: ruling {ruling} is not a catalogue rule of {variant}")
    found = [mine[i] for i in entry["cases"] if i in mine]
    for i in entry["cases"]:
        if i not in mine:
            problems.append(f"pair {' + '.join(pair)}: no case {i} in {variant}")
        elif ruling not in mine[i].rules:
            problems.append(f"pair {' + '.join(pair)}: case {i} does not cite the ruling {ruling}")
    independent = len({mirror_key(c.request) for c in found})
    colours = tuple(sorted({case_colour(c) for c in found}))
    lacking = []
    if independent < NEEDED:
        lacking.append(f"{independent} case(s) that are not colour mirrors of each other")
    if "one_colour" not in entry and len(colours) < 2:
        lacking.append("no " + ("black" if colours == ("white",) else "white") + " case")
    return Row(pair, "thin" if lacking else "covered", ruling, len(found), independent, colours,
               "; ".join(lacking))


def as_text(tables, probes=False) -> list[str]:
    """The pair tables as lines, with one count line per variant (``probes``: and each pair's
    probe mutant, for doublecheck witness)."""
    lines = ["pairs: conditions that can hold at one moment, the ruling that decides, and the cases "
             "(independent = not colour mirrors; doublecheck docs case-format, 'The pair table')"]
    for t in tables:
        if not t.declared:
            lines.append(f"  {t.variant}: no pair catalogue yet (cases/rules/pairs/{t.variant}.json)")
            continue
        c = t.counts()
        lines.append(f"  {t.variant}: {len(t.conditions)} conditions, {len(t.rows)} pairs: "
                     f"{c['covered']} covered, {c['impossible']} impossible, {c['thin']} thin, "
                     f"{c['missing']} missing")
        for r in t.rows:
            what = " + ".join(r.conditions)
            if r.state == "impossible":
                lines.append(f"    {what}: impossible: {r.why}")
            elif r.state == "missing":
                lines.append(f"    {what}: MISSING: {r.why}")
            else:
                tail = f"; {r.why}" if r.why else ""
                lines.append(f"    {what}: {r.state} by {r.ruling}, {r.cases} case(s), {r.independent} "
                             f"independent, {'/'.join(r.colours) or 'no colour'}{tail}")
            if probes and r.probe:
                lines.append(f"      probe: {r.probe} (doublecheck witness {' '.join((r.probe, *r.search))})")
        lines += [f"    problem: {p}" for p in t.problems]
    return lines
