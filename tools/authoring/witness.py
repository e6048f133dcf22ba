"""A seeded search for positions where two rules meet: the witnesses of the pair table.

A pair of rules that can hold at one moment (a stalemate in a dead position, a
mate given by the second half of a Double Move) is decided by a ruling, and a
program that applies the two rules in the other order answers differently
there.  Such a program is written down as a *probe*: a catalogued mutant of the
variant that makes exactly that mistake (``doublecheck mutants --list``).  A
witness of the pair is a request on which the oracle and the probe disagree.

The search draws requests from two sources, both deterministic for a seed:

- *small constructed positions*: the two kings and a few pieces drawn from a
  pool, placed at random, with the side to move and (sometimes) an en passant
  target drawn too; every FEN the variant refuses is dropped.  With ``clock``
  the count the automatic move-count draw reads (the halfmove clock of G3, or
  progressive chess's quiet series of P5) is drawn at or just below that
  draw's limit, so that a mate or stalemate may meet the draw;
- *positions reached by play*: seeded random games from the start position,
  looked at after every move, so at turn boundaries and between the halves.

With ``repeat`` a constructed position is asked once, as a status after
moves that bring it back to its fifth occurrence (G3), the kings walking out
and back (``return_cycle``), with its draw clock set so that the last move
also reaches the automatic move-count mark: the two automatic draws of G3
meet there (ruling G3.2).

From each position it asks ``status``, ``moves``, ``turns`` (when the
position has few enough moves) and, for each legal move, a ``play`` of that
move, which for a position between the moves of a turn is the end of the turn
and its status (``ops`` chooses among them).  A found request is kept only
when the oracle's own answer passes the second opinion where one exists: the
python-chess-backed adapter for the variants it plays
(``doublecheck.adapters.python_chess_adapter``).  ``search`` returns the
witnesses in the order found, grouped by the side to move, so that a caller
can take one about White and one about Black that are not mirror images of
each other (``mirror_key``).

Bounded by construction: ``budget`` positions at most, each with a bounded
number of requests; nothing here reads a file.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from doublecheck.authoring.mirrors import mirror_key
from doublecheck.harness.compare import compare
from doublecheck.oracle import api, variants
from doublecheck.oracle.errors import EngineError, RulesError
from doublecheck.oracle.position import WHITE

POOL = "QRBNPPqrbnpp"       # the pieces a constructed position draws from
MOVES_PER_POSITION = 24     # at most this many single moves are played from one position
PLIES = 60                  # the length of a searched game
TRIES_PER_POSITION = 50     # random placements drawn, at most, for each position asked for
CLOCK_BELOW = 2             # with ``clock``: the draw clock is drawn from limit - CLOCK_BELOW .. limit


@dataclass
class Witness:
    request: dict
    colour: str              # the side to move at the request's FEN: "white" or "black"
    oracle: dict             # the oracle's answer
    probe: dict              # the probe's answer
    checked: bool = False    # the second opinion agreed with the oracle
    origin: str = ""         # "constructed" or "played"


@dataclass
class Found:
    witnesses: list = field(default_factory=list)
    positions: int = 0       # positions looked at
    requests: int = 0        # requests asked of both

    def by_colour(self, colour: str) -> list:
        return [w for w in self.witnesses if w.colour == colour]

    def independent_pair(self):
        """One witness about White and one about Black that are not mirror images of each
        other, or None."""
        for w in self.by_colour("white"):
            for b in self.by_colour("black"):
                if mirror_key(w.request) != mirror_key(b.request):
                    return w, b
        return None


# ------------------------------------------------------------------ positions

def constructed_fens(rules, rng, count: int, pool: str = POOL, extra: int = 3, motif=None,
                     clock: bool = False):
    """Up to ``count`` FENs of small positions the variant accepts: two kings and up to
    ``extra`` pieces of ``pool``, placed at random, around a ``motif`` (a name of MOTIFS:
    a few pieces placed first, with the side to move and field 4 they need) when given;
    with ``clock``, the draw clock set near the automatic draw (``near_the_draw``)."""
    g = rules.geometry
    squares = [s for s in range(len(g.name)) if g.name[s]]
    # The bound on draws is fixed at the start: one that shrank with each position made
    # stopped the search short of its budget.
    tries, most = 0, count * TRIES_PER_POSITION
    while count > 0 and tries < most:
        tries += 1
        board = [None] * len(g.name)
        turn, ep = rng.choice("wb"), "-"
        if motif is not None:
            planted = MOTIFS[motif](rules, board, rng)
            if planted is None:
                continue
            turn, ep = planted
        free = [s for s in squares if board[s] is None]
        taken = rng.sample(free, 2 + extra)
        board[taken[0]], board[taken[1]] = "K", "k"
        for sq in taken[2:2 + rng.randint(1, extra)]:
            board[sq] = rng.choice(pool)
        if motif is None:
            ep = ep_guess(rules, board, turn, rng)
        fen = f"{placement_of(rules, board)} {turn} - {ep} 0 {rng.randint(2, 40)}"
        try:
            pos = rules.parse_fen(fen)
            if clock:
                fen = near_the_draw(rules, pos, rng)
        except RulesError:
            continue
        if fen is None:
            continue
        count -= 1
        yield fen


def automatic_clock_limit(rules) -> int:
    """The draw clock at which the game is drawn without a claim under the rules' options:
    150 halfmoves under G3's default, 15 quiet series under P5 (the first clock entry of
    ``draw_endings['automatic']``)."""
    return next(at_least for _, at_least, _ in rules.draw_endings["automatic"] if at_least is not None)


def near_the_draw(rules, pos, rng) -> str:
    """The FEN of ``pos`` with its draw clock (``rules.draw_clock``) drawn from the automatic
    limit less 0 to CLOCK_BELOW: at the limit a status meets the draw at once, below it a
    move or turn may bring the clock there.  Where only a turn's end moves that clock
    (progressive chess counts quiet series, P5), half of the positions are put before the
    last move of their turn (``rules.before_turn_end``).  A FEN the variant refuses with
    that clock raises RulesError; None when the clock set is not the one the variant's
    draws read (a plugin counting something else)."""
    value = automatic_clock_limit(rules) - rng.randint(0, CLOCK_BELOW)
    later = rules.before_turn_end(pos)
    if later is not None and rng.random() < 0.5:
        pos = later
    pos = rules.with_draw_clock(pos, value)
    fen = rules.fen(pos)
    read = rules.parse_fen(fen)               # the variant's own checks of the clocks
    return fen if rules.draw_clock(read) == value else None


def en_passant_motif(rules, board, rng):
    """A pawn that has just stepped two squares and an enemy pawn beside it that may take it
    en passant: (side to move, field 4), or None where the board has no room for it."""
    g = rules.geometry
    turn = rng.choice("wb")
    mover = "w" if turn == "b" else "b"
    start = rules.pawn_start_rank[mover]
    step = rules.forward[mover]
    files = sorted({g.file[s] for s in range(len(g.name)) if g.name[s]})
    file = rng.choice(files)
    home, over, there = (g.square(file, start + k * step) for k in (0, 1, 2))
    side = g.square(file + rng.choice((-1, 1)), start + 2 * step)
    if None in (home, over, there, side):
        return None
    board[there] = "P" if mover == "w" else "p"
    board[side] = "p" if mover == "w" else "P"
    return turn, g.name[over]


MOTIFS = {"en-passant": en_passant_motif}


def placement_of(rules, board) -> str:
    """FEN field 1 for a board list (ranks from the top; runs of empty squares as digits)."""
    g = rules.geometry
    rows = []
    for rank in sorted({g.rank[s] for s in range(len(g.name)) if g.name[s]}, reverse=True):
        row, empty = "", 0
        for sq in g.rank_squares(rank):
            if board[sq] is None:
                empty += 1
                continue
            row += (str(empty) if empty else "") + board[sq]
            empty = 0
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows)


def ep_guess(rules, board, turn, rng) -> str:
    """An en passant field a double step of the side not to move could have left, drawn at
    random among those the board allows (often none: ``-``)."""
    g = rules.geometry
    pawn = "p" if turn == "w" else "P"
    step = -1 if turn == "w" else 1                       # from the pawn back over the passed square
    start_rank = rules.pawn_start_rank["b" if turn == "w" else "w"] if hasattr(rules, "pawn_start_rank") else None
    found = []
    for sq, piece in enumerate(board):
        if piece != pawn or start_rank is None:
            continue
        over = g.square(g.file[sq], g.rank[sq] - step)
        home = g.square(g.file[sq], g.rank[sq] - 2 * step)
        if over is None or home is None or g.rank[home] != start_rank:
            continue
        if board[over] is None and board[home] is None:
            found.append(g.name[over])
    if found and rng.random() < 0.7:
        return rng.choice(found)
    return "-"


def played_fens(rules, rng, games: int, plies: int = PLIES):
    """FENs along ``games`` seeded random games from the start, one after every move
    (turn boundaries and positions between the moves of a turn)."""
    for _ in range(games):
        pos = rules.parse_fen(rules.start_fen)
        for _ in range(plies):
            if rules.status(pos)["over"]:
                break
            moves = sorted(rules.legal_moves(pos), key=lambda m: rules.move_text(pos, m))
            if not moves:
                break
            pos = rules.play(pos, rng.choice(moves))
            yield rules.fen(pos)


# ------------------------------------------------------------- repetitions

CYCLE_TURNS = (2, 4)        # a repetition cycle: each side's king walks out and back in 2 or 4 turns
REPEATS = 4                 # the cycle played this often makes the fifth occurrence (G3)
WALKS_TRIED = 8             # at most this many ends of one turn's walk are followed further (a bound)


def king_walks(rules, pos) -> dict:
    """The ways the side to move can complete its turn moving only its king and taking
    nothing: {identity of the position after it: (move texts, that position)}, one walk for
    each end (a depth-first walk through the moves of the turn, each in-turn position once)."""
    ends, seen = {}, set()

    def walk(p, texts):
        if (p.board, p.state) in seen:
            return
        seen.add((p.board, p.state))
        for m in rules.legal_moves(p):
            frm = getattr(m, "frm", None)
            if frm is None or (p.board[frm] or " ")[-1] not in "Kk" or p.board[m.to] is not None:
                continue
            q, said = rules.play(p, m), texts + [rules.move_text(p, m)]
            if rules.mid_turn(q):
                walk(q, said)
            elif not rules.status(q)["over"]:
                ends.setdefault(rules.identity(q), (said, q))

    walk(pos, [])
    return ends


def return_cycle(rules, pos):
    """Move texts of 2 or 4 quiet turns, king moves only, after which ``pos`` stands again
    (same identity, G3); None when the kings cannot do it along the first WALKS_TRIED walks
    of each turn (in the order of their move texts), which bounds the work."""
    start = rules.identity(pos)
    mine = "K" if pos.turn == WHITE else "k"
    home = next((sq for sq, p in enumerate(pos.board) if p == mine), None)
    if home is None:
        return None

    def follow(p, turns, said):
        walks = king_walks(rules, p)
        if turns == 1:
            back = walks.get(start)
            return said + back[0] if back else None
        ends = sorted(walks.values(), key=lambda walk: walk[0])
        if turns == 2:                    # the first mover's king must be home before the last turn
            ends = [(texts, q) for texts, q in ends if q.board[home] == mine]
        for texts, q in ends[:WALKS_TRIED]:
            found = follow(q, turns - 1, said + texts)
            if found:
                return found
        return None

    for turns in CYCLE_TURNS:
        found = follow(pos, turns, [])
        if found:
            return found
    return None


def repetition_line(rules, pos):
    """Move texts that bring ``pos`` back REPEATS times (its fifth occurrence), one
    ``return_cycle`` after another, each found from where the last one ends (a progressive
    series grows, so its next walk is a longer one), with the position they end in; None
    when a cycle is not found."""
    line = []
    for _ in range(REPEATS):
        cycle = return_cycle(rules, pos)
        if cycle is None:
            return None
        for text in cycle:
            pos = rules.play(pos, rules.parse_move(pos, text))
        line += cycle
    return line, pos


def repetition_request(rules, fen: str):
    """A status request whose moves repeat the FEN's position until its fifth occurrence,
    with the draw clock set so that the same last move also reaches the automatic
    move-count draw (``rules.draw_clock``: halfmoves under G3, quiet series under P5),
    or None when no repetition cycle is found or the variant refuses the FEN."""
    pos = rules.parse_fen(fen)
    found = repetition_line(rules, pos)
    if found is None:
        return None
    line, end = found
    start = automatic_clock_limit(rules) - (rules.draw_clock(end) - rules.draw_clock(pos))
    if start < 0:
        return None
    try:
        at = rules.fen(rules.with_draw_clock(pos, start))
        rules.parse_fen(at)
    except RulesError:
        return None
    return {"op": "status", "fen": at, "moves": line}


# ------------------------------------------------------------------ requests

OPS = ("status", "moves", "turns", "play")     # the questions asked at each position


def requests_at(rules, fen: str, ops=OPS) -> list[dict]:
    """The questions ``ops`` asks at one position: its status, its legal moves, its legal
    turns (when there are few enough), and each legal move played (with the status after
    it), at most MOVES_PER_POSITION of them."""
    out = [{"op": op, "fen": fen} for op in ("status", "moves") if op in ops]
    pos = rules.parse_fen(fen)
    texts = sorted(rules.move_text(pos, m) for m in rules.legal_moves(pos))
    if "turns" in ops and len(texts) <= MOVES_PER_POSITION:
        out.append({"op": "turns", "fen": fen})
    if "play" in ops:
        out += [{"op": "play", "fen": fen, "moves": [t]} for t in texts[:MOVES_PER_POSITION]]
    return out


def answer(handle, request: dict) -> dict:
    """An answer as an engine gives it to the harness: ``{"ok": True, ...}`` or
    ``{"ok": False, "error": {"code": ...}}`` (a rules error is an answer too)."""
    try:
        return {"ok": True, **handle(request)}
    except (RulesError, EngineError) as e:
        return {"ok": False, "error": {"code": e.code, "message": e.message}}


def expectation(got: dict) -> dict:
    """The ``expect`` of a case from an answer (``answer``)."""
    if got["ok"]:
        return {k: v for k, v in got.items() if k != "ok"}
    return {"error": {"code": got["error"]["code"]}}


def handler(rules):
    return lambda request: api.handle(request, rules=rules)


def second_opinion(variant: str):
    """The python-chess-backed adapter's ``handle`` where it plays the variant, else None."""
    try:
        from doublecheck.adapters.python_chess_adapter import PythonChessAdapter
    except ImportError:            # python-chess is not installed: no second opinion
        return None
    adapter = PythonChessAdapter()
    return adapter.handle if variant in adapter.hello()["variants"] else None


