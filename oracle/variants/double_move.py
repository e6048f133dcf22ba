"""Double Move Chess (seed 000): FIDE chess in which each side may move twice in a row, once.

The rules are stated in the catalogue (cases/rules/double-move-seed.json and
double-move.json; ``doublecheck rules ID`` prints one); the ids mark where
each acts here:

- DM-objective, DM-captures, DM-promotion, DM-castling: otherwise chess, per half
- DM-ability, DM-activation: one Double Move a side, opened only at a turn boundary
- D2: a first half needs a legal second half after it
- DM-every-half-legal, DM-check-between-halves, D3: each half legal; never a king capture
- DM-en-passant, D4: only a double step that ends a turn leaves a target
- DM-end-of-game, DM-draws, DM-unused-ability-no-escape, D5: judged when the turn is complete
- D6: unused abilities are part of a position's identity
- DM-fen-field, D1: FEN field 7, ``WB``/``W-``/``-B``/``--`` plus ``m`` between the halves
- G8: the first half is written with a trailing comma (``b3g8,``)
"""

import re
from dataclasses import replace
from typing import NamedTuple

from doublecheck.oracle.chess import About, Chess
from doublecheck.oracle.errors import INVALID_FEN, RulesError, quote
from doublecheck.oracle.explain import VARIANT, Refusal, TurnEnd
from doublecheck.oracle.fen import validate_standard
from doublecheck.oracle.position import BLACK, WHITE, Move

ABILITY_FIELD = re.compile(r"(W|-)(B|-)(m?)")
LETTER = {"w": "W", "b": "B"}


class Abilities(NamedTuple):
    """The variant state: unused Double Moves ("WB", "W", "B" or "") and
    whether the side to move is between the two halves of its Double Move."""

    unused: str = "WB"
    mid: bool = False


START = Abilities()


def side_name(color):
    return "White" if color == WHITE else "Black"


