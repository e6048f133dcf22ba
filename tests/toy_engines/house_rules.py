"""A protocol engine with house rules: the oracle under rule options, with two things a
site's engine often cannot do, and a hello that declares all this only when asked.

    python house_rules.py [--declare] NAME=VALUE ...

Rule options (``draws=automatic``) are played by the oracle.  ``san=no``: a request
whose moves are written in SAN is refused (``invalid-move-text``), as an engine that
reads only coordinates refuses them.  ``fen-validation=lenient``: an invalid FEN is not
refused; the engine answers as if it were a position with no moves.  Without
``--declare`` the hello says nothing of any of it, like an engine that never heard of
declared options.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from doublecheck.harness.engines import OracleAdapter  # noqa: E402
from doublecheck.harness.serve import serve  # noqa: E402
from doublecheck.oracle import options as known, variants  # noqa: E402
from doublecheck.oracle.errors import INVALID_FEN, INVALID_MOVE_TEXT, RulesError  # noqa: E402
from doublecheck.oracle.notation import read_token, turn_tokens  # noqa: E402

# What a lenient engine answers for a FEN it should have refused: a board with nothing to do.
LENIENT = {"moves": {"moves": []}, "turns": {"turns": []}, "perft": {"nodes": 0},
           "status": {"status": {"over": False, "result": None, "reason": None, "claimable": []}}}


class HouseRules:
    def __init__(self, chosen: dict, declare: bool):
        self.chosen, self.declare = chosen, declare
        rule_options = {k: v for k, v in chosen.items() if known.OPTIONS[k].kind == known.RULE}
        self.oracle = OracleAdapter(rule_options)

    def hello(self):
        claims = self.oracle.hello()
        claims.pop("options", None)
        if self.declare:
            claims["options"] = dict(self.chosen)
        return {**claims, "name": "house-rules"}

    def handle(self, request):
        if self.chosen.get("san") == "no":
            self.refuse_san(request)
        try:
            return self.oracle.handle(request)
        except RulesError as e:
            if e.code != INVALID_FEN or self.chosen.get("fen-validation") != "lenient":
                raise
            op = request.get("op")
            if op in ("fen", "play"):
                fen = request.get("fen")
                status = LENIENT["status"]["status"]
                return {"fen": fen} if op == "fen" else {"fen": fen, "status": status}
            return dict(LENIENT[op])

    def refuse_san(self, request):
        rules = variants.get(request.get("variant", "chess"))
        for item in request.get("moves") or ():
            for token in turn_tokens(item):
                try:
                    kind = read_token(rules, token)[2].kind
                except RulesError:   # not move text at all: the oracle says so
                    continue
                if kind in ("san", "castling"):
                    raise RulesError(INVALID_MOVE_TEXT, f"{token!r}: this engine reads coordinates only")


class DrawsAutomatic(HouseRules):
    """In-process (``--adapter tests.toy_engines.house_rules:DrawsAutomatic``): automatic
    draws, declared nowhere."""

    def __init__(self):
        super().__init__({"draws": "automatic"}, declare=False)


class DeclaresUnknown(HouseRules):
    """Its hello declares an option no table has."""

    def __init__(self):
        super().__init__({}, declare=False)

    def hello(self):
        return {**super().hello(), "options": {"castling": "never"}}


def main(argv):
    declare = "--declare" in argv
    chosen = known.check(dict(a.split("=", 1) for a in argv if a != "--declare"))
    return serve(HouseRules(chosen, declare), budget=None)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
