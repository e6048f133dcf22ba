"""Mutants of double-chess: the 16x8 board and castling with four rooks."""

from dataclasses import replace

# The mixins and rules classes this module's entries (<module>.json) name as "bases" or "on"
# are looked up here by name: imported for them, though no code below uses them.
from doublecheck.authoring.mutants.common import (CapturedRookMixin, EnPassantPinBlindMixin, EnPassantRankOnlyMixin,
                                                  GameEndCastlingUncheckedMixin, GameEndWithoutEnPassantMixin,
                                                  KingPathEndsOnlyMixin, MoverRightsOnlyIdentityMixin,
                                                  RookRightMixin, TargetNotWrittenMixin)
from doublecheck.authoring.mutants.common import (  # noqa: F401 (entries' bases)
    ClockBeforeDeadPositionMixin, DeadPositionBeforeStalemateMixin, RepetitionBeforeClockMixin, SeventyFiveBeatsMateMixin)
from doublecheck.oracle.geometry import Geometry
from doublecheck.oracle.position import BLACK, WHITE
from doublecheck.oracle.variants.double_chess import DoubleChess


class OuterCastlingPastInnerRook(DoubleChess):
    def castling_path_clear(self, board, rule):
        own_rook = "R" if rule.color == WHITE else "r"
        homes = {r.rook_from for r in self.castle_rules if r.color == rule.color}
        cleared = list(board)
        for sq in homes:
            if cleared[sq] == own_rook and sq != rule.rook_from:
                cleared[sq] = None
        return super().castling_path_clear(cleared, rule)


class CastlingPathTwoSquares(DoubleChess):
    def king_path(self, rule):
        return super().king_path(rule)[:3]


class CastlingRookShieldIgnored(DoubleChess):
    def legal_moves(self, pos):
        return [m for m in self.pseudo_moves(pos) if m.castle is not None or self.king_safe_after(pos, m)]


class CastlingRookPathAttacked(DoubleChess):
    def king_path(self, rule):
        g = self.geometry
        lo, hi = sorted((g.file[rule.king_from], g.file[rule.rook_from]))
        rank = g.rank[rule.king_from]
        between = [g.square(f, rank) for f in range(lo + 1, hi)]
        return list(dict.fromkeys(super().king_path(rule) + between))


class KingRightByPlacement(DoubleChess):
    def make(self, pos, move, ends_turn=True):
        after = super().make(pos, move, ends_turn)
        kept = pos.castling - {move.frm, move.to, move.castle}
        return after.replace(castling=kept)

    def fen(self, pos):
        home = {WHITE: pos.board[self.geometry.index["i1"]] == "K",
                BLACK: pos.board[self.geometry.index["i8"]] == "k"}
        shown = frozenset(sq for sq in pos.castling if home[self.castle_by_rook[sq].color])
        return super().fen(pos.replace(castling=shown))


class XFenCastlingField(DoubleChess):
    start_fen = DoubleChess.start_fen.replace("AELPaelp", "KQELkqel")

    def make_castle_rules(self):
        outer = {"A": "Q", "P": "K", "a": "q", "p": "k"}
        return [replace(r, letter=outer.get(r.letter, r.letter)) for r in super().make_castle_rules()]


class SingleDigitEmptyRuns(DoubleChess):
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


class OuterCastlingNamesSwapped(DoubleChess):
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


class BoardSplitInTwo(DoubleChess):
    def __init__(self, options=None):
        self.geometry = SplitBoard()
        super().__init__(options)


class SquareColourByFile(DoubleChess):
    def dead_position(self, pos):
        others = [(sq, p) for sq, p in enumerate(pos.board) if p is not None and p[-1] not in "Kk"]
        if others and all(p[-1] in "Bb" for _, p in others):
            return len({sq % 2 for sq, _ in others}) == 1
        return super().dead_position(pos)


# --- the state matrix (issue 18) ---------------------------------------------------

class RepetitionKeyCoversFilesAH(DoubleChess):
    def identity(self, pos):
        left = tuple(p for sq, p in enumerate(pos.board) if self.geometry.file[sq] < 8)
        return (left, pos.turn, pos.castling, self.legal_ep(pos), pos.state)


class WhiteTargetNotWritten(TargetNotWrittenMixin, DoubleChess):
    left_by = WHITE
