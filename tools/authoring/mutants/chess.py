"""Mutants of FIDE chess (the rules every variant shares)."""


from doublecheck.authoring.mutants import mutant
from doublecheck.authoring.mutants.common import (CapturedRookMixin, GameEndCastlingUncheckedMixin,
                                                  GameEndWithoutEnPassantMixin, KingPathEndsOnlyMixin,
                                                  MoverRightsOnlyIdentityMixin, RawEnPassantIdentityMixin,
                                                  RightsBlindIdentityMixin, RookRightMixin,
                                                  SideBlindIdentityMixin)
from doublecheck.oracle.chess import Chess, game_over, not_over
from doublecheck.oracle.position import WHITE, Move, other


@mutant("castle-through-attack", "FIDE-3.8.2.2",
        "castling checks attacks on the king's start and end squares only, not the square it crosses",
        {"op": "moves", "fen": "4k3/8/8/8/8/8/5r2/4K2R w K - 0 1"})
class CastleThroughAttack(KingPathEndsOnlyMixin, Chess):
    """"not into or out of check" is remembered, the crossed square is forgotten"""


@mutant("castle-out-of-check", "FIDE-3.8.2.2",
        "castling checks the squares the king crosses and reaches, but not whether it stands in check",
        {"op": "moves", "fen": "4k3/8/8/8/8/8/8/r3K2R w K - 0 1"})
class CastleOutOfCheck(Chess):
    """the path is built from the first square the king moves to"""

    def king_path(self, rule):
        return super().king_path(rule)[1:]


@mutant("castle-over-b-file", "FIDE-3.8.2.2",
        "castling needs empty squares only where the king goes and the rook lands (b1/b8 may be occupied)",
        {"op": "moves", "fen": "4k3/8/8/8/8/8/8/RN2K3 w Q - 0 1"})
class CastleOverBFile(Chess):
    """b1/b8 is not on the king's path, so a path-only test lets a piece stand there"""

    def castling_path_clear(self, board, rule):
        squares = self.king_path(rule)[1:] + [rule.rook_to]
        return all(board[sq] is None or sq in (rule.king_from, rule.rook_from) for sq in squares)


@mutant("rook-right-by-placement", "FIDE-3.8.2.1",
        "a rook's castling right is judged by whether it stands at home, so it comes back when the rook returns",
        {"op": "moves", "fen": "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
         "moves": ["h1h2", "e8d8", "h2h1", "d8e8"]})
class RookRightByPlacement(RookRightMixin, Chess):
    """rights derived from "is the rook on its square" instead of remembered"""


@mutant("en-passant-lingers", "FIDE-3.7.3.2",
        "the en passant square is cleared only by the next double step, so the chance outlives the next move",
        {"op": "moves", "fen": "4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 1",
         "moves": ["e2e4", "e8d8", "e1f1"]})
class EnPassantLingers(Chess):
    """the square is set in one branch and never cleared in the others"""

    def make(self, pos, move, ends_turn=True):
        after = super().make(pos, move, ends_turn)
        if after.ep is None and pos.ep is not None:
            after = after.replace(ep=pos.ep)
        return after


@mutant("en-passant-pin-blind", "FIDE-3.9.2",
        "the king-safety test of an en passant capture forgets to lift the captured pawn (rank pins missed)",
        {"op": "moves", "fen": "8/8/8/KPp4r/8/8/8/4k3 w - c6 0 1"})
class EnPassantPinBlind(Chess):
    """the generic make/test code removes the piece on the target square, which is empty"""

    def king_safe_after(self, pos, move):
        if not move.en_passant:
            return super().king_safe_after(pos, move)
        board = list(pos.board)
        board[move.to], board[move.frm] = board[move.frm], None
        king = "K" if pos.turn == WHITE else "k"
        return not self.attacked(board, board.index(king), other(pos.turn))


