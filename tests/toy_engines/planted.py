"""A toy engine with planted bugs: the oracle of one variant with one or more mistakes put in.

Run as ``python3 tests/toy_engines/planted.py VARIANT BUG [BUG ...]``. A BUG is the name of
a mutant of the catalogue (``doublecheck mutants --list``, e.g. ``chess/castle-through-attack``),
one of ``PLANTED`` below, or ``play:OPTION=VALUE``: the engine plays the oracle's rules under
that rule option without declaring it (a convention it does not say it follows). Several bugs
are put in together (their classes combined). It claims only VARIANT, and every operation
unless ``ops:OP,OP`` names the ones it claims.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from toy import serve  # noqa: E402

from doublecheck.oracle import api, variants  # noqa: E402
from doublecheck.oracle.errors import RulesError  # noqa: E402
from doublecheck.oracle.position import BLACK, WHITE  # noqa: E402


def pawn_hits_inverted(base):
    """Pawns attack backwards everywhere (checks too), in any variant: each side's pawns are
    taken to hit where the other's do. (faults.py's ``pawn-attacks-inverted`` inverts them in
    the king-safety test of chess only.)"""
    class Inverted(base):
        def __init__(self, options=None):
            super().__init__(options)
            hits = self.pawn_hit_from
            self.pawn_hit_from = {WHITE: hits[BLACK], BLACK: hits[WHITE]}
    return Inverted


PLANTED = {"pawn-hits-inverted": pawn_hits_inverted}


def rules_with(variant: str, bugs: list[str]):
    from doublecheck.authoring.mutants import CATALOGUE
    options = dict(b[len("play:"):].split("=", 1) for b in bugs if b.startswith("play:"))
    classes = [CATALOGUE[b].cls for b in bugs if b in CATALOGUE]
    base = type(variants.get(variant, options or None))
    for b in bugs:
        if b in PLANTED:
            base = PLANTED[b](base)
    cls = type("Planted", tuple(classes) + (base,), {}) if classes else base
    return cls(options) if options else cls()


def main():
    variant, bugs = sys.argv[1], [b for b in sys.argv[2:] if not b.startswith("ops:")]
    ops = [b[len("ops:"):] for b in sys.argv[2:] if b.startswith("ops:")]
    rules = rules_with(variant, bugs)

    def answer(request, opts):
        try:
            return {"ok": True, **api.handle({k: v for k, v in request.items() if k != "id"},
                                             rules=rules)}
        except RulesError as e:
            return {"ok": False, "error": e.as_dict()}
    serve(answer, argv=["--variants", variant] + (["--ops", ops[0]] if ops else []))


if __name__ == "__main__":
    main()