def search(variant: str, probe, seed: int, budget: int = 400, games: int = 20,
           pool: str = POOL, extra: int = 3, want: int = 4, ops=OPS, motif=None,
           clock: bool = False, repeat: bool = False) -> Found:
    """Witnesses where ``probe`` (a rules object making one mistake) and the oracle differ:
    ``budget`` constructed positions (their draw clock near the automatic draw with
    ``clock``; with ``repeat`` each asked once, repeated to its fifth occurrence as the
    clock reaches the automatic draw: ``repetition_request``), then the positions of
    ``games`` random games, until ``want`` witnesses of each colour are found.  The same
    arguments give the same result."""
    oracle = variants.get(variant)
    rng = random.Random(seed)
    other_view = second_opinion(variant)
    found = Found()
    sources = (("constructed", constructed_fens(oracle, rng, budget, pool, extra, motif, clock)),
               ("played", played_fens(oracle, rng, games)))
    for origin, fens in sources:
        for fen in fens:
            found.positions += 1
            colour = "white" if fen.split()[1] == "w" else "black"
            if len(found.by_colour(colour)) >= want:
                if all(len(found.by_colour(c)) >= want for c in ("white", "black")):
                    return found
                continue
            if repeat and origin == "constructed":
                asking = [r for r in [repetition_request(oracle, fen)] if r is not None]
            else:
                asking = requests_at(oracle, fen, ops)
            for request in asking:
                found.requests += 1
                asked = {**request, "variant": variant}
                expected = expectation(answer(handler(oracle), asked))
                got = answer(handler(probe), asked)
                if not compare(variant, expected, got):
                    continue
                checked = False
                if other_view is not None:
                    if compare(variant, expected, answer(other_view, asked)):
                        continue          # the second opinion disagrees: not curated-grade
                    checked = True
                found.witnesses.append(Witness(request, colour, expected, got, checked, origin))
                break
    return found