@mutant("king-shadow", "FIDE-3.9.2",
        "a king's step is tested with the king still on its old square, so it may retreat along the checking line",
        {"op": "moves", "fen": "4k3/8/8/8/8/8/8/r3K3 w - - 0 1"})
class KingShadow(Chess):
    """attacks on the target square are computed on the board before the move"""

    def king_safe_after(self, pos, move):
        piece = pos.board[move.frm] if move.frm is not None else None
        if piece not in ("K", "k") or move.castle is not None:
            return super().king_safe_after(pos, move)
        board = self.move_board(pos, move)
        board[move.frm] = "X"  # the old square still blocks lines through it
        return not self.attacked(board, move.to, other(pos.turn))


@mutant("queen-only-promotion", "FIDE-3.7.3.3",
        "a pawn reaching the last rank always becomes a queen (no under-promotion)",
        {"op": "moves", "fen": "4k3/P7/8/8/8/8/8/4K3 w - - 0 1"})
class QueenOnlyPromotion(Chess):
    """under-promotion feels rare enough to skip"""

    def add_pawn_move(self, frm, to, piece, moves):
        before = len(moves)
        super().add_pawn_move(frm, to, piece, moves)
        moves[before:] = [m for m in moves[before:] if m.promotion in (None, "Q")]


@mutant("double-step-jumps", "FIDE-3.7.2",
        "a pawn's double step checks only the square it lands on, so it jumps a blocked first square",
        {"op": "moves", "fen": "4k3/8/8/8/8/4n3/4P3/4K3 w - - 0 1"})
class DoubleStepJumps(Chess):
    """the two steps are generated independently"""

    def pawn_moves(self, pos, sq, piece, moves):
        super().pawn_moves(pos, sq, piece, moves)
        g, color = self.geometry, pos.turn
        file, rank, step = g.file[sq], g.rank[sq], self.forward[color]
        one, two = g.square(file, rank + step), g.square(file, rank + 2 * step)
        if (rank == self.pawn_start_rank[color] and one is not None and pos.board[one] is not None
                and two is not None and pos.board[two] is None):
            moves.append(Move(sq, two))


@mutant("stalemate-loses", "FIDE-5.2.1",
        "a side with no legal move loses whether or not it is in check (stalemate scored as mate)",
        {"op": "status", "fen": "k7/8/1Q6/8/8/8/8/4K3 b - - 0 1"})
class StalemateLoses(Chess):
    """"no moves = lost", as in several variants"""

    def status(self, pos, history=()):
        result = super().status(pos, history)
        if result["reason"] == "stalemate":
            return game_over("checkmate", winner=other(pos.turn))
        return result


@mutant("bishops-always-dead", "FIDE-5.2.2",
        "bishops only, on any colours, are called a dead position (the colour condition is left out)",
        {"op": "status", "fen": "4k3/8/8/8/8/8/8/2B1Kb2 w - - 0 1"})
class BishopsAlwaysDead(Chess):
    """the square-colour condition of G4 is left out"""

    def dead_position(self, pos):
        rest = [p for p in pos.board if p is not None and p[-1] not in "Kk"]
        return super().dead_position(pos) or all(p[-1] in "Bb" for p in rest)


@mutant("repetition-without-rights", "FIDE-9.2.3",
        "repetition compares placement and side to move but not castling rights",
        {"op": "status", "fen": "4k2r/8/8/8/8/8/8/4K2R w Kk - 0 1",
         "moves": ["h1h2", "h8h7", "h2h1", "h7h8", "h1h2", "h8h7", "h2h1", "h7h8"]})
class RepetitionWithoutRights(RightsBlindIdentityMixin, Chess):
    """the repetition key is placement plus side to move"""


@mutant("repetition-raw-en-passant", "FIDE-9.2.3",
        "repetition compares the en passant square as written, even when no capture there is possible",
        {"op": "status", "moves": ["e2e4", "g8f6", "g1f3", "f6g8", "f3g1", "g8f6", "g1f3", "f6g8", "f3g1"]})
