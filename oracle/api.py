"""The oracle's text-level interface: requests and results are plain JSON values.

This is what the command line, the protocol server and the case runner use.
A request is a dict with ``op`` and the fields that operation reads::

    {"op": "moves",  "variant": "chess", "fen": "...", "moves": ["e2e4"]}
    {"op": "perft",  "variant": "chess", "depth": 3, "divide": true, "turns": false}

``fen`` defaults to the variant's start position and ``moves`` (move tokens
in coordinates or SAN) are played from it first.  Bad input raises
``RulesError`` with a stable code.
"""

from dataclasses import dataclass

from doublecheck.oracle import variants
from doublecheck.oracle.errors import (ILLEGAL_MOVE, INVALID_FEN, INVALID_MOVE_TEXT, INVALID_REQUEST,
                                       RulesError, quote)
from doublecheck.oracle.limits import MAX_MOVE_TEXT, MAX_MOVES, check_perft_depth
from doublecheck.oracle.perft import divide, perft, perft_turns, turn_text
from doublecheck.oracle.notation import turn_tokens
from doublecheck.oracle.position import Move, Position

VARIANTS = variants.VARIANT_NAMES
PROTOCOL_VERSION = "1"


def start_fen(variant: str) -> str:
    return variants.get(variant).start_fen


def same_fen(variant: str, a: str, b: str) -> bool:
    """Do two FENs describe the same position (parsed and written back the oracle's way)?"""
    rules = variants.get(variant)
    return rules.fen(rules.parse_fen(a)) == rules.fen(rules.parse_fen(b))


def split_tokens(moves):
    """Move tokens as given, with a whole turn ``a,b`` split into ``a,`` and ``b``.

    At most MAX_MOVES items of at most MAX_MOVE_TEXT characters each (limits.py)."""
    if isinstance(moves, str):
        moves = moves.split()
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        raise RulesError(INVALID_REQUEST, "'moves' must be a list of move strings")
    if len(moves) > MAX_MOVES:
        raise RulesError(INVALID_REQUEST, f"'moves' holds {len(moves)} items; at most {MAX_MOVES} "
                                          f"are allowed (doublecheck docs protocol, \"Limits\")")
    tokens = []
    for item in moves:
        if len(item) > MAX_MOVE_TEXT:
            raise RulesError(INVALID_MOVE_TEXT, f"a move or turn has at most {MAX_MOVE_TEXT} "
                                                f"characters, not {quote(item, 40)}")
        tokens += turn_tokens(item)
    return tokens


@dataclass(frozen=True)
class Step:
    """One move of a played line: the position before it, the move, its text, and
    whether the turn ended with it."""

    pos: Position
    move: Move
    token: str
    ends_turn: bool


@dataclass(frozen=True)
class Line:
    """A played line: where it started, every step, where it ended, and the identity
    keys of its turn-boundary positions before the last one (for repetition, G3)."""

    start: Position
    steps: tuple
    final: Position
    history: tuple


def comma_contradicted(rules, token: str, after: Position) -> bool:
    """G8: does ``token`` end with the comma that says the turn goes on, while the
    move it names ended the turn (``after`` is the position after it)?"""
    return token.rstrip().endswith(",") and not rules.mid_turn(after)


def play_token(rules, pos: Position, token: str) -> tuple[Step, Position]:
    """Play one move token at pos: (the step, the position after it).  RulesError when
    the token names no legal move or its comma says the turn goes on when it does not."""
    move = rules.parse_move(pos, token)
    after = rules.play(pos, move)
    if comma_contradicted(rules, token, after):
        raise RulesError(ILLEGAL_MOVE, f"{quote(token)}: the comma says the turn continues, "
                                       f"but {token.rstrip(',')} ends the turn here")
    return Step(pos, move, token, not rules.mid_turn(after)), after


def replay(rules, fen=None, moves=None, start: Position | None = None) -> Line:
    """Play move tokens (coordinates or SAN; ``a,b`` is a whole turn) from ``start``, or
    else from the FEN (the start position when None), once: every step and the end.

    Raises RulesError for an invalid FEN, unreadable move text or an illegal move.
    """
    if start is None:
        if fen is not None and not isinstance(fen, str):
            raise RulesError(INVALID_FEN, "'fen' must be a string")
        start = rules.parse_fen(fen if fen is not None else rules.start_fen)
    pos, steps = start, []
    for token in split_tokens(moves or []):
        step, pos = play_token(rules, pos, token)
        steps.append(step)
    return Line(start, tuple(steps), pos, history(rules, steps))


