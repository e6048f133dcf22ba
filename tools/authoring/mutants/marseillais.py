"""Mutants of marseillais and marseillais-classic: the mistakes sites make with the family.

Most mistakes are the same for both forms, so each mixin below is registered
once per form (``@both``); the mistakes about White's first turn exist in one
form only (``@balanced``, ``@classic``).  Witnesses use positions past White's
first turn (fullmove 2), where the two forms agree.
"""

from dataclasses import replace
from functools import partial

from doublecheck.authoring.mutants import mutant
from doublecheck.authoring.mutants.common import (CountsBetweenFieldSevenMixin,
                                                  GameEndWithoutEnPassantMixin, GenericTurns,
                                                  KingReturnKeepsRightsMixin, MoverRightsOnlyIdentityMixin,
                                                  NoCastlingInATurnBegunInCheckMixin,
                                                  RawEnPassantIdentityMixin, RightsBlindIdentityMixin,
                                                  SideBlindIdentityMixin, checks_as_plain_step,
                                                  checks_by_moved_piece)
from doublecheck.oracle.chess import game_over
from doublecheck.oracle.errors import INVALID_FEN, RulesError
from doublecheck.oracle.position import WHITE, other
from doublecheck.oracle.variants.double_move_anul import BOUNDARY, MID_TURN, with_state
from doublecheck.oracle.variants.marseillais import Marseillais, MarseillaisClassic

CAPTURE = "4k3/8/8/8/8/8/p6p/R3K3 w - - 0 2"
EN_PASSANT = "4k3/8/8/8/3p4/8/4P3/4K1N1 w - - 0 2"
ALEKHINE = "4k3/8/8/8/1pPpP3/8/8/4K3 b - c3,e3 0 2"
STUCK = "7k/7p/8/7P/8/1q6/8/K7 w - - 0 2"


# The mixins below are registered with ``mutant(..., on=...)`` on one form or both.
both = partial(mutant, on=(Marseillais, MarseillaisClassic))
balanced = partial(mutant, on=(Marseillais,))
classic = partial(mutant, on=(MarseillaisClassic,))


# ------------------------------------------------------------------ the turn

@both("capture-brakes", "M1",
      "a capture on move one ends the turn, as in double-move-anul",
      {"op": "play", "fen": CAPTURE, "moves": ["a1a2"]})
class CaptureBrakes:
    """double-move-anul, the variant seed 002 describes, ends the turn on a capture, and a
    site that grew from it keeps the brake"""

    def move_one_ends_turn(self, pos, move):
        capture = move.en_passant or (move.castle is None and pos.board[move.to] is not None)
        return capture or super().move_one_ends_turn(pos, move)


@both("castling-brakes", "M1",
      "castling ends the turn, as if it were two moves (king and rook)",
      {"op": "play", "fen": "4k3/8/8/8/8/8/8/4K2R w K - 0 2", "moves": ["e1g1"]})
class CastlingBrakes:
    """castling moves two pieces, so it is taken for both moves of the turn"""

    def move_one_ends_turn(self, pos, move):
        return move.castle is not None or super().move_one_ends_turn(pos, move)


@balanced("classic-opening", "M2",
          "White's first turn has two moves in the balanced form (the classic rule)",
          {"op": "play", "moves": ["e2e4"]})
class ClassicOpening:
    """the historical classic rules, and most two-move engines, let White play two moves from the start"""

    white_opens_with_one_move = False


@balanced("black-opens-with-one-move-too", "M2",
          "every side's turn at fullmove 1 is one move, Black's first turn included",
          {"op": "play", "moves": ["e2e4", "e7e5"]})
class BlackOpensWithOneMoveToo:
    """the balance rule coded as 'the first turn of each side is one move', a symmetry that sounds fair"""

    def one_move_turn(self, pos):
        return pos.fullmove == 1 and pos.state != MID_TURN


@classic("balanced-opening", "M2",
         "White's first turn is one move in the classic form (the balanced rule)",
         {"op": "play", "moves": ["e2e4"]})
class BalancedOpening:
    """the balanced form, the one played in tournaments since 1990, is the better known,
    so its opening carries over into the classic one"""

    white_opens_with_one_move = True


# ------------------------------------------------------------------ check

@both("check-no-brake", "M3",
      "a check on move one does not end the turn",
      {"op": "play", "fen": "4k3/8/8/8/8/8/8/R3K3 w - - 0 2", "moves": ["a1a8"]})
class CheckNoBrake:
    """the turn machine counts moves and forgets the check test that ends a turn early"""

    def move_one_ends_turn(self, pos, move):
        return self.one_move_turn(pos)