class RepetitionRawEnPassant(RawEnPassantIdentityMixin, Chess):
    """the key is the FEN's first four fields, not the legal en passant square"""


@mutant("seventy-five-beats-mate", "FIDE-9.6.2",
        "the seventy-five-move rule is looked at before checkmate, so a mate on the 150th move is a draw",
        {"op": "play", "fen": "6k1/5ppp/8/8/8/8/8/R5K1 w - - 149 80", "moves": ["a1a8"]})
class SeventyFiveBeatsMate(Chess):
    """draw rules checked first for speed"""

    def status(self, pos, history=()):
        if not self.mid_turn(pos) and pos.halfmove >= 150:
            return game_over("seventy-five-moves")
        return super().status(pos, history)


@mutant("capture-keeps-clock", "FIDE-9.3",
        "the halfmove clock is reset by pawn moves only, not by captures",
        {"op": "play", "fen": "4k3/8/8/8/8/8/r7/R3K3 w - - 10 1", "moves": ["a1a2"]})
class CaptureKeepsClock(Chess):
    """the capture case is forgotten"""

    def make(self, pos, move, ends_turn=True):
        after = super().make(pos, move, ends_turn)
        piece = pos.board[move.frm] if move.frm is not None else None
        if after.halfmove == 0 and piece is not None and piece[-1] not in "Pp":
            after = after.replace(halfmove=pos.halfmove + 1)
        return after


@mutant("captured-rook-keeps-right", "FIDE-3.8.2.1",
        "a rook captured on its home square leaves its side's castling right in place",
        {"op": "play", "fen": "r3k3/8/8/8/8/8/8/R3K3 w Qq - 0 1", "moves": ["a1a8"]})
class CapturedRookKeepsRight(CapturedRookMixin, Chess):
    """rights are only cleared for the moving side"""


@mutant("pinned-piece-gives-no-check", "FIDE-3.9.1",
        "a piece pinned to its own king is not counted as attacking (so its 'check' is ignored)",
        {"op": "moves", "fen": "4r3/8/8/8/8/4N2k/8/4K3 b - - 0 1"})
class PinnedPieceGivesNoCheck(Chess):
    """attacks taken from the legal-move list instead of the piece's reach"""

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


@mutant("claims-after-game-over", "G3.1",
        "draw claims are still listed when the game has already ended",
        {"op": "status", "fen": "4k3/8/8/8/8/8/8/R3K3 w - - 150 90"})
class ClaimsAfterGameOver(Chess):
    """claims computed independently of the result"""

    def status(self, pos, history=()):
        result = super().status(pos, history)
        if result["over"]:
            seen = 1 + list(history).count(self.identity(pos))
            claims = ["fifty-moves"] * (pos.halfmove >= 100) + ["threefold-repetition"] * (seen >= 3)
            result = {**result, "claimable": sorted(claims)}
        return result


