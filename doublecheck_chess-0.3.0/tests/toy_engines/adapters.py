"""In-process adapters for the harness tests (``--adapter tests.toy_engines.adapters:Name``)."""

from doublecheck.oracle import api, variants
from doublecheck.oracle.perft import turn_text
from doublecheck.adapter import EngineError


class ChessMovesOnly:
    """Claims only chess and the moves operation; answers like the oracle."""

    def hello(self):
        return {"name": "chess-moves-only", "variants": ["chess"], "ops": ["moves"]}

    def handle(self, request):
        if request["op"] != "moves":
            raise EngineError("unsupported", "only moves")
        return api.handle(request)


class ForgetsEnPassant:
    """Answers like the oracle, but its move lists never hold an en passant capture."""

    def hello(self):
        return {**api.hello(), "name": "forgets-en-passant"}

    def handle(self, request):
        result = api.handle(request)
        if request["op"] == "moves":
            fen = api.handle({**request, "op": "fen"})["fen"]
            ep = fen.split()[3]
            result["moves"] = [m for m in result["moves"]
                               if not (ep != "-" and m[2:4] == ep and m[0] != m[2])]
        return result


class Raises:
    """Its handle() has a bug: every request raises ZeroDivisionError."""

    def hello(self):
        return {"name": "raises", "variants": ["chess"], "ops": ["moves"]}

    def handle(self, request):
        return 1 // 0


class DropsOneTurn:
    """double-move-anul, counting turns: after White's turn a1a2,a2b2 (from BLIND_START) it
    forgets Black's turn e8d7,d7c6. Its perft and divide agree with each other."""

    BLIND_START = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1"

    def hello(self):
        return {**api.hello(), "name": "drops-one-turn"}

    def handle(self, request):
        if request["op"] != "perft" or request["variant"] != "double-move-anul":
            return api.handle(request)
        rules = variants.get(request["variant"])
        blind = api.handle({"op": "fen", "variant": "double-move-anul", "fen": self.BLIND_START,
                            "moves": ["a1a2,a2b2"]})["fen"]

        def steps(pos):
            if request.get("turns"):
                out = [(turn_text(rules, pos, line), after) for line, after in rules.turns(pos)]
            else:
                out = [(rules.move_text(pos, m), rules.play(pos, m)) for m in rules.legal_moves(pos)]
            if rules.fen(pos) == blind:
                out = [(text, after) for text, after in out if text != "e8d7,d7c6"]
            return out

        def count(pos, depth):
            return 1 if depth == 0 else sum(count(after, depth - 1) for _, after in steps(pos))

        pos = api.replay(rules, request.get("fen"), request.get("moves")).final
        if not request.get("divide"):
            return {"nodes": count(pos, request["depth"])}
        table = {text: count(after, request["depth"] - 1) for text, after in steps(pos)}
        return {"nodes": sum(table.values()), "divide": table}


class DeclinesPerft:
    """Claims everything the oracle does, but declines every perft request as unsupported."""

    def hello(self):
        return {**api.hello(), "name": "declines-perft"}

    def handle(self, request):
        if request["op"] == "perft":
            raise EngineError("unsupported", "this engine cannot count perft")
        return api.handle(request)


class Endless:
    """Claims chess perft and never finishes one: it counts forever, and its own
    ``except Exception`` (a common sight in engines) must not keep the harness waiting."""

    def hello(self):
        return {"name": "endless", "variants": ["chess"], "ops": ["moves", "perft"]}

    def handle(self, request):
        if request["op"] != "perft":
            return api.handle(request)
        nodes = 0
        while True:
            try:
                nodes += 1
            except Exception:
                pass


class OverBudget:
    """Refuses every request with ``budget-exceeded``, as a server with a time budget does."""

    def hello(self):
        return {"name": "over-budget", "variants": ["chess"], "ops": ["moves"]}

    def handle(self, request):
        raise EngineError("budget-exceeded", "this request ran for my whole budget of 1 s")
