"""The coverage matrix: how many cases test each rule and each state component, per variant.

Everything here is counted from data, never guessed:

- *Rule cells.*  A catalogue rule applies to the variants its ``variants``
  list names.  The cell (rule, variant) holds the number of cases of that
  variant that cite the rule.  An empty cell is a *gap* unless the rule's
  ``not_tested`` entry gives the reason for that variant.
- *Component cells.*  A catalogue rule may name the state components it
  defines (``components``, the ``covers`` vocabulary of case files, see
  docs/case-format.md); each of them is then required in every variant of the
  rule (minus the ``not_tested`` ones).  Each required cell has two sides that
  both need a case: ``identity:*`` components a case whose repetition is
  counted and one whose repetition is not (read from the case's expected
  status), every other family a case about White and one about Black (the
  case's ``colour:*`` tags).
- *Parts of a side-owned component.*  A component that belongs to a side
  (castling rights, Double Move abilities, double-kings in hand, the en
  passant targets Marseillais keeps per side) may be required in two parts,
  ``<component>:mover`` (the side to move's part) and ``<component>:other``
  (the other side's part).  Each part needs a case about White's part and
  one about Black's (the ``colour:*`` tag names the part's owner); for an
  ``identity:*`` part the case must also expect no repetition counted, since
  it shows two positions differing only in that part that a count must not
  merge.

- *A colour without a part of the game.*  Where a variant's rules give one
  colour no castling or only one-move turns (Monster's White castles never,
  its Black moves once a turn), the rules class says so (``colour_lacks``) and
  that colour's side of the castling components, or of ``half:second``, is
  not asked for (it shows as absent, with the rules' reason); a castling rule
  (by the rules class's ``rule_ids``) then needs no case of that colour.

- *Thin cells.*  A rule that only one curated case cites in a variant, or
  that the curated cases of a variant test for one colour only, rests on one
  case: editing it would leave the rule untested.  Such a cell is *thin*
  unless the rule's ``one_colour`` entry says why it concerns one colour only
  (then two cases are still needed).  A case's colour is its ``colour:*`` tag,
  else the side to move of its request's FEN (White for the start position):
  the side whose move the case is about.  A catalogued mutant is thin when
  fewer than two curated cases kill it (the kill record,
  ``doublecheck.authoring.mutants.record``), a case and its colour mirror
  counting as one (``doublecheck.authoring.mirrors``).  Generated perft and playout
  cases never count towards either.

A new variant therefore only adds cases and catalogue entries: the rows, the
columns and the requirements all come from the rule catalogue and the cases.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from doublecheck.casefiles import schema
from doublecheck.oracle import api, variants as registry
from doublecheck.oracle.errors import RulesError
from doublecheck.oracle.position import BLACK, WHITE

COLOUR = "colour"
SIDES = {"identity": ("counted", "not counted")}        # every other family: white / black
COLOURS = ("white", "black")
PARTS = {"mover": "the side to move's part", "other": "the other side's part"}
THIN_BELOW = 2      # fewer curated cases than this, for a rule cell or a mutant, is "thin"


def vocabulary() -> list[str]:
    """The state components a case may cover, in the order the schema lists them."""
    return list(schema("case-file.schema.json")["$defs"]["component"]["enum"])


def family(component: str) -> str:
    return component.split(":", 1)[0]


def sides_of(component: str) -> tuple[str, str]:
    if part_of(component):
        return COLOURS
    return SIDES.get(family(component), COLOURS)


def part_of(component: str) -> str | None:
    """``mover`` or ``other`` when the component is one part of a side-owned one
    (``identity:castling:other``), else None."""
    pieces = component.split(":")
    return pieces[2] if len(pieces) == 3 and pieces[2] in PARTS else None


def part_sides(case, component: str) -> list[str]:
    """The owners (colour tags) a case about one part covers; an identity part counts only
    a case whose expected status counts no repetition (the two positions must not merge)."""
    if family(component) in SIDES and repetition_counted(case.expect) is not False:
        return []
    return [c for c in COLOURS if f"{COLOUR}:{c}" in case.covers]


def missing_side_text(component: str) -> str:
    """What a case covering ``component`` lacks when it covers none of its sides."""
    if part_of(component) and family(component) in SIDES:
        return "colour:white or colour:black tag and an expected status counting no repetition"
    if family(component) in SIDES:
        return "expected status"
    return "colour:white or colour:black tag"


COLOUR_OF = {WHITE: "white", BLACK: "black"}
# What a colour may lack (the rules' ``colour_lacks``), and what of the matrix it takes away:
# the components it empties, and the rule_ids topics whose rules it makes one-colour.
LACKS = {"castling": (lambda comp: "castling" in comp.split(":")[1:2],
                      ("castling", "castling-rights", "castling-path", "castling-attack")),
         "second-move": (lambda comp: comp == "half:second", ())}


def colour_lacks(variant: str) -> dict:
    """{what: {colour name: why}} from the variant's rules class (none for a variant the
    registry does not know, such as one named only by a catalogue under test)."""
    try:
        rules = registry.get(variant)
    except RulesError:
        return {}
    return {what: {COLOUR_OF[c]: why for c, why in by.items()} for what, by in rules.colour_lacks().items()}


def sides_lacking(variant: str, component: str) -> dict:
    """{side: why} for the sides of ``component`` a colour of ``variant`` cannot have."""
    if sides_of(component) != COLOURS:
        return {}
    out = {}
    for what, by in colour_lacks(variant).items():
        if LACKS[what][0](component):
            out.update(by)
    return out


def colours_lacking_rule(variant: str, rid: str) -> set:
    """The colours a rule cannot concern in ``variant``: a castling rule of the rules'
    ``rule_ids`` for a colour without castling."""
    try:
        ids = registry.get(variant).rule_ids
    except RulesError:
        return set()
    out = set()
    for what, by in colour_lacks(variant).items():
        for topic in LACKS[what][1]:
            value = ids.get(topic)
            cited = {value} if isinstance(value, str) else set(value or ())
            if rid in cited:
                out.update(by)
    return out


def repetition_counted(expect: dict) -> bool | None:
    """Does the expected status count a repetition (threefold claim, fivefold end)?  None: no status."""
    status = expect.get("status")
    if status is None:
        return None
    return "threefold-repetition" in status["claimable"] or status["reason"] == "fivefold-repetition"


def case_sides(case, component: str) -> list[str]:
    """The sides of ``component`` this case covers (see the module docstring)."""
    if part_of(component):
        return part_sides(case, component)
    if family(component) in SIDES:
        counted = repetition_counted(case.expect)
        if counted is None:
            return []
        return [SIDES[family(component)][0 if counted else 1]]
    return [c for c in COLOURS if f"{COLOUR}:{c}" in case.covers]


@dataclass
class Matrix:
    variants: list[str]
    rules: dict                       # rule id -> {variant: cases citing it} (applicable variants only)
    not_tested: dict                  # rule id -> {variant: reason}
    components: dict                  # component -> {variant: {side: cases}} (required cells only)
    colours: dict                     # variant -> {colour: cases tagged with it}
    absent: dict = field(default_factory=dict)   # component -> {variant: why it has none}
    gaps: list[dict] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    thin: list[dict] = field(default_factory=list)     # see thin_rules and thin_mutants

    def as_json(self) -> dict:
        return {"variants": self.variants,
                "rules": [{"id": rid, "cases": cells, "not_tested": self.not_tested.get(rid, {})}
                          for rid, cells in self.rules.items()],
                "components": [{"component": comp, "sides": list(sides_of(comp)), "cases": cells}
                               for comp, cells in self.components.items()],
                "absent": self.absent, "colours": self.colours, "gaps": self.gaps,
                "problems": self.problems, "thin": self.thin}


def variant_order(catalogue) -> list[str]:
    """The variants as the oracle lists them, then any other variant the catalogue names."""
    named = {v for rule in catalogue.values() for v in rule["variants"]}
    return [v for v in api.VARIANTS if v in named] + sorted(named - set(api.VARIANTS))


def build(catalogue: dict, cases, variants=None, kills=None) -> Matrix:
    """The matrix of ``cases`` against the rule ``catalogue`` (optionally for some variants only);
    ``kills`` (mutant name -> curated cases killing it) adds the thin mutants."""
    columns = [v for v in variant_order(catalogue) if variants is None or v in variants]
    known = vocabulary()
    m = Matrix(columns, {}, {}, {}, {v: dict.fromkeys(COLOURS, 0) for v in columns})
    cited = {}
    for case in cases:
        for rid in case.rules:
            cited[(rid, case.variant)] = cited.get((rid, case.variant), 0) + 1
    required = {}                                   # component -> [variants]
    for rid, rule in catalogue.items():
        applies = [v for v in columns if v in rule["variants"]]
        reasons = rule.get("not_tested", {})
        for v in reasons:
            if v not in rule["variants"]:
                m.problems.append(f"rule {rid}: not_tested names {v}, which the rule does not apply to")
        m.rules[rid] = {v: cited.get((rid, v), 0) for v in applies}
        m.not_tested[rid] = {v: reasons[v] for v in applies if v in reasons}
        for v in applies:
            n = m.rules[rid][v]
            if v in reasons and n:
                m.problems.append(f"rule {rid}: the catalogue says it is not tested in {v}, "
                                  f"but {n} case(s) cite it")
            elif not n and v not in reasons:
                m.gaps.append({"kind": "rule", "id": rid, "variant": v})
        for comp in rule.get("components", []):
            if comp not in known or family(comp) == COLOUR:
                m.problems.append(f"rule {rid}: component {comp!r} is not one a case can cover "
                                  f"(see the 'component' list in: doublecheck docs --schema case-file)")
                continue
            whole = ":".join(comp.split(":")[:2])   # a component a variant lacks has no parts either
            gone = {v: why.get(comp) or why[whole]
                    for v, why in rule.get("components_absent", {}).items() if comp in why or whole in why}
            for v in applies:
                if v in gone:
                    m.absent.setdefault(comp, {})[v] = gone[v]
                elif v not in reasons and v not in required.setdefault(comp, []):
                    required[comp].append(v)
    for comp in sorted(required, key=known.index):
        m.components[comp] = {}
        for v in columns:
            if v not in required[comp]:
                continue
            lacking = sides_lacking(v, comp)
            m.components[comp][v] = {side: 0 for side in sides_of(comp) if side not in lacking}
            for side, why in lacking.items():
                m.absent.setdefault(f"{comp} ({side})", {})[v] = why
    for case in cases:
        if case.variant not in m.colours:
            continue
        for c in COLOURS:
            m.colours[case.variant][c] += f"{COLOUR}:{c}" in case.covers
        for comp in case.covers:
            if family(comp) == COLOUR:
                continue
            cell = m.components.get(comp, {}).get(case.variant)
            if cell is None:
                m.problems.append(f"case {case.id}: covers {comp}, which no catalogue rule makes "
                                  f"a component of {case.variant}")
                continue
            sides = case_sides(case, comp)
            if not sides:
                m.problems.append(f"case {case.id}: covers {comp} but has no {missing_side_text(comp)}")
            for side in sides:
                if side in cell:
                    cell[side] += 1
    for comp, cells in m.components.items():
        for v, counts in cells.items():
            for side, n in counts.items():
                if not n:
                    m.gaps.append({"kind": "component", "id": comp, "variant": v, "side": side})
    m.thin = thin_rules(catalogue, cases, m) + thin_mutants(kills or {}, columns)
    return m


# ------------------------------------------------------------------ thin cells

def case_colour(case) -> str:
    """The colour a case is about: its colour tag, else the side to move of its request's FEN."""
    for c in COLOURS:
        if f"{COLOUR}:{c}" in case.covers:
            return c
    fields = str(case.request.get("fen", "")).split()
    return "black" if len(fields) > 1 and fields[1] == "b" else "white"


