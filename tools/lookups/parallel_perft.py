"""Perft split over processes by first step (``doublecheck perft --jobs N``).

Each first move (or first turn, with ``turns``) is one task: a worker plays
it and counts below it.  The parent adds the counts up, so the divide table
comes for free.  Each worker walks the tree depth-first, so memory grows with
the depth, not with the number of nodes.
"""

from concurrent.futures import ProcessPoolExecutor

from doublecheck.oracle import api, variants
from doublecheck.oracle.perft import perft, perft_turns, turn_text


def _count(task):
    variant, pos, depth, turns = task
    rules = variants.get(variant)
    return (perft_turns if turns else perft)(rules, pos, depth)


def parallel_divide(variant, fen, moves, depth, turns=False, jobs=2) -> dict:
    """The divide table at `depth` from the position after `moves`, computed by `jobs` processes."""
    rules = variants.get(variant)
    pos = api.replay(rules, fen, moves).final
    if turns:
        steps = [(turn_text(rules, pos, line), after) for line, after in rules.turns(pos)]
    else:
        steps = [(rules.move_text(pos, m), rules.play(pos, m)) for m in rules.legal_moves(pos)]
    tasks = [(variant, after, depth - 1, turns) for _, after in steps]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        counts = list(pool.map(_count, tasks, chunksize=1))
    return {text: n for (text, _), n in zip(steps, counts)}
