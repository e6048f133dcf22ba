"""The causes of a run's failures: failing cases clustered by the signature of their own
first wrong answer, so that an author reads the few reasons an engine fails before the
cases one by one (every report format opens with them).

A case's cause is taken from what the engine first got wrong in it, never from its file
or topic, in this order:

0. a convention the engine plays without declaring it: its answer is the oracle's under a
   rule option value (``doublecheck.harness.convention``);
1. the first divergence of its line (``doublecheck.harness.divergence``), when it explains
   the case's failure: the engine refused a move of the line, its position went elsewhere
   (a FEN field differed there), or what differed there is what differs at the end;
2. the engine moving the other side where the oracle's turn had ended;
3. the engine listing no moves where the oracle has some;
4. the oracle's first reason for an extra or a missing move (at the request's position, or
   where a perft drill-down stopped): the kind of refusal or of legal move, with its rule;
5. else the first field that differs (a FEN field, a status entry, an error code, a count),
   or, for an error, its kind.

A signature is the oracle's words with the squares, moves and numbers taken out (``b4 is
attacked by the pawn on c5`` and ``f1 is attacked by the pawn on e2`` share one), plus the
rule ids; what the engine itself wrote never enters it. Its ``id`` is a digest of the
signature, the same in every run (``doublecheck diff`` compares runs by it).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

from doublecheck.harness.compare import aspects
from doublecheck.harness.report_shared import visible

EXAMPLE_CHARS = 160   # characters of the oracle's words kept in a cause's summary

# Squares (b4, i16), moves (e2e4, e7e8q, "e2e4,"), SAN (Nf3, exd5+, O-O-O+) and numbers: what
# differs from one case to the next in the same words.
_PARTICULAR = re.compile(r"[A-Za-z]*[a-p](?:1[0-6]|[1-9])[A-Za-z0-9=+#,x-]*|O-O(?:-O)*[+#]?|\b\d+\b")


@dataclass(frozen=True)
class Signature:
    """What cases with one cause share: the words (the first case's, as an example), the
    same words made general (``template``) and the rule ids."""

    words: str
    template: str
    rules: tuple = ()

    @property
    def id(self) -> str:
        text = "\x00".join((self.template,) + self.rules)
        return "cause-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


@dataclass
class Cause:
    """One cause of a run: its signature and the failing cases it covers, in report order."""

    signature: Signature
    cases: list = field(default_factory=list)

    @property
    def id(self) -> str:
        return self.signature.id

    @property
    def summary(self) -> str:
        return self.signature.words

    @property
    def rules(self) -> list:
        return list(self.signature.rules)

    def line(self) -> str:
        """``51 cases: the engine plays moves the oracle refuses: b4 is attacked ... (M3)``."""
        n = len(self.cases)
        rules = f" ({', '.join(self.rules)})" if self.rules else ""
        return visible(f"{n} case{'s' if n > 1 else ''}: {self.summary}{rules}")


_PIECES = re.compile(r"\b(?:double-)?(?:pawn|knight|bishop|rook|queen|king)s?\b")
_MATE = re.compile(r"\bcheckmate\b")   # a check that also mates ends a turn alike
_REPEATED = re.compile(r"(the piece on #)(?:,? and the piece on #|, the piece on #)+")


def general(text: str) -> str:
    """``text`` without what differs from case to case: squares, moves, numbers, which
    pieces (``the rook on e8`` and ``the bishop on b5`` attack alike), how many, and whether
    a check also mates."""
    text = _MATE.sub("check", _PIECES.sub("piece", _PARTICULAR.sub("#", text)))
    return _REPEATED.sub(r"\1", text)


def sign(words: str, rules=(), template: str | None = None) -> Signature:
    words = " ".join(str(words).split())
    shown = words if len(words) <= EXAMPLE_CHARS else words[:EXAMPLE_CHARS - 3] + "..."
    return Signature(shown, general(template if template is not None else words),
                     tuple(r for r in rules if r))


# --- a case's signature -----------------------------------------------------------

JUDGED = ("failed", "error", "xfailed")   # outcomes with a cause (an unexpected pass has none)
FAILING = ("failed", "error")              # the outcomes a run's causes cover


def signature_of(outcome: str, diff: dict | None, problem: dict | None) -> Signature | None:
    """The cause of one failing (or erroring, or xfailed) case; None for the others (an
    unexpected pass has no cause in the engine: the xfail list is stale)."""
    if outcome not in JUDGED or (problem or {}).get("kind") == "not-run":
        return None   # a case never sent is no failure of the engine (the reports count it apart)
    if diff is None:
        return error_signature(problem)
    if diff.get("convention"):
        return convention_signature(diff["convention"])
    d = diff.get("first_divergence") or {}
    if d and "stopped" not in d and divergence_is_cause(d, diff):
        return divergence_signature(d)
    return answer_signature(diff)


def convention_signature(found: dict) -> Signature:
    """An undeclared convention (``doublecheck.harness.convention``): one cause per value."""
    said = f"{found['option']}={found['value']}"
    return sign(f"the engine plays {said} without declaring it: its answers are the oracle's "
                f"under that option (declare it: --option {said})", [f"OPT-{found['option']}"])


def divergence_is_cause(d: dict, diff: dict) -> bool:
    """Whether the first divergence ``d`` is the case's cause: the game parted there (the
    engine refused the move, a FEN field differed, or the oracle's turn ended with the move),
    or, at the starting position, what differed there is what differs in the answer. Where
    only what the answer says differs along the way (a draw claim missed early), the case's
    own failure names it better (a fivefold missed late)."""
    differs = set(d.get("differs") or [])
    parted = (d.get("engine", "").startswith("refused") or any(a.startswith("fen") for a in differs)
              or (d.get("why") or {}).get("side") == "turn-end")
    return parted or (bool(d.get("at_start")) and bool(differs & set(aspects(diff))))


def error_signature(problem: dict | None) -> Signature:
    """An error: its kind (the engine's own message is no part of the signature)."""
    kind = (problem or {}).get("kind", "error")
    return sign(ERROR_WORDS.get(kind, f"the case could not be judged ({kind})"))


ERROR_WORDS = {
    "crash": "the engine crashed", "timeout": "the engine did not answer in time",
    "protocol-error": "the engine's answer does not follow the protocol",
    "internal-error": "the engine reported an internal error",
    "harness-error": "the answer could not be judged",
}


def divergence_signature(d: dict) -> Signature:
    why = d.get("why") or {}
    if d.get("at_start"):
        return sign(f"at the case's starting position, before any move, the engine answers "
                    f"otherwise: {', '.join(d.get('differs') or ['its answer'])}")
    if why.get("side") == "turn-end":
        return turn_end_signature(why)
    if d.get("engine", "").startswith("refused"):
        return sign(f"the engine refuses a legal move of the line: {legal_words(why)}",
                    [why.get("rule")], legal_words(why))
    fields = [a.removeprefix("fen:") for a in d.get("differs") or [] if a.startswith("fen")]
    shown = " and ".join(f"{f} field" if f != "fen" else "validity" for f in fields) or "answer"
    special = why.get("kind") == "special"   # castling, en passant...: its rule bears on the FEN
    return sign(f"the engine's FEN differs in its {shown} after a move of the line (here "
                f"{d.get('san') or d.get('text')}, {legal_words(why)})",
                [why.get("rule")] if special else [],
                template=f"fen after a move: {shown}" + (f" {legal_words(why)}" if special else ""))


def turn_end_signature(why: dict) -> Signature:
    words = uncited(why["text"].split(": ", 1)[-1])   # after "the turn ends with it: " or the like
    return sign(f"the engine's turn goes on where the oracle's ends: {words}", [why.get("rule")],
                f"turn-end {words}")


def legal_words(item: dict) -> str:
    """A ``reasons`` item for a legal move, without its ``legal here:`` and its citation."""
    return uncited(item.get("text", "a legal move").removeprefix("legal here: "))


def uncited(text: str) -> str:
    """``text`` without the ``(RULE: title)`` it ends with (the rule ids are kept apart)."""
    return re.sub(r"\s*\([A-Z][A-Za-z0-9.\-]*(?::[^()]*(?:\([^()]*\)[^()]*)*)?\)\s*$", "", text)


def answer_signature(diff: dict) -> Signature:
    """The cause of a failure in the answer itself (no divergence explains it)."""
    drill = diff.get("drill_down") or {}
    note = diff.get("other_side") or drill.get("other_side")
    if note:
        return turn_end_signature(note) if note.get("side") == "turn-end" else \
            sign("the engine moves the side whose turn it is not", [note.get("rule")])
    if diff.get("none_listed") or drill.get("none_listed"):
        return sign("the engine lists no moves where the oracle has some, as if the game were over")
    found = diff.get("reasons") or (diff.get("drill_down") or {}).get("reasons") or {}
    if found.get("items"):
        return reason_signature(found["items"][0])
    key, f = next(iter(diff["fields"].items()))
    return field_signature(key, f, diff.get("drill_down"))


def reason_signature(item: dict) -> Signature:
    if item["side"] == "turn-end":
        return turn_end_signature(item)
    if item["side"] == "missing":
        words = legal_words(item)
        return sign(f"the engine leaves out legal moves: {words}", [item.get("rule")], words)
    words = uncited(_TOKEN_FIRST.sub("", item["text"]).split(";")[0])
    return sign(f"the engine gives moves the oracle refuses: {words}", [item.get("rule")],
                f"refused: {words}")


_TOKEN_FIRST = re.compile(r"^[a-p](?:1[0-6]|[1-9])\S*: ")   # a turn's reason names its move first


def field_signature(key: str, f: dict, drill=None) -> Signature:
    """The cause named by the first differing field (its kind, the parts and values that
    differ; never the engine's own message)."""
    kind = f["kind"]
    if kind == "fen":
        first = f["differing"][0] if f["differing"] else {"field": "placement", "expected": "",
                                                          "got": ""}
        return sign(f"the FEN differs in its {first['field']} field: expected {first['expected']}, "
                    f"got {first['got']}", template=f"fen {first['field']} {_short(first)}")
    if kind == "status":
        d = f["differing"][0]
        if d.get("absent"):
            return sign(f"the status has no {d['key']}")
        return sign(f"status {d['key']}: expected {d['expected']}, got {d['got']}")
    if kind == "error":
        return sign(_error_words(f))
    if kind == "set":
        return sign(f"{key}: " + ("the engine lists some more than once" if f["repeated"] else
                                  f"{'missing' if f['missing'] else 'extra'} moves"))
    if kind == "value" and drill:
        return sign(f"{key}: the perft walk stops without a move list that differs ({drill['end']})")
    return sign(f"{key}: {FIELD_WORDS.get(kind, 'differs')}")


FIELD_WORDS = {"absent": "missing from the answer", "malformed": "of the wrong type",
               "divide": "the divide differs", "value": "a different value",
               "invalid-fen": "not a valid FEN"}


def _short(d: dict) -> str:
    """The values of a FEN field when they are short (a side, a move number, rights), else none."""
    values = (str(d["expected"]), str(d["got"]))
    return " ".join(values) if max(map(len, values)) <= 8 else ""


def _error_words(f: dict) -> str:
    if f["expected"] is None:
        return f"the engine answers error {f['got']} where the oracle has a result"
    if f["got"] is None:
        return f"the engine gives a result where the oracle answers error {f['expected']}"
    return f"the engine answers error {f['got']} where the oracle answers {f['expected']}"


# --- a run's causes -------------------------------------------------------------------

def causes_of(entries, outcomes=FAILING) -> list[Cause]:
    """The causes of the cases of ``outcomes`` among ``entries`` of (case id, outcome, diff,
    problem), the largest first (ties: as first seen)."""
    found = {}
    for cid, outcome, diff, problem in entries:
        s = signature_of(outcome, diff, problem) if outcome in outcomes else None
        if s is not None:
            found.setdefault(s.id, Cause(s)).cases.append(cid)
    return sorted(found.values(), key=lambda c: -len(c.cases))


def run_causes(run, outcomes=FAILING) -> list[Cause]:
    """The causes of a run's failures (``doublecheck.harness.runner.Run``)."""
    return causes_of(((r.case.id, r.outcome, r.diff, r.problem) for r in run.results), outcomes)


def cause_ids(causes) -> dict:
    """{case id: its cause id}."""
    return {cid: c.id for c in causes for cid in c.cases}


# --- failures described once -------------------------------------------------------

def same_cause(entries) -> dict:
    """{case id: the id of the first earlier failure with the same first divergence and the
    same cause} for ``entries`` of (case id, outcome, diff), in report order: failures that
    share the game, the position and the move where the engine first parted from the
    oracle, and whose own failure that parting explains alike, are described once (a
    fivefold missed at the end of a line is not filed under the threefold claim missed on
    the way)."""
    leaders, follows = {}, {}
    for cid, outcome, diff in entries:
        found = (diff or {}).get("first_divergence") or {}
        if outcome not in ("failed", "xfailed") or "key" not in found:
            continue
        leader = leaders.setdefault((found["key"], signature_of(outcome, diff, None).id), cid)
        if leader != cid:
            follows[cid] = leader
    return follows


def followers_of(follows: dict) -> dict:
    """{leader id: [the ids that share its cause]} from ``same_cause``."""
    out = {}
    for cid, leader in follows.items():
        out.setdefault(leader, []).append(cid)
    return out


def show_command(run, case_id: str) -> str:
    """The command that runs one case again, on the same engine under the same options."""
    engine = f"{run.rerun} " if getattr(run, "rerun", "") else ""
    return f"doublecheck run {engine}{case_id}"