def curated_citations(cases) -> dict:
    """(rule id, variant) -> the colours of the curated cases citing it, one entry per case."""
    out = {}
    for case in cases:
        if not case.generated:
            for rid in case.rules:
                out.setdefault((rid, case.variant), []).append(case_colour(case))
    return out


def thin_rules(catalogue: dict, cases, m: Matrix) -> list[dict]:
    """Rule cells resting on fewer than two curated cases, or on one colour only."""
    cited = curated_citations(cases)
    out = []
    for rid, cells in m.rules.items():
        one_colour = "one_colour" in catalogue[rid]
        for v in cells:
            if v in m.not_tested[rid]:
                continue
            colours = cited.get((rid, v), [])
            lacking = colours_lacking_rule(v, rid)
            missing = [] if one_colour else [c for c in COLOURS if c not in colours and c not in lacking]
            if len(colours) < THIN_BELOW or missing:
                out.append({"kind": "rule", "id": rid, "variant": v, "cases": len(colours),
                            "missing_colours": missing})
    return out


def thin_mutants(kills: dict, variants) -> list[dict]:
    """Mutants of the shown variants that fewer than two curated cases kill, a case and its
    colour mirror counting once: a mutant caught only by one position seen from both sides
    rests on one idea, which one edit of that position would lose twice over."""
    out = []
    for name, n in kills.items():
        variant = name.split("/", 1)[0]
        if variant in variants and n < THIN_BELOW:
            out.append({"kind": "mutant", "id": name, "variant": variant, "cases": n})
    return out


