"""Where an engine first parted from the oracle along a case's line (``request["moves"]``).

A failing case that plays a line is searched, point by point from its starting position,
for the first point where the engine's answer differs from the oracle's: the starting
position itself, or the first move the engine refuses or after which it answers
differently. At each point both are asked the same question: ``play`` when the engine
claims it (it shows the FEN, so whose turn it is, and the status), else ``status`` and
``moves`` together (the status alone cannot see whose turn it is, so a turn the engine
did not end would be found one move late). Each point is asked once per engine and
question (``memo``), and one search sends at most ``DIVERGENCE_ASKS`` requests.

The result (``$defs/divergence`` of the report schema) numbers the point by the game's
own turns and moves, as the oracle plays the line (a progressive series is one turn of
many moves; an entry of the line may hold a whole turn), says what the engine did, why
the oracle plays as it does there (the turn's end and its rule, when the oracle's turn
ended with the move; else the kind of move and its rule), and which parts of the answer
differed (``differs``): the reports call the divergence a case's cause only when those
parts explain the case's own failure (``doublecheck.harness.causes``).
"""

from __future__ import annotations

import hashlib
import json

from doublecheck.harness.compare import SanNamer, aspects, difference, short_diff
from doublecheck.harness.engines import EngineFailure
from doublecheck.harness.reasons import reasons, turn_end_why
from doublecheck.oracle import api, variants
from doublecheck.oracle.api import split_tokens
from doublecheck.oracle.errors import INTERNAL_ERROR, UNSUPPORTED

DIVERGENCE_ASKS = 400  # requests one search for a first divergence may send to the engine
MEMO_ENTRIES = 20000   # answers a worker keeps from those searches


def questions(claims: dict) -> list[str]:
    """The operations asked at each point: ``play``, else ``status`` and ``moves`` (those
    the engine claims); none: no search."""
    ops = claims.get("ops", ())
    return ["play"] if "play" in ops else [op for op in ("status", "moves") if op in ops]


def first_divergence(case, engine, claims: dict, timeout, memo: dict, oracle,
                     options=None) -> dict | None:
    """The first point of the case's line where the engine's answer differs from the
    oracle's (its starting position, or a move it refuses or answers differently after),
    asked turn by turn and then move by move inside that turn. None when the engine
    agrees along the whole line (the failure is about the final position) or claims none
    of the questions; the search never costs the case. ``options``: the rule options the
    oracle plays under."""
    ops = questions(claims)
    if not ops:
        return None
    start = {k: case.request[k] for k in ("fen",) if k in case.request}
    ask = Asking(engine, oracle, case.variant, start, ops, timeout, memo)
    try:
        if not ask.agrees([]):
            return at_start(case, start, ask.answer([]), options)
        found = ask.parting(list(case.request["moves"]))
    except _Stopped as e:
        return {"stopped": str(e)}
    return None if found is None else divergence(case, start, found, ask, options)


def at_start(case, start: dict, answer: dict, options=None) -> dict:
    """The divergence of a case whose starting position the engine already answers otherwise."""
    found = {"at_start": True, "turn": 0, "turns": game_turns(case, options)[-1][0], "move": 0,
             "moves": 0, "item": 0, "text": "", "san": None, "before": [],
             "position": fen_after(case.variant, start, [], options),
             "key": cause_key(case.variant, start.get("fen"), [], ""),
             "engine": engine_words(answer).replace("after it", "there"),
             "differs": answer.get("aspects", [])}
    return found


def divergence(case, start: dict, found: tuple, ask, options=None) -> dict:
    """The structured first divergence at entry ``k`` of the line, move ``h`` of that entry."""
    line, k, halves, h = found
    before = line[:k - 1] + (["".join(halves[:h - 1])] if h > 1 else [])
    move = halves[h - 1].rstrip(",")
    answer = ask.answer(line[:k - 1] + ["".join(halves[:h])])
    namer = SanNamer(case.variant, {**start, "moves": before})
    turn, turns, index, moves = numbered(case, options, k, h)
    out = {"turn": turn, "turns": turns, "move": index, "moves": moves, "item": k,
           "text": move, "san": namer.san(move) if namer.pos is not None else None,
           "before": before, "position": fen_after(case.variant, start, before, options),
           "key": cause_key(case.variant, start.get("fen"), before, move),
           "engine": engine_words(answer), "differs": answer.get("aspects", [])}
    why = oracle_why(case.variant, {**start, "moves": before}, move, answer, options)
    if why:
        out["why"] = why
    return out


def engine_words(answer: dict) -> str:
    """What the engine did at the point: refused the move (its error), or answered otherwise."""
    error = answer.get("error") if answer.get("ok") is False else None
    if isinstance(error, dict):   # (one line: the first of the engine's message)
        first, *more = str(error.get("message")).splitlines() or [""]
        return f"refused it: {error.get('code')}: {first}" + (" ..." if more else "")
    if answer.get("diff"):
        return f"answered differently after it: {short_diff(answer['diff'])}"
    return "answered differently after it"


def oracle_why(variant: str, where: dict, move: str, answer: dict, options=None) -> dict | None:
    """Why the oracle plays as it does at the point: when the engine answered otherwise after
    the move and the oracle's turn ended with it, the turn's end and its rule; else the
    kind of legal move it is and the rule that allows it."""
    if answer.get("ok") is not False:
        ended = turn_end_why(variant, where, move, options)
        if ended:
            return ended
    found = reasons(variant, where, False, [], [move], 1, options)
    return found["items"][0] if found["items"] else None


def fen_after(variant: str, start: dict, before: list, options=None) -> str | None:
    try:
        rules = variants.get(variant, options)
        return rules.fen(api.replay(rules, start.get("fen"), before).final)
    except Exception:   # a FEN is a help here, never a requirement
        return None


