"""Double Chess (seed 003): two orthodox armies side by side on a 16 by 8 board.

The rules as implemented, with the ids the cases cite:

DC-board, C1
    The board has sixteen files, ``a`` to ``p``, and the usual eight ranks.
    A FEN rank string covers all sixteen squares, so a run of empty squares
    may take two digits (``16`` is an empty rank).
DC-setup
    Each side has two armies' worth of pieces on its back rank except that
    the second king is replaced by a queen.  From White's left: rook, knight,
    bishop, queen, rook, knight, bishop, queen, king, bishop, knight, rook,
    queen, bishop, knight, rook; all sixteen pawns on the next rank.  Black
    mirrors White file for file, so both kings stand on the i-file.
DC-castling-any-rook, C3
    The king may castle with any of the four rooks that start on files
    a, e, l and p of its first rank.
DC-castling-conditions, C3
    Castling needs a king and a rook that have never moved, every square
    strictly between them empty, the king not in check, and no square the
    king crosses or reaches attacked.  As with every move, the king may not
    stand in check afterwards: when the castling rook itself was the piece
    blocking a line along the first rank towards the king's new square, the
    castling is illegal.
DC-castle-once, C3
    Castling uses up all of that side's castling rights, so a side castles
    at most once in a game.
DC-inside-destinations
    Inside castling (with the e- or l-rook) moves the king two squares:
    with the l-rook the king goes i -> k and the rook to j; with the e-rook
    the king goes i -> g and the rook to h.
DC-outside-destinations
    Outside castling (with the a- or p-rook) moves the king four squares:
    with the p-rook the king goes i -> m and the rook to l; with the a-rook
    the king goes i -> e and the rook to f.  The inner rook (and anything
    else) standing between king and outer rook blocks it.
DC-fide-otherwise, C4
    Everything else is orthodox chess: pawns step two from ranks 2 and 7,
    take en passant and promote on the last rank to Q, R, B or N; check,
    mate, stalemate and the draw rules are FIDE's (G3-G5).

FEN (G9, C2): the castling field names the file of each rook that may still
castle, upper case for White and lower case for Black, in file order White
first (``AELPaelp`` at the start); ``-`` when none is left.  There are no
extra fields.

Notation (G8): coordinates write castling as the king's own move
(``i1k1``, ``i1g1``, ``i1m1``, ``i1e1``).  In SAN the number of O's is the
number of files the rook travels, which keeps FIDE's two names for the
inside castlings and gives the outside ones names of their own:

    ``O-O``        l-rook, king i -> k   (rook l -> j, two files)
    ``O-O-O``      e-rook, king i -> g   (rook e -> h, three files)
    ``O-O-O-O``    p-rook, king i -> m   (rook p -> l, four files)
    ``O-O-O-O-O``  a-rook, king i -> e   (rook a -> f, five files)

The turn machine is chess's: every move is a whole turn.
"""

from doublecheck.oracle.chess import Chess, castle_rule
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
