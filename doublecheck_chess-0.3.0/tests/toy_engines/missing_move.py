"""Toy engine: forgets kingside castling (e1g1 / e8g8) in its move lists."""

import toy

from doublecheck.oracle import variants


def answer(request, opts):
    reply = toy.oracle_answer(request)
    if request["op"] == "moves" and reply["ok"]:
        rules = variants.get(request["variant"])
        pos = toy.api.replay(rules, request.get("fen"), request.get("moves")).final
        kingside = {rules.move_text(pos, m) for m in rules.legal_moves(pos)
                    if m.castle is not None and rules.move_text(pos, m) in ("e1g1", "e8g8")}
        reply["moves"] = [m for m in reply["moves"] if m not in kingside]
    return reply


if __name__ == "__main__":
    toy.serve(answer=answer)
