"""Mutants of marseillais and marseillais-classic: the mistakes sites make with the family.

Most mistakes are the same for both forms, so each mixin below is registered
once per form (its entry in ``marseillais.json`` names both rules classes under
``on``); the mistakes about White's first turn exist in one form only.
Witnesses use positions past White's first turn (fullmove 2), where the two
forms agree.  The catalogue entries (slug, rule id, description, witness
request, why) are data, in ``marseillais.json`` beside this module; an entry
names its mixin here, or the ``bases`` (names imported here) it is built from.
"""

from dataclasses import replace

# The mixins and rules classes this module's entries (<module>.json) name as "bases" or "on"
# are looked up here by name: imported for them, though no code below uses them.
from doublecheck.authoring.mutants.common import (CountsBetweenFieldSevenMixin, EnPassantPinBlindMixin,
                                                  EnPassantRankOnlyMixin,
                                                  GameEndWithoutEnPassantMixin, GenericTurns,
                                                  KingReturnKeepsRightsMixin, MoverRightsOnlyIdentityMixin,
                                                  NoCastlingInATurnBegunInCheckMixin,
                                                  RawEnPassantIdentityMixin, RightsBlindIdentityMixin,
                                                  SeventyFiveBeatsMateMixin, SideBlindIdentityMixin,
                                                  checks_as_plain_step, checks_by_moved_piece)
from doublecheck.authoring.mutants.common import (  # noqa: F401 (entries' bases)
    ClockBeforeDeadPositionMixin, DeadPositionBeforeStalemateMixin, RepetitionBeforeClockMixin)
from doublecheck.oracle.chess import game_over, not_over
from doublecheck.oracle.errors import INVALID_FEN, RulesError
from doublecheck.oracle.position import WHITE, other
from doublecheck.oracle.variants.double_move_anul import BOUNDARY, MID_TURN, with_state
from doublecheck.oracle.variants.marseillais import NO_MOVE_TWO, NO_TARGETS, Marseillais, MarseillaisClassic


# ------------------------------------------------------------------ the turn

class CaptureBrakes:
    def move_one_ends_turn(self, pos, move):
        capture = move.en_passant or (move.castle is None and pos.board[move.to] is not None)
        return capture or super().move_one_ends_turn(pos, move)


class CastlingBrakes:
    def move_one_ends_turn(self, pos, move):
        return move.castle is not None or super().move_one_ends_turn(pos, move)


class ClassicOpening:
    white_opens_with_one_move = False


class BlackOpensWithOneMoveToo:
    def one_move_turn(self, pos):
        return pos.fullmove == 1 and pos.state != MID_TURN


class BalancedOpening:
    white_opens_with_one_move = True


# ------------------------------------------------------------------ check

class CheckNoBrake:
    def move_one_ends_turn(self, pos, move):
        return self.one_move_turn(pos)


class DiscoveredCheckNoBrake:
    def gives_check(self, pos, move):
        return checks_by_moved_piece(self, pos, move)


class PromotionCheckJudgedAsPawn:
    def gives_check(self, pos, move):
        if move.promotion is None:
            return super().gives_check(pos, move)
        return checks_as_plain_step(self, pos, move)


class CheckAnswerEndsTurn:
    def move_one_ends_turn(self, pos, move):
        return self.in_check(pos) or super().move_one_ends_turn(pos, move)


# ------------------------------------------------------------------ en passant

class MoveOneDoubleStepNoTarget:
    def after_move_one(self, pos, move):
        half = super().after_move_one(pos, move)
        own = frozenset(t for t in half.ep if self.geometry.rank[t] == self.passed_rank[pos.turn])
        return half.replace(ep=half.ep - own)


class SecondEnPassantAfterAnyMove:
    def after_move_one(self, pos, move):
        half = super().after_move_one(pos, move)
        kept = frozenset(t for t in self.open_targets(pos)
                         if t != move.to and self.live(half.board, t, other(pos.turn)))
        return half.replace(ep=half.ep | kept)