class DoubleMove(Chess):
    """FIDE chess in which each side may, once per game, move twice in a row."""

    name = "double-move"
    start_fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 WB"
    extra_fields = ("abilities",)
    # OPT-draws, and OPT-fullmove: a Double Move is a turn of two moves
    option_names = Chess.option_names + ("fullmove",)
    comma_marks_double = True
    option_choices = {}             # every value of OPT-dead-position: a turn has two moves
    max_perft_depth = 12           # each side's Double Move multiplies the count (Limits)

    # ------------------------------------------------------------ turn machine

    def mid_turn(self, pos) -> bool:
        return pos.state.mid

    def has_ability(self, pos) -> bool:
        return LETTER[pos.turn] in pos.state.unused

    def legal_moves(self, pos):
        """Between the halves: the ordinary moves of the same side (DM-check-
        between-halves; the core never captures a king, and the position has
        no en passant square).  At a turn boundary: the ordinary moves, and,
        while the ability is unused, each of them again as the opening half of
        a Double Move when a second half can follow it (D2)."""
        moves = super().legal_moves(pos)
        if pos.state.mid or not self.has_ability(pos):
            return moves
        # a move taking the king (OPT-king-safety=king-capture) ends the game, so it opens nothing
        opening = [replace(m, opens_double=True) for m in moves
                   if not self.takes_king(pos, m) and self.completable(pos, m)]
        return moves + opening

    def completable(self, pos, move) -> bool:
        """D2: is there a legal second half after `move` as a first half?"""
        return self.has_legal_move(self.make(pos, move, ends_turn=False))

    def has_legal_move(self, pos) -> bool:
        """Does the side to move have any legal move?  A safe king step or
        knight jump settles it quickly (the common case); otherwise every
        move is generated and tried."""
        g, board = self.geometry, pos.board
        white = pos.turn == WHITE
        king, knight = ("K", "N") if white else ("k", "n")
        for sq, piece in enumerate(board):
            if piece != king and piece != knight:
                continue
            for to in (g.king[sq] if piece == king else g.knight[sq]):
                target = board[to]
                if target is not None and (target.isupper() == white or not self.may_capture(target)):
                    continue
                if self.king_safe_after(pos, Move(sq, to)):
                    return True
        return any(self.king_safe_after(pos, m) for m in self.pseudo_moves(pos))

    def play(self, pos, move):
        """One legal move: an ordinary move and a second half end the turn; a
        first half spends the ability and keeps the turn (DM-activation)."""
        state = pos.state
        if move.opens_double:
            unused = state.unused.replace(LETTER[pos.turn], "")
            return self.make(pos, move, ends_turn=False).replace(state=Abilities(unused, True))
        after = self.make(pos, move, ends_turn=True)
        return after.replace(state=Abilities(state.unused, False))

    # make() already gives: no en passant square after a first half, an en
    # passant square after a two-square step that ends the turn (D4), the
    # halfmove clock counting each half and the fullmove number growing only
    # when Black's turn ends (G2).  status() already answers "not over"
    # between the halves (D5) and identity() includes the state (D6).

    # -------------------------------------------------------------------- FEN

    def parse_state(self, fields, pos):
        if not fields:
            return START
        m = ABILITY_FIELD.fullmatch(fields[0])
        if m is None:
            raise RulesError(INVALID_FEN, f"field 7 must be WB, W-, -B or -- (unused Double Moves), "
                                          f"optionally followed by m; not {quote(fields[0])}")
        unused = (m[1] + m[2]).replace("-", "")
        state = Abilities(unused, m[3] == "m")
        if state.mid and LETTER[pos.turn] in unused:
            who = side_name(pos.turn)
            raise RulesError(INVALID_FEN, f"field 7 {fields[0]!r}: 'm' says {who} is between the "
                                          f"halves of its Double Move, but {who}'s ability is unspent")
        return state

    def format_state(self, pos):
        unused, mid = pos.state
        field = ("W" if "W" in unused else "-") + ("B" if "B" in unused else "-")
        return [field + ("m" if mid else "")]

    def validate(self, pos):
        """G9, plus what the middle of a Double Move implies: no en passant
        square, the mover's king not attacked (the first half was legal), and
        at least one legal second half."""
        if pos.state.mid and pos.ep is not None:
            raise RulesError(INVALID_FEN, "field 7 ends in 'm' but an en passant square is given: "
                                          "there is none between the halves of a Double Move")
        validate_standard(self, pos)
        if pos.state.mid and self.in_check(pos):
            raise RulesError(INVALID_FEN, f"field 7 ends in 'm' but {side_name(pos.turn)} is in check: "
                                          f"a first half may not leave its own king attacked (D3)")
        if pos.state.mid and not self.has_legal_move(pos):
            raise RulesError(INVALID_FEN, f"field 7 ends in 'm' but {side_name(pos.turn)} has no "
                                          f"legal second half to finish the Double Move")

    # ------------------------------------------------------------- move text

    def san(self, pos, move) -> str:
        """SAN with G8's trailing comma on the first half of a Double Move."""
        return super().san(pos, move) + ("," if move.opens_double else "")

    # ------------------------------------------------------ explaining refusals

    rule_ids = {**Chess.rule_ids, "en-passant": "D4", "en-passant-unended": ("D4", "DM-en-passant")}
    continuing_move = "the second half of a Double Move"
    unended_move = "was the first half of a Double Move"

    def why_no_move(self, pos, asked):
        """DM-activation: no Double Move is opened between the halves of one."""
        if pos.state.mid and asked.opens:
            who = side_name(pos.turn)
            return Refusal(f"{who} is already between the halves of its Double Move; no Double "
                           f"Move can be opened now", "DM-activation")
        return None

    def why_refused(self, pos, move, asked):
        """DM-ability (spent), D2 (no second half would follow)."""
        if pos.state.mid or not asked.opens:
            return None
        who = side_name(pos.turn)
        if not self.has_ability(pos):
            return Refusal(f"{who} has already used its Double Move, so this turn is one "
                           f"ordinary move", "DM-ability")
        if not self.completable(pos, move):
            return Refusal(f"after {self.move_text(pos, move)} as a first half {who} would have no "
                           f"legal second half, so it cannot open a Double Move", "D2")
        return None

    def why_no_king_capture(self, pos, to):
        """D3: not even a second half after a checking first half captures the king."""
        if pos.state.mid:
            return Refusal(f"the second half of a Double Move may never capture the king on "
                           f"{self.geometry.name[to]}, even after a check", "D3", level=VARIANT)
        return super().why_no_king_capture(pos, to)

    def king_safety_rule(self, pos, asked):
        """DM-every-half-legal: each half on its own leaves the mover's king safe."""
        if pos.state.mid or asked.opens:
            return "DM-every-half-legal", "every half of a Double Move must be legal on its own"
        return super().king_safety_rule(pos, asked)

    def why_turn_over(self, pos, move, played):
        """DM-activation: a Double Move has two halves; any other move is a whole turn."""
        if played >= 2:
            return Refusal("no further move is allowed: a Double Move has exactly two halves",
                           "DM-activation")
        san = self.san(pos, move).rstrip(",")
        return Refusal(f"no further move: {san} completed the Double Move", "DM-activation")

    def why_incomplete(self, pos, last):
        """DM-activation: nobody stops after the first half."""
        return Refusal(f"a Double Move cannot stop after its first half {last}; "
                       f"{len(self.legal_moves(pos))} second halves are possible", "DM-activation")

    def game_over_note(self, pos, status):
        """DM-unused-ability-no-escape: a mated side has no first half to open its Double Move."""
        if status.get("reason") == "checkmate" and self.has_ability(pos):
            return (f"{side_name(pos.turn)} is checkmated: it has no legal move, so it has no first "
                    f"half with which to start its unused Double Move (DM-unused-ability-no-escape)")
        return super().game_over_note(pos, status)

    turn_actions = ("First half", "Second half")

    def turn_end_reason(self, pos_before, move, pos_after):
        """DM-ability: an ordinary move is the whole turn, with the Double Move kept for
        later or already spent; a first half never ends a turn, a second half fills it."""
        if pos_before.state.mid or move.opens_double:
            return None
        # an ordinary move is the usual turn here: a Double Move comes once a game at most
        if self.has_ability(pos_before):
            return TurnEnd("DM-ability", "Double Move not used: the turn is one ordinary move",
                           usual=True)
        return TurnEnd("DM-ability", f"{side_name(pos_before.turn)}'s Double Move is already "
                                     f"used: the turn is one ordinary move", usual=True)

    def open_slot_reason(self, pos, index):
        """DM-ability: at a turn boundary a second half comes only with a Double Move, which
        each side has once."""
        if index != 1 or pos.state.mid:
            return None
        if self.has_ability(pos):
            return TurnEnd("DM-ability", "only if the first half opens the Double Move")
        return TurnEnd("DM-ability", f"{side_name(pos.turn)}'s Double Move is already used")

    def state_sentences(self, pos):
        """The unused Double Moves (D1), and whether the side to move is between its halves."""
        unused = [side_name(c) for c in (WHITE, BLACK) if LETTER[c] in pos.state.unused]
        out = ["Double Moves unused: " + (", ".join(unused) or "none") +
               f"   (field 7: {self.format_state(pos)[0]})"]
        if pos.state.mid:
            out.append(f"{side_name(pos.turn)} is between the two halves of its Double Move: one "
                       f"more move finishes the turn.")
        return out

    # What the tables doublecheck generate writes say of this variant (README, docs/perft.md).
    about = About(summary="each side has one optional Double Move per game",
                  move="an ordinary move, a first half or a second half",
                  turn="one move, or both halves of the Double Move",
                  note=("an ordinary move and the same move opening a Double Move are two different moves"
                        " (**G7**, **G8**: `e2e4` and `e2e4,`); a first half counts only when a second "
                        "half can follow it (**D2**); the abilities left are part of the position "
                        "(**D6**)"))
