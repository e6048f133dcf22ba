"""A chess adapter with one rule mistake (it never castles short), for the pytest plugin tests."""

from doublecheck.adapters.python_chess_adapter import PythonChessAdapter

SHORT_CASTLING = {"e1g1", "e8g8"}


class NoShortCastling(PythonChessAdapter):
    def handle(self, request):
        answer = super().handle(request)
        if request["op"] == "moves":
            answer["moves"] = [m for m in answer["moves"] if m not in SHORT_CASTLING]
        return answer
