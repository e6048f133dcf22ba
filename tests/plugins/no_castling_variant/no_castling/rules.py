"""No-castling chess: the FIDE game with castling taken out.

The rules are stated in the plugin's catalogue (cases/rules/no-castling.json);
the ids mark where each acts here:

- NC1: no castling at all, for either side, ever
- NC2: the FEN castling field is always "-" (the start position included)
- NC3: everything else is chess
"""

from doublecheck.oracle.chess import Chess


class NoCastling(Chess):
    """Chess whose kings never castle."""

    name = "no-castling"
    start_fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"   # NC2

    def make_castle_rules(self):
        return []   # NC1: with no castling there are no rights to read or write (NC2)

    # NC1 decides every question about castling.
    rule_ids = {**Chess.rule_ids, "castling": "NC1", "castling-rights": "NC1",
                "castling-path": "NC1", "castling-attack": "NC1"}
