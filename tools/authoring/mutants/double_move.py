"""Mutants of double-move: the one Double Move per side."""

from dataclasses import replace

# The mixins and rules classes this module's entries (<module>.json) name as "bases" or "on"
# are looked up here by name: imported for them, though no code below uses them.
from doublecheck.authoring.mutants.common import (AnyFirstPartCompletesMixin, CountsBetweenMixin,
                                                  EnPassantRankOnlyMixin,
                                                  EnPassantBlindIdentityMixin, EnPassantPinBlindMixin,
                                                  GameEndWithoutEnPassantMixin, KingReturnKeepsRightsMixin,
                                                  MoverRightsOnlyIdentityMixin, SeventyFiveBeatsMateMixin,
                                                  TargetNotWrittenMixin)
from doublecheck.authoring.mutants.common import (  # noqa: F401 (entries' bases)
    ClockBeforeDeadPositionMixin, DeadPositionBeforeStalemateMixin, RepetitionBeforeClockMixin)
from doublecheck.oracle.position import BLACK, WHITE, other
from doublecheck.oracle.variants.double_move import LETTER, Abilities, DoubleMove


class EnPassantOnSecondHalf(DoubleMove):
    def play(self, pos, move):
        after = super().play(pos, move)
        return after.replace(ep=pos.ep) if move.opens_double else after


