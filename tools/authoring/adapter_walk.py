"""The deep tier's second walk through the python-chess adapter.

A count of over 100 million nodes is checked by a second walk when it is made
(``DeepPerft.second``).  The oracle's plain walk shares the oracle's move
generation with the count it checks; this walk shares nothing with it: it asks
the python-chess adapter (``doublecheck.adapters.python_chess_adapter``, written
from the catalogue on top of python-chess) through the adapter interface, the
way ``doublecheck run`` would.  It lists the first steps (moves, or whole turns
with ``turns``), counts below each one in a pool of processes, and gives the
total and the divide, keyed as the oracle keys them (G8: a turn's moves joined
by commas).
"""

from __future__ import annotations

import time
from concurrent.futures import ProcessPoolExecutor, as_completed

from doublecheck.adapters.python_chess_adapter import PythonChessAdapter
from doublecheck.progress import Progress

NAME = "the python-chess adapter (tools/adapters/python_chess_adapter.py, no code shared with the oracle)"


def base_request(variant: str, fen, moves) -> dict:
    return {"variant": variant, **({"fen": fen} if fen is not None else {}), "moves": list(moves)}


def first_steps(base: dict, turns: bool) -> list[list[str]]:
    """Each first step as the move tokens that play it: a turn ``a,b,c`` is ``a,`` ``b,`` ``c``
    (the comma says the turn goes on, G8)."""
    adapter = PythonChessAdapter()
    if not turns:
        return [[move] for move in adapter.handle({**base, "op": "moves"})["moves"]]
    listed = adapter.handle({**base, "op": "turns"})["turns"]
    return [[m + "," for m in turn.split(",")[:-1]] + [turn.split(",")[-1]] for turn in listed]


def count_below(request: dict) -> int:
    """One subtree's count, in a worker process."""
    return PythonChessAdapter().handle(request)["nodes"]


def divide(variant: str, fen, moves, depth: int, turns: bool = False, jobs: int = 1,
           log=None, label: str = "second walk") -> tuple[dict, float]:
    """({"nodes": total, "divide": {first step: count}}, seconds) counted by the adapter
    over ``jobs`` processes."""
    started = time.perf_counter()
    base = base_request(variant, fen, moves)
    steps = first_steps(base, turns)
    table = {}
    with Progress(label, len(steps), "first steps", None, stream=log) as progress:
        if depth == 1:
            table = {key(s): 1 for s in steps}
        else:
            with ProcessPoolExecutor(max_workers=jobs) as pool:
                waiting = {pool.submit(count_below, {**base, "op": "perft", "moves": base["moves"] + s,
                                                     "depth": depth - 1, "turns": turns}): s for s in steps}
                for done in as_completed(waiting):
                    table[key(waiting[done])] = done.result()
                    progress.finish(key(waiting[done]))
    seconds = round(time.perf_counter() - started, 1)
    return {"nodes": sum(table.values()), "divide": dict(sorted(table.items()))}, seconds


def key(tokens: list[str]) -> str:
    """A first step as the oracle's divide names it: a move as written (double-move's
    ``e2e4`` and ``e2e4,`` are two moves, G8), a turn as its moves joined by commas."""
    if len(tokens) == 1:
        return tokens[0]
    return ",".join(t.rstrip(",") for t in tokens)
