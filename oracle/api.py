"""The oracle's text-level interface: requests and results are plain JSON values.

This is what the command line, the protocol server and the case runner use.
A request is a dict with ``op`` and the fields that operation reads::

    {"op": "moves",  "variant": "chess", "fen": "...", "moves": ["e2e4"]}
    {"op": "perft",  "variant": "chess", "depth": 3, "divide": true, "turns": false}

``fen`` defaults to the variant's start position and ``moves`` (move tokens
in coordinates or SAN) are played from it first.  Bad input raises
``RulesError`` with a stable code.
"""

from collections import Counter
from dataclasses import dataclass
from functools import cached_property

from doublecheck.oracle import variants
from doublecheck.oracle.errors import (ILLEGAL_MOVE, INVALID_FEN, INVALID_MOVE_TEXT, INVALID_REQUEST,
                                       RulesError, quote)
from doublecheck.oracle.explain import Asked, Refusal, refusal
from doublecheck.oracle.request_limits import MAX_MOVE_TEXT, MAX_MOVES, check_perft_depth
from doublecheck.oracle.perft import divide, perft, perft_turns, turn_text
from doublecheck.oracle.notation import turn_tokens
from doublecheck.oracle.position import Move, Position

VARIANTS = variants.VARIANT_NAMES
PROTOCOL_VERSION = "1"


def start_fen(variant: str) -> str:
    return variants.get(variant).start_fen


def same_fen(variant, a: str, b: str) -> bool:
    """Do two FENs describe the same position (parsed and written back the oracle's way)?
    ``variant``: an id, or the rules object (under options) to read them with."""
    rules = variants.rules_of(variant)
    return rules.fen(rules.parse_fen(a)) == rules.fen(rules.parse_fen(b))


def split_tokens(moves):
    """Move tokens as given, with a whole turn ``a,b`` split into ``a,`` and ``b``.

    At most MAX_MOVES items of at most MAX_MOVE_TEXT characters each (request_limits.py)."""
    if isinstance(moves, str):
        moves = moves.split()
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        raise RulesError(INVALID_REQUEST, "'moves' must be a list of move strings")
    if len(moves) > MAX_MOVES:
        raise RulesError(INVALID_REQUEST, f"'moves' holds {len(moves)} items; at most {MAX_MOVES} "
                                          f"are allowed (doublecheck docs protocol, \"Limits\")")
    tokens = []
    for item in moves:
        check_length(item)
        tokens += turn_tokens(item)
    return tokens


def check_length(item: str):
    """RulesError(invalid-move-text) for a move or turn over MAX_MOVE_TEXT characters."""
    if len(item) > MAX_MOVE_TEXT:
        raise RulesError(INVALID_MOVE_TEXT, f"a move or turn has at most {MAX_MOVE_TEXT} "
                                            f"characters, not {quote(item, 40)}")


@dataclass(frozen=True)
class Step:
    """One move of a played line: the position before it, the move, its text, and
    whether the turn ended with it."""

    pos: Position
    move: Move
    token: str
    ends_turn: bool


class History:
    """The repetition history of a line (G3): the identity keys of its turn-boundary
    positions, oldest first, each counted as it comes, so that ``status`` asks how
    often a position was seen (``count``, as of a tuple of keys) at a cost that does
    not grow with the line."""

    def __init__(self, keys=()):
        self.keys, self.seen = [], Counter()
        for key in keys:
            self.add(key)

    def add(self, key):
        self.keys.append(key)
        self.seen[key] += 1

    def count(self, key) -> int:
        return self.seen[key]

    def cut(self, length: int):
        """Forget every key after the first ``length``."""
        for key in self.keys[length:]:
            self.seen[key] -= 1
        del self.keys[length:]

    def __iter__(self):
        return iter(self.keys)

    def __len__(self) -> int:
        return len(self.keys)


