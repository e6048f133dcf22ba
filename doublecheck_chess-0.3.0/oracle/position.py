"""Positions and moves: plain values.

A piece is a short string: ``P N B R Q K`` for White, ``p n b r q k`` for
Black, with a leading ``*`` for the double-pieces of symmetric-monster
(``*P``, ``*k``).  The board is a list indexed by square number holding a
piece or ``None``.
"""

from dataclasses import dataclass, replace

WHITE, BLACK = "w", "b"


def other(color: str) -> str:
    return BLACK if color == WHITE else WHITE


def color_of(piece: str) -> str:
    return WHITE if piece.isupper() else BLACK


def kind_of(piece: str) -> str:
    """The upper-case letter of a piece, without colour or the double marker."""
    return piece[-1].upper()


def colored(letter: str, color: str) -> str:
    """``colored("*Q", "b") == "*q"``."""
    return letter.upper() if color == WHITE else letter.lower()


@dataclass(frozen=True, slots=True)
class Move:
    """One piece action.

    ``castle`` is the rook's square for a castling move (the king goes
    ``frm`` -> ``to``); ``en_passant`` marks a pawn capturing en passant;
    ``drop`` is the piece placed from hand (then ``frm`` is None);
    ``opens_double`` marks the first half of a double-move Double Move.
    """

    frm: int | None
    to: int
    promotion: str | None = None
    castle: int | None = None
    en_passant: bool = False
    drop: str | None = None
    opens_double: bool = False


@dataclass(frozen=True, slots=True)
class Position:
    """Everything the rules need to know about a moment of the game.

    ``castling`` is the frozenset of rook home squares that may still castle;
    ``ep`` the square a pawn just passed over (or None; in marseillais, where
    two targets may be open at once, a frozenset of such squares); ``state`` is the
    variant's own hashable extra state (abilities, hands, the turn so far).
    """

    board: tuple
    turn: str
    castling: frozenset
    ep: int | frozenset | None
    halfmove: int
    fullmove: int
    state: object = None

    def replace(self, **changes) -> "Position":
        return replace(self, **changes)
