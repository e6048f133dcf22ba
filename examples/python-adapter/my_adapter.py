"""An adapter for doublecheck: the class that answers the suite's requests for your engine.

Check it:
    doublecheck run --adapter my_adapter:MyAdapter --variant chess --quick      (in-process)
    doublecheck run --engine "python3 my_adapter.py" --variant chess --quick    (as a program)
    pytest --doublecheck-adapter my_adapter:MyAdapter --doublecheck-variant chess

python-chess plays the part of your engine here, so that the file passes as
it is; replace each use of it (marked ENGINE) with your own code. The requests
and the answers: doublecheck docs protocol; a longer walk through an adapter:
doublecheck docs adapter-guide.
"""

import chess   # ENGINE: your own move generator instead

from doublecheck.adapter import ILLEGAL_MOVE, INVALID_FEN, INVALID_MOVE_TEXT, EngineError, serve


def board_for(request):
    """The position a request asks about: its FEN (None: the start), then its moves played."""
    fen = request.get("fen")
    try:
        board = chess.Board(fen) if fen is not None else chess.Board()   # ENGINE
    except ValueError as e:
        raise EngineError(INVALID_FEN, str(e)) from None
    if not board.is_valid():
        raise EngineError(INVALID_FEN, f"not a legal position: {board.status()!r}")
    for text in request.get("moves", []):
        board.push(move_from_text(board, text))
    return board


def move_from_text(board, text):
    """One move of the request, in coordinates (e2e4) or SAN (Nf3); refused with the protocol's
    code for text that is no move at all, and another for a move that is not legal here."""
    for read in (board.parse_uci, board.parse_san):   # ENGINE
        try:
            return read(text)
        except chess.IllegalMoveError:
            raise EngineError(ILLEGAL_MOVE, f"{text} is not legal here") from None
        except ValueError:
            continue
    raise EngineError(INVALID_MOVE_TEXT, f"cannot read {text!r} as a move")


def count_nodes(board, depth):
    """perft: the number of move sequences of this length from here."""
    if depth == 0:
        return 1
    total = 0
    for move in list(board.legal_moves):   # ENGINE
        board.push(move)
        total += count_nodes(board, depth - 1)
        board.pop()
    return total


def perft(board, request):
    """The count, and with ``divide`` the count below each first move (depth 0 has none)."""
    depth = request["depth"]
    if not request.get("divide") or depth == 0:
        return {"nodes": count_nodes(board, depth)}
    divide = {}
    for move in list(board.legal_moves):   # ENGINE
        board.push(move)
        divide[move.uci()] = count_nodes(board, depth - 1)
        board.pop()
    return {"nodes": sum(divide.values()), "divide": divide}


# One function per operation you answer; hello claims exactly these, so the harness skips
# the other operations (and the variants you do not list) with that reason, never failing them.
OPS = {
    "moves": lambda board, request: {"moves": [m.uci() for m in board.legal_moves]},
    "perft": perft,
}


class MyAdapter:
    def hello(self):
        return {"name": "my-engine", "variants": ["chess"], "ops": sorted(OPS)}

    def handle(self, request):
        return OPS[request["op"]](board_for(request), request)


if __name__ == "__main__":
    raise SystemExit(serve(MyAdapter()))
