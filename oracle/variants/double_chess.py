"""Double Chess (seed 003): two orthodox armies side by side on a 16 by 8 board.

The rules are stated in the catalogue (cases/rules/double-chess-seed.json and
double-chess.json; ``doublecheck rules ID`` prints one); the ids mark where
each acts here:

- DC-board, C1: sixteen files, a FEN rank of sixteen squares
- DC-setup: the start position
- DC-castling-any-rook, DC-inside-destinations, DC-outside-destinations, C3: four castlings
- DC-castling-conditions, DC-castle-once, C3: the conditions, checked as in chess
- C2: the castling field names the rooks' files (``AELPaelp``)
- DC-castling-san: ``O-O`` ... ``O-O-O-O-O``, one O per file the rook travels
- DC-fide-otherwise, C4: everything else is chess, turn machine included
"""

from doublecheck.oracle.chess import About, Chess, castle_rule
from doublecheck.oracle.geometry import Geometry
from doublecheck.oracle.position import BLACK, WHITE

# rook file -> (king's destination file, rook's destination file, SAN name)
CASTLINGS = {
    "a": ("e", "f", "O-O-O-O-O"),
    "e": ("g", "h", "O-O-O"),
    "l": ("k", "j", "O-O"),
    "p": ("m", "l", "O-O-O-O"),
}
KING_FILE = "i"


class DoubleChess(Chess):
    """Orthodox chess on the 16x8 board with castling towards any of four rooks."""

    name = "double-chess"
    geometry = Geometry(16, range(1, 9))
    start_fen = ("rnbqrnbqkbnrqbnr/pppppppppppppppp/16/16/16/16/"
                 "PPPPPPPPPPPPPPPP/RNBQRNBQKBNRQBNR w AELPaelp - 0 1")
    max_perft_depth = 11           # about twice chess's moves per ply (Limits)

    def make_castle_rules(self):
        """Four castlings per side, listed in rook-file order so the FEN field reads AELPaelp."""
        rules = []
        for color, rank in ((WHITE, 1), (BLACK, 8)):
            for rook_file, (king_to, rook_to, san) in CASTLINGS.items():
                letter = rook_file.upper() if color == WHITE else rook_file
                rules.append(castle_rule(self.geometry, color,
                                         f"{KING_FILE}{rank}", f"{rook_file}{rank}",
                                         f"{king_to}{rank}", f"{rook_to}{rank}", letter, san))
        return rules

    # C3 decides every castling refusal; DC-castling-san names the castlings.
    rule_ids = {**Chess.rule_ids, "castling": "DC-castling-san", "castling-rights": "C3",
                "castling-path": "C3", "castling-attack": "C3"}

    # What the tables doublecheck generate writes say of this variant (README, docs/perft.md).
    about = About(summary="16x8 board, two armies, castling with any of four rooks",
                  move="a move on the 16x8 board, castling with any of four rooks (**C3**)",
                  turn="one move",
                  note="perft and turn-perft are equal")
