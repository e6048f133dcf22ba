"""Mutants of double-move: the one Double Move per side."""

from dataclasses import replace

from doublecheck.authoring.mutants import mutant
from doublecheck.authoring.mutants.common import (AnyFirstPartCompletesMixin, CountsBetweenMixin,
                                                  EnPassantBlindIdentityMixin, GameEndWithoutEnPassantMixin,
                                                  KingReturnKeepsRightsMixin, MoverRightsOnlyIdentityMixin,
                                                  TargetNotWrittenMixin)
from doublecheck.oracle.chess import game_over
from doublecheck.oracle.position import BLACK, WHITE, other
from doublecheck.oracle.variants.double_move import LETTER, Abilities, DoubleMove


DM_MATE_SEED = "r2q3k/ppp3p1/2np2Pp/5b2/3P1B2/1Q4P1/PPP2P2/3R2K1 w - - 0 1 WB"
DM_EP_SEED = "7k/8/8/8/3p4/8/4P3/7K w - - 0 1 WB"


@mutant("en-passant-on-second-half", "D4",
        "the en passant target from the start of the turn stays usable for the second half",
        {"op": "moves", "fen": "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1 WB", "moves": ["e1d1,"]})
class EnPassantOnSecondHalf(DoubleMove):
    """the target is only cleared when the turn passes"""

    def play(self, pos, move):
        after = super().play(pos, move)
        return after.replace(ep=pos.ep) if move.opens_double else after


@mutant("first-half-target-kept", "D4",
        "a double step made as the first half still leaves an en passant target after the turn",
        {"op": "moves", "fen": DM_EP_SEED, "moves": ["e2e4,", "h1g1"]})
class FirstHalfTargetKept(DoubleMove):
    """the target is remembered until the turn ends instead of cleared by the next move"""

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


@mutant("first-half-may-expose-king", "DM-every-half-legal",
        "a first half may leave the own king in check when the second half repairs it",
        {"op": "status", "fen": DM_MATE_SEED, "moves": ["b3g8,", "g8h7"]})
class FirstHalfMayExposeKing(DoubleMove):
    """the whole Double Move is checked as one unit"""

    def legal_moves(self, pos):
        moves = super().legal_moves(pos)
        if pos.state.mid or not self.has_ability(pos):
            return moves
        return moves + [replace(m, opens_double=True) for m in self.pseudo_moves(pos)
                        if not self.king_safe_after(pos, m) and self.completable(pos, m)]


@mutant("mate-after-first-half", "D5",
        "a first half that leaves the opponent in check with no reply ends the game as mate",
        {"op": "play", "fen": "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1 WB", "moves": ["a1a8,"]})
class MateAfterFirstHalf(DoubleMove):
    """"is the opponent mated?" asked after every move"""

    def play(self, pos, move):
        after = super().play(pos, move)
        if not move.opens_double:
            return after
        view = self.make(pos, move, ends_turn=True).replace(state=Abilities(after.state.unused, False))
        if self.in_check(view) and not self.legal_moves(view):
            return view
        return after


@mutant("draws-between-halves", "G3",
        "draw rules (dead position, move count, repetition) are judged between the two halves as well",
        {"op": "status", "fen": "4k3/8/8/8/8/8/8/R3K3 w - - 149 90 WB", "moves": ["a1a2,"]})
class DrawsBetweenHalves(DoubleMove):
    """the end-of-game test runs after every move"""

    def status(self, pos, history=()):
        if self.mid_turn(pos):
            pos = pos.replace(state=Abilities(pos.state.unused, False))
        return super().status(pos, history)


@mutant("second-half-takes-king", "D3",
        "after a checking first half, the second half may capture the king",
        {"op": "moves", "fen": "4k3/8/8/8/8/8/8/4RK2 w - - 0 1 -Bm"})
class SecondHalfTakesKing(DoubleMove):
    """the "never capture a king" filter applies only when the opponent is to move"""

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


@mutant("abilities-not-in-identity", "D6",
        "repetition ignores which Double Moves are still unused",
        {"op": "status", "moves": ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8",
                                   "g1f3,", "f3g1", "g8f6", "g1f3", "f6g8,", "g8f6"]})
class AbilitiesNotInIdentity(DoubleMove):
    """the repetition key is the chess one"""

    def identity(self, pos):
        return (pos.board, pos.turn, pos.castling, self.legal_ep(pos))


@mutant("m-with-ability-accepted", "D1",
        "a FEN whose 'm' says the side is between halves is accepted although its ability is unspent",
        {"op": "fen", "fen": "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1 WBm"})
class MWithAbilityAccepted(DoubleMove):
    """the two parts of field 7 are parsed independently"""

    def parse_state(self, fields, pos):
        if fields and fields[0].endswith("m"):
            state = super().parse_state([fields[0][:-1]], pos)
            return Abilities(state.unused, True)
        return super().parse_state(fields, pos)


