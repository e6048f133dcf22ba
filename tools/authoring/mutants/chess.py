"""Mutants of FIDE chess (the rules every variant shares)."""


# The mixins and rules classes this module's entries (<module>.json) name as "bases" or "on"
# are looked up here by name: imported for them, though no code below uses them.
from doublecheck.authoring.mutants.common import (CapturedRookMixin, EnPassantPinBlindMixin,
                                                  EnPassantRankOnlyMixin,
                                                  GameEndCastlingUncheckedMixin, GameEndWithoutEnPassantMixin,
                                                  KingPathEndsOnlyMixin, MoverRightsOnlyIdentityMixin,
                                                  RawEnPassantIdentityMixin, RightsBlindIdentityMixin,
                                                  RookRightMixin, SeventyFiveBeatsMateMixin,
                                                  SideBlindIdentityMixin)
from doublecheck.authoring.mutants.common import (  # noqa: F401 (entries' bases)
    ClockBeforeDeadPositionMixin, DeadPositionBeforeStalemateMixin, RepetitionBeforeClockMixin)
from doublecheck.oracle.chess import Chess, game_over, not_over
from doublecheck.oracle.position import WHITE, Move, other


class CastleOutOfCheck(Chess):
    def king_path(self, rule):
        return super().king_path(rule)[1:]


class CastleOverBFile(Chess):
    def castling_path_clear(self, board, rule):
        squares = self.king_path(rule)[1:] + [rule.rook_to]
        return all(board[sq] is None or sq in (rule.king_from, rule.rook_from) for sq in squares)


class EnPassantLingers(Chess):
    def make(self, pos, move, ends_turn=True):
        after = super().make(pos, move, ends_turn)
        if after.ep is None and pos.ep is not None:
            after = after.replace(ep=pos.ep)
        return after


class KingShadow(Chess):
    def king_safe_after(self, pos, move):
        piece = pos.board[move.frm] if move.frm is not None else None
        if piece not in ("K", "k") or move.castle is not None:
            return super().king_safe_after(pos, move)
        board = self.move_board(pos, move)
        board[move.frm] = "X"  # the old square still blocks lines through it
        return not self.attacked(board, move.to, other(pos.turn))


class QueenOnlyPromotion(Chess):
    def add_pawn_move(self, frm, to, piece, moves):
        before = len(moves)
        super().add_pawn_move(frm, to, piece, moves)
        moves[before:] = [m for m in moves[before:] if m.promotion in (None, "Q")]


class DoubleStepJumps(Chess):
    def pawn_moves(self, pos, sq, piece, moves):
        super().pawn_moves(pos, sq, piece, moves)
        g, color = self.geometry, pos.turn
        file, rank, step = g.file[sq], g.rank[sq], self.forward[color]
        one, two = g.square(file, rank + step), g.square(file, rank + 2 * step)
        if (rank == self.pawn_start_rank[color] and one is not None and pos.board[one] is not None
                and two is not None and pos.board[two] is None):
            moves.append(Move(sq, two))


class StalemateLoses(Chess):
    def status(self, pos, history=()):
        result = super().status(pos, history)
        if result["reason"] == "stalemate":
            return game_over("checkmate", winner=other(pos.turn))
        return result


class BishopsAlwaysDead(Chess):
    def dead_position(self, pos):
        rest = [p for p in pos.board if p is not None and p[-1] not in "Kk"]
        return super().dead_position(pos) or all(p[-1] in "Bb" for p in rest)


class CaptureKeepsClock(Chess):
    def make(self, pos, move, ends_turn=True):
        after = super().make(pos, move, ends_turn)
        piece = pos.board[move.frm] if move.frm is not None else None
        if after.halfmove == 0 and piece is not None and piece[-1] not in "Pp":
            after = after.replace(halfmove=pos.halfmove + 1)
        return after


class PinnedPieceGivesNoCheck(Chess):
    def attacked(self, board, sq, by):
        if not super().attacked(board, sq, by):
            return False
        white = by == WHITE
        king = "K" if white else "k"
        for t, piece in enumerate(board):
            if piece is None or piece == "X" or piece.isupper() != white:
                continue
            alone = [p if p is None or p.isupper() != white or s == t else "X" for s, p in enumerate(board)]
            if not super().attacked(alone, sq, by):
                continue  # this piece does not attack sq
            if king not in board or piece == king:
                return True
            without = list(board)
            without[t] = None
            if not super().attacked(without, without.index(king), other(by)):
                return True  # an attacker that is not pinned
        return False


