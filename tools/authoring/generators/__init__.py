"""Case-file generators, one module per variant; see ``doublecheck.authoring.generate`` for the contract.

``Kit`` holds what every generator module shares: asking the oracle about its
variant and wrapping results as cases and case files with the module's
source and generator lines, and the two-move variants' perft tables and
checks along a random game of whole turns.
"""

from doublecheck.oracle import api


def perft_request(depth, fen=None, moves=(), turns=None, divide=False) -> dict:
    """A perft request with its fields in the order every generated file writes them:
    op, fen, moves, depth, turns (left out when None; some files write ``"turns": false``),
    divide (only when asked for)."""
    request = {"op": "perft"}
    if fen is not None:
        request["fen"] = fen
    if moves:
        request["moves"] = list(moves)
    request["depth"] = depth
    if turns is not None:
        request["turns"] = turns
    if divide:
        request["divide"] = True
    return request


def perft_expect(result: dict, divide) -> dict:
    """The expected part of a perft case: the count, and the divide sorted by first step."""
    expect = {"nodes": result["nodes"]}
    if divide:
        expect["divide"] = dict(sorted(result["divide"].items()))
    return expect


class Kit:
    def __init__(self, variant: str, source: str, generator: str,
                 perft_topic: str = "generated-perft", playouts_topic: str = "generated-playouts"):
        """``*_topic``: the case-file topics the case ids go under (``generate --seed`` writes
        both kinds into one file of its own)."""
        self.variant, self.source, self.generator = variant, source, generator
        self.perft_topic, self.playouts_topic = perft_topic, playouts_topic

    def ask(self, **request) -> dict:
        """The oracle's answer to a request about this variant."""
        return api.handle({"variant": self.variant, **request})

    def case(self, case_id, rules, description, request, expect, source=None) -> dict:
        return {"id": case_id, "rules": rules, "description": description,
                "source": source or self.source, "request": request, "expect": expect}

    def case_file(self, topic, description, cases) -> dict:
        return {"variant": self.variant, "topic": topic, "generated": True,
                "generator": self.generator, "description": description, "cases": cases}

    def perft_and_playouts(self, perft_about, perft, playouts_about, playouts) -> list:
        """The two generated files of most variants, ``generated-perft.json`` and
        ``generated-playouts.json``, as ``files()`` returns them."""
        return [(f"{self.variant}/generated-perft.json", self.case_file("generated-perft", perft_about, perft)),
                (f"{self.variant}/generated-playouts.json",
                 self.case_file("generated-playouts", playouts_about, playouts))]

    def perft_case(self, case_id, rules, description, request, source=None) -> dict:
        """A perft case (G7) for ``request`` (``perft_request``), with the oracle's count."""
        expect = perft_expect(self.ask(**request), request.get("divide"))
        return self.case(case_id, rules, description, request, expect, source)

    def perft_cases(self, positions, rules_for) -> list:
        """Perft cases (G7) for ``[(slug, description, FEN or None, [(depth, turns, divide)])]``;
        ``rules_for(fen)`` names the rule ids of a position's cases."""
        cases = []
        for slug, what, fen, runs in positions:
            for depth, turns, divide in runs:
                unit = "turn" if turns else "move"
                cases.append(self.perft_case(
                    f"{self.variant}/{self.perft_topic}/{slug}-{unit}s-{depth}", rules_for(fen),
                    f"{unit} perft {depth}{' with divide' if divide else ''} from {what}",
                    perft_request(depth, fen, turns=turns, divide=divide)))
        return cases

    def checkpoint_cases(self, game, line, every, rules, origin=None) -> list:
        """Along random game number ``game`` (a list of turn texts, played from ``origin``'s
        FEN or the start): after every ``every``-th turn the number of legal turns and the
        legal moves, the legal second moves of the next turn when it has two, and the
        game's shortest full list of legal turns."""
        origin = origin or {}
        prefix = f"{self.variant}/{self.playouts_topic}/game-{game}"
        cases, listed = [], None  # listed: (turns, n), the shortest turn list of the game
        for n in range(every, len(line) + 1, every):
            played = line[:n]
            turns = sorted(self.ask(op="turns", **origin, moves=played)["turns"])
            if listed is None or len(turns) < len(listed[0]):
                listed = (turns, n)
            cases.append(self.case(
                f"{prefix}-turn-count-after-{n}", rules,
                f"number of legal turns after turn {n} of random game {game}",
                {"op": "perft", **origin, "moves": played, "depth": 1, "turns": True},
                {"nodes": len(turns)}))
            cases.append(self.case(
                f"{prefix}-moves-after-{n}", rules,
                f"legal first moves after turn {n} of random game {game}",
                {"op": "moves", **origin, "moves": played},
                {"moves": sorted(self.ask(op="moves", **origin, moves=played)["moves"])}))
            if n < len(line) and "," in line[n]:
                half = played + [line[n].split(",")[0] + ","]
                cases.append(self.case(
                    f"{prefix}-second-moves-after-{n}", rules,
                    f"legal second moves in turn {n + 1} of random game {game}",
                    {"op": "moves", **origin, "moves": half},
                    {"moves": sorted(self.ask(op="moves", **origin, moves=half)["moves"])}))
        if listed is not None:
            turns, n = listed
            cases.append(self.case(
                f"{prefix}-turns-after-{n}", rules,
                f"legal turns after turn {n} of random game {game}",
                {"op": "turns", **origin, "moves": line[:n]}, {"turns": turns}))
        return cases

    def final_case(self, game, line, rules, origin=None) -> dict:
        """The FEN and status at the end of random game number ``game``."""
        origin = origin or {}
        result = self.ask(op="play", **origin, moves=line)
        return self.case(
            f"{self.variant}/{self.playouts_topic}/game-{game}-play", rules,
            f"FEN and status after the {len(line)} turns of random game {game}",
            {"op": "play", **origin, "moves": line}, {"fen": result["fen"], "status": result["status"]})
