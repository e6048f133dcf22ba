"""Declared options: the points where sources and real implementations of these
games genuinely differ, each a named parameter of the rules with a default (the
project's ruling) and named alternatives, each value with where it comes from.

Two kinds share one table, ``OPTIONS``:

- ``rule`` options change what the oracle answers (the draws, the fullmove number,
  kings that may be captured, the Marseillais, Monster and progressive points).
  Which of them a variant takes is said by its rules class, ``option_names``; a
  class may give an option a default or a set of values of its own,
  ``option_choices`` (``default_of``, ``values_of``); a rules object built with
  options reads them from ``self.options`` where its rule differs;
- ``capability`` options say what an engine cannot do (read SAN, reject invalid
  FENs, keep FEN clocks); the oracle can do all of it, and the harness skips the
  cases that need a capability an engine declared it lacks.

A variant plugin adds options of its own (``plugin_option``, listed in its rules
class's ``declares_options``); ``table()`` is the built-in table with them.
``EXCLUSIVE`` names values that cannot be played together.

The catalogue states each rule option as a rule, ``OPT-<name>``
(cases/rules/options.json; ``doublecheck rules OPT-draws``), and
cases/options/<variant>.json, written by ``doublecheck generate``, records which
cases each non-default value changes (``doublecheck.casefiles.option_changes``).

The interface:

- ``check(declared)``: names and values checked, ``RulesError(unknown-option)``
  listing the known ones otherwise;
- ``applicable(rules_or_class, declared)``: the declared values its variant
  plays (``playable``: options and values it does not take are left out), its
  defaults left out (``{}`` is "the default rules");
- ``settings(rules_class, declared)``: every option the class takes, defaults
  filled in (what ``self.options`` holds);
- ``checked_for(rules_or_class, declared)``: strict, for a variant named on its
  own: an option or value it does not take is refused;
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
        "claims-only": Value(
            "a player may claim the draw at threefold repetition and at the fifty-move mark, and "
            "nothing ends the game by itself: there is no automatic fivefold repetition and no "
            "seventy-five-move ending",
            ("the FIDE Laws as they stood before July 2014, which knew only the claims",
             "programs that follow those Laws or offer only the claim tests (python-chess's "
             "can_claim_threefold_repetition and can_claim_fifty_moves, used without its "
             "automatic endings)")),
        "none": Value(
            "there is no move-count draw and no repetition draw at all, neither claimed nor "
            "automatic; the other endings (mate, stalemate, a dead position) are as the variant "
            "rules them",
            ("Monster and progressive programs that stop a game only at mate or stalemate (a "
             "Monster engine on its own numpy board, a Monster trainer, the progressive forms "
             "of the variants site vchess)",
             "composed problems and studies of these variants, where no draw by repetition or "
             "move count is ever in question")),
    }),
    _option("move-count", RULE, "whether the move-count draws (fifty and seventy-five moves; "
            "progressive chess: ten and fifteen quiet series) exist", "counted", {
        "counted": Value(
            "the move-count draws exist as the value of draws says (claimed or automatic)",
            ("doublecheck rulings G3 and P5 (doublecheck rules G3)",
             "the FIDE Laws, articles 9.3 and 9.6.2")),
        "none": Value(
            "there is no move-count draw; the repetition draws stay as the value of draws says",
            ("the variants site vchess, which ends a game at a repetition but keeps no move "
             "count for a draw in its Monster",)),
    }),
    _option("dead-position", RULE, "whether and when a position that no one can win ends the "
            "game (G4)", "turn-end", {
        "turn-end": Value(
            "a dead position ends the game drawn, judged at a turn boundary like every other "
            "ending",
            ("doublecheck rulings G4 and G3 (doublecheck rules G4)",
             "the seeds judge the end of the game only when a turn is complete")),
        "at-once": Value(
            "a dead position ends the game drawn the moment a move makes it, in the middle of a "
            "turn too",
            ("the FIDE Laws, article 5.2.2: the game is drawn immediately when a dead position "
             "arises",
             "two-move sites that judge the end of the game after every move (a Marseillais site "
             "run against this suite does)")),
        "none": Value(
            "there is no dead-position draw: the game goes on with any material",
            ("programs that have no test of mating material (the progressive forms of the "
             "variants site vchess, a Monster engine on its own numpy board)",)),
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
    _option("no-move-two", RULE, "what happens when the mover, inside its turn, has no legal "
            "move left (a move one that gives no check and leaves no legal move two; a "
            "progressive series with moves still owed)", "stalemate", {
        "stalemate": Value(
            "the game ends at once, drawn by stalemate",
            ("doublecheck ruling M5 (doublecheck rules M5)",
             "a side that owes a move and has none is stalemated, as in chess",
             "vchess's Marseillais rules: no move available after the first move is a stalemate")),
        "pass": Value(
            "the turn ends after move one and the game goes on",
            ("the convention of double-move-anul (rule A1): a turn ends after one move when no "
             "legal second move exists",
             "two-move sites that hand the turn over when the mover has nothing left to play",
             "progressive programs that end a series early when its mover has no move left "
             "(the progressive forms of the variants site vchess)")),
        "illegal": Value(
            "a move one after which no legal move two exists is itself illegal, so the turn "
            "never stops short for want of a move",
            ("the rule double-move (D2) and Monster (MO2) already have for their first moves",
             "a Python 'Two Move Chess' module that offers only first moves with a second one "
             "after them")),
    }),
    _option("series-en-passant", RULE, "in progressive chess, whether a pawn's double step may be "
            "taken en passant", "first-move", {
        "first-move": Value(
            "a pawn that double-stepped in the opponent's last series may be taken en passant "
            "with the first move of the next series",
            ("doublecheck ruling P3 (doublecheck rules P3)",
             "the rules of progressive chess as the Italian association and the encyclopaedias "
             "state them")),
        "none": Value(
            "there is no en passant capture in progressive chess",
            ("the progressive forms of the variants site vchess, which drop en passant (a double "
             "step is rarely the last move of a series)",)),
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
    _option("king-safety", RULE, "whether kings are kept out of check or may be captured",
            "check", {
        "check": Value(
            "no move may leave the own king attacked; a side with no legal move is mated when in "
            "check and stalemated otherwise",
            ("doublecheck rulings G6 and G5 (doublecheck rules G6)",
             "the FIDE Laws, articles 3.9 and 5.1-5.2",)),
        "king-capture": Value(
            "there is no check: any move the pieces can make is legal, a king may be taken, and "
            "the side whose king is taken loses at once (reason no-king), even in the middle of a "
            "turn; the rules that act on a check (a check that ends a turn or a series) have "
            "nothing to act on; a side with no move at all at a turn boundary is stalemated; no "
            "material is dead, since a king can always walk into capture",
            ("the long-running variants site vchess plays its Monster and its Galvin double move "
             "so (its rules pages: the goal is to capture the king; no check)",
             "the symmetric-monster seed (004) plays every turn so, as rulings S4 and S7 state",
             "two-move chess programs that test king safety by playing the capture rather than "
             "generating legal moves")),
    }),
    _option("black-check", RULE, "in classic Monster chess, which White threat Black's king must "
            "avoid", "two-move-reach", {
        "two-move-reach": Value(
            "Black may not leave its king where White, with the two moves to come, could take it "
            "(with the first move, or with the second after some first move)",
            ("doublecheck ruling MO4 (doublecheck rules MO4)",
             "the rules pages on Monster chess: White's double move is what Black's king must "
             "survive")),
        "one-move": Value(
            "Black may not leave its king attacked by a White piece as the position stands, as in "
            "chess; it may step within reach of White's two coming moves",
            ("Monster programs built on a single-move library (python-chess among them) that "
             "judge Black's moves by that library's own check test",)),
    }),
    _option("san", CAPABILITY, "whether the engine reads moves written in SAN", "yes", {
        "yes": Value("the engine reads SAN as well as coordinates",
                     ("doublecheck ruling G8 (doublecheck rules G8): SAN is accepted and produced",)),
        "no": Value("the engine reads only coordinate moves; cases that give moves in SAN are "
                    "skipped",
                    ("engines built for programs rather than people (UCI engines, bots, libraries "
                     "such as chessops used through coordinates) read only coordinates",)),
    }),
    _option("fen-clocks", CAPABILITY, "whether the engine's FENs carry a halfmove clock and a "
            "fullmove number it stands by", "yes", {
        "yes": Value("the engine reads and writes both clocks (FEN fields 5 and 6)",
                     ("doublecheck rulings G2 and G9 (doublecheck rules G9)",)),
        "no": Value("the engine's FENs carry no clocks it stands by: FEN answers are compared "
                    "without fields 5 and 6, and cases whose answer rests on a clock are skipped",
                    ("sites that write their positions without clocks (the variants site vchess "
                     "writes four-field FENs for its games)",)),
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


# Options whose rule says they never change a perft count, with that rule: the record
# (doublecheck.authoring.options_record) checks it on every cheap perft case, and the
# harness keeps the record's verdict on a big count under several values only when all
# but one of them are here.
PERFT_NEUTRAL = {"draws": "G7: draw rules do not stop perft",
                 "move-count": "G7: draw rules do not stop perft",
                 "dead-position": "G7: a drawn position does not stop perft"}


# Values that cannot be played together in one variant, each pair with the reason: a
# declaration holding both is refused (unknown-option), as an unknown value is.
EXCLUSIVE = (
    (("king-safety", "king-capture"), ("black-check", "one-move"),
     "black-check says which check Black's king must avoid, and under king-capture there is no "
     "check at all"),
)


def table() -> dict[str, Option]:
    """Every option: the table above and those that variant plugins declare
    (``declares_options`` on a plugin's rules class; docs/plugins.md).  A plugin's option
    whose name is already taken is left out (``plugin_option_problems`` says so)."""
    return {**OPTIONS, **_plugin_options()[0]}


def plugin_option_problems() -> list[str]:
    return list(_plugin_options()[1])


_plugins_seen: list = []


def _no_plugins():
    return ()


# (variant id, rules class) of every registered plugin: the variant registry puts its own
# function here when it is imported (this table does not look variants up), and answers ()
# while it is still being built (a plugin's first use reads its own options: ``known_to``).
plugin_classes = _no_plugins


def _plugin_options() -> tuple[dict[str, Option], tuple[str, ...]]:
    """The options the registered plugins declare, read once per plugin table (the variant
    registry is read again after a plugin is installed, as in the tests)."""
    plugins = tuple(plugin_classes())
    if not plugins:
        return {}, ()
    if _plugins_seen and _plugins_seen[0][0] == plugins:
        return _plugins_seen[0][1]
    found, problems = {}, []
    for plugin_id, cls in plugins:
        try:
            declared = tuple(getattr(cls, "declares_options", ()) or ())
        except Exception as e:   # a hostile class attribute: that plugin declares nothing
            problems.append(f"{plugin_id}: its declares_options cannot be read ({type(e).__name__})")
            continue
        for option in declared:
            why = _plugin_option_problem(option, found)
            if why:
                problems.append(f"{plugin_id}: option left out: {why}")
            else:
                found[option.name] = option
    _plugins_seen[:] = [(plugins, (found, tuple(problems)))]
    return found, tuple(problems)


def _plugin_option_problem(option, found) -> str | None:
    if not isinstance(option, Option):
        return f"{option!r:.60} is not an Option"
    if option.name in OPTIONS or option.name in found:
        return f"the name {option.name} is already taken"
    if option.kind != RULE or option.default not in option.values or len(option.values) < 2:
        return f"{option.name} must be a rule option with a default among two or more values"
    return None


def plugin_option(name, summary, default, values) -> Option:
    """An option a variant plugin declares (``declares_options``): a rule option, stated in
    the plugin's own catalogue as ``OPT-<name>``.  ``values``: {value: (summary, sources)}
    or {value: Value}."""
    return _option(name, RULE, summary, default,
                   {v: x if isinstance(x, Value) else Value(x[0], tuple(x[1])) for v, x in values.items()})


def known_to(rules_or_class=None) -> dict[str, Option]:
    """``table()``, and the options the rules class itself declares (``declares_options``)."""
    own = getattr(rules_or_class, "declares_options", ()) if rules_or_class is not None else ()
    return {**table(), **{o.name: o for o in own if isinstance(o, Option)}}


def rule_options() -> dict[str, Option]:
    return {name: o for name, o in table().items() if o.kind == RULE}


def capabilities() -> dict[str, Option]:
    return {name: o for name, o in table().items() if o.kind == CAPABILITY}


def check(declared: Mapping[str, str], rules_or_class=None) -> dict[str, str]:
    """The declared options as a plain dict, every name and value known; otherwise
    RulesError(unknown-option) naming the known names (or the known values)."""
    if not isinstance(declared, Mapping):
        raise RulesError(UNKNOWN_OPTION, f"options must be a mapping of names to values, not "
                                         f"{type(declared).__name__}")
    known = known_to(rules_or_class)
    found = {}
    for name, value in declared.items():
        option = known.get(name) if isinstance(name, str) else None
        if option is None:
            raise RulesError(UNKNOWN_OPTION, f"unknown option {quote(name)} (known: "
                                             f"{', '.join(known)})")
        if not isinstance(value, str) or value not in option.values:
            raise RulesError(UNKNOWN_OPTION, f"unknown value {quote(value)} of option {name} "
                                             f"(known: {', '.join(option.values)})")
        found[name] = value
    return found


def parse(text: str) -> tuple[str, str]:
    """One ``NAME=VALUE`` as the command line writes it, checked."""
    if not isinstance(text, str) or "=" not in text:
        raise RulesError(UNKNOWN_OPTION, f"an option is written NAME=VALUE, not {quote(text)} "
                                         f"(known names: {', '.join(table())})")
    name, value = (part.strip() for part in text.split("=", 1))
    check({name: value})
    return name, value


def taken_by(rules_or_class) -> tuple[str, ...]:
    """The rule options a rules class (or rules object) takes."""
    return tuple(getattr(rules_or_class, "option_names", ()))


def default_of(rules_or_class, name: str) -> str:
    """The value a variant plays when nothing is declared: the table's default unless the
    rules class says otherwise (``option_choices``: double-move-anul's no-move-two is pass)."""
    choice = getattr(rules_or_class, "option_choices", {}).get(name)
    return choice[0] if choice else known_to(rules_or_class)[name].default


def values_of(rules_or_class, name: str) -> tuple[str, ...]:
    """The values of ``name`` a variant takes: the table's unless ``option_choices`` narrows
    them (a value that means nothing there, as a dead position at once in a one-move game)."""
    choice = getattr(rules_or_class, "option_choices", {}).get(name)
    return tuple(choice[1]) if choice else tuple(known_to(rules_or_class)[name].values)


def playable(rules_or_class, declared: Mapping[str, str]) -> dict[str, str]:
    """The declared values the variant plays: those of options it takes, among the values
    it takes.  An engine declares its options once for every variant it claims, so an
    option or a value one variant does not take leaves that variant at its default."""
    taken = taken_by(rules_or_class)
    return {name: value for name, value in declared.items()
            if name in taken and value in values_of(rules_or_class, name)}


def exclusion(chosen: Mapping[str, str]) -> str | None:
    """Why two of the chosen values cannot be played together (``EXCLUSIVE``), or None."""
    for first, second, why in EXCLUSIVE:
        if all(chosen.get(k) == v for k, v in (first, second)):
            return f"{first[0]}={first[1]} and {second[0]}={second[1]} cannot be played together: {why}"
    return None


def refusal_for(rules_or_class, declared: Mapping[str, str]) -> str | None:
    """Why a variant named on its own cannot play the declared options: an option or a value
    it does not take, or two values of ``EXCLUSIVE``; None when it can."""
    taken = taken_by(rules_or_class)
    for name, value in declared.items():
        if known_to(rules_or_class)[name].kind != RULE:
            continue
        if name not in taken:
            return (f"{rules_or_class.name} does not take the option {name} (it takes: "
                    f"{', '.join(taken) or 'none'})")
        if value not in values_of(rules_or_class, name):
            return (f"{rules_or_class.name} does not take {name}={value} (it takes "
                    f"{', '.join(values_of(rules_or_class, name))})")
    return exclusion(declared)


def checked_for(rules_or_class, declared: Mapping[str, str] | None) -> dict[str, str]:
    """``check(declared)``, and RulesError(unknown-option) where the variant, named on its
    own (a lookup, a desk request, a case's own options), cannot play them."""
    declared = check(declared or {}, rules_or_class)
    why = refusal_for(rules_or_class, declared)
    if why:
        raise RulesError(UNKNOWN_OPTION, why)
    return declared


def _played(rules_or_class, declared) -> dict[str, str]:
    chosen = playable(rules_or_class, check(declared or {}, rules_or_class))
    why = exclusion(chosen)
    if why:
        raise RulesError(UNKNOWN_OPTION, f"{rules_or_class.name}: {why}")
    return chosen


def settings(rules_or_class, declared: Mapping[str, str] | None = None) -> dict[str, str]:
    """Every rule option the class takes, the declared value (``playable``) or else the
    variant's default; RulesError(unknown-option) for two values ``EXCLUSIVE`` forbids."""
    chosen = _played(rules_or_class, declared)
    return {name: chosen.get(name, default_of(rules_or_class, name)) for name in taken_by(rules_or_class)}


def applicable(rules_or_class, declared: Mapping[str, str] | None) -> dict[str, str]:
    """The declared values the variant of a rules class (or rules object) plays, with its
    defaults left out (``{}``: it plays as its default rules under these declarations).
    It takes the rules, not a variant id: the registry (``doublecheck.oracle.variants``)
    builds rules objects with this table, so this table does not look variants up in it."""
    return {name: value for name, value in _played(rules_or_class, declared).items()
            if value != default_of(rules_or_class, name)}


def frozen(options: Mapping[str, str]) -> tuple:
    """A hashable form of an options mapping (for caches and keys)."""
    return tuple(sorted(options.items()))


def label(options: Mapping[str, str]) -> str:
    """``draws=automatic, fullmove=per-move``, or ``defaults`` for none."""
    return ", ".join(f"{k}={v}" for k, v in sorted(options.items())) or "defaults"
