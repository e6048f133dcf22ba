"""Mutants of double-chess: the 16x8 board and castling with four rooks."""

from dataclasses import replace

from doublecheck.authoring.mutants import mutant
from doublecheck.authoring.mutants.common import (CapturedRookMixin, GameEndCastlingUncheckedMixin,
                                                  GameEndWithoutEnPassantMixin, KingPathEndsOnlyMixin,
                                                  MoverRightsOnlyIdentityMixin, RookRightMixin,
                                                  TargetNotWrittenMixin)
from doublecheck.oracle.geometry import Geometry
from doublecheck.oracle.position import BLACK, WHITE
from doublecheck.oracle.variants.double_chess import DoubleChess


DC_ROOKS = "8k7/16/16/16/16/16/16/R3R3K2R3R w AELP - 0 1"


@mutant("outer-castling-past-inner-rook", "DC-outside-destinations",
        "own rooks that may still castle are not counted as blockers, so outer castling passes the inner rook",
        {"op": "moves", "fen": DC_ROOKS})
class OuterCastlingPastInnerRook(DoubleChess):
    """multi-rook generalisations of the Chess960 "empty except king and rook" test"""

    def castling_path_clear(self, board, rule):
        own_rook = "R" if rule.color == WHITE else "r"
        homes = {r.rook_from for r in self.castle_rules if r.color == rule.color}
        cleared = list(board)
        for sq in homes:
            if cleared[sq] == own_rook and sq != rule.rook_from:
                cleared[sq] = None
        return super().castling_path_clear(cleared, rule)


@mutant("castling-skips-crossed-squares", "DC-castling-conditions",
        "castling checks attacks on the king's start and end squares only, not the squares it crosses",
        {"op": "moves", "fen": "8kr6/16/16/16/16/16/16/8K2R4 w L - 0 1"})
class CastlingSkipsCrossedSquares(KingPathEndsOnlyMixin, DoubleChess):
    """the crossed squares are forgotten, and outer castlings cross three"""


@mutant("castling-path-two-squares", "DC-outside-destinations",
        "the attack test covers a two-square king path as in chess, missing the third square of outer castling",
        {"op": "moves", "fen": "8k2r4/16/16/16/16/16/16/R3R3K6R w AEP - 0 1"})
class CastlingPathTwoSquares(DoubleChess):
    """code copied from an 8x8 engine with fixed offsets; the third square of an outer castling
    goes untested"""

    def king_path(self, rule):
        return super().king_path(rule)[:3]


@mutant("castling-rook-shield-ignored", "C3",
        "castling is judged on the board before the rook moves, so a rook that shielded the king's new square is missed",
        {"op": "moves", "fen": "8k7/16/16/16/16/16/16/3rR3K7 w E - 0 1"})
class CastlingRookShieldIgnored(DoubleChess):
    """castling is exempted from the usual "own king safe afterwards" test"""

    def legal_moves(self, pos):
        return [m for m in self.pseudo_moves(pos) if m.castle is not None or self.king_safe_after(pos, m)]


@mutant("castling-rook-path-attacked", "DC-castling-conditions",
        "castling is refused when any square between king and rook is attacked, including squares only the rook crosses",
        {"op": "moves", "fen": "1r6k7/16/16/16/16/16/16/R7K7 w A - 0 1"})
class CastlingRookPathAttacked(DoubleChess):
    """"nothing between may be attacked" over-read from the seed"""

    def king_path(self, rule):
        g = self.geometry
        lo, hi = sorted((g.file[rule.king_from], g.file[rule.rook_from]))
        rank = g.rank[rule.king_from]
        between = [g.square(f, rank) for f in range(lo + 1, hi)]
        return list(dict.fromkeys(super().king_path(rule) + between))


@mutant("rook-right-by-placement", "C3",
        "a rook's castling right is judged by whether it stands at home, so it comes back when the rook returns",
        {"op": "moves", "fen": "8k7/16/16/16/16/16/16/8K6R w P - 0 1",
         "moves": ["p1p2", "i8h8", "p2p1", "h8i8"]})
class DoubleChessRookRightByPlacement(RookRightMixin, DoubleChess):
    """as in chess, now with four rooks per side"""