@mutant("uncompletable-first-half", "D2",
        "a Double Move may be opened by a first half after which no second half exists",
        {"op": "moves", "fen": "7k/7p/8/7P/8/1q6/8/K7 w - - 0 1 WB"})
class UncompletableFirstHalf(AnyFirstPartCompletesMixin, DoubleMove):
    """D2 overlooked"""


@mutant("ability-never-spent", "DM-ability",
        "opening a Double Move does not use up the ability, so a side may use it again",
        {"op": "play", "moves": ["e2e4,", "d2d4"]})
class AbilityNeverSpent(DoubleMove):
    """the flag is cleared in a branch that never runs"""

    def play(self, pos, move):
        after = super().play(pos, move)
        return after.replace(state=Abilities(pos.state.unused, after.state.mid))


@mutant("fullmove-after-black-first-half", "G2",
        "the fullmove number grows after Black's first half as well as after its turn",
        {"op": "play", "fen": "4k3/8/8/8/8/8/8/R3K3 b - - 0 5 WB", "moves": ["e8d8,", "d8c8"]})
class FullmoveAfterBlackFirstHalf(DoubleMove):
    """the chess rule "after each Black move" kept"""

    def play(self, pos, move):
        after = super().play(pos, move)
        if move.opens_double and pos.turn == BLACK:
            after = after.replace(fullmove=after.fullmove + 1)
        return after


@mutant("clock-counts-turns", "G2",
        "the halfmove clock counts turns: a Double Move of two quiet moves adds one",
        {"op": "play", "fen": "4k3/8/8/8/8/8/8/R3K3 w - - 0 1 WB", "moves": ["a1a2,", "a2a3"]})
class ClockCountsTurns(DoubleMove):
    """the clock counted per turn"""

    def play(self, pos, move):
        after = super().play(pos, move)
        if pos.state.mid and after.halfmove == pos.halfmove + 1:
            after = after.replace(halfmove=pos.halfmove)
        return after


@mutant("no-en-passant-first-half", "D4",
        "an en passant capture may be an ordinary move but not the first half of a Double Move",
        {"op": "moves", "fen": DM_EP_SEED, "moves": ["h1g1,", "e2e4"]})
class NoEnPassantFirstHalf(DoubleMove):
    """over-cautious reading of D4"""

    def legal_moves(self, pos):
        return [m for m in super().legal_moves(pos) if not (m.opens_double and m.en_passant)]


@mutant("completable-by-pseudo-moves", "D2",
        "a first half counts as completable when any second half could be made, even one leaving the king in check",
        {"op": "moves", "fen": "7k/7p/8/7P/8/1q6/8/K7 w - - 0 1 WB"})
class CompletableByPseudoMoves(DoubleMove):
    """the cheap generator used for the existence test"""

    def completable(self, pos, move):
        return bool(self.pseudo_moves(self.make(pos, move, ends_turn=False)))


@mutant("spends-opponents-ability", "DM-ability",
        "opening a Double Move strikes the opponent's ability from the FEN field instead of the mover's",
        {"op": "play", "moves": ["e2e4,", "d2d4"]})
class SpendsOpponentsAbility(DoubleMove):
    """the side is flipped before the ability is spent"""

    def play(self, pos, move):
        after = super().play(pos, move)
        if move.opens_double:
            unused = pos.state.unused.replace(LETTER[other(pos.turn)], "")
            after = after.replace(state=Abilities(unused, True))
        return after


@mutant("rights-updated-at-turn-end", "DM-castling",
        "castling rights are brought up to date only when the turn ends, so a first half's losses do not show between the halves",
        {"op": "play", "fen": "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 WB", "moves": ["e1g1,"]})
class RightsUpdatedAtTurnEnd(DoubleMove):
    """rights bookkeeping placed in the end-of-turn code"""

    def play(self, pos, move):
        after = super().play(pos, move)
        return after.replace(castling=pos.castling) if move.opens_double else after


@mutant("positions-between-halves-counted", "DM-draws",
        "the position between the two halves of a Double Move is counted for repetition",
        {"op": "status", "fen": "4k3/8/8/8/8/8/8/R3K3 w - - 0 1 WB",
         "moves": ["a1a2,", "a2a1", "e8d8", "a1a2", "d8e8", "a2a1", "e8d8", "a1a2", "d8e8"]})
class PositionsBetweenHalvesCounted(CountsBetweenMixin, DoubleMove):
    """every position after every move goes into the history"""

    def as_boundary(self, pos):
        return pos.replace(state=Abilities(pos.state.unused, False))


# --- the state matrix (issue 18) ---------------------------------------------------

@mutant("repetition-ignores-en-passant", "G3",
        "repetition compares positions without the en passant target, even when the capture is legal",
        {"op": "status", "fen": "7k/8/8/8/3p4/8/4P3/7K w - - 0 1 WB",
         "moves": ["e2e4", "h8g8", "h1g1", "g8h8", "g1h1", "h8g8", "h1g1", "g8h8", "g1h1"]})