@mutant("request-position-not-counted", "G3.1",
        "the position the request starts from is left out of the repetition count",
        {"op": "status", "moves": ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8"]})
class RequestPositionNotCounted(Chess):
    """history starts with the first move played"""

    def status(self, pos, history=()):
        return super().status(pos, tuple(history)[1:])


@mutant("fifty-moves-off-by-one", "FIDE-9.3",
        "the fifty-move claim needs a clock above 100 rather than 100 or more",
        {"op": "status", "fen": "4k3/8/8/8/8/8/8/R3K3 w - - 100 80"})
class FiftyMovesOffByOne(Chess):
    """`>` instead of `>=`"""

    def status(self, pos, history=()):
        if pos.halfmove == 100:
            pos = pos.replace(halfmove=99)
        return super().status(pos, history)


@mutant("two-knights-dead", "G4",
        "king and two knights against a lone king is called a dead position",
        {"op": "status", "fen": "4k3/8/8/8/8/8/8/1N2K1N1 w - - 0 1"})
class TwoKnightsDead(Chess):
    """two knights cannot force mate, which is a different thing from no mate being possible"""

    def dead_position(self, pos):
        rest = sorted(p for p in pos.board if p is not None and p[-1] not in "Kk")
        return super().dead_position(pos) or rest in (["N", "N"], ["n", "n"])


@mutant("en-passant-not-an-evasion", "FIDE-3.9.2",
        "en passant is left out of the answers to a check, though taking the checking pawn that way is legal",
        {"op": "moves", "fen": "8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1"})
class EnPassantNotAnEvasion(Chess):
    """check-evasion generators list captures of the checker on its own square only"""

    def legal_moves(self, pos):
        moves = super().legal_moves(pos)
        return [m for m in moves if not m.en_passant] if self.in_check(pos) else moves


@mutant("capture-promotion-missing", "FIDE-3.7.3.3",
        "a pawn capturing onto the last rank stays a pawn: only straight advances promote",
        {"op": "moves", "fen": "3rk3/4P3/8/8/8/8/8/4K3 w - - 0 1"})
class CapturePromotionMissing(Chess):
    """promotion added to the push branch only"""

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


@mutant("stalemate-by-pseudo-moves", "FIDE-5.2.1",
        "stalemate is looked for among pseudo-legal moves, so a king whose every step is attacked is not stalemated",
        {"op": "status", "fen": "k7/8/1Q6/8/8/8/8/4K3 b - - 0 1"})
class StalemateByPseudoMoves(Chess):
    """the cheap move generator is reused for the end-of-game test"""

    def status(self, pos, history=()):
        result = super().status(pos, history)
        if result["reason"] == "stalemate" and self.pseudo_moves(pos):
            return not_over()
        return result


# --- the state matrix (issue 18): identity, special moves at the end of the game -----

@mutant("repetition-ignores-side-to-move", "G3",
        "repetition compares positions without the side to move",
        {"op": "status", "fen": "4k1n1/p7/8/8/8/8/P7/4K3 w - - 0 1",
         "moves": ["e1d1", "g8f6", "d1d2", "f6g8", "d2e1", "g8f6", "e1d1", "f6g8", "d1d2", "g8f6",
                   "d2e1", "f6g8"]})
class RepetitionIgnoresSideToMove(SideBlindIdentityMixin, Chess):
    """the key is the board plus rights; the side to move is kept elsewhere"""


@mutant("game-end-without-en-passant", "FIDE-5.2.1",
        "checkmate and stalemate are judged as if en passant captures did not exist",
        {"op": "status", "fen": "k7/2K5/1P6/8/3pP3/3P4/8/8 b - e3 0 1"})
class GameEndWithoutEnPassant(GameEndWithoutEnPassantMixin, Chess):
    """the "any legal move?" test uses a generator that adds en passant only where moves are
    listed"""


@mutant("game-end-castling-unchecked", "FIDE-3.8.2.2",
        "the end-of-game test counts a castling over empty squares without its attack conditions",
        {"op": "status", "fen": "3r1rk1/4r3/8/8/8/8/8/4K2R w K - 1 2"})
class GameEndCastlingUnchecked(GameEndCastlingUncheckedMixin, Chess):
    """a quick "any move?" test takes castling from the rights and the empty squares and
    leaves the attack tests to the full generator"""


# --- the state matrix per side: the other side's part of a side-owned component ----

@mutant("repetition-keeps-only-mover-rights", "FIDE-9.2.3",
        "repetition compares only the side to move's castling rights, not the other side's",
        {"op": "status", "fen": "1n2k1nr/8/8/8/8/8/8/1N2K1NR w Kk - 0 1",
         "moves": ["b1c3", "h8h7", "c3b1", "h7h8", "b1c3", "h8h7", "c3b1", "h7h8"]})
class RepetitionKeepsOnlyMoverRights(MoverRightsOnlyIdentityMixin, Chess):
    """the rights read as "may the side to move still castle?", so the other side's drop out of the key"""