@mutant("king-right-by-placement", "DC-castle-once",
        "only the rook's own right goes when it castles or moves; a king back on i1 may castle again",
        {"op": "moves", "fen": "8k7/16/16/16/16/16/16/R7K7 w A - 0 1",
         "moves": ["i1h1", "i8h8", "h1i1", "h8i8"]})
class KingRightByPlacement(DoubleChess):
    """rights kept per rook, the king's move not recorded"""

    def make(self, pos, move, ends_turn=True):
        after = super().make(pos, move, ends_turn)
        kept = pos.castling - {move.frm, move.to, move.castle}
        return after.replace(castling=kept)

    def fen(self, pos):
        home = {WHITE: pos.board[self.geometry.index["i1"]] == "K",
                BLACK: pos.board[self.geometry.index["i8"]] == "k"}
        shown = frozenset(sq for sq in pos.castling if home[self.castle_by_rook[sq].color])
        return super().fen(pos.replace(castling=shown))


@mutant("x-fen-castling-field", "C2",
        "castling rights written X-FEN style: K and Q for the outer rooks, file letters for the inner ones",
        {"op": "fen"})
class XFenCastlingField(DoubleChess):
    """habit from Chess960 tools"""

    start_fen = DoubleChess.start_fen.replace("AELPaelp", "KQELkqel")

    def make_castle_rules(self):
        outer = {"A": "Q", "P": "K", "a": "q", "p": "k"}
        return [replace(r, letter=outer.get(r.letter, r.letter)) for r in super().make_castle_rules()]


@mutant("single-digit-empty-runs", "C1",
        "FEN output splits long empty runs into single digits (16 written as 97)",
        {"op": "fen"})