class RepetitionIgnoresEnPassant(EnPassantBlindIdentityMixin, DoubleMove):
    """the target is treated as a move-generation detail, not as part of the position"""


@mutant("game-end-without-en-passant", "D5",
        "checkmate and stalemate are judged as if en passant captures did not exist",
        {"op": "play", "fen": "k7/2K5/1P6/8/3p4/3P4/4P3/7N w - - 0 1 WB", "moves": ["h1g3,", "e2e4"]})
class GameEndWithoutEnPassantDM(GameEndWithoutEnPassantMixin, DoubleMove):
    """as in chess; here the target may come from the second half of a Double Move"""


@mutant("castling-attacks-judged-at-turn-start", "DM-castling",
        "castling as the second half is tested for check and attacked squares on the board the turn began with",
        {"op": "play", "fen": "k7/8/b7/8/1N6/8/8/4K2R w K - 0 1 WB", "moves": ["b4d3,", "e1g1"]})
class CastlingAttacksJudgedAtTurnStart(DoubleMove):
    """the attack map is computed once per turn"""
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


@mutant("king-return-keeps-rights", "DM-castling",
        "a king that steps out and back home within one Double Move keeps its side's castling rights",
        {"op": "play", "fen": "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1 WB", "moves": ["e8d8,", "d8e8"]})
class KingReturnKeepsRights(KingReturnKeepsRightsMixin, DoubleMove):
    """rights cleared at the end of the turn for a king found away from home"""


@mutant("black-target-not-written", "G9",
        "the FEN writer tests whether an en passant capture is possible only for Black to move, so it never "
        "writes a target left by Black",
        {"op": "play", "fen": "7k/4p3/8/3P4/8/8/8/7K b - - 0 1 WB", "moves": ["h8g8,", "e7e5"]})
class BlackTargetNotWritten(TargetNotWrittenMixin, DoubleMove):
    """the "can it be taken?" test of the writer looks at Black's pawns only"""
    left_by = BLACK


# --- the state matrix per side: the other side's part of a side-owned component ----

@mutant("repetition-keeps-only-mover-rights", "G3",
        "repetition compares only the side to move's castling rights, not the other side's",
        {"op": "status", "fen": "1n2k1nr/8/8/8/8/8/8/1N2K1NR w Kk - 0 1 WB",
         "moves": ["b1c3", "h8h7", "c3b1", "h7h8", "b1c3", "h8h7", "c3b1", "h7h8"]})
class RepetitionKeepsOnlyMoverRights(MoverRightsOnlyIdentityMixin, DoubleMove):
    """the rights read as "may the side to move still castle?", so the other side's drop out of the key"""


@mutant("repetition-keeps-only-mover-ability", "D6",
        "repetition compares only whether the side to move still has its Double Move, not the other side's",
        {"op": "status", "fen": "1n2k3/p7/8/8/8/8/P7/1N2K3 w - - 0 1 WB",
         "moves": ["b1c3", "e8d8,", "d8d7", "c3b1", "d7e8", "b1c3", "e8d8", "c3b1", "d8e8"]})
class RepetitionKeepsOnlyMoverAbility(DoubleMove):
    """the key keeps "may I still move twice?", the question the move generator asks"""

    def identity(self, pos):
        mine = pos.state.unused.replace(LETTER[other(pos.turn)], "")
        return super().identity(pos.replace(state=pos.state._replace(unused=mine)))


# --- where two rules meet (issue 27) ------------------------------------------------

@mutant("seventy-five-beats-mate", "G3",
        "the seventy-five-move rule is looked at before checkmate, so a mate that brings the clock to 150 is a draw",
        {"op": "play", "fen": "7k/6pp/8/8/8/8/8/R5K1 w - - 149 60", "moves": ["a1a8"]})
class SeventyFiveBeatsMateDM(DoubleMove):
    """the draw rules checked first, for speed, as in the chess mutant of the same name"""

    def status(self, pos, history=()):
        if not self.mid_turn(pos) and pos.halfmove >= 150:
            return game_over("seventy-five-moves")
        return super().status(pos, history)


@mutant("en-passant-pin-blind", "DM-every-half-legal",
        "the king-safety test of an en passant capture leaves the taken pawn on its square, so a pin along "
        "the rank through both pawns is missed",
        {"op": "moves", "fen": "4k3/8/8/KPp4r/8/8/8/8 w - c6 0 5"})
class EnPassantPinBlindDM(DoubleMove):
    """the generic make-and-test code removes the piece on the target square, which is empty"""

    def king_safe_after(self, pos, move):
        if not move.en_passant:
            return super().king_safe_after(pos, move)
        board = list(pos.board)
        board[move.to], board[move.frm] = board[move.frm], None
        king = "K" if pos.turn == WHITE else "k"
        return not self.attacked(board, board.index(king), other(pos.turn))
