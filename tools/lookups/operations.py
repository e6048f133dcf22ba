"""The operations of the protocol, one row each: what the tools do with each one.

The oracle answers them (``doublecheck.oracle.api.ANSWERS``: one function per
operation); this table holds the rest, so nothing else lists the operations or
branches on their names: the command's one-line summary and ``--help`` text,
how its answer reads as plain text, and whether the rules desk offers it.  The
request fields and the result of each are stated in schemas/protocol.schema.json
(``doublecheck docs protocol``).  A new operation is an answer function there and
a row here; the import-time check below refuses one without the other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from doublecheck.oracle.errors import UNSUPPORTED, RulesError


@dataclass(frozen=True)
class Operation:
    summary: str                    # the command's line in ``doublecheck --help``
    help: str                       # its ``doublecheck OP --help`` text
    text: Callable[[dict], str]     # its answer as the plain text the command prints
    desk: bool = True               # the rules desk answers it (perft can run for hours: not there)


def _status_text(result: dict) -> str:
    from doublecheck.lookups.lookup import status_sentence
    return status_sentence(result["status"])


def _perft_text(result: dict) -> str:
    lines = [f"{m}: {n}" for m, n in sorted(result.get("divide", {}).items())]
    return "\n".join(lines + ([""] if lines else []) + [f"Nodes: {result['nodes']}"])


OPERATIONS = {
    "moves": Operation(
        "list the legal next moves", """\
Prints the legal moves of the side to move, one per line, in coordinate
notation (e2e4, e7e8q, e1g1 for castling).

examples:
  doublecheck moves
  doublecheck moves --moves "e2e4 e7e5" --json
  doublecheck moves --variant chess --fen '8/8/8/4k3/8/8/4P3/4K3 w - - 0 1'
""",
        text=lambda result: "\n".join(sorted(result["moves"]))),
    "turns": Operation(
        "list the legal complete turns", """\
A turn is everything one side does before the other side moves: one move in
chess, one or two in the double-move variants. The moves of a turn are joined
by commas (g3g8,g8h7). From a position in the middle of a turn, lists the ways
to finish it.

examples:
  doublecheck turns --variant double-move-anul
  doublecheck turns --moves "e2e4" --json
""",
        text=lambda result: "\n".join(sorted(result["turns"]))),
    "perft": Operation(
        "count move sequences to a given depth", """\
Counts the sequences of DEPTH moves (or complete turns, with --turns) that the
rules allow (ruling G7). --divide also prints the count below each first move:
compare it with your engine's to find the move whose subtree is wrong.

Counts already made are remembered in a transposition table of --hash MB per
counting process, so a position reached again at the same remaining depth is
not counted twice; --no-hash counts with the plain reference walk instead.
--jobs N (default: auto, every usable core for a large count) splits the
tree into subtrees counted by N local processes, each with its own table,
handing out together the subtrees that meet the same positions further down;
--scheduler ADDRESS sends them to a running Dask cluster (pip install
'doublecheck-chess[cluster]'). Progress goes to stderr (--quiet: none).
More in: doublecheck docs perft.

examples:
  doublecheck perft --depth 3               prints  Nodes: 8902
  doublecheck perft --depth 2 --divide      one 'e2e4: 20' line per move, then the total
  doublecheck perft --depth 2 --turns --variant double-move --json
  doublecheck perft --depth 6               119060324 nodes (about a minute)
  doublecheck perft --depth 5 --no-hash --jobs 2   the plain walk on two processes
  doublecheck perft --depth 7 --divide --scheduler tcp://10.0.0.5:8786
""",
        text=_perft_text, desk=False),
    "play": Operation(
        "play moves and show the resulting position and status", """\
Plays the moves given with --moves (space-separated, coordinate text or SAN)
from --fen or the start position, then prints the FEN and the game status.
Repetitions are counted over the positions the moves pass through.

examples:
  doublecheck play --moves "e2e4 e7e5 g1f3"
  doublecheck play --moves "f3 e5 g4 Qh4#" --json
""",
        text=lambda result: result["fen"] + "\n" + _status_text(result)),
    "status": Operation(
        "say whether the game is over, and why", """\
Prints whether the game is over (and the result and reason), and which draws
the side to move could claim.

examples:
  doublecheck status --fen '7k/5Q2/6K1/8/8/8/8/8 b - - 0 1'
  doublecheck status --moves "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8" --json
""",
        text=_status_text),
    "fen": Operation(
        "check a FEN and print it normalised", """\
Reads a FEN (after playing --moves, if given) and prints it in normal form;
an invalid FEN is reported with the reason.

examples:
  doublecheck fen --fen 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1'
  doublecheck fen --moves "e2e4 c7c5" --json
""",
        text=lambda result: result["fen"]),
}
# Listed in the order ``doublecheck --help`` shows them; that they are the oracle's operations
# (api.OPS) is checked by tests/test_one_source.py, not here: importing the oracle to build the
# command line would cost every command (--version included) its start-up.


def operation(op: str) -> Operation:
    """The row of ``op``; RulesError(unsupported) for an operation nobody answers."""
    if op not in OPERATIONS:
        raise RulesError(UNSUPPORTED, f"unknown operation {op!r}; known: {', '.join(OPERATIONS)}")
    return OPERATIONS[op]
