"""Colour mirrors: when two cases are the same case with the colours swapped.

A mutant killed by a case and by that case's colour mirror rests on one idea
that one edit of the position could lose twice over, so the kill record counts
the two as one (``independent``), and the pair table asks for cases that are
not mirrors of each other.

The mirror of a request turns the board upside down and swaps the colours:
every rank r becomes 9 - r, which maps ranks 1-8 onto themselves and the
extra ranks 0 and 9 of symmetric-monster onto each other, so one rule serves
every board the oracle knows.  Two requests are mirrors (or the same request)
when the op, the placement, the side to move and the move texts of the one,
mirrored, are those of the other.  The other FEN fields (castling, en passant,
clocks, variant state) follow from the placement in a mirror and are left out
of the comparison, which can only merge more cases, never fewer.
"""

from __future__ import annotations


def mirror_text(text: str) -> str:
    """A move, square or FEN field with every rank digit r written as 9 - r."""
    return "".join(str(9 - int(c)) if c.isdigit() else c for c in text)


def mirror_placement(placement: str) -> str:
    """FEN field 1 seen from the other side: the ranks in reverse order, the colours swapped."""
    return "/".join(reversed(placement.split("/"))).swapcase()


def _moves(request: dict) -> tuple:
    moves = request.get("moves") or []
    return (moves,) if isinstance(moves, str) else tuple(str(m) for m in moves)


def mirror_key(request: dict) -> frozenset:
    """What a request and its colour mirror share: the unordered pair of the request's key
    and its mirror's key.  Equal keys: the same request, or each other's mirror."""
    fields = str(request.get("fen", "")).split()
    placement = fields[0] if fields else ""
    side = fields[1] if len(fields) > 1 else "w"
    moves = _moves(request)
    plain = (request.get("op"), placement, side, moves)
    mirrored = (request.get("op"), mirror_placement(placement), {"w": "b", "b": "w"}.get(side, side),
                tuple(mirror_text(m) for m in moves))
    return frozenset((plain, mirrored))


def independent(requests) -> int:
    """How many of ``requests`` are left when each colour mirror (and each repeat) is
    counted once."""
    return len({mirror_key(r) for r in requests})
