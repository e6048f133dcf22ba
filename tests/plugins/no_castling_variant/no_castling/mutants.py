"""Mutants of no-castling chess: what an implementer who starts from chess forgets to take out.

Their catalogue entries (slug, rule id, description, witness request, why) are
in ``mutants.json`` beside this module."""

from doublecheck.oracle.chess import Chess
from doublecheck.oracle.position import WHITE, Move

from no_castling.rules import NoCastling


class CastlesAnyway(NoCastling):
    make_castle_rules = Chess.make_castle_rules


class StartWithRights(NoCastling):
    start_fen = Chess.start_fen
    make_castle_rules = Chess.make_castle_rules


class KingStepsTwo(NoCastling):
    def pseudo_moves(self, pos):
        moves = list(super().pseudo_moves(pos))
        rank = "1" if pos.turn == WHITE else "8"
        home, sq = self.geometry.index[f"e{rank}"], self.geometry.index
        if pos.board[home] in ("K", "k"):
            moves += [Move(home, sq[f"g{rank}"]), Move(home, sq[f"c{rank}"])]
        return moves
