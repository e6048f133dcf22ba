"""What the rules desk answers: JSON in, JSON out, nothing remembered.

Every request is a JSON object shaped like a request of the engine protocol
(docs/protocol.md): ``variant`` (default ``chess``), ``fen`` (default: the
variant's start position) and ``moves`` (the line played from it, move
tokens or whole turns) say which position is meant; ``options`` (NAME: VALUE,
docs/options.md) plays it under declared rule options.  Nothing is kept between
requests, so two tabs, or two people, can never disturb each other.  The
server wraps each answer as the protocol does: ``{"ok": true, ...fields}``,
or ``{"ok": false, "error": {"code", "message"}}`` for an error raised here.

The operations, ``answer(op, request)``:

- the protocol's ``moves``, ``turns``, ``play``, ``status`` and ``fen``,
  answered by ``doublecheck.oracle.api.handle`` exactly as ``doublecheck
  serve`` answers them (``perft`` is left out: its cost has no bound that a
  page could promise);
- ``position``: everything the page draws for one moment of a line;
- ``explain``: is a move or a turn legal here, and if not, why (the
  ``explain`` lookup), with the attempt drawn on the board;
- ``replay``: a PGN record checked turn by turn, with the report that
  ``doublecheck replay`` prints and each game's legal turns in coordinates;
- ``pgn``: the PGN text of a line.

docs/desk.md lists every field.
"""

from __future__ import annotations

from functools import lru_cache

from doublecheck import __version__
from doublecheck.casefiles import CASES_DIR, load_rules
from doublecheck.lookups import lookup, pgn
from doublecheck.pictures import figures
from doublecheck.harness.operations import OPERATIONS
from doublecheck.pictures.svg import (
    TURN_COLOURS,
    Arrow,
    position_svg,
    raw_arrows,
    turn_arrows,
)
from doublecheck.oracle import api, variants
from doublecheck.oracle.errors import (
    INVALID_FEN,
    INVALID_MOVE_TEXT,
    INVALID_REQUEST,
    UNSUPPORTED,
    RulesError,
)
from doublecheck.oracle.explain import side
from doublecheck.oracle.notation import read_text
from doublecheck.oracle.position import BLACK, WHITE

MAX_MOVES = 3000          # moves in a line, or turns in a PGN record, per request
ORACLE_OPS = tuple(name for name, op in OPERATIONS.items() if op.desk)
DESK_OPS = ("position", "explain", "replay", "pgn")
OPS = ORACLE_OPS + DESK_OPS
REFUSED_COLOUR = "#c62828"


def invalid(message: str) -> RulesError:
    return RulesError(INVALID_REQUEST, message)


def answer(op: str, request) -> dict:
    """The result fields for one request; raises RulesError or PgnError (with a code)."""
    if op not in OPS:
        raise RulesError(UNSUPPORTED, f"unknown operation {op!r}; the desk answers {', '.join(OPS)}")
    if not isinstance(request, dict):
        raise invalid("a request must be a JSON object")
    if op in ORACLE_OPS:
        rules, _, _ = line_of(request)    # the same checks and limits as every other operation
        return api.handle({**request, "op": op}, rules=rules)
    return {"position": position, "explain": explain, "replay": replay, "pgn": pgn_text}[op](request)


def hello() -> dict:
    """The protocol's hello, with the operations the desk answers and what the page needs."""
    out = api.hello()
    out["ops"] = list(OPS)
    out["desk"] = {"version": __version__, "max_moves": MAX_MOVES,
                   "start_fens": {v: variants.get(v).fen(variants.get(v).start) for v in api.VARIANTS},
                   "figures": figures.page_figures(), "options": rule_options()}
    return out


def rule_options() -> list[dict]:
    """The rule options the page offers (capabilities concern engines, not the desk): name,
    summary, default, values, and the variants that take each."""
    from doublecheck.lookups.commands import options_data
    return [{k: o[k] for k in ("name", "summary", "default", "variants")}
            | {"values": [v["value"] for v in o["values"]]}
            for o in options_data() if o["kind"] == "rule"]


@lru_cache(maxsize=1)
def warm_up() -> None:
    """Every first-use set-up, done once before the desk serves: the variant plugins, each
    variant's rules object and tables, the catalogue, and the modules each operation
    imports on first use.  A request then imports nothing, so no per-request stop can land
    inside an import and leave the import lock held (docs/desk.md, "Limits").  Once per
    process (every server after the first finds it done)."""
    hello()
    catalogue()
    for variant in api.VARIANTS:
        for op in (*ORACLE_OPS, "position"):
            try:
                answer(op, {"variant": variant})
            except Exception:  # noqa: BLE001 -- a plugin's fault is its own request's to report
                pass
    start = variants.get("chess")
    first = start.move_text(start.start, start.legal_moves(start.start)[0])
    answer("explain", {"variant": "chess", "move": first})
    answer("pgn", {"variant": "chess", "moves": [first]})
    answer("replay", {"pgn": f"1. {first} *"})


