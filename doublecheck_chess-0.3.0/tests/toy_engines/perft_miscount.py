"""Toy engine: after 1. e4 d5 it forgets the capture exd5, so chess perft from the start is wrong at depth 3.

Its moves and perft (with divide) agree with each other, as a real engine's
would; only that one position is wrong. With --no-divide it refuses divide.
"""

import toy

from doublecheck.oracle import variants

BLIND_SPOT = "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2"


def legal(rules, pos):
    moves = rules.legal_moves(pos)
    if rules.fen(pos).split()[:2] == BLIND_SPOT.split()[:2]:
        moves = [m for m in moves if rules.move_text(pos, m) != "e4d5"]
    return moves


def perft(rules, pos, depth):
    if depth == 0:
        return 1
    return sum(perft(rules, rules.play(pos, m), depth - 1) for m in legal(rules, pos))


def answer(request, opts):
    if request["variant"] != "chess" or request["op"] not in ("moves", "perft"):
        return toy.oracle_answer(request)
    rules = variants.get("chess")
    pos = toy.api.replay(rules, request.get("fen"), request.get("moves")).final
    if request["op"] == "moves":
        return {"ok": True, "moves": [rules.move_text(pos, m) for m in legal(rules, pos)]}
    depth = request["depth"]
    if not request.get("divide"):
        return {"ok": True, "nodes": perft(rules, pos, depth)}
    if opts.no_divide:
        return {"ok": False, "error": {"code": "unsupported", "message": "no divide here"}}
    table = {rules.move_text(pos, m): perft(rules, rules.play(pos, m), depth - 1)
             for m in legal(rules, pos)}
    return {"ok": True, "nodes": sum(table.values()), "divide": table}


if __name__ == "__main__":
    toy.serve(answer=answer)
