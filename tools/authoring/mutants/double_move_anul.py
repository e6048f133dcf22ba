"""Mutants of double-move-anul: two moves a turn and the brake on move one."""

from dataclasses import replace

from doublecheck.authoring.mutants import mutant
from doublecheck.authoring.mutants.common import (CountsBetweenFieldSevenMixin,
                                                  GameEndWithoutEnPassantMixin, GenericTurns,
                                                  KingReturnKeepsRightsMixin, MoverRightsOnlyIdentityMixin,
                                                  NoCastlingInATurnBegunInCheckMixin,
                                                  RightsBlindIdentityMixin, TargetNotWrittenMixin,
                                                  checks_as_plain_step, checks_by_moved_piece, gives_check,
                                                  is_double_step)
from doublecheck.oracle.chess import game_over
from doublecheck.oracle.position import BLACK, WHITE
from doublecheck.oracle.variants.double_move_anul import BOUNDARY, MID_TURN, DoubleMoveAnul, with_state


@mutant("capture-no-brake", "DA-5",
        "only a check on move one ends the turn; a capture lets the same side move again",
        {"op": "play", "fen": "4k3/8/8/8/8/8/p7/R3K3 w - - 0 1 -", "moves": ["a1a2"]})
class CaptureNoBrake(DoubleMoveAnul):
    """the Marseillais rule (check only) that the seed extends"""

    def brakes(self, pos, move):
        return gives_check(self, pos, move)


@mutant("en-passant-no-brake", "A1",
        "the capture brake looks for a piece on the target square, so an en passant capture does not end the turn",
        {"op": "play", "fen": "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1 -", "moves": ["e5d6"]})
class EnPassantNoBrake(DoubleMoveAnul):
    """the capture test looks for a piece on the target square"""

    def brakes(self, pos, move):
        if move.en_passant:
            return gives_check(self, pos, move)
        return super().brakes(pos, move)


@mutant("discovered-check-no-brake", "DA-6",
        "the check brake asks only whether the moved piece attacks the king, so a discovered check does not end the turn",
        {"op": "play", "fen": "4k3/8/8/8/4N3/8/8/K3R3 w - - 0 1 -", "moves": ["e4c3"]})
class DiscoveredCheckNoBrake(DoubleMoveAnul):
    """the check test asks only whether the moved piece attacks the king"""

    def brakes(self, pos, move):
        if move.en_passant or (move.castle is None and pos.board[move.to] is not None):
            return True
        return checks_by_moved_piece(self, pos, move)


@mutant("white-opens-with-one-move", "DA-opening-turn",
        "White's first turn of the game has one move only (the Marseillais habit the seed rejects)",
        {"op": "play", "moves": ["e2e4"]})
class WhiteOpensWithOneMove(GenericTurns, DoubleMoveAnul):
    """the Marseillais habit the seed explicitly rejects"""

    def play(self, pos, move):
        if pos.turn == WHITE and pos.fullmove == 1 and not self.mid_turn(pos):
            return self.end_turn(pos, move)
        return super().play(pos, move)


@mutant("one-move-turn-forbidden", "DA-no-pass",
        "a quiet first move after which no second move exists is refused, instead of ending the turn after one move",
        {"op": "status", "fen": "7k/7p/8/7P/8/1q6/8/K7 w - - 0 1 -"})
class OneMoveTurnForbidden(DoubleMoveAnul):
    """the double-move D2 rule carried over"""

    def legal_moves(self, pos):
        moves = super().legal_moves(pos)
        if self.mid_turn(pos):
            return moves
        return [m for m in moves if self.brakes(pos, m)
                or self.has_legal_move(with_state(self.make(pos, m, ends_turn=False), MID_TURN))]


@mutant("castling-brakes", "A2",
        "castling always ends the turn, as if it were a capture or a check",
        {"op": "play", "fen": "4k3/8/8/8/8/8/8/4K2R w K - 0 1 -", "moves": ["e1g1"]})
class CastlingBrakes(DoubleMoveAnul):
    """castling treated as a "forcing" or special move"""

    def brakes(self, pos, move):
        return move.castle is not None or super().brakes(pos, move)


@mutant("promotion-brakes", "A2",
        "a promotion always ends the turn, as if it were a capture or a check",
        {"op": "play", "fen": "4k3/P7/8/8/8/8/8/4K3 w - - 0 1 -", "moves": ["a7a8n"]})