# ------------------------------------------------------------ the request

def line_of(request: dict):
    """(rules, fen, move tokens) of a request.  The tokens are counted here; whether
    they are legal is found out by whoever plays them."""
    variant = request.get("variant", "chess")
    if not isinstance(variant, str):
        raise invalid("'variant' must be a string, a variant id")
    options = request.get("options") or {}
    if not isinstance(options, dict):
        raise invalid("'options' must be an object of option names and values "
                      "(doublecheck rules --options)")
    rules = variants.get(variant, options)   # RulesError(unknown-option) for a name or value it lacks
    fen = request.get("fen")
    if fen is not None and not isinstance(fen, str):
        raise RulesError(INVALID_FEN, "'fen' must be a string")
    tokens = api.split_tokens(request.get("moves") or [])
    if len(tokens) > MAX_MOVES:
        raise invalid(f"the line has {len(tokens)} moves; the desk takes at most {MAX_MOVES}")
    return rules, fen, tokens


# ------------------------------------------------------------ position

def position(request: dict) -> dict:
    """One moment of a line: the board, the legal next moves, the turn under way, the
    status, and the whole line grouped into turns.  ``at`` (default: the end) is how
    many moves of the line are played for the board; the whole line must be legal."""
    rules, fen, tokens = line_of(request)
    at = request.get("at", len(tokens))
    if type(at) is not int or not 0 <= at <= len(tokens):
        raise invalid(f"'at' must be a whole number from 0 to {len(tokens)} (the moves of the "
                      f"line), not {at!r}")
    try:
        played = api.replay(rules, fen, tokens)
    except RulesError as e:
        raise RulesError(e.code, f"the line cannot be played: {e.message}") from None
    pos = played.final if at == len(tokens) else played.steps[at].pos
    shown = lookup.show_data(rules, fen, tokens[:at])
    line, arrows = line_turns(rules, played, tokens), []
    for turn in line:
        if turn["from"] < at <= turn["upto"]:     # the turn the board is in (or has just finished)
            start = played.steps[turn["from"]].pos
            arrows = drawn_turn(rules, start, tokens[turn["from"]:at])
    g = rules.geometry
    legal = [{"move": rules.move_text(pos, m),
              "from": g.name[m.frm] if m.frm is not None else None, "to": g.name[m.to],
              "drop": m.drop.lstrip("*").upper() if m.drop else None,
              "promotion": m.promotion.lower() if m.promotion else None,
              "opens_double": m.opens_double}
             for m in rules.legal_moves(pos)]
    return {"variant": rules.name, "fen": shown["fen"], "start_fen": rules.fen(played.start),
            "to_move": shown["to_move"], "mid_turn": shown["mid_turn"],
            "in_check": rules.in_check(pos) if rules.has_check else None,
            "status": shown["status"], "status_text": lookup.status_sentence(shown["status"]),
            "state": shown["state"], "notes": king_notes(rules, pos),
            "moves": [m["move"] for m in legal], "legal": legal, "turn_count": shown["turns"],
            "line": line, "at": at, "length": len(tokens),
            "coordinates": [rules.move_text(s.pos, s.move) for s in played.steps],
            "turn_actions": list(rules.turn_actions_for(pos.turn)),
            "numbers_each_turn": rules.pgn_numbers_each_turn,
            "side_actions": {side(c).lower(): list(rules.turn_actions_for(c)) for c in (WHITE, BLACK)},
            "turn": turn_panel(rules, pos, line, at, shown["status"]["over"]),
            "svg": position_svg(rules, pos, arrows, flipped=flip_of(request))}


def flip_of(request: dict) -> bool:
    """``flip``: draw the board from Black's side."""
    flip = request.get("flip", False)
    if not isinstance(flip, bool):
        raise invalid("'flip' must be true or false")
    return flip


# ------------------------------------------------- the turn as players see it