@both("discovered-check-no-brake", "M3",
      "only a check by the moved piece itself ends the turn, not a discovered one",
      {"op": "play", "fen": "4k3/8/8/8/4N3/8/8/K3R3 w - - 0 2", "moves": ["e4c3"]})
class DiscoveredCheckNoBrake:
    """the check test asks only whether the moved piece attacks the king"""

    def gives_check(self, pos, move):
        return checks_by_moved_piece(self, pos, move)


@both("promotion-check-judged-as-pawn", "M3",
      "the check test looks at the pawn before it promotes, so a checking promotion does not end the turn",
      {"op": "play", "fen": "4k3/P7/8/8/8/8/8/4K3 w - - 0 2", "moves": ["a7a8q"]})
class PromotionCheckJudgedAsPawn:
    """the check test moves the piece as it was, before the promotion replaces it"""

    def gives_check(self, pos, move):
        if move.promotion is None:
            return super().gives_check(pos, move)
        return checks_as_plain_step(self, pos, move)


@both("check-answer-ends-turn", "M3",
      "a turn that begins in check ends with the move that answers it",
      {"op": "play", "fen": "4k3/8/8/8/1b6/P7/8/4K3 w - - 0 2", "moves": ["e1e2"]})
class CheckAnswerEndsTurn:
    """answering a check feels like the whole business of the turn, so the answer is taken to end it"""

    def move_one_ends_turn(self, pos, move):
        return self.in_check(pos) or super().move_one_ends_turn(pos, move)


# ------------------------------------------------------------------ en passant

@both("move-one-double-step-no-target", "M4",
      "only a double step that ends the turn leaves a target (the double-move-anul rule)",
      {"op": "moves", "fen": EN_PASSANT, "moves": ["e2e4,g1f3"]})
class MoveOneDoubleStepNoTarget:
    """double-move-anul's rule (only a double step that ends the turn leaves a target) carried over"""

    def after_move_one(self, pos, move):
        half = super().after_move_one(pos, move)
        own = frozenset(t for t in half.ep if self.geometry.rank[t] == self.passed_rank[pos.turn])
        return half.replace(ep=half.ep - own)


@both("second-en-passant-after-any-move", "M4",
      "move two may take en passant on a target of the turn's start whatever move one was",
      {"op": "moves", "fen": ALEKHINE, "moves": ["d4d3"]})
class SecondEnPassantAfterAnyMove:
    """the targets are kept for the whole turn, and move two may use them as move one could"""

    def after_move_one(self, pos, move):
        half = super().after_move_one(pos, move)
        kept = frozenset(t for t in self.open_targets(pos)
                         if t != move.to and self.live(half.board, t, other(pos.turn)))
        return half.replace(ep=half.ep | kept)


@both("no-alekhine", "M4",
      "move two never takes en passant: the other target dies with the first capture",
      {"op": "moves", "fen": ALEKHINE, "moves": ["b4c3"]})
class NoAlekhine:
    """FIDE's 'en passant only on the very next move' applied to move two"""

    def after_move_one(self, pos, move):
        half = super().after_move_one(pos, move)
        return half.replace(ep=frozenset(t for t in half.ep if t not in self.open_targets(pos)))


@both("latest-double-step-only", "M4",
      "one en passant square, as in FIDE chess: a second double step replaces the first target",
      {"op": "moves", "fen": "4k3/8/8/8/1p1p4/8/2P1P3/4K3 w - - 0 2", "moves": ["c2c4,e2e4"]})
class LatestDoubleStepOnly:
    """the position keeps one en passant square, as every chess library does"""

    def end_turn(self, pos, move):
        after = super().end_turn(pos, move)
        passed = self.passed_square(pos, move)
        if passed is not None and passed in after.ep:
            return after.replace(ep=frozenset([passed]))
        return after


@both("start-square-must-be-empty", "M4",
      "a target dies when the double step's start square is occupied again (the FIDE FEN check carried over)",
      {"op": "moves", "fen": EN_PASSANT, "moves": ["e2e4,e1e2"]})
class StartSquareMustBeEmpty:
    """the FIDE FEN check (the start square of the double step is empty) reused for liveness"""

    def live(self, board, target, stepper):
        start = self.pawn_step[other(stepper)][target]
        return super().live(board, target, stepper) and board[start] is None


# ------------------------------------------------------------------ no second move

@both("no-second-move-passes", "M5",
      "a move one with no legal move two passes the turn (the double-move-anul rule) instead of ending the game",
      {"op": "play", "fen": STUCK, "moves": ["h5h6"]})