class FirstHalfTargetKept(DoubleMove):
    def play(self, pos, move):
        after = super().play(pos, move)
        if move.opens_double:
            g = self.geometry
            piece = pos.board[move.frm]
            if piece in ("P", "p") and abs(g.rank[move.to] - g.rank[move.frm]) == 2:
                after = after.replace(ep=(move.to + move.frm) // 2)
        elif pos.state.mid and after.ep is None and pos.ep is not None:
            after = after.replace(ep=pos.ep)
        return after


class FirstHalfMayExposeKing(DoubleMove):
    def legal_moves(self, pos):
        moves = super().legal_moves(pos)
        if pos.state.mid or not self.has_ability(pos):
            return moves
        return moves + [replace(m, opens_double=True) for m in self.pseudo_moves(pos)
                        if not self.king_safe_after(pos, m) and self.completable(pos, m)]


class MateAfterFirstHalf(DoubleMove):
    def play(self, pos, move):
        after = super().play(pos, move)
        if not move.opens_double:
            return after
        view = self.make(pos, move, ends_turn=True).replace(state=Abilities(after.state.unused, False))
        if self.in_check(view) and not self.legal_moves(view):
            return view
        return after


class DrawsBetweenHalves(DoubleMove):
    def status(self, pos, history=()):
        if self.mid_turn(pos):
            pos = pos.replace(state=Abilities(pos.state.unused, False))
        return super().status(pos, history)


class SecondHalfTakesKing(DoubleMove):
    taking_kings = False

    def may_capture(self, target):
        return self.taking_kings or super().may_capture(target)

    def legal_moves(self, pos):
        moves = super().legal_moves(pos)
        king = "k" if pos.turn == WHITE else "K"
        if pos.state.mid and king in pos.board:
            self.taking_kings = True
            try:
                target = pos.board.index(king)
                moves += [m for m in self.pseudo_moves(pos) if m.to == target]
            finally:
                self.taking_kings = False
        return moves


class AbilitiesNotInIdentity(DoubleMove):
    def identity(self, pos):
        return (pos.board, pos.turn, pos.castling, self.legal_ep(pos))


class MWithAbilityAccepted(DoubleMove):
    def parse_state(self, fields, pos):
        if fields and fields[0].endswith("m"):
            state = super().parse_state([fields[0][:-1]], pos)
            return Abilities(state.unused, True)
        return super().parse_state(fields, pos)


class AbilityNeverSpent(DoubleMove):
    def play(self, pos, move):
        after = super().play(pos, move)
        return after.replace(state=Abilities(pos.state.unused, after.state.mid))


class FullmoveAfterBlackFirstHalf(DoubleMove):
    def play(self, pos, move):
        after = super().play(pos, move)
        if move.opens_double and pos.turn == BLACK:
            after = after.replace(fullmove=after.fullmove + 1)
        return after


class ClockCountsTurns(DoubleMove):
    def play(self, pos, move):
        after = super().play(pos, move)
        if pos.state.mid and after.halfmove == pos.halfmove + 1:
            after = after.replace(halfmove=pos.halfmove)
        return after


class NoEnPassantFirstHalf(DoubleMove):
    def legal_moves(self, pos):
        return [m for m in super().legal_moves(pos) if not (m.opens_double and m.en_passant)]


class CompletableByPseudoMoves(DoubleMove):
    def completable(self, pos, move):
        return bool(self.pseudo_moves(self.make(pos, move, ends_turn=False)))


class SpendsOpponentsAbility(DoubleMove):
    def play(self, pos, move):
        after = super().play(pos, move)
        if move.opens_double:
            unused = pos.state.unused.replace(LETTER[other(pos.turn)], "")
            after = after.replace(state=Abilities(unused, True))
        return after


class RightsUpdatedAtTurnEnd(DoubleMove):
    def play(self, pos, move):
        after = super().play(pos, move)
        return after.replace(castling=pos.castling) if move.opens_double else after


class PositionsBetweenHalvesCounted(CountsBetweenMixin, DoubleMove):
    def as_boundary(self, pos):
        return pos.replace(state=Abilities(pos.state.unused, False))


# --- the state matrix (issue 18) ---------------------------------------------------

class CastlingAttacksJudgedAtTurnStart(DoubleMove):
    def parse_fen(self, text):
        self.turn_start = None
        return super().parse_fen(text)

    def play(self, pos, move):
        if move.opens_double:
            self.turn_start = pos.board
        return super().play(pos, move)

    def attacked(self, board, sq, by):
        return super().attacked(self.attack_board or board, sq, by)

    attack_board = None

    def castling_moves(self, pos):
        if pos.state.mid and getattr(self, "turn_start", None) is not None:
            self.attack_board = self.turn_start
        try:
            return list(super().castling_moves(pos))
        finally:
            self.attack_board = None


class BlackTargetNotWritten(TargetNotWrittenMixin, DoubleMove):
    left_by = BLACK


# --- the state matrix per side: the other side's part of a side-owned component ----

class RepetitionKeepsOnlyMoverAbility(DoubleMove):
    def identity(self, pos):
        mine = pos.state.unused.replace(LETTER[other(pos.turn)], "")
        return super().identity(pos.replace(state=pos.state._replace(unused=mine)))


# --- where two rules meet at one moment ------------------------------------------------

class CheckFlagFromFirstHalf(DoubleMove):
    """The game-end test reads a check flag that the first half of a Double Move set; the
    second half does not refresh it, so a mate (or a stalemate) the second half brings about
    is judged with the check state the first half left."""

    def __init__(self, options=None):
        self.flags = {}
        self.forced = None
        super().__init__(options)

    def play(self, pos, move):
        after = super().play(pos, move)
        if pos.state.mid:
            self.flags[after] = self.in_check(pos, other(pos.turn))
        return after

    def status(self, pos, history=()):
        self.forced = self.flags.get(pos)
        try:
            return super().status(pos, history)
        finally:
            self.forced = None

    def in_check(self, pos, color=None):
        if self.forced is not None and (color is None or color == pos.turn):
            return self.forced
        return super().in_check(pos, color)


class CompletableWithTurnStartTarget(DoubleMove):
    """D2's test builds the position between the halves from the turn's start and keeps its
    en passant square, so a second half that takes en passant counts as completing it."""

    def completable(self, pos, move):
        return self.has_legal_move(self.make(pos, move, ends_turn=False).replace(ep=pos.ep))