def mutant_kills(cases, variants) -> dict[str, int]:
    """mutant name -> curated cases of ``cases`` that kill it, a case and its colour mirror
    counted once, for the mutants of ``variants`` (read from the kill record where it is
    still fresh, played again where not)."""
    from doublecheck.authoring.mutants import record
    return record.counts_of(record.kill_record(cases, variants), cases)


def thin_text(t: dict) -> str:
    if t["kind"] == "mutant":
        return (f"mutant {t['id']} is killed by {t['cases']} curated case(s) that are not colour "
                f"mirrors of each other")
    colours = f"; no {' or '.join(t['missing_colours'])} case" if t["missing_colours"] else ""
    return f"{t['id']} in {t['variant']}: {t['cases']} curated case(s){colours}"


# ------------------------------------------------------------------ text

def short_names(variants) -> list[str]:
    """Column headings: the initials of each variant id (``double-move-anul`` -> ``dma``),
    or the full ids when two would share initials."""
    initials = ["".join(part[0] for part in v.split("-")) for v in variants]
    return initials if len(set(initials)) == len(initials) else list(variants)


def gap_text(gap: dict) -> str:
    if gap["kind"] == "rule":
        return f"{gap['id']} has no case in {gap['variant']}"
    return f"{gap['id']} in {gap['variant']} has no case on the side '{gap['side']}'"


