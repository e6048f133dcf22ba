"""Cutting a perft tree into subtrees that can be counted anywhere, and adding them up.

``plan`` walks the tree breadth first from the root.  One ply below the root
are the first steps (moves, or turns with ``turns``): the rows of a divide.
While there are fewer distinct positions than ``min_tasks`` it goes one ply
further, but never deeper than one ply above the leaves (so every task still
has at least one ply of its own to count).  That ply is the *split depth*.
Positions reached more than once at the split depth (transpositions: the
same perft key) become one task, with a multiplicity per first step.  The
count of a first step is then the sum over the tasks below it of
multiplicity x the task's count, which ``Plan.divide`` computes.

A task carries the position itself (a small picklable value) and the depth
left to count, so a worker needs nothing but the installed package.

**Keeping transpositions together** (``below`` and ``Plan.chunks``).  Each
counting process has a table of its own, so a position met below two tasks
that went to different processes is counted twice.  Two measures keep that
rare.  First, the split goes deep: down to ``below`` plies above the leaves
(2 for the pools of ``doublecheck.perft.parallel``), while the frontier stays
under ``MAX_FRONTIER`` positions, so that every transposition above that ply
is merged by the plan itself.  Second, the tasks are handed out in chunks,
and a chunk holds every task whose *neighbourhood* is the same: the placement
of the side not to move.  Two split positions that lead to one position a ply
further differ only by what the side to move did, so they share the other
side's placement and land in the same chunk, counted by one process with one
table.  (Captures break this, rarely.)  Measured on chess perft 6 from the
start with two chunks of this kind, the two processes together generated
moves at 901,190 positions against 894,596 for one process alone; chunks
by the perft key instead gave 1,300,744.  The grouping only decides who
counts what, never a count.
"""

from __future__ import annotations

import zlib
from collections import Counter as Multiset
from dataclasses import dataclass, field

from doublecheck.oracle.perft import steps

MAX_FRONTIER = 2_000_000   # positions a plan may hold at its split ply (about 1 GB in the driver)


@dataclass(frozen=True)
class Task:
    variant: str
    options: tuple       # the rules' non-default options, as (name, value) pairs: a worker
                         # rebuilds the same rules from the id and these (a count under a
                         # house rule must not be made under the defaults)
    pos: object          # a doublecheck.oracle.position.Position
    depth: int           # plies (moves or turns) left to count below pos
    turns: bool


@dataclass
class Plan:
    depth: int
    split: int                                   # plies from the root to the task positions
    tasks: list = field(default_factory=list)    # Task
    shares: dict = field(default_factory=dict)   # first-step text -> {task index: multiplicity}

    def chunks(self, n: int) -> list[list[int]]:
        """The task indices in at most ``n`` non-empty chunks, tasks of one neighbourhood together."""
        out = [[] for _ in range(max(1, n))]
        for i, task in enumerate(self.tasks):
            out[zlib.crc32(neighbourhood(task.pos)) % len(out)].append(i)
        return [chunk for chunk in out if chunk]

    def divide(self, counts: list) -> dict:
        """The divide table, given the count of every task (in task order)."""
        return {text: sum(n * counts[i] for i, n in share.items()) for text, share in self.shares.items()}


def neighbourhood(pos) -> bytes:
    """The placement of the side not to move: what positions that transpose a ply
    further down have in common (see the module docstring)."""
    mover_is_white = pos.turn == "w"
    return "".join(f"{sq}{piece}" for sq, piece in enumerate(pos.board)
                   if piece is not None and piece[-1].isupper() != mover_is_white).encode()


def plan(rules, pos, depth: int, turns: bool = False, min_tasks: int = 1, below: int | None = None) -> Plan:
    """Split the perft tree of ``pos`` at ``depth`` (>= 1) into subtree tasks: at the first
    ply with ``min_tasks`` distinct positions, or with ``below`` deeper, down to ``below``
    plies above the leaves while the frontier stays under MAX_FRONTIER positions."""
    if depth < 1:
        raise ValueError("a perft tree is split below its root: depth must be at least 1")
    frontier = {}   # perft key -> (position, Multiset of first steps)
    firsts = []
    for text, after in steps(rules, pos, turns):
        firsts.append(text)
        _add(frontier, rules, after, Multiset({text: 1}))
    ply, growth = 1, max(1, len(frontier))
    while ply < depth - 1 and (len(frontier) < min_tasks or (
            below is not None and ply < depth - below and len(frontier) * growth <= MAX_FRONTIER)):
        deeper = {}
        for here, share in frontier.values():
            children = ([after for _, after in rules.turns(here)] if turns
                        else [rules.play(here, m) for m in rules.legal_moves(here)])
            for after in children:
                _add(deeper, rules, after, share)
        growth = max(1, len(deeper) // max(1, len(frontier)))
        frontier, ply = deeper, ply + 1
    result = Plan(depth, ply, shares={text: {} for text in firsts})
    for i, (here, share) in enumerate(frontier.values()):
        result.tasks.append(Task(rules.name, rules.rules_key[1], here, depth - ply, turns))
        for text, n in share.items():
            result.shares[text][i] = n
    return result


def _add(frontier, rules, pos, share):
    key = rules.perft_key(pos)
    if key in frontier:
        frontier[key][1].update(share)
    else:
        frontier[key] = (pos, Multiset(share))