def cause_key(variant: str, fen, before: list, move: str) -> str:
    """What failures with the same first divergence share: the variant, then a digest of the
    start position, the line before the move and the move (a line may be long)."""
    digest = hashlib.sha256(json.dumps([fen, before, move]).encode("utf-8")).hexdigest()[:24]
    return f"{variant}:{digest}"


# --- the game's own numbering ---------------------------------------------------

def game_turns(case, options=None) -> list[tuple[int, int]]:
    """(turn, move within the turn), from 1, of every move of the case's line as the oracle
    plays it, after a (0, 0) for the starting position; as far as the oracle can play it."""
    out = [(0, 0)]
    try:
        rules = variants.get(case.variant, options)
        line = api.Line(rules, api.replay(rules, case.request.get("fen")).final)
        turn, index = 1, 0
        for half in split_tokens(list(case.request.get("moves") or [])):
            step = line.play(half)
            index += 1
            out.append((turn, index))
            if step.ends_turn:
                turn, index = turn + 1, 0
    except Exception:   # the rest of the line is numbered by its entries
        pass
    return out


def numbered(case, options, k: int, h: int) -> tuple[int, int, int, int]:
    """(turn, turns in the line, move within that turn, moves in that turn) of move ``h``
    of entry ``k``; by the entries of the line when the oracle cannot play that far."""
    items = list(case.request["moves"])
    at = sum(len(split_tokens([t])) for t in items[:k - 1]) + h
    turns = game_turns(case, options)
    if at >= len(turns):
        return k, len(items), h, len(split_tokens([items[k - 1]]))
    turn, index = turns[at]
    in_turn = max(i for t, i in turns if t == turn)
    return turn, turns[-1][0], index, in_turn


# --- asking both ------------------------------------------------------------------

class _Stopped(Exception):
    """The engine broke while a first divergence was being looked for."""


class Asking:
    """The engine and the oracle asked the same questions at points of one line."""

    def __init__(self, engine, oracle, variant: str, start: dict, ops: list, timeout, memo: dict):
        self.engine, self.oracle, self.timeout, self.memo = engine, oracle, timeout, memo
        self.bases = [{"op": op, "variant": variant, **start} for op in ops]
        self.asked = 0

    def parting(self, line: list):
        """(line, k, halves of entry k, h): the first entry ``k`` after which the engine
        differs, and the move ``h`` of it where it does; None when it agrees to the end or
        the oracle refuses the line first."""
        if self.agrees(line):
            return None
        for k in range(1, len(line) + 1):
            if not self.agrees(line[:k]):
                break
            if self.oracle_refuses(line[:k]):
                return None
        halves, h = split_tokens([line[k - 1]]), 1
        while h < len(halves):   # which move of the turn: the engine agrees up to a comma?
            partial = line[:k - 1] + ["".join(halves[:h])]
            if self.oracle_refuses(partial) or not self.agrees(partial):
                break
            h += 1
        return line, k, halves, h

    def _both(self, moves) -> tuple[dict, dict]:
        """(the oracle's answer's ok, the engine's answer and diff) for the first question
        the engine answers otherwise, else for the first question."""
        found = [self._one(base, moves) for base in self.bases]
        return next((f for f in found if f[1]["diff"] is not None), found[0])

    def _one(self, base: dict, moves) -> tuple[dict, dict]:
        key = (base["op"], base["variant"], base.get("fen"), tuple(moves))
        if key not in self.memo:
            if self.asked >= DIVERGENCE_ASKS:
                raise _Stopped(f"the line is longer than the {DIVERGENCE_ASKS} requests allowed "
                               "for the search")
            self.asked += 1
            if len(self.memo) >= MEMO_ENTRIES:   # bounded: a long run forgets the oldest games
                self.memo.clear()
            self.memo[key] = self._compare({**base, "moves": list(moves)})
        return self.memo[key]

    def _compare(self, req: dict) -> tuple[dict, dict]:
        want = self.oracle.request(dict(req))
        got = self._engine(req)
        expect = {k: v for k, v in want.items() if k != "ok"} if want.get("ok") else \
            {"error": {"code": want["error"]["code"]}}
        try:
            diff = difference(req["variant"], expect, got)
        except Exception as e:
            raise _Stopped(f"could not compare: {type(e).__name__}: {e}") from None
        kept = {"ok": got["ok"], "error": got.get("error"), "diff": diff,
                "aspects": aspects(diff)}
        return {"ok": want.get("ok")}, kept

    def _engine(self, req: dict) -> dict:
        try:
            got = self.engine.request(dict(req), timeout=self.timeout)
        except EngineFailure as e:
            raise _Stopped(f"{e.kind}: {e.message}") from None
        except Exception as e:
            raise _Stopped(f"the engine failed: {type(e).__name__}: {e}") from None
        if not isinstance(got, dict) or not isinstance(got.get("ok"), bool):
            raise _Stopped("the engine's answer is not an answer")
        error = got.get("error") if got["ok"] is False else None
        if isinstance(error, dict) and error.get("code") in (INTERNAL_ERROR, UNSUPPORTED):
            # the engine broke or declined: no answer about the rules, so no divergence
            raise _Stopped(f"the engine answered {error.get('code')}: {error.get('message')}")
        return got

    def agrees(self, moves) -> bool:
        return all(self._one(base, moves)[1]["diff"] is None for base in self.bases)

    def oracle_refuses(self, moves) -> bool:
        return not self._both(moves)[0].get("ok")

    def answer(self, moves) -> dict:
        return self._both(moves)[1]
