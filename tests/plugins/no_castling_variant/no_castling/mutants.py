"""Mutants of no-castling chess: what an implementer who starts from chess forgets to take out."""

from doublecheck.authoring.mutants import mutant
from doublecheck.oracle.chess import Chess
from doublecheck.oracle.position import WHITE, Move

from no_castling.rules import NoCastling


@mutant("castles-anyway", "NC1", "the castlings of chess are kept; only the start position lost its rights",
        {"op": "perft", "fen": "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "depth": 1})
class CastlesAnyway(NoCastling):
    """the variant was made by changing the start position, and chess's castling was left in"""

    make_castle_rules = Chess.make_castle_rules


@mutant("start-with-rights", "NC2", "the start position keeps chess's castling field KQkq",
        {"op": "fen"})
class StartWithRights(NoCastling):
    """the start FEN was copied from chess"""

    start_fen = Chess.start_fen
    make_castle_rules = Chess.make_castle_rules


@mutant("king-steps-two", "NC1", "a king at home may step two squares sideways, as if castling without the rook",
        {"op": "moves", "fen": "4k3/8/8/8/8/8/8/4K3 w - - 0 1"})
class KingStepsTwo(NoCastling):
    """castling was removed from the rook's side only"""

    def pseudo_moves(self, pos):
        moves = list(super().pseudo_moves(pos))
        rank = "1" if pos.turn == WHITE else "8"
        home, sq = self.geometry.index[f"e{rank}"], self.geometry.index
        if pos.board[home] in ("K", "k"):
            moves += [Move(home, sq[f"g{rank}"]), Move(home, sq[f"c{rank}"])]
        return moves
