"""Mutants of double-move-anul: two moves a turn and the brake on move one."""

from dataclasses import replace

# The mixins and rules classes this module's entries (<module>.json) name as "bases" or "on"
# are looked up here by name: imported for them, though no code below uses them.
from doublecheck.authoring.mutants.common import (CountsBetweenFieldSevenMixin, EnPassantPinBlindMixin,
                                                  EnPassantRankOnlyMixin,
                                                  GameEndWithoutEnPassantMixin, GenericTurns,
                                                  KingReturnKeepsRightsMixin, MoverRightsOnlyIdentityMixin,
                                                  NoCastlingInATurnBegunInCheckMixin,
                                                  RightsBlindIdentityMixin, SeventyFiveBeatsMateMixin,
                                                  TargetNotWrittenMixin, checks_as_plain_step,
                                                  checks_by_moved_piece, gives_check, is_double_step)
from doublecheck.authoring.mutants.common import (  # noqa: F401 (entries' bases)
    ClockBeforeDeadPositionMixin, DeadPositionBeforeStalemateMixin, RepetitionBeforeClockMixin)
from doublecheck.oracle.chess import game_over
from doublecheck.oracle.position import BLACK, WHITE, other
from doublecheck.oracle.variants.double_move_anul import BOUNDARY, MID_TURN, DoubleMoveAnul, with_state


class CaptureNoBrake(DoubleMoveAnul):
    def brakes(self, pos, move):
        return gives_check(self, pos, move)


class EnPassantNoBrake(DoubleMoveAnul):
    def brakes(self, pos, move):
        if move.en_passant:
            return gives_check(self, pos, move)
        return super().brakes(pos, move)


class DiscoveredCheckNoBrake(DoubleMoveAnul):
    def brakes(self, pos, move):
        if move.en_passant or (move.castle is None and pos.board[move.to] is not None):
            return True
        return checks_by_moved_piece(self, pos, move)


class WhiteOpensWithOneMove(GenericTurns, DoubleMoveAnul):
    def play(self, pos, move):
        if pos.turn == WHITE and pos.fullmove == 1 and not self.mid_turn(pos):
            return self.end_turn(pos, move)
        return super().play(pos, move)


class OneMoveTurnForbidden(DoubleMoveAnul):
    def legal_moves(self, pos):
        moves = super().legal_moves(pos)
        if self.mid_turn(pos):
            return moves
        return [m for m in moves if self.brakes(pos, m)
                or self.has_legal_move(with_state(self.make(pos, m, ends_turn=False), MID_TURN))]


class CastlingBrakes(DoubleMoveAnul):
    def brakes(self, pos, move):
        return move.castle is not None or super().brakes(pos, move)


class PromotionBrakes(DoubleMoveAnul):
    def brakes(self, pos, move):
        return move.promotion is not None or super().brakes(pos, move)


class EnPassantOnMoveTwo(DoubleMoveAnul):
    def make(self, pos, move, ends_turn=True):
        after = super().make(pos, move, ends_turn)
        return after if ends_turn else after.replace(ep=pos.ep)


class MoveOneDoubleStepTargetKept(DoubleMoveAnul):
    def make(self, pos, move, ends_turn=True):
        after = super().make(pos, move, ends_turn)
        if not ends_turn and is_double_step(self, pos, move):
            return after.replace(ep=(move.frm + move.to) // 2)  # remembered, unusable by the mover
        if ends_turn and self.mid_turn(pos) and after.ep is None and pos.ep is not None:
            return after.replace(ep=pos.ep)
        return after


class BrakingDoubleStepNoTarget(DoubleMoveAnul):
    def end_turn(self, pos, move):
        after = super().end_turn(pos, move)
        return after if self.mid_turn(pos) else after.replace(ep=None)


class MoveOneMayExposeKing(DoubleMoveAnul):
    def legal_moves(self, pos):
        moves = super().legal_moves(pos)
        if self.mid_turn(pos):
            return moves
        return moves + [m for m in self.pseudo_moves(pos)
                        if not self.king_safe_after(pos, m) and not self.brakes(pos, m)
                        and self.has_legal_move(with_state(self.make(pos, m, ends_turn=False), MID_TURN))]


class DrawsBetweenMoves(DoubleMoveAnul):
    def status(self, pos, history=()):
        return super().status(with_state(pos, BOUNDARY), history)


class AnulClockCountsTurns(DoubleMoveAnul):
    def end_turn(self, pos, move):
        after = super().end_turn(pos, move)
        if self.mid_turn(pos) and after.halfmove == pos.halfmove + 1:
            after = after.replace(halfmove=pos.halfmove)
        return after


class FullmoveAfterBlackMoveOne(DoubleMoveAnul):
    def make(self, pos, move, ends_turn=True):
        after = super().make(pos, move, ends_turn)
        if not ends_turn and pos.turn == BLACK:
            after = after.replace(fullmove=after.fullmove + 1)
        return after


class PromotionCheckJudgedAsPawn(DoubleMoveAnul):
    def brakes(self, pos, move):
        return super().brakes(pos, replace(move, promotion=None) if move.promotion else move)


class CastlingCheckMissed(DoubleMoveAnul):
    def brakes(self, pos, move):
        if move.castle is None:
            return super().brakes(pos, move)
        return checks_as_plain_step(self, pos, move)


class SecondMoveExistsByPseudoMoves(GenericTurns, DoubleMoveAnul):
    def has_legal_move(self, pos):
        return bool(self.pseudo_moves(pos))


class MidTurnEnPassantAccepted(DoubleMoveAnul):
    def validate(self, pos):
        super().validate(pos.replace(ep=None) if self.mid_turn(pos) else pos)


class CheckAnswerEndsTurn(DoubleMoveAnul):
    def brakes(self, pos, move):
        return self.in_check(pos) or super().brakes(pos, move)


# --- the state matrix (issue 18) ---------------------------------------------------

class BlackTargetNotWrittenAnul(TargetNotWrittenMixin, DoubleMoveAnul):
    left_by = BLACK


# --- where two rules meet (issue 27) ------------------------------------------------

class PromotionCheckJudgedAsQueen(DoubleMoveAnul):
    def brakes(self, pos, move):
        return super().brakes(pos, replace(move, promotion="Q") if move.promotion else move)


# --- where two rules meet at one moment ------------------------------------------------

class EndTestOnlyTwoMoveTurns(DoubleMoveAnul):
    """The end test (has the side to move a legal turn?) counts a move one that captures as a
    whole turn, and any other move one only when a move two can follow it: a move one that
    checks, or is quiet, and leaves no move two is forgotten, though it too is a whole turn
    (A1), so a side whose only moves are such is called mated or stalemated."""

    def status(self, pos, history=()):
        if not self.mid_turn(pos) and not any(self.counted(pos, m) for m in self.legal_moves(pos)):
            if self.in_check(pos):
                return game_over("checkmate", winner=other(pos.turn))
            return game_over("stalemate")
        return super().status(pos, history)

    def counted(self, pos, move):
        if move.en_passant or (move.castle is None and pos.board[move.to] is not None):
            return True     # the capture brake is seen on the board; the check brake is not
        return self.has_legal_move(with_state(self.make(pos, move, ends_turn=False), MID_TURN))