class Line:
    """A played line: where it started (``start``), every step (``steps``), where it
    ended (``final``), and the repetition history of its turn-boundary positions
    before the last one (``history``).  It grows a move at a time and keeps its
    history as it grows, so each move costs the same however long the line is
    (a game of 16,000 turns is replayed at the speed of one of 1,000).

    ``try_play`` is the one place a move token is stepped: every tool that plays
    moves (``replay``, ``explain``, PGN replay, the desk, the harness's SAN) goes
    through it, so a token is read, played and held to the comma rule in one way."""

    def __init__(self, rules, start: Position):
        self.rules, self.start, self.final = rules, start, start
        self.steps: list[Step] = []
        self.history = History()
        self.at_boundary = not rules.mid_turn(start)   # is the next move a turn's first?

    def try_play(self, token: str) -> "Step | Refused":
        """Play one move token at the end of the line: the step (now on the line), or
        ``Refused`` (the line unchanged) when the token names no legal move here or
        its comma says the turn goes on where the move ends it (G8).  The refusal's
        reason and rule id are the rules' own (``Refused.reason``), worked out only
        when asked for."""
        rules, pos = self.rules, self.final
        try:
            move = rules.parse_move(pos, token)
        except RulesError as e:
            if e.code not in (ILLEGAL_MOVE, INVALID_MOVE_TEXT):
                raise
            return Refused(self, token, error=e)
        after = rules.play(pos, move)
        ends = not rules.mid_turn(after)   # asked once: in some variants it is a move generation
        if ends and says_turn_goes_on(token):     # G8: the comma rule, checked here only
            return Refused(self, token, move=move)
        step = Step(pos, move, token, ends)
        self.add(step, after)
        return step

    def play(self, token: str) -> Step:
        """Play one move token at the end of the line; RulesError (worded from the
        rules' reason, ``Refused.error``) when ``try_play`` refuses it."""
        tried = self.try_play(token)
        if isinstance(tried, Refused):
            raise tried.error()
        return tried

    def add(self, step: Step, after: Position):
        """Append a step already played (``after`` is the position it leads to)."""
        if self.at_boundary:
            self.history.add(self.rules.identity(step.pos))
        self.steps.append(step)
        self.final, self.at_boundary = after, step.ends_turn

    def mark(self) -> tuple:
        """Where the line ends now, for ``cut``."""
        return len(self.steps), len(self.history), self.final, self.at_boundary

    def cut(self, mark: tuple):
        """Take back every step played after ``mark``."""
        steps, keys, self.final, self.at_boundary = mark
        del self.steps[steps:]
        self.history.cut(keys)

    def turn_start(self) -> Position | None:
        """The position where the turn under way began (None when the line does not show it)."""
        if self.at_boundary:
            return self.final
        for step in reversed(self.steps):
            if not self.rules.mid_turn(step.pos):
                return step.pos
        return None

    def asked(self, token: str) -> Asked:
        """Where ``token`` is asked at the end of the line, as the explanation hooks read it."""
        comma = says_turn_goes_on(token)
        return Asked(index=self.rules.actions_played(self.final),
                     opens=self.rules.comma_marks_double and comma, comma=comma,
                     turn_start=self.turn_start(), steps=self.steps)


class Refused:
    """A move token the rules refuse at the end of a line (``Line.try_play``).

    ``reason`` is the rules' ``explain.Refusal``: the concrete detail, the rule id and
    related ids, the same words ``doublecheck explain`` shows; it is worked out on
    first reading (a caller that only needs to know the token is refused pays
    nothing for it; read it before the line moves on, as the hooks see the line's own
    steps).  ``error()`` is the RulesError ``Line.play`` raises, worded from that
    reason, so an error message and an explanation never disagree."""

    def __init__(self, line: Line, token: str, error: RulesError | None = None, move=None):
        self.rules, self.pos, self.token = line.rules, line.final, token
        self.asked = line.asked(token)
        self.parse_error, self.move = error, move

    @cached_property
    def reason(self) -> Refusal:
        if self.move is not None:          # the move is legal; its comma is not (G8)
            return self.rules.why_comma(self.pos, self.move)
        return refusal(self.rules, self.pos, self.token, self.asked, self.parse_error)

    def error(self) -> RulesError:
        found, base = self.reason, self.parse_error
        if base is None:
            return RulesError(found.code, f"{quote(self.token.strip())}: {found.words()}")
        if found.echoes_error:     # the reader's message already says all there is
            return base
        return RulesError(base.code, f"{base.message}: {found.words()}")


def says_turn_goes_on(token: str) -> bool:
    """G8: does the token end with the comma that says another move of the turn follows?"""
    return token.rstrip().endswith(",")


def replay(rules, fen=None, moves=None, start: Position | None = None) -> Line:
    """Play move tokens (coordinates or SAN; ``a,b`` is a whole turn) from ``start``, or
    else from the FEN (the start position when None), once: every step and the end.
    Time and memory are linear in the number of moves.

    Raises RulesError for an invalid FEN, unreadable move text or an illegal move.
    """
    if start is None:
        if fen is not None and not isinstance(fen, str):
            raise RulesError(INVALID_FEN, "'fen' must be a string")
        start = rules.parse_fen(fen if fen is not None else rules.start_fen)
    tokens = split_tokens(moves or [])
    line = Line(rules, start)
    for token in tokens:
        line.play(token)
    return line


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
# counter maker) -> the result's fields.  Everything else of an operation (its fields and
# their checks, its command, its text, its part of the schemas) is its row in
# doublecheck.harness.operations.

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
