"""Perft and divide computed by python-chess: the independent reference the chess tests count against."""

import chess


def perft(board: chess.Board, depth: int, bulk: bool = True) -> int:
    """The count; ``bulk`` counts the last ply's moves instead of playing each of them."""
    if depth == 0:
        return 1
    if depth == 1 and bulk:
        return board.legal_moves.count()
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += perft(board, depth - 1, bulk)
        board.pop()
    return total


def perft_every_leaf(board: chess.Board, depth: int) -> int:
    """``perft`` with every leaf played (what the benchmarks compare the oracle's own
    every-leaf walk with)."""
    return perft(board, depth, bulk=False)


def divide(board: chess.Board, depth: int) -> dict:
    counts = {}
    for move in board.legal_moves:
        board.push(move)
        counts[move.uci()] = perft(board, depth - 1)
        board.pop()
    return counts