class NoSecondMovePasses(GenericTurns):
    """double-move-anul's answer to a missing second move: the turn simply ends"""

    def play(self, pos, move):
        after = super().play(pos, move)
        if after.state == MID_TURN and not self.has_legal_move(after):
            return self.end_turn(pos, move)
        return after


@both("no-second-move-refused", "M5",
      "a move one after which no move two exists is not allowed at all",
      {"op": "moves", "fen": STUCK})
class NoSecondMoveRefused:
    """a move one is checked like the first half of a Double Move, which must be completable"""

    def legal_moves(self, pos):
        moves = super().legal_moves(pos)
        if pos.state == MID_TURN:
            return moves
        return [m for m in moves if self.move_one_ends_turn(pos, m)
                or self.has_legal_move(self.after_move_one(pos, m))]


@both("stuck-position-invalid", "M7.2",
      "a position between the moves with no legal move two is refused as a FEN (G9 of the other variants)",
      {"op": "fen", "fen": "7k/7p/7P/8/8/1q6/8/K7 w - - 0 2 m"})
class StuckPositionInvalid:
    """G9's rule for the other two-move variants (a mid-turn position needs a way to finish) applied here"""

    def validate(self, pos):
        super().validate(pos)
        if pos.state == MID_TURN and not self.has_legal_move(pos):
            raise RulesError(INVALID_FEN, "no legal move two")


@balanced("opening-mid-turn-accepted", "M7.2",
          "a FEN with White between two moves at fullmove 1 is accepted in the balanced form",
          {"op": "fen", "fen": "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e3 0 1 m"})
class OpeningMidTurnAccepted:
    """the FEN reader checks field 7 against the position only, not against the opening rule"""

    def validate(self, pos):
        if pos.state == MID_TURN and pos.fullmove == 1:
            return super().validate(pos.replace(fullmove=2))
        return super().validate(pos)


# ------------------------------------------------------------------ FEN and repetition

@both("one-square-field-4", "M7",
      "FEN field 4 takes one square only, as in FIDE chess",
      {"op": "fen", "fen": ALEKHINE})
class OneSquareField4:
    """a chess FEN reader, which takes field 4 as one square"""

    def parse_ep_field(self, text):
        if "," in text:
            raise RulesError(INVALID_FEN, f"en passant field {text!r} is not a square")
        return super().parse_ep_field(text)


@both("move-two-target-not-written", "M7",
      "field 4 shows only the targets move one can take, leaving out one only move two can take",
      {"op": "fen", "fen": "7k/5b2/8/2pPpP2/8/8/K7/8 w - c6,e6 0 2"})
class MoveTwoTargetNotWritten:
    """the writer asks the move list for en passant captures, which shows only move one"""

    def usable_targets(self, pos):
        found = {m.to for m in self.legal_moves(pos) if m.en_passant}
        return tuple(sorted(found, key=self.geometry.file.__getitem__))


@both("pending-square-not-written", "M7",
      "between the moves field 4 leaves out the square of move one's double step (nobody can take it yet)",
      {"op": "play", "fen": EN_PASSANT, "moves": ["e2e4"]})
class PendingSquareNotWritten:
    """the writer lists only squares someone can take now; nobody can take the pending one"""

    def format_ep_field(self, pos):
        g = self.geometry
        return ",".join(g.name[t] for t in self.usable_targets(pos)) or "-"


@both("identity-with-dead-targets", "G3",
      "repetition compares every live target, also those no legal move can take",
      {"op": "status", "fen": "4k3/8/8/8/8/8/4P3/4K1N1 w - - 0 2",
       "moves": ["e2e4,g1f3", "e8d8,d8e8", "f3g1,g1f3", "e8d8,d8e8", "f3g1,g1f3"]})
class IdentityWithDeadTargets(RawEnPassantIdentityMixin):
    """repetition keyed on the stored targets, not on the captures they allow"""


@both("positions-between-moves-counted", "G3",
      "the position between the two moves of a turn is counted for repetition",
      {"op": "status", "fen": "4k3/8/8/8/8/8/8/R3K3 w - - 0 2",
       "moves": ["a1a2", "a2a3", "e8d8", "d8e8", "a3a1", "a1a2", "e8d8", "d8e8",
                 "a2a1", "a1a2", "e8d8", "d8e8"]})
class PositionsBetweenMovesCounted(CountsBetweenFieldSevenMixin):
    """every position after every move goes into the history, as in chess"""


@both("clock-counts-turns", "G2",
      "the halfmove clock counts turns: two quiet moves in one turn add one",
      {"op": "play", "fen": "4k3/7p/8/8/8/8/8/4K1N1 w - - 0 2", "moves": ["g1f3,f3g5"]})
