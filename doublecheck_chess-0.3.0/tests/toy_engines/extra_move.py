"""Toy engine: lets the king step onto attacked squares (chess), so its move lists hold illegal king moves."""

import toy

from doublecheck.oracle import variants


def answer(request, opts):
    reply = toy.oracle_answer(request)
    if request["op"] == "moves" and reply["ok"] and request["variant"] == "chess":
        rules = variants.get("chess")
        pos = toy.api.replay(rules, request.get("fen"), request.get("moves")).final
        legal = set(reply["moves"])
        for m in rules.pseudo_moves(pos):
            text = rules.move_text(pos, m)
            if pos.board[m.frm] in ("K", "k") and m.castle is None and text not in legal:
                reply["moves"].append(text)
    return reply


if __name__ == "__main__":
    toy.serve(answer=answer)
