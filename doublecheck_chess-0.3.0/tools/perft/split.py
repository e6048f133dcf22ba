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
"""

from __future__ import annotations

from collections import Counter as Multiset
from dataclasses import dataclass, field

from doublecheck.oracle.perft import steps


@dataclass(frozen=True)
class Task:
    variant: str
    pos: object          # a doublecheck.oracle.position.Position
    depth: int           # plies (moves or turns) left to count below pos
    turns: bool


@dataclass
class Plan:
    depth: int
    split: int                                   # plies from the root to the task positions
    tasks: list = field(default_factory=list)    # Task
    shares: dict = field(default_factory=dict)   # first-step text -> {task index: multiplicity}

    def divide(self, counts: list) -> dict:
        """The divide table, given the count of every task (in task order)."""
        return {text: sum(n * counts[i] for i, n in share.items()) for text, share in self.shares.items()}


def plan(rules, pos, depth: int, turns: bool = False, min_tasks: int = 1) -> Plan:
    """Split the perft tree of ``pos`` at ``depth`` (>= 1) into subtree tasks."""
    if depth < 1:
        raise ValueError("a perft tree is split below its root: depth must be at least 1")
    frontier = {}   # perft key -> (position, Multiset of first steps)
    firsts = []
    for text, after in steps(rules, pos, turns):
        firsts.append(text)
        _add(frontier, rules, after, Multiset({text: 1}))
    ply = 1
    while len(frontier) < min_tasks and ply < depth - 1:
        deeper = {}
        for here, share in frontier.values():
            children = ([after for _, after in rules.turns(here)] if turns
                        else [rules.play(here, m) for m in rules.legal_moves(here)])
            for after in children:
                _add(deeper, rules, after, share)
        frontier, ply = deeper, ply + 1
    result = Plan(depth, ply, shares={text: {} for text in firsts})
    for i, (here, share) in enumerate(frontier.values()):
        result.tasks.append(Task(rules.name, here, depth - ply, turns))
        for text, n in share.items():
            result.shares[text][i] = n
    return result


def _add(frontier, rules, pos, share):
    key = rules.perft_key(pos)
    if key in frontier:
        frontier[key][1].update(share)
    else:
        frontier[key] = (pos, Multiset(share))