class ClockCountsTurns:
    """the clock is counted per turn, as 'fifty moves' reads in chess"""

    def end_turn(self, pos, move):
        after = super().end_turn(pos, move)
        if pos.state == MID_TURN and after.halfmove == pos.halfmove + 1:
            after = after.replace(halfmove=pos.halfmove)
        return after


# ------------------------------------------------------------------ the state matrix
# One wrong implementation per case family of the coverage matrix (identity, game end,
# castling rights across the two moves, field 4 for each colour).

@both("repetition-ignores-side-to-move", "G3",
      "repetition compares positions without the side to move",
      {"op": "status", "fen": "4k1n1/8/8/8/8/8/8/4K1N1 w - - 0 2",
       "moves": ["g1f3,f3g1", "g8f6,f6g8", "g1f3,f3g1"]})
class RepetitionIgnoresSideToMove(SideBlindIdentityMixin):
    """a knight's out-and-back turn brings the board back, and the board is what is compared"""


@both("repetition-ignores-castling-rights", "G3",
      "repetition compares positions without the castling rights",
      {"op": "status", "fen": "4k2r/8/8/8/8/8/8/4K2R w Kk - 0 2",
       "moves": ["h1h2,h2h1", "h8h7,h7h8", "e1d1,d1e1", "e8d8,d8e8"]})
class RepetitionIgnoresCastlingRights(RightsBlindIdentityMixin):
    """the key is the placement and the side to move; a rook's out-and-back turn shows why
    that fails"""


@both("game-end-without-en-passant", "M6",
      "checkmate and stalemate are judged as if en passant captures did not exist",
      {"op": "play", "fen": "k7/2K5/1P6/8/3p4/3P4/4P3/7N w - - 0 2", "moves": ["e2e4,h1g3"]})
class GameEndWithoutEnPassant(GameEndWithoutEnPassantMixin):
    """the 'any legal move?' test walks the ordinary move generator, which leaves en passant
    to a special case"""


@both("no-castling-in-a-turn-begun-in-check", "M3",
      "a side that began its turn in check may not castle with move two, though move one answered the check",
      {"op": "play", "fen": "k7/8/8/8/1b6/8/8/1N2K2R w K - 0 2", "moves": ["b1d2,e1g1"]})
class NoCastlingInATurnBegunInCheck(GenericTurns, NoCastlingInATurnBegunInCheckMixin):
    """"no castling out of check" tied to the turn instead of the move"""

    def between_moves(self, pos):   # field 7 read directly: mid_turn asks for the legal moves
        return pos.state == MID_TURN


@both("king-return-keeps-rights", "FIDE-3.8.2.1",
      "a king that steps out and back home within one turn keeps its side's castling rights",
      {"op": "play", "fen": "4k2r/8/8/8/8/8/8/4K3 b k - 0 2", "moves": ["e8f8,f8e8"]})
class KingReturnKeepsRights(GenericTurns, KingReturnKeepsRightsMixin):
    """rights cleared at the end of the turn for a king found away from home"""


@both("black-targets-not-written", "M7",
      "the FEN writer tests whether an en passant capture is possible only for Black to move, so it never "
      "writes a target left by Black",
      {"op": "play", "fen": "4k3/2p1p3/8/3P4/8/8/8/4K3 b - - 0 2", "moves": ["c7c5,e7e5"]})
class BlackTargetsNotWritten:
    """the "can it be taken?" test of the writer looks at Black's pawns only"""

    def format_ep_field(self, pos):
        if pos.turn == WHITE:   # leave out the targets Black's double steps left
            black = frozenset(t for t in pos.ep if self.geometry.rank[t] == self.passed_rank[other(WHITE)])
            pos = pos.replace(ep=pos.ep - black)
        return super().format_ep_field(pos)



# --- the state matrix per side: the other side's part of a side-owned component ----

@both("repetition-keeps-only-mover-rights", "G3",
      "repetition compares only the side to move's castling rights, not the other side's",
      {"op": "status", "fen": "1n2k1nr/8/8/8/8/8/8/1N2K1NR w Kk - 0 2 -",
       "moves": ["b1c3,c3b1", "h8h7,h7h8", "b1c3,c3b1", "b8c6,c6b8"]})
class RepetitionKeepsOnlyMoverRights(MoverRightsOnlyIdentityMixin):
    """the rights read as "may the side to move still castle?", so the other side's drop out of
    the key"""


@both("other-target-looked-for-on-rank-3", "M7",
      "between the moves the other target is looked for on rank 3 only, so with White between its moves the "
      "target Black left (rank 6), still open to move two, is not written",
      {"op": "play", "fen": "7k/8/8/2pPpP2/8/8/8/K7 w - c6,e6 0 2 -", "moves": ["d5c6"]})