def line_turns(rules, played, tokens) -> list:
    """The line in turns: number, side, SAN, the moves as given, where each turn lies in
    the line, its actions, and why it ended short of the variant's longest turn."""
    out, begin = [], 0
    for turn_start, sans, complete in pgn.turns_of_line(rules, played):
        end = begin + len(sans)
        out.append({"number": rules.turn_number(turn_start), "side": side(turn_start.turn).lower(),
                    "san": ",".join(sans) + ("" if complete else ","), "actions": sans,
                    "slots": list(rules.turn_slots(turn_start)),
                    "moves": tokens[begin:end], "complete": complete, "from": begin, "upto": end,
                    "end": turn_end(rules, played, end - 1) if complete else None})
        begin = end
    return out


def turn_end(rules, played, index: int):
    """The rules' reason (``turn_end_reason``) why the turn ending with step ``index``
    has fewer actions than the variant's longest, with the rule's catalogue title."""
    step = played.steps[index]
    after = played.steps[index + 1].pos if index + 1 < len(played.steps) else played.final
    found = rules.turn_end_reason(step.pos, step.move, after)
    if found is None:
        return None
    return {"rule": found.rule, "words": found.words, "also": list(found.also),
            "title": catalogue().get(found.rule, {}).get("title", ""), "usual": found.usual}


def turn_panel(rules, pos, line, at: int, over: bool) -> dict:
    """The turn the side to move is playing at ``at``: one slot per action the rules
    name for it (``turn_slots``: a progressive series of n moves has n), each ``played`` (with its SAN), ``next`` (the rules allow it now) or
    ``waiting``; at a turn boundary every slot is open, and none is next once the
    game is over."""
    played = []
    if rules.mid_turn(pos):
        turn = next((t for t in line if t["from"] < at <= t["upto"]), None)
        # A FEN can start in the middle of a turn: its earlier actions were played before
        # the line, so they have no SAN here (the rules say how many: actions_played).
        sans = turn["actions"][:at - turn["from"]] if turn else []
        played = [None] * (rules.actions_played(pos) - len(sans)) + sans
    slots = []
    for i, name in enumerate(rules.turn_slots(pos)):
        state = "played" if i < len(played) else "next" if i == len(played) and not over else "waiting"
        slot = {"name": name, "san": played[i] if i < len(played) else None, "state": state}
        reason = rules.open_slot_reason(pos, i) if state == "waiting" and not over else None
        if reason is not None:   # the rules say why this action will not come, or what it waits on
            slot["why"] = {"rule": reason.rule, "words": reason.words,
                           "title": catalogue().get(reason.rule, {}).get("title", "")}
        slots.append(slot)
    return {"side": side(pos.turn).lower(), "number": rules.turn_number(pos), "slots": slots}


def drawn_turn(rules, turn_start, tokens) -> list:
    """Numbered arrows for the moves of one turn played so far."""
    try:
        return turn_arrows(rules, turn_start, "".join(tokens))
    except RulesError:
        return []


def king_notes(rules, pos) -> list[str]:
    """What a side may no longer move because a king of its is lost (the rules' own
    ``king_notes`` hook; none in the variants where a lost king ends the game)."""
    return rules.king_notes(pos)


# ------------------------------------------------------------- explain

def explain(request: dict) -> dict:
    """The ``explain`` lookup for ``move`` or ``turn`` (text, SAN or coordinates) or
    ``click`` (a from- and a to-square, or a drop), with the rule statements and the
    attempt drawn over the position (``svg``)."""
    rules, fen, tokens = line_of(request)
    given = [k for k in ("move", "turn", "click") if request.get(k) is not None]
    if len(given) != 1:
        raise invalid("give exactly one of 'move', 'turn' or 'click'")
    move, turn = request.get("move"), request.get("turn")
    for key, value in (("move", move), ("turn", turn)):
        if value is not None and not isinstance(value, str):
            raise invalid(f"'{key}' must be a string of move text")
    if "click" in given:
        pos = api.replay(rules, fen, tokens).final
        move = click_text(rules, pos, request["click"])
    result = lookup.explain(rules, fen, tokens, move=move, turn=turn)
    if not result["legal"] and result["code"] == INVALID_MOVE_TEXT:
        raise RulesError(INVALID_MOVE_TEXT, result["reason"])
    result["rule_statements"] = statements(result["rules"])
    result["svg"] = attempt_svg(rules, result, flip_of(request))
    return result


