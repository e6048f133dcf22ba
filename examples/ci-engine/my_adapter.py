"""A chess engine checked by doublecheck: its moves and perft, through the adapter interface.

Run in-process:       doublecheck run --adapter my_adapter:MyAdapter --variant chess
Run as a subprocess:  doublecheck run --engine "python3 my_adapter.py" --variant chess
"""


from doublecheck.adapter import ILLEGAL_MOVE, INVALID_FEN, EngineError, serve
from tools.movegen import perft, position


class MyAdapter:
    def hello(self):
        return {"name": "my-engine", "variants": ["chess"], "ops": ["moves", "perft"]}

    def handle(self, request):
        fen = request.get("fen")
        try:
            board = position(fen, request.get("moves", []))
        except (ValueError, AssertionError) as e:
            code = INVALID_FEN if isinstance(e, ValueError) and fen and "fen" in str(e).lower() \
                else ILLEGAL_MOVE
            raise EngineError(code, str(e)) from None
        if not board.is_valid():
            raise EngineError(INVALID_FEN, f"not a legal position: {board.status()!r}")
        if request["op"] == "moves":
            return {"moves": [m.uci() for m in board.legal_moves]}
        return {"nodes": perft(board, request["depth"])}


if __name__ == "__main__":
    raise SystemExit(serve(MyAdapter()))