class ClaimsAfterGameOver(Chess):
    def status(self, pos, history=()):
        result = super().status(pos, history)
        if result["over"]:
            seen = 1 + list(history).count(self.identity(pos))
            claims = ["fifty-moves"] * (pos.halfmove >= 100) + ["threefold-repetition"] * (seen >= 3)
            result = {**result, "claimable": sorted(claims)}
        return result


class RequestPositionNotCounted(Chess):
    def status(self, pos, history=()):
        return super().status(pos, tuple(history)[1:])


class FiftyMovesOffByOne(Chess):
    def status(self, pos, history=()):
        if pos.halfmove == 100:
            pos = pos.replace(halfmove=99)
        return super().status(pos, history)


class TwoKnightsDead(Chess):
    def dead_position(self, pos):
        rest = sorted(p for p in pos.board if p is not None and p[-1] not in "Kk")
        return super().dead_position(pos) or rest in (["N", "N"], ["n", "n"])


class EnPassantNotAnEvasion(Chess):
    def legal_moves(self, pos):
        moves = super().legal_moves(pos)
        return [m for m in moves if not m.en_passant] if self.in_check(pos) else moves


class CapturePromotionMissing(Chess):
    def pawn_moves(self, pos, sq, piece, moves):
        before = len(moves)
        super().pawn_moves(pos, sq, piece, moves)
        g, kept = self.geometry, []
        for m in moves[before:]:
            if m.promotion and g.file[m.to] != g.file[m.frm]:
                if m.promotion == "Q":
                    kept.append(Move(m.frm, m.to))
            else:
                kept.append(m)
        moves[before:] = kept


class StalemateByPseudoMoves(Chess):
    def status(self, pos, history=()):
        result = super().status(pos, history)
        if result["reason"] == "stalemate" and self.pseudo_moves(pos):
            return not_over()
        return result


# ------------------------------------------------------------------ rule options

class AutomaticDrawsAtFourfold(Chess):
    """draws=automatic (OPT-draws) with the repetition counted one too far."""

    def use_options(self, options):
        super().use_options(options)
        if options["draws"] == "automatic":
            self.draw_endings = {"automatic": (("fifty-moves", 100, None), ("threefold-repetition", None, 4)),
                                 "claimable": ()}


class ClaimsOnlyWithoutClaims(Chess):
    """draws=claims-only (OPT-draws) read as "no draws at all": the claims go too."""

    def use_options(self, options):
        super().use_options(options)
        if options["draws"] == "claims-only":
            self.draw_endings = {"automatic": (), "claimable": ()}


class NoDrawsStillClaimable(Chess):
    """draws=none (OPT-draws) dropping the automatic endings but keeping the claims."""

    def use_options(self, options):
        super().use_options(options)
        if options["draws"] == "none":
            self.draw_endings = {"automatic": (), "claimable": (("fifty-moves", 100, None),)}


class NoMoveCountKeepsTheClaim(Chess):
    """move-count=none (OPT-move-count) dropping only the automatic seventy-five-move ending."""

    def use_options(self, options):
        super().use_options(options)
        if options["move-count"] == "none":
            self.draw_endings = {"automatic": (("fivefold-repetition", None, 5),),
                                 "claimable": (("fifty-moves", 100, None), ("threefold-repetition", None, 3))}


class MinorPieceAlwaysDead(Chess):
    """dead-position=none (OPT-dead-position) still ending the game with a lone minor piece."""

    def status(self, pos, history=()):
        others = [p for p in pos.board if p is not None and p[-1] not in "Kk"]
        if self.dead_rule == "none" and len(others) == 1 and others[0][-1] in "NBnb":
            return game_over("dead-position")
        return super().status(pos, history)


class TakenKingPlaysOn(Chess):
    """king-safety=king-capture (OPT-king-safety) without its ending: a side whose king was
    taken plays on with its other pieces."""

    def king_taken(self, pos):
        return False
