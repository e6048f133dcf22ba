"""Engines with one planted fault each, for the failure-report tests and benchmarks/report_bench.py.

Each fault is a rules class (a subclass of the oracle's, or a mutant of the
catalogue) answered through the oracle's request handling, so it differs
from the oracle only where its fault applies:

- ``pawn-attacks-inverted`` (chess, FIDE-3.9.2): the king-safety test looks
  for enemy pawns on the wrong side of a square, as an engine with the pawn
  direction inverted in its attack table would;
- ``castle-through-attack`` (chess, FIDE-3.8.2.2): the mutant of that name;
- ``no-second-en-passant`` (marseillais, M4): the mutant ``no-alekhine``,
  whose move two never takes en passant.

``FaultAdapter(name)`` is an in-process adapter; ``python3
tests/toy_engines/faults.py NAME`` serves it over the protocol.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from doublecheck.oracle import api  # noqa: E402
from doublecheck.oracle.chess import Chess  # noqa: E402
from doublecheck.oracle.position import WHITE, other  # noqa: E402


class PawnAttacksInverted(Chess):
    """Chess whose king-safety test sees an enemy pawn as attacking the squares behind it."""

    def king_safe_after(self, pos, move):
        board = self.move_board(pos, move)
        king = "K" if pos.turn == WHITE else "k"
        if king not in board:
            return True
        sq, by = board.index(king), other(pos.turn)
        pawn = "P" if by == WHITE else "p"
        without = [None if p == pawn else p for p in board]
        if self.attacked(without, sq, by):
            return False
        g = self.geometry
        behind = g.rank[sq] + self.forward[by]   # the fault: the pawn is looked for ahead of it
        for df in (-1, 1):
            t = g.square(g.file[sq] + df, behind)
            if t is not None and board[t] == pawn:
                return False
        return True


def _mutant(name):
    def make():
        from doublecheck.authoring.mutants import CATALOGUE
        return CATALOGUE[name].rules()
    return make


# fault name -> (variant, the rule it breaks, the rules object's maker)
FAULTS = {
    "pawn-attacks-inverted": ("chess", "FIDE-3.9.2", PawnAttacksInverted),
    "castle-through-attack": ("chess", "FIDE-3.8.2.2", _mutant("chess/castle-through-attack")),
    "no-second-en-passant": ("marseillais", "M4", _mutant("marseillais/no-alekhine")),
}


class FaultAdapter:
    """One planted fault as an adapter: it claims the fault's variant and every operation."""

    def __init__(self, fault: str = "pawn-attacks-inverted"):
        self.fault = fault
        self.variant, self.rule, make = FAULTS[fault]
        self.rules = make()

    def hello(self) -> dict:
        return {"name": self.fault, "variants": [self.variant], "ops": list(api.OPS)}

    def handle(self, request: dict) -> dict:
        return api.handle(request, rules=self.rules)


class PawnAttacksInvertedAdapter(FaultAdapter):
    """``--adapter tests.toy_engines.faults:PawnAttacksInvertedAdapter``."""

    def __init__(self):
        super().__init__("pawn-attacks-inverted")


class NoSecondEnPassantAdapter(FaultAdapter):
    def __init__(self):
        super().__init__("no-second-en-passant")


if __name__ == "__main__":
    from doublecheck.adapter import serve
    sys.exit(serve(FaultAdapter(sys.argv[1] if len(sys.argv) > 1 else "pawn-attacks-inverted")))