class NoAlekhine:
    def after_move_one(self, pos, move):
        half = super().after_move_one(pos, move)
        return half.replace(ep=frozenset(t for t in half.ep if t not in self.open_targets(pos)))


class LatestDoubleStepOnly:
    def end_turn(self, pos, move):
        after = super().end_turn(pos, move)
        passed = self.passed_square(pos, move)
        if passed is not None and passed in after.ep:
            return after.replace(ep=frozenset([passed]))
        return after


class StartSquareMustBeEmpty:
    def live(self, board, target, stepper):
        start = self.pawn_step[other(stepper)][target]
        return super().live(board, target, stepper) and board[start] is None


# ------------------------------------------------------------------ no second move

class NoSecondMovePasses(GenericTurns):
    def play(self, pos, move):
        after = super().play(pos, move)
        if after.state == MID_TURN and not self.has_legal_move(after):
            return self.end_turn(pos, move)
        return after


class NoSecondMoveRefused:
    def legal_moves(self, pos):
        moves = super().legal_moves(pos)
        if pos.state == MID_TURN:
            return moves
        return [m for m in moves if self.move_one_ends_turn(pos, m)
                or self.has_legal_move(self.after_move_one(pos, m))]


class StuckPositionInvalid:
    def validate(self, pos):
        super().validate(pos)
        if pos.state == MID_TURN and not self.has_legal_move(pos):
            raise RulesError(INVALID_FEN, "no legal move two")


class OpeningMidTurnAccepted:
    def validate(self, pos):
        if pos.state == MID_TURN and pos.fullmove == 1:
            return super().validate(pos.replace(fullmove=2))
        return super().validate(pos)


# ------------------------------------------------------------------ FEN and repetition

class OneSquareField4:
    def parse_ep_field(self, text):
        if "," in text:
            raise RulesError(INVALID_FEN, f"en passant field {text!r} is not a square")
        return super().parse_ep_field(text)


class MoveTwoTargetNotWritten:
    def usable_targets(self, pos):
        found = {m.to for m in self.legal_moves(pos) if m.en_passant}
        return tuple(sorted(found, key=self.geometry.file.__getitem__))


class PendingSquareNotWritten:
    def format_ep_field(self, pos):
        g = self.geometry
        return ",".join(g.name[t] for t in self.usable_targets(pos)) or "-"


class ClockCountsTurns:
    def end_turn(self, pos, move):
        after = super().end_turn(pos, move)
        if pos.state == MID_TURN and after.halfmove == pos.halfmove + 1:
            after = after.replace(halfmove=pos.halfmove)
        return after


# ------------------------------------------------------------------ the state matrix
# One wrong implementation per case family of the coverage matrix (identity, game end,
# castling rights across the two moves, field 4 for each colour).

class NoCastlingInATurnBegunInCheck(GenericTurns, NoCastlingInATurnBegunInCheckMixin):
    def between_moves(self, pos):   # field 7 read directly: mid_turn asks for the legal moves
        return pos.state == MID_TURN


class BlackTargetsNotWritten:
    def format_ep_field(self, pos):
        if pos.turn == WHITE:   # leave out the targets Black's double steps left
            black = frozenset(t for t in pos.ep if self.geometry.rank[t] == self.passed_rank[other(WHITE)])
            pos = pos.replace(ep=pos.ep - black)
        return super().format_ep_field(pos)


# --- the state matrix per side: the other side's part of a side-owned component ----

class OtherTargetLookedForOnRank3:
    def format_ep_field(self, pos):
        if pos.state == MID_TURN:
            keep = {self.passed_rank[pos.turn], self.passed_rank[WHITE]}
            pos = pos.replace(ep=frozenset(t for t in pos.ep if self.geometry.rank[t] in keep))
        return super().format_ep_field(pos)


# --------------------------------------------- where two rules meet (issue 27)


