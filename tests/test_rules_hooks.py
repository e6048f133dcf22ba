"""The rules explain themselves: the explanation hooks documented on ``Chess``.

A toy variant defined here, and nowhere in the package, gets meaningful
answers from ``lookup.explain`` and ``lookup.show`` through the hooks alone:
its own turn rule, its own rule ids, its own state sentences.  The real
variants' hooks cite only rule ids the catalogue defines for them.
"""

import pytest

from doublecheck.casefiles import load_rules
from doublecheck.lookups import lookup
from doublecheck.oracle import variants
from doublecheck.oracle.chess import Chess
from doublecheck.oracle.errors import INVALID_FEN, RulesError
from doublecheck.oracle.explain import Refusal, cite
from doublecheck.oracle.position import BLACK, WHITE


class PawnBrake(Chess):
    """Toy: every turn is two moves, except that a pawn move as move one ends the turn
    (TOY-1, TOY-2); a move that leaves the own king attacked breaks TOY-3; the king
    never makes move two (TOY-4)."""

    name = "toy-pawn-brake"
    extra_fields = ("turn",)
    rule_ids = {**Chess.rule_ids, "king-safety": "TOY-3"}
    continuing_move = "the second move of a toy turn"

    # the turn machine
    def mid_turn(self, pos):
        return pos.state == "m"

    def is_pawn(self, pos, move):
        return pos.board[move.frm][-1] in "Pp"

    def legal_moves(self, pos):
        moves = super().legal_moves(pos)
        if self.mid_turn(pos):
            return [m for m in moves if pos.board[m.frm] not in ("K", "k")]
        return moves

    def play(self, pos, move):
        if self.mid_turn(pos) or self.is_pawn(pos, move):
            return self.make(pos, move).replace(state="-")
        half = self.make(pos, move, ends_turn=False).replace(state="m")
        return half if self.legal_moves(half) else self.make(pos, move).replace(state="-")

    def parse_state(self, fields, pos):
        if fields and fields[0] not in "-m":
            raise RulesError(INVALID_FEN, f"field 7 must be - or m, not {fields[0]!r}")
        return fields[0] if fields else "-"

    def format_state(self, pos):
        return [pos.state]

    # the hooks
    def why_refused(self, pos, move, asked):
        if self.mid_turn(pos) and pos.board[move.frm] in ("K", "k"):
            return Refusal("the king never makes the second move of a toy turn", "TOY-4")
        return None

    def why_turn_over(self, pos, move, played):
        if played >= 2:
            return Refusal("a toy turn has two moves at most", "TOY-1")
        return Refusal(f"{self.san(pos, move)} is a pawn move, which ends the turn", "TOY-2")

    def why_incomplete(self, pos, last):
        return Refusal(f"after {last} the second move of the toy turn is owed", "TOY-1")

    def state_sentences(self, pos):
        who = "White" if pos.turn == WHITE else "Black"
        return [f"{who} owes the second move of its turn."] if self.mid_turn(pos) else \
            ["At a turn boundary."]


TOY = PawnBrake()


def test_toy_turn_rule_explains_the_brake():
    r = lookup.explain(TOY, turn="e4,d4")
    assert r["legal"] is False and r["refused"] == 2 and r["rule"] == "TOY-2"
    assert r["reason"] == "d4: e4 is a pawn move, which ends the turn (TOY-2)"
    assert r["variant"] == "toy-pawn-brake" and r["rule_titles"] == {}


def test_toy_turn_rule_explains_the_limit_and_the_missing_move():
    assert lookup.explain(TOY, turn="Nf3,Nc3,Nd4")["rule"] == "TOY-1"
    r = lookup.explain(TOY, turn="Nf3")
    assert r["incomplete"] and r["rule"] == "TOY-1" and "second move of the toy turn is owed" in r["reason"]
    ok = lookup.explain(TOY, turn="Nf3,Nc3")
    assert ok["legal"] and ok["ends_turn"] and ok["turn"] == "g1f3,b1c3"


