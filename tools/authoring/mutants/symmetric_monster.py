"""Mutants of symmetric-monster: extra squares, double-pieces, the dropped king."""


# The mixins and rules classes this module's entries (<module>.json) name as "bases" or "on"
# are looked up here by name: imported for them, though no code below uses them.
from doublecheck.authoring.mutants.common import (AnyFirstPartCompletesMixin, MoverRightsOnlyIdentityMixin,
                                                  SeventyFiveBeatsMateMixin, is_double_step)
from doublecheck.authoring.mutants.common import RepetitionBeforeClockMixin  # noqa: F401 (entries' bases)
from doublecheck.oracle.chess import PROMOTION_LETTERS, Chess, game_over
from doublecheck.oracle.position import BLACK, WHITE, Move, color_of, colored, other
from doublecheck.oracle.variants.symmetric_monster import SymmetricMonster, is_double


class DoublePawnTakenEnPassant(SymmetricMonster):
    def make(self, pos, move, ends_turn=True):
        after = super().make(pos, move, ends_turn)
        if (ends_turn and after.ep is None and move.drop is None and is_double(pos.board[move.frm])
                and is_double_step(self, pos, move)):
            after = after.replace(ep=(move.frm + move.to) // 2)
        return after


class DoublePawnNoEnPassant(SymmetricMonster):
    def pawn_moves(self, pos, sq, piece, moves):
        before = len(moves)
        super().pawn_moves(pos, sq, piece, moves)
        if is_double(piece):
            moves[before:] = [m for m in moves[before:] if not m.en_passant]


class EnPassantOnSecondAction(SymmetricMonster):
    def open_double(self, pos, move):
        return super().open_double(pos, move).replace(ep=pos.ep)


class DoublePawnDoubleStepFromStart(SymmetricMonster):
    def pawn_moves(self, pos, sq, piece, moves):
        super().pawn_moves(pos, sq, piece, moves)
        g, color = self.geometry, pos.turn
        file, rank, step = g.file[sq], g.rank[sq], self.forward[color]
        start = {WHITE: 0, BLACK: 9}[color]
        one, two = g.square(file, rank + step), g.square(file, rank + 2 * step)
        if (is_double(piece) and rank == start and one is not None and two is not None
                and pos.board[one] is None and pos.board[two] is None):
            moves.append(Move(sq, two))


class NullMoveAllowed(SymmetricMonster):
    def is_null(self, first, move):
        return False


class NullBanCoversCaptures(SymmetricMonster):
    def is_null(self, first, move):
        return first.frm is not None and move.frm == first.to and move.to == first.frm


class DropAnywhere(SymmetricMonster):
    def drops(self, pos):
        if colored("K", pos.turn) not in pos.state.hand:
            return []
        return [Move(None, sq, drop="*K") for sq in self.squares if pos.board[sq] is None]


class DropResetsClock(SymmetricMonster):
    def make(self, pos, move, ends_turn=True):
        after = super().make(pos, move, ends_turn)
        return after.replace(halfmove=0) if move.drop is not None else after


class SingleKingLossIgnored(SymmetricMonster):
    def may_move_singles(self, pos):
        return True


class DoubleKingLossIgnored(SymmetricMonster):
    def may_move_doubles(self, pos):
        return True


class PromotionAtFileEnd(SymmetricMonster):
    def add_pawn_move(self, frm, to, piece, moves):
        g = self.geometry
        beyond = g.square(g.file[to], g.rank[to] + self.forward[color_of(piece)])
        if beyond is None:
            moves.extend(Move(frm, to, promotion=p) for p in PROMOTION_LETTERS)
        else:
            moves.append(Move(frm, to))


class DoublePawnPromotesToSingle(SymmetricMonster):
    def move_board(self, pos, move):
        board = super().move_board(pos, move)
        if move.promotion and is_double(board[move.to]):
            board[move.to] = board[move.to][1:]
        return board


class CheckEnforced(SymmetricMonster):
    def legal_moves(self, pos):
        king = colored("K", pos.turn)
        safe = []
        for m in super().legal_moves(pos):
            board = self.move_board(pos, m)
            if king not in board or not self.attacked(board, board.index(king), other(pos.turn)):
                safe.append(m)
        return safe


class CastlingRespectsAttacks(SymmetricMonster):
    def castling_moves(self, pos):
        for m in super().castling_moves(pos):
            rule = self.castle_by_rook[m.castle]
            if not any(self.attacked(pos.board, sq, other(pos.turn)) for sq in self.king_path(rule)):
                yield m


class LastKingCaptureContinues(SymmetricMonster):
    def play(self, pos, move):
        single = move.drop is None and not is_double(pos.board[move.frm])
        if pos.state.first is None and not single:
            return self.open_double(pos, move)
        return super().play(pos, move)


class NoLegalTurnDraws(SymmetricMonster):
    def status(self, pos, history=()):
        result = super().status(pos, history)
        return game_over("stalemate") if result["reason"] == "no-legal-turn" else result


class DeadPositionApplied(SymmetricMonster):
    dead_position = Chess.dead_position


class NullBanAnyPiece(SymmetricMonster):
    def is_null(self, first, move):
        return (first.frm is not None and not first.capture and first.promotion is None
                and move.to == first.frm)


class NullBanAfterPromotion(SymmetricMonster):
    def is_null(self, first, move):
        return (first.frm is not None and not first.capture
                and move.frm == first.to and move.to == first.frm)


class KingInHandCounts(SymmetricMonster):
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


class DropCaptures(SymmetricMonster):
    def drops(self, pos):
        if colored("K", pos.turn) not in pos.state.hand:
            return []
        white = pos.turn == WHITE
        return [Move(None, sq, drop="*K") for sq in self.drop_squares[pos.turn]
                if pos.board[sq] is None or pos.board[sq].isupper() != white]


class Field8WithoutX(SymmetricMonster):
    def action_text(self, a):
        return super().action_text(a._replace(capture=False))


class CapturedKingKeepsCastlingRights(SymmetricMonster):
    def make(self, pos, move, ends_turn=True):
        after = super().make(pos, move, ends_turn)
        taken = pos.board[move.to] if move.drop is None else None
        if taken in ("K", "k"):
            after = after.replace(castling=after.castling | (pos.castling & self.rights_of[color_of(taken)]))
        return after


# --- the state matrix (issue 18) ---------------------------------------------------

class RepetitionIgnoresDoubleKingsInHand(SymmetricMonster):
    def identity(self, pos):
        return (pos.board, pos.turn, pos.castling, self.legal_ep(pos), pos.state.first)


class RepetitionKeyCoversRanks1To8(SymmetricMonster):
    def identity(self, pos):
        rank = self.geometry.rank
        inner = tuple(p for sq, p in enumerate(pos.board) if 1 <= rank[sq] <= 8)
        return (inner, pos.turn, pos.castling, self.legal_ep(pos), pos.state)


class BlackDoublePawnEnPassantFromWhiteSide(SymmetricMonster):
    def en_passant_victim(self, pos, frm, to):
        if pos.board[frm] != "*p":
            return super().en_passant_victim(pos, frm, to)
        g = self.geometry
        sq = g.square(g.file[to], g.rank[to] - 1)
        victim = pos.board[sq] if sq is not None else None
        return sq if victim == "P" else None


class DropWrittenInOwnerCase(SymmetricMonster):
    def format_state(self, pos):
        hand, first = super().format_state(pos)
        return [hand, first.replace("K@", "k@") if pos.turn == BLACK else first]


class DoublePawnPromotesToWhitePiece(SymmetricMonster):
    def move_board(self, pos, move):
        board = super().move_board(pos, move)
        if move.promotion and move.frm is not None and pos.board[move.frm] == "*p":
            board[move.to] = board[move.to].upper()
        return board


# --- the state matrix per side: the other side's part of a side-owned component ----

class RepetitionKeepsOnlyMoverHand(SymmetricMonster):
    def identity(self, pos):
        mine = "".join(k for k in pos.state.hand if k == colored("K", pos.turn))
        return super().identity(pos.replace(state=pos.state._replace(hand=mine)))
