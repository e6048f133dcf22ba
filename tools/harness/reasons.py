"""Why a move named in a failure is wrong, or right: the reasons of the failure reports.

A failing case names moves (or turns) the engine gave that the case does not
expect (*extra*) and moves the case expects that the engine left out
(*missing*). For each, the oracle is asked why, at the position they belong
to, and the answer is given with the rule id that decides it:

- an extra move is refused by the rules: the reason is the one ``doublecheck
  explain`` gives (``doublecheck.lookups.lookup.explain_at``, the oracle's
  ``doublecheck.oracle.explain`` and the rules class's ``why_*`` hooks), in
  the same words and with the same rule;
- a missing move is legal: it is named by its kind (castling, en passant, a
  promotion, a double step, a king step to an unattacked square, a move out of
  check, else the piece's move), and the kind's rule is cited from the rules
  class's own ``rule_ids`` with its catalogue title. No rule is worded here.

Reasons cost a replay and one explanation per move, so they are worked out
only for failing cases and at most ``REASON_ITEMS`` per case; the others are
counted (``more``). A reason that cannot be worked out is left out, never
allowed to cost the report.
"""

from __future__ import annotations

import re

from doublecheck.oracle import api, variants
from doublecheck.oracle.errors import RulesError
from doublecheck.oracle.explain import cite, piece_name
from doublecheck.oracle.position import BLACK, color_of, other

REASON_ITEMS = 6   # moves given a reason in one failing case; the rest are counted


def reasons(variant: str, where: dict, turns: bool, extra, missing, limit: int = REASON_ITEMS,
            options=None) -> dict:
    """``{"items": [...], "more": N}`` for the extra then the missing tokens at ``where``
    (``{"fen", "moves"}`` as in a request); ``turns``: the tokens are whole turns.

    Each item: ``{"side": "extra"|"missing", "token", "text", "rule", "rules"}``
    (``rule``: the id that decides, or None; ``rules``: it and related ids).
    ``options``: the rule options the oracle plays under (None: the default rules)."""
    wanted = [("extra", t) for t in extra] + [("missing", t) for t in missing]
    out = {"items": [], "more": max(len(wanted) - limit, 0)}
    try:
        asker = Asker(variant, where, turns, options)
    except Exception:   # the oracle cannot set up the position: no reasons, the diff still stands
        out["more"] = len(wanted)
        return out
    for side, token in wanted[:limit]:
        try:
            ended = turn_cut_short(variant, where, token, options) if side == "extra" and turns else None
            item = ended or (asker.extra(token) if side == "extra" else asker.missing(token))
        except Exception:
            item = None
        if item is None:
            out["more"] += 1
        else:
            out["items"].append({"side": side, "token": token, **item})
    return out


def citation(rule: str | None) -> str:
    """`` (M3: Check on move one ends the turn)``: a rule id with its catalogue title, as a
    reason ends; ``""`` for no rule."""
    from doublecheck.lookups.lookup import rule_titles   # on demand: start-up time
    title = rule_titles([rule]).get(rule) if rule else None
    return f" ({rule}: {title})" if title else (f" ({rule})" if rule else "")


TURN_ENDS = "the turn ends with it: "


def turn_end_why(variant: str, where: dict, move: str, options=None) -> dict | None:
    """When the oracle's turn ends with ``move`` at ``where`` before the turn's every action
    was played (a check, a capture, a series cut short): the reason in the rules class's
    words (``turn_end_reason``) with its rule id and title, as a ``reasons`` item of side
    ``turn-end``; else None."""
    try:
        rules = variants.get(variant, options)
        line = api.replay(rules, where.get("fen"), where.get("moves"))
        step = line.play(move)
        ended = rules.turn_end_reason(step.pos, step.move, line.final) if step.ends_turn else None
    except Exception:   # no reason rather than no report
        return None
    if ended is None:
        return None
    return {"side": "turn-end", "token": move, "text": f"{TURN_ENDS}{ended.words}{citation(ended.rule)}",
            "rule": ended.rule, "rules": [ended.rule] if ended.rule else []}


def turn_cut_short(variant: str, where: dict, token: str, options=None) -> dict | None:
    """For a turn of several moves whose turn the oracle ends before its last move (a check
    that ends a Marseillais turn, a capture that ends a double-move-anul one): the oracle's
    reason (``turn_end_why``, side ``turn-end``) for the move it ends with; else None."""
    halves = api.split_tokens([token])
    before = list(where.get("moves") or [])
    for i, half in enumerate(halves[:-1]):
        ended = turn_end_why(variant, {**where, "moves": before + halves[:i]}, half.rstrip(","), options)
        if ended:
            return {**ended, "token": token,
                    "text": ended["text"].replace(TURN_ENDS, f"the turn ends with {half.rstrip(',')}: ", 1)}
    return None


SQUARE = re.compile(r"[a-p](?:1[0-6]|[1-9])")


