"""Declared options: the points where sources and real implementations of these
games genuinely differ, each a named parameter of the rules with a default (the
project's ruling) and named alternatives, each value with where it comes from.

Two kinds share one table, ``OPTIONS``:

- ``rule`` options change what the oracle answers (``draws``, ``fullmove``, the
  three Marseillais points).  Which of them a variant takes is said by its rules
  class, ``option_names`` (so a variant in a package of its own takes options the
  same way), and a rules object built with options reads them from
  ``self.options`` where its rule differs;
- ``capability`` options say what an engine cannot do (read SAN, reject invalid
  FENs); the oracle can do both, and the harness skips the cases that need a
  capability an engine declared it lacks.

The catalogue states each rule option as a rule, ``OPT-<name>``
(cases/rules/options.json; ``doublecheck rules OPT-draws``), and
cases/options/<variant>.json, written by ``doublecheck generate``, records which
cases each non-default value changes (``doublecheck.casefiles.option_changes``).

The interface:

- ``check(declared)``: names and values checked, ``RulesError(unknown-option)``
  listing the known ones otherwise;
- ``applicable(rules_or_class, declared)``: the declared rule options its
  variant takes, defaults left out (``{}`` is "the default rules");
- ``settings(rules_class, declared)``: every option the class takes, defaults
  filled in (what ``self.options`` holds);
- ``doublecheck.oracle.variants.get(name, options)``: the rules object playing
  under them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from doublecheck.oracle.errors import UNKNOWN_OPTION, RulesError, quote

RULE, CAPABILITY = "rule", "capability"


@dataclass(frozen=True)
class Value:
    """One value of an option: what it means, and where that convention comes from."""

    summary: str
    sources: tuple[str, ...]


@dataclass(frozen=True)
class Option:
    """A named point of disagreement: its kind, what it decides, its default and values."""

    name: str
    kind: str          # RULE or CAPABILITY
    summary: str
    default: str
    values: Mapping[str, Value]
    rule: str | None = None   # the catalogue id stating it (rule options), OPT-<name>

    def alternatives(self) -> tuple[str, ...]:
        """The values other than the default, in table order."""
        return tuple(v for v in self.values if v != self.default)


def _option(name, kind, summary, default, values):
    return Option(name, kind, summary, default, dict(values),
                  f"OPT-{name}" if kind == RULE else None)


OPTIONS: dict[str, Option] = {o.name: o for o in (
    _option("draws", RULE, "how the fifty-move and repetition draws come about", "claims", {
        "claims": Value(
            "a player may claim the draw at threefold repetition and at the fifty-move mark; the "
            "game ends by itself only at fivefold repetition and at seventy-five moves",
            ("doublecheck ruling G3 (doublecheck rules G3)",
             "the FIDE Laws, articles 9.2, 9.3 and 9.6 (claims, and the automatic fivefold and "
             "seventy-five-move endings)")),
        "automatic": Value(
            "the game ends drawn at once at threefold repetition and when the halfmove clock "
            "reaches 100 (reasons threefold-repetition and fifty-moves); nothing is claimable",
            ("online playing sites end the game automatically at threefold repetition and at the "
             "fifty-move mark rather than waiting for a claim",
             "game libraries built for such sites (chess.js's game-over test among them) treat "
             "threefold repetition and the fifty-move mark as the end of the game")),
    }),
    _option("fullmove", RULE, "when the FEN's fullmove number grows in a game whose turns can "
            "be two moves", "per-turn", {
        "per-turn": Value(
            "the fullmove number grows by one when Black completes a turn, however many moves "
            "the turn had",
            ("doublecheck ruling G2 (doublecheck rules G2)",
             "a turn is the unit a two-move game is numbered by, as a move is in chess")),
        "per-move": Value(
            "the fullmove number grows after each of Black's moves, so a two-move Black turn "
            "adds two",
            ("sites that add a two-move layer over a single-move library (chess.js and its "
             "relatives) keep the library's counter, which grows after every Black move",)),
    }),
    _option("ep-after-move-one", RULE, "whether a two-square pawn step made as move one of a "
            "two-move turn leaves an en passant target", "target", {
        "target": Value(
            "a double step on either move of a turn leaves a target for the opponent's next turn",
            ("doublecheck ruling M4 (doublecheck rules M4)",
             "the historical Marseillais rules as the encyclopaedias of variants state them: a "
             "pawn's double step may be taken en passant whichever move of the turn made it",
             "the long-running variants site vchess (its Marseillais rules page) keeps the target "
             "of a double step made on the opponent's move one")),
        "none": Value(
            "only a double step that ends its turn leaves a target; one made as move one of a "
            "two-move turn leaves none",
            ("the convention of double-move-anul (rule A3) and double-move (rule D4), where only "
             "the very next move may take en passant",
             "sites that play two moves a turn over a single-move library clear the target the "
             "library set after move one, since the same side moves next")),
    }),
    _option("second-en-passant", RULE, "whether move two may take en passant on the other "
            "target after an en passant move one", "allowed", {
        "allowed": Value(
            "after an en passant move one, move two may take the other target: two double steps, "
            "both taken in one turn",
            ("doublecheck ruling M4 (doublecheck rules M4)",
             "the rule credited to Alekhine (1928) in the accounts of Marseillais chess",
             "vchess's Marseillais rules: after an en passant capture on move one, a second one "
             "on move two when another target is open")),
        "none": Value(
            "en passant is open to move one only; move two never takes en passant",
            ("the FIDE timing read strictly: an en passant capture only on the move right after "
             "the double step, which move two never is",
             "implementations that keep a single en passant square (chess.js keeps one) cannot "
             "hold the second target once move one has used the first")),
    }),
    _option("no-move-two", RULE, "what happens when a move one that gives no check leaves no "
            "legal move two", "stalemate", {
        "stalemate": Value(
            "the game ends at once, drawn by stalemate",
            ("doublecheck ruling M5 (doublecheck rules M5)",
             "a side that owes a move and has none is stalemated, as in chess",
             "vchess's Marseillais rules: no move available after the first move is a stalemate")),
        "pass": Value(
            "the turn ends after move one and the game goes on",
            ("the convention of double-move-anul (rule A1): a turn ends after one move when no "
             "legal second move exists",
             "two-move sites that hand the turn over when the mover has nothing left to play")),
    }),
    _option("ep-after-white-move-one", RULE, "in classic Monster chess, whether a two-square "
            "step made with White's first move leaves Black an en passant target", "none", {
        "none": Value(
            "only a double step made with White's second move leaves Black a target, since "
            "White's own second move comes between the first one and Black's reply",
            ("doublecheck ruling MO6 (doublecheck rules MO6)",
             "the rules pages on Monster chess read en passant as in chess: only the move just "
             "before the reply can be taken")),
        "target": Value(
            "a double step made with either of White's two moves leaves Black a target, so "
            "Black may face two targets after one White turn",
            ("PlayStrategy's Monster implementation (its move generator and its tests count "
             "a Black en passant capture of a pawn that double-stepped with White's first move)",)),
    }),
    _option("san", CAPABILITY, "whether the engine reads moves written in SAN", "yes", {
        "yes": Value("the engine reads SAN as well as coordinates",
                     ("doublecheck ruling G8 (doublecheck rules G8): SAN is accepted and produced",)),
        "no": Value("the engine reads only coordinate moves; cases that give moves in SAN are "
                    "skipped",
                    ("engines built for programs rather than people (UCI engines, bots, libraries "
                     "such as chessops used through coordinates) read only coordinates",)),
    }),
    _option("fen-validation", CAPABILITY, "whether the engine rejects invalid FENs", "strict", {
        "strict": Value("the engine refuses every FEN that breaks G9 with invalid-fen",
                        ("doublecheck ruling G9 (doublecheck rules G9)",)),
        "lenient": Value("the engine does not reject invalid FENs; cases that expect invalid-fen "
                         "are skipped",
                         ("many libraries set up any position they can parse and leave validation "
                          "to the caller",)),
    }),
)}


def rule_options() -> dict[str, Option]:
    return {name: o for name, o in OPTIONS.items() if o.kind == RULE}


def capabilities() -> dict[str, Option]:
    return {name: o for name, o in OPTIONS.items() if o.kind == CAPABILITY}


def check(declared: Mapping[str, str]) -> dict[str, str]:
    """The declared options as a plain dict, every name and value known; otherwise
    RulesError(unknown-option) naming the known names (or the known values)."""
    if not isinstance(declared, Mapping):
        raise RulesError(UNKNOWN_OPTION, f"options must be a mapping of names to values, not "
                                         f"{type(declared).__name__}")
    found = {}
    for name, value in declared.items():
        option = OPTIONS.get(name)
        if option is None:
            raise RulesError(UNKNOWN_OPTION, f"unknown option {quote(name)} (known: "
                                             f"{', '.join(OPTIONS)})")
        if value not in option.values:
            raise RulesError(UNKNOWN_OPTION, f"unknown value {quote(value)} of option {name} "
                                             f"(known: {', '.join(option.values)})")
        found[name] = value
    return found


def parse(text: str) -> tuple[str, str]:
    """One ``NAME=VALUE`` as the command line writes it, checked."""
    if not isinstance(text, str) or "=" not in text:
        raise RulesError(UNKNOWN_OPTION, f"an option is written NAME=VALUE, not {quote(text)} "
                                         f"(known names: {', '.join(OPTIONS)})")
    name, value = (part.strip() for part in text.split("=", 1))
    check({name: value})
    return name, value


def taken_by(rules_or_class) -> tuple[str, ...]:
    """The rule options a rules class (or rules object) takes."""
    return tuple(getattr(rules_or_class, "option_names", ()))


def settings(rules_or_class, declared: Mapping[str, str] | None = None) -> dict[str, str]:
    """Every rule option the class takes, the declared value or else the default."""
    declared = check(declared or {})
    return {name: declared.get(name, OPTIONS[name].default) for name in taken_by(rules_or_class)}


def applicable(rules_or_class, declared: Mapping[str, str] | None) -> dict[str, str]:
    """The declared rule options that the variant of a rules class (or rules object) takes,
    with defaults left out (``{}``: the variant plays as its default rules under these
    declarations).  It takes the rules, not a variant id: the registry
    (``doublecheck.oracle.variants``) builds rules objects with this table, so this table
    does not look variants up in it."""
    declared = check(declared or {})
    return {name: declared[name] for name in taken_by(rules_or_class)
            if name in declared and declared[name] != OPTIONS[name].default}


def frozen(options: Mapping[str, str]) -> tuple:
    """A hashable form of an options mapping (for caches and keys)."""
    return tuple(sorted(options.items()))


def label(options: Mapping[str, str]) -> str:
    """``draws=automatic, fullmove=per-move``, or ``defaults`` for none."""
    return ", ".join(f"{k}={v}" for k, v in sorted(options.items())) or "defaults"
