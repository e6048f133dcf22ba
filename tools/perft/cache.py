"""Perft with a transposition table: the counts of ``oracle/perft.py``, remembered.

A subtree's count depends only on the position's perft key
(``rules.perft_key``: placement, side to move, castling rights, the en
passant square when a pawn could use it, the variant's state including
whether the turn is half done) and on how deep it is counted, in moves or in
turns.  So the walk below stores every count it makes under (variant, moves
or turns, remaining depth, key) and reuses it when it reaches the same
position again with the same remaining depth.  Counts at remaining depth 1
are stored too: a lookup costs far less than generating the moves again.

Memory is bounded.  ``Table(megabytes)`` estimates the size of one entry from
the first key it stores (the key, its board string, the count and the dict's
own slots, rounded up) and holds at most ``megabytes`` worth of entries.
When it is full it evicts down to three quarters of that: first the entries
of the shallowest remaining depth, the oldest of them first (they are the
cheapest to count again and the least likely to be met again by a walk that
goes depth first), then the next depth up if that was not enough.  Entries
of deep subtrees, each worth many lookups, go last.

The plain walk in ``doublecheck.oracle.perft`` stays the reference: the tests
check that both give the same counts and divides (tests/test_perft_cache.py).
"""

from __future__ import annotations

import sys
from itertools import islice

from doublecheck.oracle.perft import perft, perft_turns, steps

from doublecheck.defaults import HASH_MB as DEFAULT_HASH_MB  # noqa: E402 (per counting process)
SLOT_BYTES = 120         # a dict slot and index, the count, and the dict's spare room, per entry
KEEP = 0.75              # a full table is cut down to this share of its capacity


def entry_bytes(key) -> int:
    """About how much memory one stored count with this key takes."""
    size = sys.getsizeof(key) + SLOT_BYTES
    if isinstance(key, tuple):
        size += sum(sys.getsizeof(part) for part in key if isinstance(part, str))
    return size


class Table:
    """Stored counts, by (variant, turns, remaining depth) and then by perft key.

    A table serves the registered rules of each variant (the variant's name is
    part of the level), never a modified copy of them.
    """

    def __init__(self, megabytes: int = DEFAULT_HASH_MB):
        if megabytes < 1:
            raise ValueError("a transposition table needs at least 1 MB")
        self.megabytes = megabytes
        self.capacity = None     # entries; known once the first key shows how big one is
        self.levels = {}         # (variant, turns, depth) -> {key: count}, in insertion order
        self.size = 0
        self.stored = 0
        self.evicted = 0

    def level(self, variant: str, turns: bool, depth: int) -> dict:
        """The dict of counts at one remaining depth (always the same object: it is emptied, never replaced)."""
        return self.levels.setdefault((variant, turns, depth), {})

    def store(self, level: dict, key, count: int) -> None:
        level[key] = count
        self.size += 1
        self.stored += 1
        if self.capacity is None:
            self.capacity = max(16, self.megabytes * 2**20 // entry_bytes(key))
        if self.size > self.capacity:
            self.evict()

    def evict(self) -> None:
        """Drop entries, shallowest depth first and oldest first, down to KEEP of the capacity."""
        excess = self.size - int(self.capacity * KEEP)
        for (_, _, depth), level in sorted(self.levels.items(), key=lambda item: item[0][2]):
            if excess <= 0:
                break
            n = min(excess, len(level))
            if n == len(level):
                level.clear()
            else:
                for key in list(islice(level, n)):
                    del level[key]
            excess -= n
            self.size -= n
            self.evicted += n

    def clear(self) -> None:
        for level in self.levels.values():
            level.clear()
        self.size = 0

    def stats(self) -> dict:
        return {"entries": self.size, "stored": self.stored, "evicted": self.evicted,
                "capacity": self.capacity, "megabytes": self.megabytes}


class Counter:
    """perft, perft_turns and divide for one variant, remembering counts in a Table.

    Each method gives exactly what the function of the same name in
    ``doublecheck.oracle.perft`` gives; only the work differs.  Without a
    table (``None``) they are those functions.
    """

    def __init__(self, rules, table: Table | None):
        self.rules = rules
        self.table = table
        self.move_levels, self.turn_levels = [], []   # the table's level dicts, by remaining depth

    def count(self, pos, depth: int, turns: bool = False) -> int:
        if self.table is None:
            return (perft_turns if turns else perft)(self.rules, pos, depth)
        if depth == 0:
            return 1
        levels = self.turn_levels if turns else self.move_levels
        while len(levels) <= depth:
            # per rules key: the same variant under other options counts differently
            levels.append(self.table.level(getattr(self.rules, "rules_key", self.rules.name), turns,
                                           len(levels)))
        return (self._turns if turns else self._moves)(pos, depth)

    def perft(self, pos, depth: int) -> int:
        return self.count(pos, depth)

    def perft_turns(self, pos, depth: int) -> int:
        return self.count(pos, depth, turns=True)

    def divide(self, pos, depth: int, turns: bool = False) -> dict:
        if depth < 1:
            raise ValueError("divide needs depth >= 1")
        return {text: self.count(after, depth - 1, turns) for text, after in steps(self.rules, pos, turns)}

    def _moves(self, pos, depth):
        return self._walk(pos, depth, self.move_levels, self.rules.legal_moves, self.rules.play,
                          lambda p: len(self.rules.legal_moves(p)))

    def _turns(self, pos, depth):
        return self._walk(pos, depth, self.turn_levels, self.rules.turns, _after_turn,
                          self.rules.count_turns)

    def _walk(self, pos, depth, levels, steps_from, follow, count_last):
        """The count below ``pos``, remembered per depth in ``levels``: ``steps_from(pos)``
        lists the steps (moves or turns), ``follow(pos, step)`` is the position after one;
        at depth 1 ``count_last(pos)`` counts the steps without playing them."""
        level = levels[depth]
        key = self.rules.perft_key(pos)
        n = level.get(key)
        if n is not None:
            return n
        if depth == 1:
            n = count_last(pos)
        else:
            n = 0
            for step in steps_from(pos):
                n += self._walk(follow(pos, step), depth - 1, levels, steps_from, follow, count_last)
        self.table.store(level, key, n)
        return n


def _after_turn(pos, turn):
    """The position after a turn as ``rules.turns`` lists it: (moves, position after)."""
    return turn[1]