def other_side_note(variant: str, where: dict, extra, options=None) -> dict | None:
    """When every extra move the engine lists (those looked at) starts on a piece of the side
    whose turn it is not, for the oracle: the engine's turn ended, or went on, where the
    oracle's did not. A ``reasons``-like item: side ``turn-end`` with the oracle's reason
    when its turn ended with the last move of ``where`` (``turn_end_why``), else side
    ``other``. None when not so."""
    try:
        rules = variants.get(variant, options)
        line = api.replay(rules, where.get("fen"), where.get("moves"))
        if not extra or not all(_others_piece(rules, line.final, t) for t in list(extra)[:REASON_ITEMS]):
            return None
    except Exception:   # no note rather than no report
        return None
    side = "White" if line.final.turn == BLACK else "Black"
    if not line.steps or not line.steps[-1].ends_turn:
        return {"side": "other", "token": "", "rule": None, "rules": [],
                "text": f"the engine moves {side} here: its turn ended where the oracle's goes on"}
    last = line.steps[-1]
    ended = turn_end_why(variant, {"fen": rules.fen(last.pos)}, last.token, options)
    if ended:
        words = ended["text"].removeprefix(TURN_ENDS)
        return {**ended, "text": f"the engine moves {side} again here, but the oracle's turn "
                                 f"ended with {last.token.rstrip(',')}: {words}"}
    return {"side": "other", "token": "", "rule": None, "rules": [],
            "text": f"the engine moves {side} again here: for the oracle, the turn ended with "
                    f"{last.token.rstrip(',')}"}


def _others_piece(rules, pos, token: str) -> bool:
    """Whether ``token`` starts on a piece of the side not to move at ``pos``."""
    found = SQUARE.match(token)
    if not found or found.group() not in rules.geometry.name:
        return False
    piece = pos.board[rules.geometry.name.index(found.group())]
    return piece is not None and color_of(piece) == other(pos.turn)


class Asker:
    """The oracle at one position, asked why moves there are refused or allowed."""

    def __init__(self, variant: str, where: dict, turns: bool, options=None):
        self.rules = variants.get(variant, options)
        self.line = api.replay(self.rules, where.get("fen"), where.get("moves"))
        self.turns = turns

    def extra(self, token: str) -> dict | None:
        """The oracle's refusal of ``token``, as ``doublecheck explain`` says it."""
        from doublecheck.lookups.lookup import explain_at
        mark = self.line.mark()
        try:
            found = explain_at(self.rules, self.line, **{"turn" if self.turns else "move": token})
        except RulesError as e:
            return {"text": f"the oracle cannot read it ({e.code}: {e.message})", "rule": None,
                    "rules": []}
        finally:
            self.line.cut(mark)
        if found["legal"]:
            written = found["turn"] if self.turns else found["moves"][0]["move"]
            san = found["san"] if self.turns else found["moves"][0]["san"]
            what = "turn" if self.turns else "move"
            if written != token:
                return {"text": f"the oracle reads it as the legal {what} {written} ({san}), "
                                "written differently", "rule": None, "rules": []}
            return {"text": f"the oracle finds this {what} legal here too ({san})", "rule": None,
                    "rules": []}
        text = found["reason"]
        for label in (token, token.rstrip(",")):
            if text.startswith(f"{label}: "):
                text = text[len(label) + 2:]
                break
        return {"text": text, "rule": found["rule"], "rules": found["rules"]}

    def missing(self, token: str) -> dict | None:
        """What kind of legal move ``token`` is, and the rule that allows that kind."""
        mark = self.line.mark()
        try:
            halves = []
            for half in api.split_tokens([token]):
                step = self.line.try_play(half)
                if isinstance(step, api.Refused):
                    return None   # the case expects a move the oracle refuses: the case is in doubt, not said here
                halves.append((step.pos, step.move))
        except RulesError:
            return None   # text that is no move at all
        finally:
            self.line.cut(mark)
        kinds = [(self.kind(pos, move), i, pos, move) for i, (pos, move) in enumerate(halves)]
        (rank, words, topic), i, pos, move = min(kinds, key=lambda k: k[0][0])
        if len(halves) > 1 and rank == PLAIN:
            words, topic = f"a turn of {len(halves)} moves", "turn"
        elif len(halves) > 1:
            san = self.rules.san(pos, move).rstrip(",")
            words = f"move {i + 1} ({san}) is {words}"
        piece = pos.board[move.frm] if move.frm is not None else None
        rule, also = cite(self.rules, topic, piece, pos.turn) if topic else (None, [])
        return {"text": f"legal here: {words}{citation(rule)}", "rule": rule,
                "rules": [r for r in [rule] + also if r], "kind": KINDS[rank]}

    def kind(self, pos, move) -> tuple[int, str, str]:
        """(how telling, the move's kind in words, the ``rule_ids`` topic that allows it)."""
        rules, g = self.rules, self.rules.geometry
        name = g.name
        if move.castle is not None:
            return SPECIAL, f"castling, {rules.san(pos, move).rstrip(',')}", "castling"
        if move.en_passant:
            return SPECIAL, "an en passant capture", "en-passant"
        if move.drop is not None:
            return SPECIAL, f"a drop on {name[move.to]}", None   # no shared topic names the drop rule
        piece = pos.board[move.frm]
        if move.promotion:
            return SPECIAL, f"a promotion to a {piece_name(move.promotion)}", "promotion"
        if piece[-1] in "Pp" and abs(g.rank[move.to] - g.rank[move.frm]) == 2:
            return SPECIAL, "a pawn's double step", "double-step"
        if rules.has_check and rules.in_check(pos):
            return SAFETY, (f"the {piece_name(piece)} on {name[move.frm]} to {name[move.to]} leaves "
                            f"the king out of check"), "king-safety"
        if piece[-1] in "Kk" and not piece.startswith("*") and rules.has_check:
            board = rules.move_board(pos, move)
            if not rules.attackers(board, move.to, other(pos.turn)):
                return SAFETY, f"a king step to {name[move.to]}, which no enemy piece attacks", \
                    "king-safety"
        return PLAIN, f"a {piece_name(piece)} move from {name[move.frm]} to {name[move.to]}", \
            piece[-1].upper()


SPECIAL, SAFETY, PLAIN = range(3)   # how telling a kind of move is: the most telling half is named
KINDS = ("special", "king-safety", "plain")   # a missing move's ``kind`` in its reason