# ------------------------------------------------------------------ cases

class Disagreement(Exception):
    """The second opinion answers a request otherwise than the oracle: no curated case."""


def as_case(variant: str, case_id: str, rules: list, description: str, source: str,
            request: dict, colour: str, covers=()) -> dict:
    """A curated case: the request, the oracle's answer as the expected value, checked by the
    second opinion where there is one (``Disagreement`` when it differs)."""
    asked = {**request, "variant": variant}
    expect = expectation(answer(handler(variants.get(variant)), asked))
    other_view = second_opinion(variant)
    if other_view is not None:
        diff = compare(variant, expect, answer(other_view, asked))
        if diff:
            raise Disagreement(f"{case_id}: the second opinion differs: {'; '.join(diff)}")
    return {"id": case_id, "rules": list(rules), "covers": [*covers, f"colour:{colour}"],
            "description": description, "source": source, "request": dict(request), "expect": expect}


def killed_by(case: dict, variant: str, probe) -> bool:
    """Does the case catch ``probe`` (its answer differs from the expected one)?"""
    return bool(compare(variant, case["expect"], answer(handler(probe), {**case["request"], "variant": variant})))


# ------------------------------------------------------------ the command

CANDIDATE_TOPIC = "witness-candidates"


def candidate_file(variant: str, mutant, found: Found, seed: int) -> dict:
    """A case file of the witnesses found for ``mutant``: each case's expected value is the
    oracle's answer (agreed by the second opinion where ``checked``).  Their descriptions and
    sources say only how they were found: an author states the position's point and the ruling
    that decides it before moving a case into the tree."""
    cases = []
    for n, w in enumerate(found.witnesses, 1):
        opinion = ("; the python-chess-backed adapter gives the same answer" if w.checked else "")
        cases.append({
            "id": f"{variant}/{CANDIDATE_TOPIC}/{mutant.name.split('/', 1)[1]}-{n}",
            "rules": [mutant.rule],
            "covers": [f"colour:{w.colour}"],
            "description": f"a {w.origin} position where {mutant.description} answers otherwise "
                           f"(write what the position shows before keeping it)",
            "source": f"the oracle's answer under ruling {mutant.rule}, found by the seeded witness "
                      f"search (seed {seed}){opinion}; check it by hand against the ruling",
            "request": w.request, "expect": w.oracle})
    return {"variant": variant, "topic": CANDIDATE_TOPIC, "generated": False,
            "description": f"Candidate cases for {mutant.name} found by 'doublecheck witness' "
                           f"(seed {seed}); not part of the shipped tree until each is checked.",
            "cases": cases}


