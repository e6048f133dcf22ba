"""Mutants of symmetric-monster: extra squares, double-pieces, the dropped king."""


from doublecheck.authoring.mutants import mutant
from doublecheck.authoring.mutants.common import (AnyFirstPartCompletesMixin, MoverRightsOnlyIdentityMixin,
                                                  is_double_step)
from doublecheck.oracle.chess import PROMOTION_LETTERS, Chess, game_over
from doublecheck.oracle.position import BLACK, WHITE, Move, color_of, colored, other
from doublecheck.oracle.variants.symmetric_monster import SymmetricMonster, is_double


SM_LONE = "4/4k3/8/8/8/8/8/8/4K3/4 w - - 0 1 K -"        # kings only, White's double-king in hand
SM_EP = "4/4k3/4p3/8/3*P4/8/8/8/4K3/4 b - - 0 1 Kk -"    # e7e5 lets the double-pawn on d5 take e.p.


@mutant("double-pawn-taken-en-passant", "SM-R6",
        "a double-pawn's double step that ends the turn leaves an en passant target like a single pawn's",
        {"op": "moves", "fen": "4/4k3/8/8/8/3p4/8/4*P3/4K3/4 w - - 0 1 K -", "moves": ["K@c0", "e2e4"]})
class DoublePawnTakenEnPassant(SymmetricMonster):
    """the pawn code shared by both pawn kinds"""

    def make(self, pos, move, ends_turn=True):
        after = super().make(pos, move, ends_turn)
        if (ends_turn and after.ep is None and move.drop is None and is_double(pos.board[move.frm])
                and is_double_step(self, pos, move)):
            after = after.replace(ep=(move.frm + move.to) // 2)
        return after


@mutant("double-pawn-no-en-passant", "SM-R7",
        "double-pawns are left out of en passant altogether, so they cannot take a single pawn that way",
        {"op": "moves", "fen": SM_EP, "moves": ["e7e5"]})
class DoublePawnNoEnPassant(SymmetricMonster):
    """en passant switched off for double-pawns as a whole, not only as victims"""

    def pawn_moves(self, pos, sq, piece, moves):
        before = len(moves)
        super().pawn_moves(pos, sq, piece, moves)
        if is_double(piece):
            moves[before:] = [m for m in moves[before:] if not m.en_passant]


@mutant("en-passant-on-second-action", "S10",
        "an en passant target survives the first action of a double turn and may be used by the second",
        {"op": "moves", "fen": SM_EP, "moves": ["e7e5", "K@c0"]})
class EnPassantOnSecondAction(SymmetricMonster):
    """the target is cleared only when the turn passes"""

    def open_double(self, pos, move):
        return super().open_double(pos, move).replace(ep=pos.ep)


@mutant("double-pawn-double-step-from-start", "SM-R6",
        "a double-pawn may also step two squares from its starting square on rank 0 / 9",
        {"op": "moves", "fen": "4/4k3/8/8/8/8/8/8/K7/2*P1 w - - 0 1 K -"})
class DoublePawnDoubleStepFromStart(SymmetricMonster):
    """"from its starting square", as an ordinary pawn does"""

    def pawn_moves(self, pos, sq, piece, moves):
        super().pawn_moves(pos, sq, piece, moves)
        g, color = self.geometry, pos.turn
        file, rank, step = g.file[sq], g.rank[sq], self.forward[color]
        start = {WHITE: 0, BLACK: 9}[color]
        one, two = g.square(file, rank + step), g.square(file, rank + 2 * step)
        if (is_double(piece) and rank == start and one is not None and two is not None
                and pos.board[one] is None and pos.board[two] is None):
            moves.append(Move(sq, two))


@mutant("null-move-allowed", "SM-R10",
        "a double-piece may go straight back to where its quiet first action started (the null move)",
        {"op": "moves", "fen": "4/4k3/8/8/8/8/8/8/1*N2K3/4 w - - 0 1 K -", "moves": ["b1c3"]})
class NullMoveAllowed(SymmetricMonster):
    """the null-move rule overlooked"""

    def is_null(self, first, move):
        return False


@mutant("null-ban-covers-captures", "SM-R10",
        "every straight return is refused, even after a first action that captured",
        {"op": "moves", "fen": "4/4k3/8/8/8/8/2p5/8/1*N2K3/4 w - - 0 1 K -", "moves": ["b1c3"]})
class NullBanCoversCaptures(SymmetricMonster):
    """the capture exemption overlooked"""

    def is_null(self, first, move):
        return first.frm is not None and move.frm == first.to and move.to == first.frm


@mutant("drop-anywhere", "SM-R11",
        "the double-king may be dropped on any empty square, not only on its side's double-pawn start squares",
        {"op": "moves", "fen": SM_LONE})
class DropAnywhere(SymmetricMonster):
    """crazyhouse-style drops"""

    def drops(self, pos):
        if colored("K", pos.turn) not in pos.state.hand:
            return []
        return [Move(None, sq, drop="*K") for sq in self.squares if pos.board[sq] is None]


@mutant("drop-resets-clock", "S11",
        "dropping the double-king resets the halfmove clock, as if it were a pawn move",
        {"op": "play", "fen": "4/4k3/8/8/8/8/8/8/4K3/4 w - - 10 1 K -", "moves": ["K@e0"]})
class DropResetsClock(SymmetricMonster):
    """drops treated like pawn moves, as in some drop variants"""

    def make(self, pos, move, ends_turn=True):
        after = super().make(pos, move, ends_turn)
        return after.replace(halfmove=0) if move.drop is not None else after


@mutant("single-king-loss-ignored", "SM-R4",
        "single pieces keep moving after the single king has been captured",
        {"op": "moves", "fen": "4/4k3/8/8/8/8/8/8/R7/2*K1 w - - 0 1 - -"})
class SingleKingLossIgnored(SymmetricMonster):
    """rule 4 overlooked"""

    def may_move_singles(self, pos):
        return True


@mutant("double-king-loss-ignored", "SM-R5",
        "double-pieces keep moving after the double-king has been captured",
        {"op": "moves", "fen": "4/4k3/8/8/8/8/8/4*P3/4K3/4 w - - 0 1 - -"})
class DoubleKingLossIgnored(SymmetricMonster):
    """rule 5 overlooked"""

    def may_move_doubles(self, pos):
        return True


@mutant("promotion-at-file-end", "SM-R3",
        "pawns promote on the last square of their file, so rank 9 / 0 on the c- to f-files",
        {"op": "moves", "fen": "4/k7/4P3/8/8/8/8/8/4K3/4 w - - 0 1 Kk -"})
class PromotionAtFileEnd(SymmetricMonster):
    """promotion tied to "cannot advance further" on the odd board"""

    def add_pawn_move(self, frm, to, piece, moves):
        g = self.geometry
        beyond = g.square(g.file[to], g.rank[to] + self.forward[color_of(piece)])
        if beyond is None:
            moves.extend(Move(frm, to, promotion=p) for p in PROMOTION_LETTERS)
        else:
            moves.append(Move(frm, to))


@mutant("double-pawn-promotes-to-single", "SM-R8",
        "a double-pawn promotes to an ordinary queen, rook, bishop or knight",
        {"op": "play", "fen": "4/k7/3*P4/8/8/8/8/8/4K3/4 w - - 0 1 K -", "moves": ["d7d8q"]})
class DoublePawnPromotesToSingle(SymmetricMonster):
    """the promotion letter replaces the whole piece"""

    def move_board(self, pos, move):
        board = super().move_board(pos, move)
        if move.promotion and is_double(board[move.to]):
            board[move.to] = board[move.to][1:]
        return board


@mutant("lone-double-action", "SM-R9",
        "a first double-piece action is allowed even when no second action can follow it",
        {"op": "moves", "fen": "4/4k3/8/4*P3/8/8/8/8/1NBQK3/*K*P2 w - - 0 1 k -"})
class LoneDoubleAction(AnyFirstPartCompletesMixin, SymmetricMonster):
    """rule 9 checked only by the turn structure, not by move generation"""


@mutant("check-enforced", "SM-R1",
        "moves that leave the single king attacked are refused, as in FIDE chess",
        {"op": "moves", "fen": "4/3rk3/8/8/8/8/8/8/4K3/4 w - - 0 1 Kk -"})
class CheckEnforced(SymmetricMonster):
    """the FIDE legality filter kept"""

    def legal_moves(self, pos):
        king = colored("K", pos.turn)
        safe = []
        for m in super().legal_moves(pos):
            board = self.move_board(pos, m)
            if king not in board or not self.attacked(board, board.index(king), other(pos.turn)):
                safe.append(m)
        return safe


@mutant("castling-respects-attacks", "SM-R2",
        "castling out of, through or into attack is refused, as in FIDE chess",
        {"op": "moves", "fen": "4/4kr2/8/8/8/8/8/8/4K2R/4 w K - 0 1 Kk -"})
class CastlingRespectsAttacks(SymmetricMonster):
    """the FIDE castling code kept"""

    def castling_moves(self, pos):
        for m in super().castling_moves(pos):
            rule = self.castle_by_rook[m.castle]
            if not any(self.attacked(pos.board, sq, other(pos.turn)) for sq in self.king_path(rule)):
                yield m


@mutant("last-king-capture-continues", "SM-R12",
        "a first action that takes the opponent's last king leaves the turn open for a second action",
        {"op": "play", "fen": "4/8/4k3/3*P4/8/8/8/8/4K3/4 w - - 0 1 K -", "moves": ["d6e7"]})
class LastKingCaptureContinues(SymmetricMonster):
    """the loss is only looked at between turns"""

    def play(self, pos, move):
        single = move.drop is None and not is_double(pos.board[move.frm])
        if pos.state.first is None and not single:
            return self.open_double(pos, move)
        return super().play(pos, move)


@mutant("no-legal-turn-draws", "SM-R1",
        "a side with no legal turn is stalemated (a draw) instead of losing",
        {"op": "status", "fen": "4/4k3/8/8/8/8/8/8/1NBQ4/*K*P2 w - - 0 1 k -"})
class NoLegalTurnDraws(SymmetricMonster):
    """the FIDE result kept"""

    def status(self, pos, history=()):
        result = super().status(pos, history)
        return game_over("stalemate") if result["reason"] == "no-legal-turn" else result


@mutant("dead-position-applied", "S11",
        "the FIDE dead-position draw is applied, so king against king is drawn",
        {"op": "status", "fen": "4/4k3/8/8/8/8/8/8/4K3/4 w - - 0 1 - -"})
class DeadPositionApplied(SymmetricMonster):
    """the FIDE end-of-game code kept"""

    dead_position = Chess.dead_position


@mutant("null-ban-any-piece", "SM-R10",
        "after a quiet first action no piece at all may move to the square it left (not only the same piece)",
        {"op": "moves", "fen": "4/4k3/8/8/8/8/8/8/*R*N2K3/4 w - - 0 1 K -", "moves": ["b1c3"]})
class NullBanAnyPiece(SymmetricMonster):
    """the null test compares squares but not the piece"""

    def is_null(self, first, move):
        return (first.frm is not None and not first.capture and first.promotion is None
                and move.to == first.frm)


@mutant("null-ban-after-promotion", "SM-R10",
        "a promoted double-piece may not step straight back, as if the promotion were a quiet move",
        {"op": "moves", "fen": "4/k7/3*P4/8/8/8/8/8/4K3/4 w - - 0 1 K -", "moves": ["d7d8q"]})
class NullBanAfterPromotion(SymmetricMonster):
    """the promotion exemption overlooked"""

    def is_null(self, first, move):
        return (first.frm is not None and not first.capture
                and move.frm == first.to and move.to == first.frm)


@mutant("king-in-hand-counts", "SM-R12",
        "a double-king still in hand counts as a king, so a side without kings on the board plays on by dropping it",
        {"op": "status", "fen": "4/4k3/8/8/8/8/8/8/R7/4 w - - 0 1 K -"})
class KingInHandCounts(SymmetricMonster):
    """"has a king" tested on the pieces owned, not on the board"""

    def legal_moves(self, pos):
        if (not self.has_king(pos.board, pos.turn) and colored("K", pos.turn) in pos.state.hand
                and pos.state.first is None):
            return [m for m in self.drops(pos) if self.completable(pos, m)]
        return super().legal_moves(pos)

    def status(self, pos, history=()):
        if (not self.mid_turn(pos) and not self.has_king(pos.board, pos.turn)
                and colored("K", pos.turn) in pos.state.hand and self.legal_moves(pos)):
            return Chess.status(self, pos, history)
        return super().status(pos, history)


@mutant("drop-captures", "S8",
        "the double-king may be dropped onto an enemy piece standing on a start square, capturing it",
        {"op": "moves", "fen": "4/4k3/8/8/8/8/8/8/4K3/2n1 w - - 0 1 K -"})
class DropCaptures(SymmetricMonster):
    """the drop-target test excludes own pieces only"""

    def drops(self, pos):
        if colored("K", pos.turn) not in pos.state.hand:
            return []
        white = pos.turn == WHITE
        return [Move(None, sq, drop="*K") for sq in self.drop_squares[pos.turn]
                if pos.board[sq] is None or pos.board[sq].isupper() != white]


@mutant("field-8-without-x", "S3",
        "FEN field 8 leaves out the x of a capturing first action",
        {"op": "play", "fen": "4/4k3/8/8/8/8/2p5/8/1*N2K3/4 w - - 0 1 K -", "moves": ["b1c3"]})
class Field8WithoutX(SymmetricMonster):
    """the first action written as ordinary coordinates"""

    def action_text(self, a):
        return super().action_text(a._replace(capture=False))


@mutant("captured-king-keeps-castling-rights", "G9",
        "castling rights of a side whose single king was captured stay in the FEN",
        {"op": "play", "fen": "4/r3k2r/8/8/8/8/8/4Q3/4K3/4 w kq - 0 1 Kk -", "moves": ["e2e8"]})
class CapturedKingKeepsCastlingRights(SymmetricMonster):
    """rights only cleared by king and rook moves"""

    def make(self, pos, move, ends_turn=True):
        after = super().make(pos, move, ends_turn)
        taken = pos.board[move.to] if move.drop is None else None
        if taken in ("K", "k"):
            after = after.replace(castling=after.castling | (pos.castling & self.rights_of[color_of(taken)]))
        return after


# --- the state matrix (issue 18) ---------------------------------------------------

@mutant("repetition-ignores-double-kings-in-hand", "S11",
        "repetition compares positions without field 7, the double-kings in hand",
        {"op": "status", "fen": "4/7k/8/8/2r5/8/8/8/7K/4 w - - 0 1 K -",
         "moves": ["K@d0,d0c0", "c5c0", "h1g1", "c0c4", "g1h1", "c4c5", "h1g1", "h8g8", "g1h1", "g8h8"]})
class RepetitionIgnoresDoubleKingsInHand(SymmetricMonster):
    """the chess key with the board and field 8 only; a hand changes without the board
    showing it when a dropped king is taken"""
    def identity(self, pos):
        return (pos.board, pos.turn, pos.castling, self.legal_ep(pos), pos.state.first)


@mutant("repetition-key-covers-ranks-1-8", "S1",
        "repetition compares only ranks 1-8 of the placement, leaving out the extra squares",
        {"op": "status", "fen": "1r2/7k/8/8/8/8/8/8/7K/1R2 w - - 0 1 - -",
         "moves": ["d0e0", "d9e9", "h1g1", "h8g8", "g1h1", "g8h8"]})
class RepetitionKeyCoversRanks1To8(SymmetricMonster):
    """a key built from an 8x8 board, as in a chess engine"""
    def identity(self, pos):
        rank = self.geometry.rank
        inner = tuple(p for sq, p in enumerate(pos.board) if 1 <= rank[sq] <= 8)
        return (inner, pos.turn, pos.castling, self.legal_ep(pos), pos.state)


@mutant("black-double-pawn-en-passant-from-white-side", "SM-R7",
        "a black double-pawn looks for the pawn it takes en passant one rank below the target, as White's would",
        {"op": "moves", "fen": "4/7k/8/8/8/3*p4/8/4P3/7K/4 w - - 0 1 k -", "moves": ["e2e4"]})
class BlackDoublePawnEnPassantFromWhiteSide(SymmetricMonster):
    """the double-pawn's own en passant code written and tested from White's side only"""
    def en_passant_victim(self, pos, frm, to):
        if pos.board[frm] != "*p":
            return super().en_passant_victim(pos, frm, to)
        g = self.geometry
        sq = g.square(g.file[to], g.rank[to] - 1)
        victim = pos.board[sq] if sq is not None else None
        return sq if victim == "P" else None


@mutant("drop-written-in-owner-case", "S3",
        "field 8 writes Black's drop with a lower-case k (k@c9), the case of the piece on the board",
        {"op": "play", "fen": "4/7k/8/8/8/8/8/8/K7/4 b - - 4 9 k -", "moves": ["K@d9"]})
class DropWrittenInOwnerCase(SymmetricMonster):
    """the dropped piece written like the piece on the board, in its owner's case"""
    def format_state(self, pos):
        hand, first = super().format_state(pos)
        return [hand, first.replace("K@", "k@") if pos.turn == BLACK else first]


@mutant("double-pawn-promotes-to-white-piece", "SM-R8",
        "a double-pawn always promotes to a white double piece, whatever its colour",
        {"op": "play", "fen": "4/7k/8/8/8/8/8/4*p3/K7/4 b - - 0 1 k -", "moves": ["e2e1q"]})
class DoublePawnPromotesToWhitePiece(SymmetricMonster):
    """the new piece built from the move's promotion letter, upper-cased for the `*` marker"""
    def move_board(self, pos, move):
        board = super().move_board(pos, move)
        if move.promotion and move.frm is not None and pos.board[move.frm] == "*p":
            board[move.to] = board[move.to].upper()
        return board


# --- the state matrix per side: the other side's part of a side-owned component ----

@mutant("repetition-keeps-only-mover-rights", "G3",
        "repetition compares only the side to move's castling rights, not the other side's",
        {"op": "status", "fen": "4/1n2k1nr/8/8/8/8/8/8/1N2K1NR/4 w Kk - 0 1 - -",
         "moves": ["b1c3", "h8h7", "c3b1", "h7h8", "b1c3", "h8h7", "c3b1", "h7h8"]})
class RepetitionKeepsOnlyMoverRights(MoverRightsOnlyIdentityMixin, SymmetricMonster):
    """the rights read as "may the side to move still castle?", so the other side's drop out of the key"""


@mutant("repetition-keeps-only-mover-hand", "S11",
        "repetition compares only whether the side to move still holds its double-king, not the other side's",
        {"op": "status", "fen": "4/7k/8/8/8/2R5/8/8/7K/4 w - - 0 1 Kk -",
         "moves": ["c4c5", "K@d9,d9c9", "c5c9", "h8g8", "c9c4", "g8h8", "h1g1", "h8g8", "g1h1", "g8h8"]})
class RepetitionKeepsOnlyMoverHand(SymmetricMonster):
    """the key keeps "may I still drop?", the question the move generator asks"""
    def identity(self, pos):
        mine = "".join(k for k in pos.state.hand if k == colored("K", pos.turn))
        return super().identity(pos.replace(state=pos.state._replace(hand=mine)))


# --- where two rules meet (issue 27) ------------------------------------------------

@mutant("seventy-five-beats-no-legal-turn", "S11",
        "the seventy-five-move rule is looked at before the loss of a side without a legal turn, so a move that "
        "brings the clock to 150 and leaves the opponent stuck draws instead of winning",
        {"op": "play", "fen": "4/7k/8/8/8/8/8/1RRR4/1R1R4/*KR2 b - - 149 40 - -", "moves": ["h8g8"]})
class SeventyFiveBeatsNoLegalTurn(SymmetricMonster):
    """the draw rules checked first, for speed, as in chess; here the loss they hide is S7's"""

    def status(self, pos, history=()):
        if not self.mid_turn(pos) and pos.halfmove >= 150:
            return game_over("seventy-five-moves")
        return super().status(pos, history)