class PromotionBrakes(DoubleMoveAnul):
    """the same, for promotion"""

    def brakes(self, pos, move):
        return move.promotion is not None or super().brakes(pos, move)


@mutant("en-passant-on-move-two", "A3",
        "the en passant target from the start of the turn stays usable for move two",
        {"op": "moves", "fen": "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1 -", "moves": ["e1d1"]})
class EnPassantOnMoveTwo(DoubleMoveAnul):
    """the target is cleared only when the turn passes"""

    def make(self, pos, move, ends_turn=True):
        after = super().make(pos, move, ends_turn)
        return after if ends_turn else after.replace(ep=pos.ep)


@mutant("move-one-double-step-target-kept", "A3",
        "a double step played as a quiet move one still leaves an en passant target after move two",
        {"op": "moves", "fen": "7k/8/8/8/3p4/8/4P3/7K w - - 0 1 -", "moves": ["e2e4", "h1g1"]})
class MoveOneDoubleStepTargetKept(DoubleMoveAnul):
    """the target is remembered to the end of the turn"""

    def make(self, pos, move, ends_turn=True):
        after = super().make(pos, move, ends_turn)
        if not ends_turn and is_double_step(self, pos, move):
            return after.replace(ep=(move.frm + move.to) // 2)  # remembered, unusable by the mover
        if ends_turn and self.mid_turn(pos) and after.ep is None and pos.ep is not None:
            return after.replace(ep=pos.ep)
        return after


@mutant("braking-double-step-no-target", "A3",
        "only a double step played as move two leaves a target; one that ends the turn as move one does not",
        {"op": "moves", "fen": "8/8/8/5k2/3p4/8/4P3/4K3 w - - 0 1 -", "moves": ["e2e4"]})
class BrakingDoubleStepNoTarget(DoubleMoveAnul):
    """targets made only by move two"""

    def end_turn(self, pos, move):
        after = super().end_turn(pos, move)
        return after if self.mid_turn(pos) else after.replace(ep=None)


@mutant("move-one-may-expose-king", "DA-king-safety-each-move",
        "move one may leave the own king in check when move two repairs it",
        {"op": "moves", "fen": "4r2k/8/8/8/8/8/4B3/4K3 w - - 0 1 -"})
class MoveOneMayExposeKing(DoubleMoveAnul):
    """the turn checked as one unit"""

    def legal_moves(self, pos):
        moves = super().legal_moves(pos)
        if self.mid_turn(pos):
            return moves
        return moves + [m for m in self.pseudo_moves(pos)
                        if not self.king_safe_after(pos, m) and not self.brakes(pos, m)
                        and self.has_legal_move(with_state(self.make(pos, m, ends_turn=False), MID_TURN))]


@mutant("draws-between-moves", "G3",
        "draw rules (move count, dead position, repetition) are judged between the two moves of a turn too",
        {"op": "status", "fen": "4k3/8/8/8/8/8/8/R3K3 w - - 149 90 -", "moves": ["a1a2"]})
class DrawsBetweenMoves(DoubleMoveAnul):
    """the end-of-game test runs after every move"""

    def status(self, pos, history=()):
        return super().status(with_state(pos, BOUNDARY), history)


@mutant("clock-counts-turns", "G2",
        "the halfmove clock counts turns: two quiet moves in one turn add one",
        {"op": "play", "fen": "4k3/8/8/8/8/8/8/R3K3 w - - 0 1 -", "moves": ["a1a2", "a2a3"]})
class AnulClockCountsTurns(DoubleMoveAnul):
    """as in double-move"""

    def end_turn(self, pos, move):
        after = super().end_turn(pos, move)
        if self.mid_turn(pos) and after.halfmove == pos.halfmove + 1:
            after = after.replace(halfmove=pos.halfmove)
        return after


@mutant("fullmove-after-black-move-one", "G2",
        "the fullmove number grows after each Black move, not once per Black turn",
        {"op": "play", "fen": "4k3/8/8/8/8/8/8/R3K3 b - - 0 5 -", "moves": ["e8d8", "d8c8"]})
class FullmoveAfterBlackMoveOne(DoubleMoveAnul):
    """the chess rule kept"""

    def make(self, pos, move, ends_turn=True):
        after = super().make(pos, move, ends_turn)
        if not ends_turn and pos.turn == BLACK:
            after = after.replace(fullmove=after.fullmove + 1)
        return after


@mutant("promotion-check-judged-as-pawn", "A2",
        "the check brake looks at the pawn before it promotes, so a promotion giving check does not end the turn",
        {"op": "play", "fen": "4k3/P7/8/8/8/8/8/4K3 w - - 0 1 -", "moves": ["a7a8q"]})
class PromotionCheckJudgedAsPawn(DoubleMoveAnul):
    """the check test looks at the piece before it is replaced"""

    def brakes(self, pos, move):
        return super().brakes(pos, replace(move, promotion=None) if move.promotion else move)


@mutant("castling-check-missed", "A2",
        "the check brake looks at the king's move only, so a castling whose rook gives check does not end the turn",
        {"op": "play", "fen": "5k2/8/8/8/8/8/8/4K2R w K - 0 1 -", "moves": ["e1g1"]})
class CastlingCheckMissed(DoubleMoveAnul):
    """the check test looks at the king's move only"""

    def brakes(self, pos, move):
        if move.castle is None:
            return super().brakes(pos, move)
        return checks_as_plain_step(self, pos, move)


@mutant("second-move-exists-by-pseudo-moves", "DA-no-pass",
        "the turn goes on after a quiet move one when any second move could be made, even one leaving the king in check",
        {"op": "play", "fen": "7k/7p/8/7P/8/1q6/8/K7 w - - 0 1 -", "moves": ["h5h6"]})
class SecondMoveExistsByPseudoMoves(GenericTurns, DoubleMoveAnul):
    """the cheap generator used for the existence test"""

    def has_legal_move(self, pos):
        return bool(self.pseudo_moves(pos))


@mutant("mid-turn-en-passant-accepted", "G9",
        "a FEN in the middle of a turn may carry an en passant square",
        {"op": "fen", "fen": "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1 m"})
class MidTurnEnPassantAccepted(DoubleMoveAnul):
    """the validation of field 7 and field 4 are not tied together"""

    def validate(self, pos):
        super().validate(pos.replace(ep=None) if self.mid_turn(pos) else pos)


@mutant("check-answer-ends-turn", "DA-turn-begins-in-check",
        "a turn that begins in check ends after the move that answers it, even a quiet king step",
        {"op": "play", "fen": "4k3/8/8/8/1b6/8/8/4K3 w - - 0 1 -", "moves": ["e1f1"]})
class CheckAnswerEndsTurn(DoubleMoveAnul):
    """"a check ends the turn" misread as applying to the side in check"""

    def brakes(self, pos, move):
        return self.in_check(pos) or super().brakes(pos, move)


@mutant("positions-between-moves-counted", "G3",
        "the position between the two moves of a turn is counted for repetition",
        {"op": "status", "fen": "4k3/8/8/8/8/8/8/R3K3 w - - 0 1 -",
         "moves": ["a1a2", "a2a3", "e8d8", "d8e8", "a3a1", "a1a2", "e8d8", "d8e8",
                   "a2a1", "a1a2", "e8d8", "d8e8"]})
class PositionsBetweenMovesCounted(CountsBetweenFieldSevenMixin, DoubleMoveAnul):
    """every position after every move goes into the history (same technique as in double-move)"""


# --- the state matrix (issue 18) ---------------------------------------------------

@mutant("repetition-ignores-castling-rights", "G3",
        "repetition compares positions without the castling rights",
        {"op": "status", "fen": "4k2r/8/8/8/8/8/8/4K2R w Kk - 0 1 -",
         "moves": ["h1h2,h2h1", "h8h7,h7h8", "e1d1,d1e1", "e8d8,d8e8"]})
class RepetitionIgnoresCastlingRightsAnul(RightsBlindIdentityMixin, DoubleMoveAnul):
    """the key is the placement and the side to move; a rook's out-and-back turn shows why
    that fails"""


@mutant("game-end-without-en-passant", "A5",
        "checkmate and stalemate are judged as if en passant captures did not exist",
        {"op": "play", "fen": "k7/2K5/1P6/8/3p4/3P4/4P3/7N w - - 0 1 -", "moves": ["h1g3,e2e4"]})
class GameEndWithoutEnPassantAnul(GameEndWithoutEnPassantMixin, DoubleMoveAnul):
    """as in chess; here the target comes from a double step that ended the turn"""


@mutant("no-castling-in-a-turn-begun-in-check", "DA-turn-begins-in-check",
        "a side that began its turn in check may not castle with move two, though move one answered the check",
        {"op": "play", "fen": "k7/8/8/8/1b6/8/8/1N2K2R w K - 0 1 -", "moves": ["b1d2,e1g1"]})
class NoCastlingInATurnBegunInCheck(GenericTurns, NoCastlingInATurnBegunInCheckMixin, DoubleMoveAnul):
    """"no castling out of check" tied to the turn instead of the move"""


@mutant("king-return-keeps-rights", "FIDE-3.8.2.1",
        "a king that steps out and back home within one turn keeps its side's castling rights",
        {"op": "play", "fen": "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1 -", "moves": ["e8d8,d8e8"]})
class KingReturnKeepsRightsAnul(GenericTurns, KingReturnKeepsRightsMixin, DoubleMoveAnul):
    """rights cleared at the end of the turn for a king found away from home"""


@mutant("black-target-not-written", "G9",
        "the FEN writer tests whether an en passant capture is possible only for Black to move, so it never "
        "writes a target left by Black",
        {"op": "play", "fen": "7k/4p3/8/3P4/8/8/8/7K b - - 0 1 -", "moves": ["h8g8,e7e5"]})
class BlackTargetNotWrittenAnul(TargetNotWrittenMixin, DoubleMoveAnul):
    """the "can it be taken?" test of the writer looks at Black's pawns only"""
    left_by = BLACK


# --- the state matrix per side: the other side's part of a side-owned component ----

@mutant("repetition-keeps-only-mover-rights", "G3",
        "repetition compares only the side to move's castling rights, not the other side's",
        {"op": "status", "fen": "1n2k1nr/8/8/8/8/8/8/1N2K1NR w Kk - 0 1 -",
         "moves": ["b1c3,c3b1", "h8h7,h7h8", "b1c3,c3b1", "b8c6,c6b8"]})
class RepetitionKeepsOnlyMoverRights(MoverRightsOnlyIdentityMixin, DoubleMoveAnul):
    """the rights read as "may the side to move still castle?", so the other side's drop out of the key"""


# --- where two rules meet (issue 27) ------------------------------------------------

@mutant("seventy-five-beats-mate", "G3",
        "the seventy-five-move rule is looked at before checkmate, so a mate that brings the clock to 150 is a draw",
        {"op": "play", "fen": "7k/6pp/8/8/8/8/8/R5K1 w - - 149 60 -", "moves": ["a1a8"]})
class SeventyFiveBeatsMateAnul(DoubleMoveAnul):
    """the draw rules checked first, for speed, as in the chess mutant of the same name"""

    def status(self, pos, history=()):
        if not self.mid_turn(pos) and pos.halfmove >= 150:
            return game_over("seventy-five-moves")
        return super().status(pos, history)


@mutant("promotion-check-judged-as-queen", "A2",
        "the check brake promotes every pawn to a queen, so an under-promotion is judged by the queen's lines",
        {"op": "play", "fen": "8/6P1/4k3/8/8/8/7P/K7 w - - 0 5 -", "moves": ["g7g8r"]})
class PromotionCheckJudgedAsQueen(DoubleMoveAnul):
    """the check test was written for the usual promotion, to a queen"""

    def brakes(self, pos, move):
        return super().brakes(pos, replace(move, promotion="Q") if move.promotion else move)


@mutant("en-passant-pin-blind", "DA-king-safety-each-move",
        "the king-safety test of an en passant capture leaves the taken pawn on its square, so a pin along "
        "the rank through both pawns is missed",
        {"op": "moves", "fen": "4k3/8/8/KPp4r/8/8/8/8 w - c6 0 5 -"})
class EnPassantPinBlindAnul(DoubleMoveAnul):
    """the generic make-and-test code removes the piece on the target square, which is empty"""

    def king_safe_after(self, pos, move):
        if not move.en_passant:
            return super().king_safe_after(pos, move)
        board = list(pos.board)
        board[move.to], board[move.frm] = board[move.frm], None
        king = "K" if pos.turn == WHITE else "k"
        return not self.attacked(board, board.index(king), BLACK if pos.turn == WHITE else WHITE)