def click_text(rules, pos, click) -> str:
    """Move text for a click: ``{"from": "e7", "to": "e8"}`` (a pawn that reaches its
    promotion rank is promoted to a queen unless ``promotion`` names the piece),
    ``{"drop": "K", "to": "e0"}``; ``"double": true`` writes the opening half of a
    Double Move where the rules write it with a comma."""
    if not isinstance(click, dict):
        raise invalid("'click' must be an object: {\"from\": square, \"to\": square}")
    g = rules.geometry

    def square(key):
        name = click.get(key)
        if not isinstance(name, str) or name not in g.index:
            raise invalid(f"click: '{key}' must be a square of the {rules.name} board, not {name!r}")
        return name

    to = square("to")
    drop, promotion, double = click.get("drop"), click.get("promotion"), click.get("double", False)
    if not isinstance(double, bool):
        raise invalid("click: 'double' must be true or false")
    if drop is not None:
        if not (isinstance(drop, str) and len(drop) == 1 and drop.upper() in "KQRBNP"):
            raise invalid(f"click: 'drop' must be a piece letter (K, Q, R, B, N, P), not {drop!r}")
        text = f"{drop.upper()}@{to}"
    else:
        frm = square("from")
        text = frm + to
        if promotion is not None:
            if not (isinstance(promotion, str) and promotion.lower() in ("q", "r", "b", "n")):
                raise invalid(f"click: 'promotion' must be q, r, b or n, not {promotion!r}")
            text += promotion.lower()
        else:
            ways = [m for m in rules.pseudo_moves(pos) if m.frm == g.index[frm] and m.to == g.index[to]]
            if ways and all(m.promotion for m in ways):
                text += "q"
    return text + ("," if double and rules.comma_marks_double else "")


@lru_cache(maxsize=1)
def catalogue() -> dict:
    """The rule catalogue installed with doublecheck, by id."""
    rules, _problems = load_rules(CASES_DIR)
    return rules


def statements(ids) -> dict:
    return {i: catalogue()[i].get("statement", "") for i in ids if i in catalogue()}


def attempt_svg(rules, result: dict, flipped: bool = False) -> str:
    """The position of an explanation with its moves drawn: the legal ones as numbered
    arrows, the refused one in red (dashed; just its target circled when it is SAN)."""
    pos = rules.parse_fen(result["fen"])
    entries = result["moves"]
    arrows = []
    for i, entry in enumerate(entries):
        if entry["legal"] is None:
            break
        if entry["legal"]:
            drawn = raw_arrows(rules, entry["move"], TURN_COLOURS[i % len(TURN_COLOURS)])
        else:
            drawn = raw_arrows(rules, entry["text"], REFUSED_COLOUR, dashed=True) or \
                target_circle(rules, entry["text"])
        for arrow in drawn:
            arrow.label = str(i + 1) if len(entries) > 1 else None
        arrows += drawn
    return position_svg(rules, pos, arrows, flipped=flipped)


def target_circle(rules, text: str) -> list:
    try:
        to = read_text(rules, text.strip().rstrip(",")).to
    except RulesError:
        return []
    return [] if to is None else [Arrow(None, rules.geometry.name[to], REFUSED_COLOUR)]


# -------------------------------------------------------------- replay

def replay(request: dict) -> dict:
    """``doublecheck replay`` for a pasted record: the report (``report``, the text the
    command prints; ``record_ok``) and per game the legal turns in coordinates
    (``moves``), to step through, and the first illegal turn drawn (``illegal.svg``)."""
    text = request.get("pgn")
    if not isinstance(text, str) or not text.strip():
        raise invalid("'pgn' must be the text of a PGN record")
    games = pgn.parse_pgn(text)
    count = sum(len(g.turns) for g in games)
    if count > MAX_MOVES:
        raise invalid(f"the record has {count} turns; the desk takes at most {MAX_MOVES}")
    report = pgn.replay_text(text)
    out = []
    for game, checked in zip(games, report["games"]):
        rules = variants.get(checked["variant"])
        texts = [pgn.clean_turn(t.text) for t in game.turns[:checked["turns"]]]
        _, steps = lookup.play_line(rules, checked["fen"], texts)
        entry = dict(checked, moves=[rules.move_text(s.pos, s.move) for s in steps], tags=game.tags)
        if checked["illegal"]:
            explanation = checked["illegal"]["explanation"]
            entry["illegal"] = dict(checked["illegal"], svg=attempt_svg(rules, explanation,
                                                                        flip_of(request)),
                                    rule_statements=statements(explanation["rules"]))
        out.append(entry)
    return {"record_ok": report["ok"], "report": pgn.report_text(report), "games": out}


# ----------------------------------------------------------------- pgn

def pgn_text(request: dict) -> dict:
    """The PGN of the line (``doublecheck play --pgn``)."""
    rules, fen, tokens = line_of(request)
    return {"pgn": pgn.pgn_for_line(rules, fen, tokens)}