class NoMoveTwoBeforeCheck:
    def move_one_ends_turn(self, pos, move):
        if not self.one_move_turn(pos) and not self.has_legal_move(self.after_move_one(pos, move)):
            return False
        return super().move_one_ends_turn(pos, move)


class EnPassantDiscoveryMissed:
    def gives_check(self, pos, move):
        if not move.en_passant:
            return super().gives_check(pos, move)
        board = self.move_board(pos, move)
        victim = self.en_passant_victim(pos, move.frm, move.to)
        board[victim] = pos.board[victim]
        king = "k" if pos.turn == WHITE else "K"
        return self.attacked(board, board.index(king), pos.turn)


class PromotionCheckJudgedAsQueen:
    def gives_check(self, pos, move):
        return super().gives_check(pos, replace(move, promotion="Q") if move.promotion else move)


class DrawsBetweenMoves:
    def status(self, pos, history=()):
        if self.mid_turn(pos) and not self.m5_over(pos):
            pos = with_state(pos, BOUNDARY)
        return super().status(pos, history)


# ------------------------------------------------------------------ rule options
# Each wrong only under a non-default option value (doublecheck.oracle.options): under the
# defaults they play as the oracle, and their witnesses and killing cases name the value.

class FullmoveCountsWhiteToo:
    def make(self, pos, move, ends_turn=True):
        after = super().make(pos, move, ends_turn)
        if self.fullmove_per_move and pos.turn == WHITE:
            return after.replace(fullmove=after.fullmove + 1)
        return after


class NoTargetAfterTwoMoveTurn:
    def end_turn(self, pos, move):
        after = super().end_turn(pos, move)
        if not self.move_one_leaves_target and pos.state == MID_TURN:
            return after.replace(ep=NO_TARGETS)
        return after


class OneTargetWithoutSecondEnPassant:
    def end_turn(self, pos, move):
        after = super().end_turn(pos, move)
        passed = self.passed_square(pos, move)
        if not self.second_en_passant and passed is not None and passed in after.ep:
            return after.replace(ep=frozenset([passed]))
        return after


class PassedTurnLeavesNoTarget:
    def end_turn(self, pos, move):
        after = super().end_turn(pos, move)
        if pos.state != MID_TURN and not self.move_one_ends_turn(pos, move):   # a passed turn
            return after.replace(ep=NO_TARGETS)
        return after


# --- where two rules meet at one moment ------------------------------------------------

class BoundaryStalemateByM5:
    """At a turn boundary, a side whose every move one would end the game by M5 (no check, no
    move two after it) is called stalemated at once, before it moves."""

    def status(self, pos, history=()):
        if pos.state != MID_TURN and not self.one_move_turn(pos):
            firsts = self.legal_moves(pos)
            if firsts and all(not self.gives_check(pos, m) and not self.has_legal_move(self.after_move_one(pos, m))
                              for m in firsts):
                return game_over("stalemate")
        return super().status(pos, history)


class CaptureWithoutMoveTwoPasses(GenericTurns):
    """A move one that captures and leaves no legal move two passes the turn (as a capture
    brake would in double-move-anul) instead of ending the game by M5."""

    def play(self, pos, move):
        after = super().play(pos, move)
        capture = move.en_passant or (move.castle is None and pos.board[move.to] is not None)
        if capture and after.state == MID_TURN and not self.has_legal_move(after):
            return self.end_turn(pos, move)
        return after


class DeadOnlyAtTurnEnd(Marseillais):
    """dead-position=at-once (OPT-dead-position) judged at the turn's end only, as by default."""

    def mid_turn_status(self, pos):
        return not_over()


class MoveTwoOwedIgnored(Marseillais):
    """no-move-two=illegal (OPT-no-move-two) not applied: a move one with no move two after it
    is still offered, and ends the game as M5 says."""

    def use_options(self, options):
        super().use_options(options)
        if options["no-move-two"] == "illegal":
            self.no_move_two = NO_MOVE_TWO["stalemate"]
