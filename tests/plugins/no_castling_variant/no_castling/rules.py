"""No-castling chess: the FIDE game with castling taken out.

The rules are stated in the plugin's catalogue (cases/rules/no-castling.json);
the ids mark where each acts here:

- NC1: no castling at all, for either side, ever
- NC2: the FEN castling field is always "-" (the start position included)
- NC3: everything else is chess
- OPT-castling-field: the plugin's own rule option, where engines built on a chess
  library differ: a FEN that still gives castling rights is refused (NC2), or read
  with its rights dropped
"""

from doublecheck.oracle import options
from doublecheck.oracle.chess import Chess

CASTLING_FIELD = options.plugin_option(
    "castling-field", "what a no-castling FEN that gives castling rights means", "empty", {
        "empty": ("the castling field must be '-': a FEN giving any right is invalid",
                  ("rule NC2 of the no-castling catalogue",)),
        "ignored": ("a FEN giving castling rights is read with them dropped, and written back "
                    "with '-'",
                    ("engines built on a chess library that parses every FEN as chess and then "
                     "never castles",)),
    })


class NoCastling(Chess):
    """Chess whose kings never castle."""

    name = "no-castling"
    start_fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"   # NC2
    declares_options = (CASTLING_FIELD,)
    option_names = Chess.option_names + ("castling-field",)

    def use_options(self, options):
        super().use_options(options)
        self.rights_dropped = options["castling-field"] == "ignored"    # OPT-castling-field

    def make_castle_rules(self):
        return []   # NC1: with no castling there are no rights to read or write (NC2)

    def parse_fen(self, text):
        """NC2, or under OPT-castling-field=ignored field 3 read as '-'."""
        if self.rights_dropped and isinstance(text, str) and len(text.split(" ")) >= 3:
            fields = text.split(" ")
            fields[2] = "-"
            text = " ".join(fields)
        return super().parse_fen(text)

    # NC1 decides every question about castling.
    rule_ids = {**Chess.rule_ids, "castling": "NC1", "castling-rights": "NC1",
                "castling-path": "NC1", "castling-attack": "NC1"}