def witness_command(args) -> int:
    """``doublecheck witness MUTANT``: search, print what was found, optionally write the
    candidates; exit 0 when one witness per colour was found (one about White and one about
    Black that are not mirrors of each other), 1 when the budget ran out first."""
    import json
    import sys
    from pathlib import Path

    from doublecheck.authoring.mutants import CATALOGUE
    from doublecheck.casefiles import DataError
    from doublecheck.oracle.errors import UNKNOWN_MUTANT

    mutant = CATALOGUE.get(args.mutant)
    if mutant is None:
        raise DataError(UNKNOWN_MUTANT, f"unknown mutant {args.mutant!r}; 'doublecheck mutants --list' "
                                         f"shows the {len(CATALOGUE)} known ones")
    found = search(mutant.variant, mutant.rules(), args.seed, budget=args.budget, games=args.games,
                   want=args.want, motif=args.motif, clock=args.clock, repeat=args.repeat,
                   **{k: v for k, v in (("pool", args.pool), ("extra", args.extra)) if v is not None})
    pair = found.independent_pair()
    if args.json:
        print(json.dumps({"mutant": mutant.name, "seed": args.seed, "positions": found.positions,
                          "requests": found.requests, "independent_pair": pair is not None,
                          "witnesses": [{"colour": w.colour, "origin": w.origin, "checked": w.checked,
                                         "request": w.request, "oracle": w.oracle, "probe": w.probe}
                                        for w in found.witnesses]}))
    else:
        print(f"{mutant.name}: {len(found.witnesses)} witness(es) in {found.positions} positions, "
              f"{found.requests} requests (seed {args.seed})")
        for w in found.witnesses:
            mark = ", second opinion agrees" if w.checked else ""
            print(f"  {w.colour} ({w.origin}{mark}): {json.dumps(w.request)}")
        if pair is None:
            print("  not found within the budget: no witness about White and one about Black that "
                  "are not colour mirrors (raise --budget or --games, or try another --seed)")
    if args.out and found.witnesses:
        Path(args.out).write_text(json.dumps(candidate_file(mutant.variant, mutant, found, args.seed),
                                             indent=1) + "\n", encoding="utf-8")
        print(f"wrote {len(found.witnesses)} candidate case(s) to {args.out}", file=sys.stderr)
    return 0 if pair is not None else 1
