"""A tiny UCI engine for testing the UCI bridge (tools/uci.py); it only answers ``go perft``.

Run as ``python3 tests/toy_engines/fake_uci.py [MODE]``. Its moves come from
python-chess; the MODE decides how it goes wrong:

  correct    no flaw
  miscount   never generates an en passant capture (the default)
  crash      exits at once on any ``go perft`` of depth 3 or more
  hang       never answers a ``go perft`` of depth 3 or more
  garbage    answers a ``go perft`` of depth 3 or more with a line that is not a count
  mute       closes its stdout on any ``go perft`` of depth 3 or more, and stays alive
"""

import os
import sys
import time

import chess

MODE = sys.argv[1] if len(sys.argv) > 1 else "miscount"


def moves(board):
    return [m for m in board.legal_moves if not (MODE == "miscount" and board.is_en_passant(m))]


def perft(board, depth):
    if depth == 0:
        return 1
    total = 0
    for move in moves(board):
        board.push(move)
        total += perft(board, depth - 1)
        board.pop()
    return total


def go_perft(board, depth):
    if depth >= 3 and MODE == "crash":
        print("fake_uci: crashing on purpose", file=sys.stderr, flush=True)
        sys.exit(3)
    if depth >= 3 and MODE == "hang":
        time.sleep(3600)
    if depth >= 3 and MODE == "mute":
        sys.stdout.flush()
        os.close(1)
        time.sleep(3600)
    if depth >= 3 and MODE == "garbage":
        print("Nodes searched: lots")
        return
    total = 0
    for move in moves(board):
        board.push(move)
        count = perft(board, depth - 1)
        board.pop()
        print(f"{move.uci()}: {count}")
        total += count
    print(f"\nNodes searched: {total}\n")


def main():
    board = chess.Board()
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "uci":
            print("id name fake-uci " + MODE)
            print("uciok")
        elif words[0] == "isready":
            print("readyok")
        elif words[:2] == ["position", "fen"]:      # the bridge always sends a FEN
            fen, _, played = " ".join(words[2:]).partition(" moves ")
            board = chess.Board(fen)
            for move in played.split():
                board.push_uci(move)
        elif words[:2] == ["go", "perft"]:
            go_perft(board, int(words[2]))
        elif words[0] == "quit":
            return
        sys.stdout.flush()


if __name__ == "__main__":
    main()