def test_toy_turn_machine_refuses_a_second_king_move():
    r = lookup.explain(TOY, "4k3/8/8/8/8/8/8/4K2R w - - 0 1", turn="Rh2,Kd1")
    assert r["refused"] == 2 and r["rule"] == "TOY-4"
    assert r["reason"] == "Kd1: the king never makes the second move of a toy turn (TOY-4)"


def test_toy_gets_the_shared_comma_rule():
    r = lookup.explain(TOY, move="e4,")
    assert r["rule"] == "G8" and "e4 ends the turn here" in r["reason"]


def test_toy_uses_its_own_king_safety_id_and_the_shared_reasons():
    fen = "4k3/8/8/8/1b6/8/3P4/4K3 w - - 0 1"
    r = lookup.explain(TOY, fen, move="d3")
    assert r["rule"] == "TOY-3" and "the bishop on b4" in r["reason"]
    # reasons the toy does not override come from chess
    assert lookup.explain(TOY, move="e2e5")["rule"] == "FIDE-3.7.1"
    r = lookup.explain(TOY, "r3k2r/8/8/8/8/8/5q2/R3K2R w KQkq - 0 1", move="O-O")
    assert r["rule"] == "FIDE-3.8.2.2" and "in check from the queen on f2" in r["reason"]


def test_toy_en_passant_in_the_middle_of_a_turn_uses_its_words():
    fen = "4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 1"
    assert lookup.explain(TOY, fen, ["e4"], move="dxe3")["legal"] is True
    r = lookup.explain(TOY, fen, ["e4"], turn="Kd8,dxe3")
    assert r["refused"] == 2 and r["rule"] == "FIDE-3.7.3.2"
    assert "open only to the first move of this turn, not to the second move of a toy turn" in r["reason"]


def test_toy_show_has_its_state_sentences():
    text = lookup.show(TOY, moves=["Nf3,"])
    assert "White owes the second move of its turn." in text
    assert "Ways to finish the turn" in text
    assert lookup.show_data(TOY)["state"] == ["At a turn boundary."]
    grouped = lookup.grouped_turns(TOY, moves=["Nf3,"])
    assert grouped["variant"] == "toy-pawn-brake" and grouped["count"] > 0


# ------------------------------------------------------------ the real variants

@pytest.mark.parametrize("variant", variants.VARIANT_NAMES)
def test_rule_ids_are_catalogue_rules_of_the_variant(variant):
    catalogue, problems = load_rules()
    assert problems == []
    rules = variants.get(variant)
    assert set(Chess.rule_ids) <= set(rules.rule_ids), "a variant gives every topic an id (or None)"
    cited = [(topic, color) for color in (WHITE, BLACK) for topic in rules.rule_ids_for(color)]
    for topic, color in cited:   # (each side's ids: a variant's rule may differ by side)
        rule, also = cite(rules, topic.lstrip("*"), "*P" if topic.startswith("*") else None, color)
        for rid in [rule] + also:
            if rid is None:
                continue  # the variant has no such rule (symmetric-monster: no check)
            assert rid in catalogue, f"{variant} {topic}: {rid} is not in the catalogue"
            assert variant in catalogue[rid]["variants"], f"{variant} {topic}: {rid} is not one of its rules"


@pytest.mark.parametrize("variant", variants.VARIANT_NAMES)
def test_every_variant_describes_its_state(variant):
    rules = variants.get(variant)
    sentences = rules.state_sentences(rules.start)
    assert isinstance(sentences, list) and all(isinstance(s, str) and s for s in sentences)
    assert bool(sentences) == bool(rules.extra_fields)


def test_symmetric_monster_castling_cites_its_own_rule():
    """SM-R2: castling as in FIDE but for attacks; FIDE-3.8.2.2 is not one of its rules."""
    r = lookup.explain("symmetric-monster", move="O-O")
    assert r["rule"] == "SM-R2" and "f1 holds the bishop" in r["reason"]
