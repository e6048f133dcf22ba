"""The engine's chess: python-chess does the moves (a stand-in for a real engine's generator)."""

import chess


def position(fen, moves):
    """The board after playing move tokens (coordinates or SAN) from fen (None: the start)."""
    board = chess.Board(fen) if fen is not None else chess.Board()
    for token in moves:
        try:
            board.push_uci(token)
        except ValueError:
            board.push_san(token)
    return board


def perft(board, depth):
    if depth == 0:
        return 1
    if depth == 1:
        return board.legal_moves.count()
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += perft(board, depth - 1)
        board.pop()
    return total
