"""Declared options: the conventions and capabilities an engine says it plays with, and what
the runner does with a case under them (docs/options.md, ``doublecheck docs options``).

The options themselves (names, values, defaults, sources) are the oracle's table,
``doublecheck.oracle.options.OPTIONS``.  An engine declares values in its hello answer
(``"options": {"NAME": "VALUE"}``); ``--option NAME=VALUE`` on the command line declares
more or overrides them.  ``Declared`` holds the result with where each value came from.

``Declared.plan(case)`` says how one case is judged under them:

- a case written for an option value (its own ``options``) that the engine does not play
  is skipped, naming the option;
- a case needing a capability the engine declares it lacks is skipped (``CAPABILITY_SKIPS``);
- a case whose expected answer a declared rule option changes (the generated record
  ``cases/options/<variant>.json`` says which) gets its expected answer from the oracle
  under the declared options, when that is cheap (at most ``RECOMPUTE_MAX_NODES`` perft
  nodes); otherwise it is skipped with the reason;
- every other case is judged as written.

So no case fails only because of a declared option, and a run without options judges
every case exactly as before.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable

from doublecheck.oracle.errors import INVALID_FEN, UNKNOWN_OPTION, RulesError

FROM_HELLO, FROM_COMMAND_LINE = "hello", "--option"
RECOMPUTE_MAX_NODES = 200_000   # perft nodes the oracle counts again for one case under options
MAX_DECLARED = 64               # options one hello may declare (the table has about ten)


def option_table() -> dict:
    """Every option, the built-in ones and those plugin variants declare."""
    from doublecheck.oracle.options import table
    return table()


def default_in(variant: str | None, name: str) -> str:
    """The value ``variant`` plays when nothing is declared (a variant may have its own
    default, as double-move-anul's no-move-two=pass); the table's without a variant."""
    from doublecheck.oracle import variants
    from doublecheck.oracle.options import default_of
    if variant is None or variant not in variants.registered():
        return option_table()[name].default
    cls = variants.descriptor(variant).rules_class()
    return default_of(cls, name) if name in getattr(cls, "option_names", ()) else option_table()[name].default


def check_options(values: dict) -> dict:
    """``values`` checked against the option table; RulesError(unknown-option) naming the
    known options (or the known values of a known option) otherwise."""
    from doublecheck.oracle.options import check
    return check(values)


def applicable(variant: str, values: dict) -> dict:
    """The declared rule options ``variant`` (an id) takes, defaults left out."""
    from doublecheck.oracle import variants
    from doublecheck.oracle.options import applicable as taken
    return taken(variants.get(variant), values)


def parse_assignment(text: str) -> tuple[str, str]:
    """``NAME=VALUE`` (``--option``) as a pair; ValueError saying the form otherwise.  Whether
    the name and value are known is checked once all of them are read (``from_command_line``)."""
    name, equals, value = text.partition("=")
    if not equals or not name.strip() or not value.strip():
        raise ValueError(f"must be NAME=VALUE (for example draws=automatic), not {text!r:.60}")
    return name.strip(), value.strip()


def from_command_line(pairs) -> dict:
    """The ``--option`` pairs as a checked dict (a later pair overrides an earlier one)."""
    return check_options(dict(pairs or ()))


# --- what an engine needs ------------------------------------------------------

def needs_san(case) -> bool:
    """The request writes a move in SAN (``Nf3``, ``O-O``, ``exd5``), not in coordinates."""
    from doublecheck.oracle import variants
    from doublecheck.oracle.notation import read_token, turn_tokens
    rules = variants.get(case.variant)
    for item in case.request.get("moves") or ():
        for token in turn_tokens(item):
            try:
                if read_token(rules, token)[2].kind in ("san", "castling"):
                    return True
            except RulesError:   # unreadable text: the case is about that, not about SAN
                continue
    return False


def expects_fen_refusal(case) -> bool:
    return case.expect.get("error", {}).get("code") == INVALID_FEN


def with_expected_clocks(answer: dict, expect: dict) -> dict:
    """fen-clocks=no: the answer's FEN with the expected halfmove clock and fullmove number
    put in (inserted where the engine wrote none), so that FENs are compared without them."""
    got, want = answer.get("fen"), expect.get("fen")
    if not (isinstance(got, str) and isinstance(want, str)):
        return answer
    fields, wanted = got.split(" "), want.split(" ")
    if len(wanted) < 6 or len(fields) not in (len(wanted), len(wanted) - 2):
        return answer   # not a FEN that lacks only its clocks: judged as it is
    if len(fields) == len(wanted) - 2:
        fields[4:4] = wanted[CLOCK_FIELDS]
    else:
        fields[CLOCK_FIELDS] = wanted[CLOCK_FIELDS]
    return {**answer, "fen": " ".join(fields)}


@dataclass(frozen=True)
class CapabilitySkip:
    """A capability value an engine may declare, the cases it cannot answer, and why."""

    needs: Callable     # needs(case) -> bool
    reason: str


CLOCK_FIELDS = slice(4, 6)   # FEN fields 5 and 6: the halfmove clock and the fullmove number


def without_clocks(fen: str) -> str:
    """``fen`` with other clocks: the halfmove clock 0 and the fullmove number 10 higher (an
    engine that keeps no clocks cannot tell the two apart); a FEN with fewer fields as it is."""
    fields = fen.split(" ")
    if len(fields) < 6 or not fields[5].isdigit() or len(fields[5]) > 6:
        return fen
    fields[CLOCK_FIELDS] = ["0", str(int(fields[5]) + 10)]
    return " ".join(fields)


def rests_on_clocks(case) -> bool:
    """Does the case's answer depend on the clocks of its FEN (a move-count draw, White's
    single opening move of Marseillais at fullmove 1)?  It does when the oracle answers
    otherwise with other clocks (``without_clocks``), FEN answers compared without theirs."""
    fen = case.request.get("fen")
    if not isinstance(fen, str) or case.nodes:     # perft never reads the clocks (G7)
        return False
    reset = dataclasses.replace(case, request={**case.request, "fen": without_clocks(fen)})
    options = dict(getattr(case, "options", None) or {})
    return _clockless(expected_under(reset, options)) != _clockless(expected_under(case, options))


def _clockless(answer: dict) -> dict:
    fen = answer.get("fen")
    return {**answer, "fen": " ".join(fen.split(" ")[:4] + fen.split(" ")[6:])} if isinstance(fen, str) else answer


# One row per capability value that leaves cases out (the table's other values leave none out).
CAPABILITY_SKIPS = {
    ("san", "no"): CapabilitySkip(
        needs_san, "the request writes its moves in SAN and the engine declares san=no "
                   "(it reads coordinate moves only)"),
    ("fen-clocks", "no"): CapabilitySkip(
        rests_on_clocks, "the expected answer rests on the FEN's halfmove clock or fullmove "
                         "number and the engine declares fen-clocks=no (its FENs carry no clocks "
                         "it stands by)"),
    ("fen-validation", "lenient"): CapabilitySkip(
        expects_fen_refusal, "the case expects an invalid FEN to be refused and the engine "
                             "declares lenient FEN validation (fen-validation=lenient)"),
}


# --- the record of which cases an option changes -------------------------------

@lru_cache(maxsize=None)
def option_record(variant: str, cases_dir: str | None = None) -> dict:
    """The generated record of ``variant`` (``cases/options/<variant>.json``, read by
    ``casefiles.option_changes``): per ``NAME=VALUE`` its ``changed`` ids and
    ``not_recomputed`` {id: reason}.  A value missing from it (a case tree of one's own
    without a record, a record that cannot be read) is asked of the oracle instead."""
    from doublecheck.casefiles import CASES_DIR, DataError, option_changes
    from pathlib import Path
    tree = None if cases_dir is None or Path(cases_dir).resolve() == CASES_DIR.resolve() else cases_dir
    try:
        return option_changes(variant, tree)
    except (DataError, RulesError):
        return {}


# --- one case under the declared options -----------------------------------------

@dataclass
class Plan:
    """How one case is judged: skipped (``skip``), or sent and compared with ``case``
    (the case itself, or a copy whose expected answer the oracle gave under ``note``)."""

    case: object
    skip: str | None = None
    note: str | None = None
    options: dict = field(default_factory=dict)   # the rule options the case is judged under
    by_declared: bool = False   # skipped because of a declared non-default value (honest counts)

    def reference(self):
        """The oracle playing under ``options`` (None: the default one), for what compares
        with it after the answer (a perft drill-down, a doubt about a case of one's own)."""
        return reference_oracle(tuple(sorted(self.options.items()))) if self.options else None


@lru_cache(maxsize=None)
def reference_oracle(options: tuple):
    from doublecheck.harness.engines import OracleEngine
    return OracleEngine(options=dict(options))


@dataclass
class Declared:
    """The options a run judges under: ``values`` {name: value}, ``origin`` {name: where from}."""

    values: dict = field(default_factory=dict)
    origin: dict = field(default_factory=dict)
    cases_dir: str | None = None

    def __bool__(self) -> bool:
        return bool(self.values)

    @classmethod
    def of(cls, hello_options, command_line: dict | None = None, cases_dir=None) -> "Declared":
        """The effective options: the hello's, overridden by the command line's.  RulesError
        (unknown-option) for a name or value the table does not know, wherever it came from."""
        try:
            hello_options = check_options(dict(hello_options or {}))
        except RulesError as e:
            raise RulesError(e.code, f"the engine's hello declares {e.message}") from None
        command_line = dict(command_line or {})
        values = {**hello_options, **command_line}
        origin = {name: FROM_COMMAND_LINE if name in command_line else FROM_HELLO for name in values}
        return cls(values, origin, None if cases_dir is None else str(cases_dir))

    def value(self, name: str, variant: str | None = None) -> str:
        """The value the engine plays (in ``variant``): declared, else the default."""
        return self.values.get(name, default_in(variant, name))

    def declares_other_than_default(self, name: str, variant: str | None = None) -> bool:
        return name in self.values and self.values[name] != default_in(variant, name)

    def items(self) -> list[dict]:
        """Each declared option: name, value, kind (rule or capability), from (hello or --option),
        and whether it is the default."""
        table = option_table()
        return [{"name": name, "value": value, "kind": table[name].kind, "from": self.origin[name],
                 "default": value == table[name].default}
                for name, value in sorted(self.values.items())]

    def check_playable(self, claimed) -> None:
        """Refused at the start of a run (RulesError unknown-option): a declared rule value
        that no claimed variant takes, or two declared values that cannot be played together
        in a claimed variant.  Each variant plays only the values it takes."""
        from doublecheck.oracle import options, variants
        known = [v for v in claimed if isinstance(v, str) and v in variants.registered()]
        classes = [variants.descriptor(v).rules_class() for v in known]
        for name, value in sorted(self.values.items()):
            if option_table()[name].kind != options.RULE or not classes:
                continue
            if not any(name in options.taken_by(c) and value in options.values_of(c, name) for c in classes):
                raise RulesError(UNKNOWN_OPTION, f"{name}={value} is taken by none of the variants the "
                                                 f"engine claims ({', '.join(known)}); "
                                                 f"doublecheck rules --options lists who takes what")
        for variant, cls in zip(known, classes):
            why = options.exclusion(options.playable(cls, self.values))
            if why:
                raise RulesError(UNKNOWN_OPTION, f"{variant}: {why}")

    def adjust(self, answer: dict, expect: dict) -> dict:
        """The engine's answer as it is judged: FEN clocks put in under fen-clocks=no."""
        return with_expected_clocks(answer, expect) if self.values.get("fen-clocks") == "no" else answer

    def summary(self) -> str:
        """One line: ``draws=automatic (hello), san=no (capability, --option)``."""
        return summary_of(self.items())

    # -- judging

    def plan(self, case) -> Plan:
        conflict = self.conflict(case)
        if conflict:
            return Plan(case, skip=conflict[0], by_declared=conflict[1])
        why = self.missing_capability(case)
        if why:
            return Plan(case, skip=why, by_declared=True)
        own = dict(getattr(case, "options", None) or {})
        extra = self.extra_rule_options(case)
        if not extra:
            return Plan(case, options=own)
        plan = self.recomputed(case, extra)
        plan.options, plan.by_declared = {**own, **extra}, plan.skip is not None
        why = plan.note and self.missing_capability(plan.case)   # (the new answer may need one)
        if why:
            return Plan(case, skip=f"{why} (its answer under the declared options)", by_declared=True)
        return plan

    def conflict(self, case) -> tuple[str, bool] | None:
        """A case written for an option value the engine does not play, and whether a declared
        value of the engine's is the cause (not merely the engine playing the default)."""
        for name, wanted in sorted((getattr(case, "options", None) or {}).items()):
            played = self.value(name, case.variant) if name in option_table() else wanted
            if played != wanted:
                return (f"written for {name}={wanted}; the engine plays {played}",
                        self.declares_other_than_default(name, case.variant))
        return None

    def missing_capability(self, case) -> str | None:
        for (name, value), row in CAPABILITY_SKIPS.items():
            if self.values.get(name) == value and row.needs(case):
                return row.reason
        return None

    def extra_rule_options(self, case) -> dict:
        """The declared non-default rule options of the case's variant it was not written for."""
        own = getattr(case, "options", None) or {}
        return {k: v for k, v in applicable(case.variant, self.values).items() if k not in own}

    def recomputed(self, case, extra: dict) -> Plan:
        said = ", ".join(f"{k}={v}" for k, v in sorted(extra.items()))
        verdict = self.recorded(case, extra, said)
        if verdict is not None:
            return verdict
        nodes = case.nodes or 0
        if nodes > RECOMPUTE_MAX_NODES:
            return Plan(case, skip=f"{said} may change this count and it expects {nodes} nodes, "
                                   f"more than the {RECOMPUTE_MAX_NODES} the oracle counts again "
                                   "under declared options")
        own = dict(getattr(case, "options", None) or {})
        expect = expected_under(case, {**own, **extra})
        if expect == case.expect:
            return Plan(case)
        written = ", ".join(f"{k}={v}" for k, v in sorted(own.items())) or "the default rules"
        note = f"expected answer from the oracle under {said} (the case's own is for {written})"
        return Plan(dataclasses.replace(case, expect=expect), note=note)

    def recorded(self, case, extra: dict, said: str) -> Plan | None:
        """What the generated record says of the case under ``extra``, where it can say it:
        the record holds one value at a time, so under several values together (which may
        change an answer none of them changes alone) it speaks only for a perft count too
        big to play again, and only when at most one of the values can change counts at
        all.  None: the oracle answers under the combination."""
        from doublecheck.oracle.options import PERFT_NEUTRAL
        record = option_record(case.variant, self.cases_dir)
        entries = [record.get(f"{k}={v}") for k, v in sorted(extra.items())]
        counting = [k for k in extra if k not in PERFT_NEUTRAL]
        alone = len(extra) == 1 or ((case.nodes or 0) > RECOMPUTE_MAX_NODES and len(counting) <= 1)
        if not alone or not all(entries):
            return None
        for entry in entries:
            reason = (entry.get("not_recomputed") or {}).get(case.id)
            if reason:
                return Plan(case, skip=f"its answer under {said} is not recorded: {reason}")
        if not any(case.id in (entry.get("changed") or ()) for entry in entries):
            return Plan(case)   # the record says these options leave its answer as it is
        return None


def expected_under(case, options: dict) -> dict:
    """The case's expected answer as the oracle gives it under ``options``: the keys the
    case compares, or the error the oracle answers instead."""
    from doublecheck.harness.engines import cached_counter
    from doublecheck.oracle import api, variants
    rules = variants.get(case.variant, options)
    try:
        answer = api.handle(dict(case.request), rules=rules, counter=cached_counter)
    except RulesError as e:
        return {"error": {"code": e.code}}
    if "error" in case.expect:
        return json.loads(json.dumps(answer))
    return {key: answer[key] for key in case.expect if key in answer}


def summary_of(items) -> str:
    """The one-line form of ``Declared.items()`` (also of a JSON report's ``options``)."""
    parts = []
    for item in items:
        said = ([] if item["kind"] == "rule" else [item["kind"]]) + [item["from"]]
        parts.append(f"{item['name']}={item['value']} ({', '.join(said)})")
    return ", ".join(parts)


NO_OPTIONS = Declared()   # an engine that declares nothing plays every default