def history(rules, steps) -> tuple:
    """The identity keys (G3) of the turn-boundary positions the steps were played from."""
    return tuple(rules.identity(s.pos) for s in steps if not rules.mid_turn(s.pos))


def handle(request: dict, rules=None, counter=None) -> dict:
    """Answer one request (see the module docstring); raises RulesError on bad input.

    ``rules`` overrides the rules object the request's variant names (the
    mutation tests use it to run the suite against deliberately wrong rules).
    ``counter(rules)`` makes the perft counter (an object with ``count(pos, depth,
    turns)`` and ``divide(pos, depth, turns)``); without it perft is the plain walk
    of ``oracle.perft``, the readable reference.  The harness passes the cached
    counter of ``doublecheck.perft`` (tested to give the same counts).
    """
    if not isinstance(request, dict):
        raise RulesError(INVALID_REQUEST, "a request must be a JSON object")
    op = request.get("op")
    if op not in OPS:
        raise RulesError(INVALID_REQUEST, f"unknown op {quote(op)}; known ops: {', '.join(OPS)}")
    if rules is None:
        rules = variants.get(request.get("variant", "chess"))
    if op == "perft":  # before any other work: an over-limit depth is refused at once
        check_perft_depth(rules, request.get("depth"), bool(request.get("turns")))
    line = replay(rules, request.get("fen"), request.get("moves"))
    return ANSWERS[op](rules, line, request, counter)


# The operations, one function each: (rules, the played line, the request, the perft
# counter maker) -> the result's fields.  The tools' side of each operation (its text,
# its command-line help, whether the desk offers it) is doublecheck.lookups.operations.

def _moves(rules, line, request, counter):
    return {"moves": [rules.move_text(line.final, m) for m in rules.legal_moves(line.final)]}


def _turns(rules, line, request, counter):
    return {"turns": [turn_text(rules, line.final, moves) for moves, _ in rules.turns(line.final)]}


def _play(rules, line, request, counter):
    return {"fen": rules.fen(line.final), "status": rules.status(line.final, line.history)}


def _status(rules, line, request, counter):
    return {"status": rules.status(line.final, line.history)}


def _perft(rules, line, request, counter):
    depth, by_first_step, turns = perft_request(request)
    count = counter(rules) if counter is not None else PlainWalk(rules)
    if by_first_step:
        table = count.divide(line.final, depth, turns=turns)
        return {"nodes": sum(table.values()), "divide": table}
    return {"nodes": count.count(line.final, depth, turns)}


def _fen(rules, line, request, counter):
    return {"fen": rules.fen(line.final)}


ANSWERS = {"moves": _moves, "turns": _turns, "play": _play, "status": _status, "perft": _perft,
           "fen": _fen}
OPS = tuple(ANSWERS)


class PlainWalk:
    """The plain perft walk of ``oracle.perft`` behind the counter interface of ``handle``."""

    def __init__(self, rules):
        self.rules = rules

    def count(self, pos, depth: int, turns: bool = False) -> int:
        return (perft_turns if turns else perft)(self.rules, pos, depth)

    def divide(self, pos, depth: int, turns: bool = False) -> dict:
        return divide(self.rules, pos, depth, turns=turns)


def perft_request(request: dict) -> tuple[int, bool, bool]:
    """(depth, divide, turns) of a perft request; RulesError(invalid-request) when they
    make no sense (a depth that is not a whole number >= 0, divide below depth 1)."""
    depth = request.get("depth")
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 0:
        raise RulesError(INVALID_REQUEST, f"'depth' must be a whole number >= 0, not {quote(depth)}")
    by_first_step = bool(request.get("divide"))
    if by_first_step and depth < 1:
        raise RulesError(INVALID_REQUEST, "divide needs depth >= 1")
    return depth, by_first_step, bool(request.get("turns"))


def hello() -> dict:
    return {"protocol": PROTOCOL_VERSION, "name": "doublecheck-oracle",
            "variants": list(VARIANTS), "ops": list(OPS)}
