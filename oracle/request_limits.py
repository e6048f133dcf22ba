"""The sizes of input the oracle accepts (docs/protocol.md, "Limits").

Each limit is checked where the input enters, before any work is done on it,
and an input over a limit is refused with the usual code (``invalid-fen``,
``invalid-move-text``, ``invalid-request``).  Every number is far above what
a real position, game or test vector needs:

- a FEN is printable ASCII text of at most ``MAX_FEN_LENGTH`` characters
  (the longest FEN any variant writes has under 250), its fields separated by
  ASCII spaces (fen.split_fields);
- its halfmove clock and fullmove number have at most ``MAX_FEN_NUMBER_DIGITS``
  digits (they fit the 32-bit integers engines commonly use; no game comes
  near a fullmove number of 100,000 under the seventy-five-move rule of G3);
- one item of a request's ``moves`` (a move, or a whole turn such as
  ``Qg8+,Qh7#``) has at most ``MAX_MOVE_TEXT`` characters;
- a request holds at most ``MAX_MOVES`` items in ``moves`` (a game on the
  largest board ends under G3 within about 40,000 moves);
- the perft depth is at most the variant's ``max_perft_depth``, a class
  attribute of its rules (``check_perft_depth``; a variant whose turns grow
  lowers it for turns through ``perft_depth_limit``).
"""

from doublecheck.oracle.errors import INVALID_REQUEST, RulesError, quote

MAX_FEN_LENGTH = 1024
MAX_FEN_NUMBER_DIGITS = 9
MAX_MOVE_TEXT = 64
MAX_MOVES = 100_000


def check_perft_depth(rules, depth, turns: bool = False) -> None:
    """RulesError(invalid-request) unless ``depth`` is a whole number from 0 to the
    variant's ``perft_depth_limit(turns)`` (by default ``max_perft_depth``, the same
    limit for moves and turns)."""
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 0:
        raise RulesError(INVALID_REQUEST, f"'depth' must be a whole number >= 0, not {quote(depth)}")
    limit = rules.perft_depth_limit(turns)
    if depth > limit:
        unit = "turns" if turns else "moves"
        raise RulesError(INVALID_REQUEST, f"perft depth {quote(depth)} is more than {rules.name} "
                                          f"allows: at most {limit} {unit} "
                                          f"(doublecheck docs protocol, \"Limits\")")
