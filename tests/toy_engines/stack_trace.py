"""Toy engine: its messages run over several lines, as a Node engine's stack trace does.

The trigger position is answered ``internal-error`` with a stack trace of 30 frames as its
message.  With ``--decline-perft`` every perft request is answered ``unsupported``, with a
reason of three lines.
"""

import sys

import toy

TRACE = "\n".join(["TypeError: Cannot read properties of undefined (reading 'piece')",
                   "    at Board.moves (/srv/engine/board.js:212:31)"]
                  + [f"    at frame{i} (/srv/engine/deep.js:{i}:1)" for i in range(29)])
DECLINED = "perft is not written yet:\n  it needs the move generator's undo\n  (see TODO.md)"


def answer(request, opts):
    if toy.triggered(request):
        return {"ok": False, "error": {"code": "internal-error", "message": TRACE}}
    if DECLINE and request["op"] == "perft":
        return {"ok": False, "error": {"code": "unsupported", "message": DECLINED}}
    return toy.oracle_answer(request)


if __name__ == "__main__":
    DECLINE = "--decline-perft" in sys.argv
    toy.serve(answer=answer, argv=[a for a in sys.argv[1:] if a != "--decline-perft"])