def parts_legend(m: Matrix) -> list[str]:
    """The line explaining the ``:mover`` / ``:other`` rows, when the matrix has any."""
    if not any(part_of(comp) for comp in m.components):
        return []
    return ["parts: " + "; ".join(f"<component>:{p} = {text}" for p, text in PARTS.items())
            + " (white/black: the part's owner)"]


def as_text(m: Matrix) -> str:
    heads = short_names(m.variants)
    legend = "columns: " + ", ".join(f"{h} = {v}" for h, v in zip(heads, m.variants) if h != v)
    lines = [legend] if any(h != v for h, v in zip(heads, m.variants)) else []

    def table(title, rows):
        width = max([len(title)] + [len(name) for name, _ in rows])
        cols = [max(len(h), *(len(cells[i]) for _, cells in rows)) for i, h in enumerate(heads)]
        out = [title.ljust(width) + "  " + "  ".join(h.rjust(w) for h, w in zip(heads, cols))]
        out += [name.ljust(width) + "  " + "  ".join(c.rjust(w) for c, w in zip(cells, cols))
                for name, cells in rows]
        return out

    thin = {(t["id"], t["variant"]) for t in m.thin if t["kind"] == "rule"}
    rule_rows = []
    for rid, cells in m.rules.items():
        row = []
        for v in m.variants:
            if v not in cells:
                row.append(".")
            elif v in m.not_tested[rid]:
                row.append("-")
            else:
                row.append((str(cells[v]) if cells[v] else "0!") + ("~" if (rid, v) in thin and cells[v] else ""))
        rule_rows.append((rid, row))
    lines += table("rule", rule_rows)
    lines.append("")
    comp_rows = []
    for comp, cells in m.components.items():
        row = []
        for v in m.variants:
            if v in m.absent.get(comp, {}):
                row.append("-")
                continue
            if v not in cells:
                row.append(".")
                continue
            counts = list(cells[v].values())
            shown = [str(cells[v].get(side, "-")) for side in sides_of(comp)]   # '-': the colour lacks it
            row.append("/".join(shown) + ("!" if 0 in counts else ""))
        comp_rows.append((f"{comp} ({'/'.join(sides_of(comp))})", row))
    comp_rows.append(("colour tags (white/black)",
                      [f"{m.colours[v]['white']}/{m.colours[v]['black']}" for v in m.variants]))
    lines += table("state component (sides)", comp_rows)
    lines.append("")
    lines += parts_legend(m)
    lines.append("cells: a number of cases; '.' does not apply; '-' not tested, the catalogue says why "
                 "(doublecheck rules ID); '!' a gap; '~' thin (fewer than two curated cases, or one "
                 "colour only)")
    lines += [f"absent: {v} has no {comp}: {why}"
              for comp, by in m.absent.items() for v, why in by.items()]
    applicable = sum(len(c) for c in m.rules.values())
    justified = sum(len(r) for r in m.not_tested.values())
    comp_cells = sum(len(c) for c in m.components.values())
    lines.append(f"{applicable} rule cells ({justified} not tested), {comp_cells} component cells; "
                 f"{len(m.gaps)} gap(s), {len(m.problems)} problem(s), {len(m.thin)} thin")
    lines += [f"gap: {gap_text(g)}" for g in m.gaps]
    lines += [f"thin: {thin_text(t)}" for t in m.thin]
    lines += [f"problem: {p}" for p in m.problems]
    return "\n".join(lines)