class SingleDigitEmptyRuns(DoubleChess):
    """a FEN writer that flushes its counter at 9"""

    def fen(self, pos):
        fields = super().fen(pos).split(" ")
        rows = []
        for row in fields[0].split("/"):
            out, digits = "", ""
            for ch in row + " ":
                if ch.isdigit():
                    digits += ch
                    continue
                if digits:
                    n = int(digits)
                    out += "9" * (n // 9) + (str(n % 9) if n % 9 else "")
                    digits = ""
                out += ch.strip()
            rows.append(out)
        return " ".join(["/".join(rows)] + fields[1:])


@mutant("captured-rook-keeps-right", "C3",
        "a rook captured on its home square leaves its side's castling right in place",
        {"op": "play", "fen": "r7k7/16/16/16/16/16/16/R7K7 w Aa - 0 1", "moves": ["a1a8"]})
class DoubleChessCapturedRookKeepsRight(CapturedRookMixin, DoubleChess):
    """as in chess"""


@mutant("outer-castling-names-swapped", "DC-castling-san",
        "the SAN names of the two outer castlings are swapped (O-O-O-O for the a-rook, O-O-O-O-O for the p-rook)",
        {"op": "play", "fen": "8k7/16/16/16/16/16/16/R7K6R w AP - 0 1", "moves": ["O-O-O-O"]})
class OuterCastlingNamesSwapped(DoubleChess):
    """counting the O's by the king's travel or by the wrong rook"""

    def make_castle_rules(self):
        swap = {"O-O-O-O": "O-O-O-O-O", "O-O-O-O-O": "O-O-O-O"}
        return [replace(r, san=swap.get(r.san, r.san)) for r in super().make_castle_rules()]


class SplitBoard(Geometry):
    """The 16x8 board as two 8x8 boards side by side: lines stop at the h/i seam."""

    def __init__(self):
        super().__init__(16, range(1, 9))
        for sq in range(self.size):
            for d, ray in self.rays[sq].items():
                if d[0] == 0:
                    continue
                half = self.file[sq] // 8
                cut = next((i for i, t in enumerate(ray) if self.file[t] // 8 != half), len(ray))
                self.rays[sq][d] = ray[:cut]


@mutant("board-split-in-two", "DC-board",
        "the board is treated as two 8x8 boards: rooks, bishops and queens stop at the h/i seam",
        {"op": "moves", "fen": "8k7/16/16/16/R15/16/16/8K7 w - - 0 1"})
class BoardSplitInTwo(DoubleChess):
    """the seed's "two boards put together" taken literally"""

    def __init__(self):
        self.geometry = SplitBoard()
        super().__init__()


@mutant("square-colour-by-file", "G4",
        "a square's colour is taken from the parity of its index, which on a 16-file board ignores the rank",
        {"op": "status", "fen": "8k7/16/16/16/16/16/b15/B7K7 w - - 0 1"})
class SquareColourByFile(DoubleChess):
    """a colour shortcut on the square number; with sixteen squares to a row its parity depends on
    the file alone"""

    def dead_position(self, pos):
        others = [(sq, p) for sq, p in enumerate(pos.board) if p is not None and p[-1] not in "Kk"]
        if others and all(p[-1] in "Bb" for _, p in others):
            return len({sq % 2 for sq, _ in others}) == 1
        return super().dead_position(pos)


# --- the state matrix (issue 18) ---------------------------------------------------

@mutant("repetition-key-covers-files-a-h", "G3",
        "repetition compares only files a-h of the placement",
        {"op": "status", "fen": "1k14/16/9r6/16/16/9R6/16/1K14 w - - 0 1",
         "moves": ["j3k3", "j6k6", "b1c1", "b8c8", "c1b1", "c8b8"]})
class RepetitionKeyCoversFilesAH(DoubleChess):
    """a key built for 64 squares, so the second half of the board is left out"""
    def identity(self, pos):
        left = tuple(p for sq, p in enumerate(pos.board) if self.geometry.file[sq] < 8)
        return (left, pos.turn, pos.castling, self.legal_ep(pos), pos.state)


@mutant("game-end-without-en-passant", "FIDE-5.2.1",
        "checkmate and stalemate are judged as if en passant captures did not exist",
        {"op": "status", "fen": "11R4/16/16/12k1N1/11Pp3/10P5/16/8K4R2 b - l3 0 1"})
class GameEndWithoutEnPassantDC(GameEndWithoutEnPassantMixin, DoubleChess):
    """as in chess"""


@mutant("game-end-castling-unchecked", "C3",
        "the end-of-game test counts a castling over empty squares without its attack conditions",
        {"op": "status", "fen": "k6r1r6/8r7/16/16/16/16/16/8K2R4 w L - 1 2"})
class GameEndCastlingUncheckedDC(GameEndCastlingUncheckedMixin, DoubleChess):
    """as in chess, with four rooks to castle with"""


@mutant("white-target-not-written", "G9",
        "the FEN writer tests whether an en passant capture is possible only for White to move, so it never "
        "writes a target left by White",
        {"op": "play", "fen": "8k7/16/16/16/14p1/16/13P2/8K7 w - - 7 20", "moves": ["n2n4"]})
class WhiteTargetNotWritten(TargetNotWrittenMixin, DoubleChess):
    """the "can it be taken?" test of the writer looks at White's pawns only"""
    left_by = WHITE


# --- the state matrix per side: the other side's part of a side-owned component ----

@mutant("repetition-keeps-only-mover-rights", "G3",
        "repetition compares only the side to move's castling rights, not the other side's",
        {"op": "status", "fen": "1n6k2r3r/16/16/16/16/16/16/1N6K2R3R w LPlp - 0 1",
         "moves": ["b1c3", "p8p7", "c3b1", "p7p8", "b1c3", "p8p7", "c3b1", "p7p8"]})
class RepetitionKeepsOnlyMoverRights(MoverRightsOnlyIdentityMixin, DoubleChess):
    """each rook's right read as "may the side to move still castle?", so the other side's drop out of the key"""


# --- moves that change several squares (issue 27) -----------------------------------

@mutant("en-passant-pin-blind", "FIDE-3.9.2",
        "the king-safety test of an en passant capture leaves the taken pawn on its square, so a pin along "
        "the rank through both pawns is missed",
        {"op": "moves", "fen": "4k11/16/16/KPp12r/16/16/16/16 w - c6 0 5"})
class EnPassantPinBlind(DoubleChess):
    """the generic make-and-test code removes the piece on the target square, which is empty"""

    def king_safe_after(self, pos, move):
        if not move.en_passant:
            return super().king_safe_after(pos, move)
        board = list(pos.board)
        board[move.to], board[move.frm] = board[move.frm], None
        king = "K" if pos.turn == WHITE else "k"
        return not self.attacked(board, board.index(king), BLACK if pos.turn == WHITE else WHITE)