class OtherTargetLookedForOnRank3:
    """the writer's rule for the other target was worked out with Black between the moves,
    where White's targets lie on rank 3"""

    def format_ep_field(self, pos):
        if pos.state == MID_TURN:
            keep = {self.passed_rank[pos.turn], self.passed_rank[WHITE]}
            pos = pos.replace(ep=frozenset(t for t in pos.ep if self.geometry.rank[t] in keep))
        return super().format_ep_field(pos)


# --------------------------------------------- where two rules meet (issue 27)

CHECK_WITHOUT_MOVE_TWO = "6bk/8/6P1/8/8/1q6/8/K7 w - - 0 5"


@both("no-move-two-before-check", "M5",
      "a move one after which no move two exists ends the game as a stalemate even when it gives check",
      {"op": "play", "fen": CHECK_WITHOUT_MOVE_TWO, "moves": ["g6g7"]})
class NoMoveTwoBeforeCheck:
    """the M5 test (is there a move two?) runs before the M3 test (does move one check?), as
    if every one-move turn were the stalemate of M5"""

    def move_one_ends_turn(self, pos, move):
        if not self.one_move_turn(pos) and not self.has_legal_move(self.after_move_one(pos, move)):
            return False
        return super().move_one_ends_turn(pos, move)


@both("seventy-five-beats-mate", "G3",
      "the seventy-five-move rule is looked at before checkmate, so a mate that brings the clock to 150 is a draw",
      {"op": "play", "fen": "7k/6pp/8/8/8/8/8/R5K1 w - - 149 60", "moves": ["a1a8"]})
class SeventyFiveBeatsMate:
    """the draw rules checked first, for speed, as in the chess mutant of the same name"""

    def status(self, pos, history=()):
        if not self.mid_turn(pos) and pos.halfmove >= 150:
            return game_over("seventy-five-moves")
        return super().status(pos, history)


@both("en-passant-discovery-missed", "M3",
      "the check test leaves the pawn taken en passant on its square, so a check through that square "
      "does not end the turn",
      {"op": "play", "fen": "8/5k2/8/3pP3/8/1B6/8/6K1 w - d6 0 5", "moves": ["e5d6"]})
class EnPassantDiscoveryMissed:
    """the check test moves the capturing pawn and forgets that en passant also empties a
    third square"""

    def gives_check(self, pos, move):
        if not move.en_passant:
            return super().gives_check(pos, move)
        board = self.move_board(pos, move)
        victim = self.en_passant_victim(pos, move.frm, move.to)
        board[victim] = pos.board[victim]
        king = "k" if pos.turn == WHITE else "K"
        return self.attacked(board, board.index(king), pos.turn)


@both("promotion-check-judged-as-queen", "M3",
      "the check test promotes every pawn to a queen, so an under-promotion is judged by the queen's lines",
      {"op": "play", "fen": "8/6P1/4k3/8/8/8/7P/K7 w - - 0 5", "moves": ["g7g8r"]})
class PromotionCheckJudgedAsQueen:
    """the check test was written for the usual promotion, to a queen"""

    def gives_check(self, pos, move):
        return super().gives_check(pos, replace(move, promotion="Q") if move.promotion else move)


@both("en-passant-pin-blind", "M3",
      "the king-safety test of an en passant capture leaves the taken pawn on its square, so a pin along "
      "the rank through both pawns is missed",
      {"op": "moves", "fen": "4k3/8/8/KPp4r/8/8/8/8 w - c6 0 5"})
class EnPassantPinBlind:
    """the generic make-and-test code removes the piece on the target square, which is empty"""

    def king_safe_after(self, pos, move):
        if not move.en_passant:
            return super().king_safe_after(pos, move)
        board = list(pos.board)
        board[move.to], board[move.frm] = board[move.frm], None
        king = "K" if pos.turn == WHITE else "k"
        return not self.attacked(board, board.index(king), other(pos.turn))


@both("draws-between-moves", "G3",
      "the draw rules (dead position, move count) are judged between the two moves of a turn as well",
      {"op": "status", "fen": "4k3/8/8/3p4/8/2N5/8/4K3 w - - 0 5", "moves": ["c3d5"]})
class DrawsBetweenMoves:
    """the end-of-game test runs after every move; only the M5 stalemate was kept apart"""

    def status(self, pos, history=()):
        if self.mid_turn(pos) and not self.m5_over(pos):
            pos = with_state(pos, BOUNDARY)
        return super().status(pos, history)
