"""Rules lookups for people: show a position, explain a move or a turn, list turns grouped.

``explain`` answers "is this legal here, and if not, why?".  Legality comes
from the oracle (``api.Line.try_play``, its one stepping function), and so do the
reasons: ``doublecheck.oracle.explain`` and the explanation hooks of the
rules class (documented on ``doublecheck.oracle.chess.Chess``) say which rule
refuses a move and why, which brake ended a turn, what a turn still owes, and
how the variant's state reads.  This module walks the moves of the question,
asks those hooks and lays the answers out; it knows no variant by name.

The JSON form of an explanation (``explain``'s return value) is documented
in docs/lookups.md.
"""

from __future__ import annotations

from doublecheck.harness.operations import status_sentence
from doublecheck.oracle import api, variants
from doublecheck.oracle.errors import INVALID_MOVE_TEXT, INVALID_REQUEST, RulesError
from doublecheck.oracle.explain import Refusal, side
from doublecheck.oracle.notation import turn_moves

UNICODE = {"K": "♔", "Q": "♕", "R": "♖", "B": "♗", "N": "♘", "P": "♙",
           "k": "♚", "q": "♛", "r": "♜", "b": "♝", "n": "♞", "p": "♟"}


rules_of = variants.rules_of


def play_line(rules, fen, moves):
    """Play move tokens once (``api.replay``): the final position and every step."""
    line = api.replay(rules, fen, moves)
    return line.final, list(line.steps)


def reason_text(found: Refusal, label: str) -> str:
    """``Kxh7: h7 is attacked by the pawn on g6; <gloss> (<rule>)``: the refusal's own
    words (``Refusal.words``, as an error message says them) after the move's label."""
    return f"{label}: {found.words()}"


# ----------------------------------------------------------------- explain

def explain(variant, fen=None, moves=None, move=None, turn=None, cases_dir=None) -> dict:
    """Is ``move`` (one move) or ``turn`` (moves joined by commas) legal after ``moves``?

    ``variant`` is a variant id or a rules object.  Returns a JSON-able dict (see
    docs/lookups.md); raises RulesError for a bad variant, FEN or an illegal move in
    ``moves``.
    """
    if (move is None) == (turn is None):
        raise RulesError(INVALID_REQUEST, "give exactly one of a move or a turn")
    rules = rules_of(variant)
    return explain_at(rules, api.replay(rules, fen, moves), move, turn, cases_dir)


def split_question(move, turn):
    """(text, the moves asked about, whether it is one move, whether the text ends in a comma)."""
    text = (move if move is not None else turn).strip()
    if not text:
        raise RulesError(INVALID_MOVE_TEXT, "empty move text")
    api.check_length(text)                # (before it is split: one move per comma)
    if move is not None:
        return text, [text], True, False
    moves, open_end = turn_moves(text)
    return text, moves, False, open_end


def explain_at(rules, line, move=None, turn=None, cases_dir=None) -> dict:
    """``explain`` at the end of a played line (``api.Line``).  A legal move or turn is
    played onto the line; a refused one leaves it as it was, so that a game is checked
    turn by turn without replaying it (each turn costs the same however long the game)."""
    text, halves, single, open_end = split_question(move, turn)
    pos, before = line.final, line.mark()
    start_status = rules.status(pos, line.history)
    out = {"variant": rules.name, "fen": rules.fen(pos), "to_move": side(pos.turn).lower(),
           "kind": "move" if move is not None else "turn", "input": text}
    entries, finding, label = walk(rules, line, halves, single, open_end)
    cur = line.final
    if finding is None and not single and rules.mid_turn(cur):
        finding = rules.why_incomplete(cur, entries[-1]["san"] if entries else "the first move")
        label = "incomplete turn"
    entries += [{"text": half, "legal": None} for half in halves[len(entries):]]  # never reached
    out["moves"] = entries
    if finding is not None:
        stopped = label == "incomplete turn"
        out.update(legal=False, reason=reason_text(finding, label), rule=finding.rule,
                   rules=unique([finding.rule] + finding.also), code=finding.code,
                   detail=finding.detail, incomplete=stopped,
                   refused=None if stopped else len([e for e in entries if e["legal"]]) + 1)
        if start_status["over"]:
            out["note"] = rules.game_over_note(pos, start_status)
    else:
        out.update(legal=True, reason=None, rule=None, rules=[], code=None, incomplete=False,
                   refused=None, fen_after=rules.fen(cur), ends_turn=not rules.mid_turn(cur),
                   status=rules.status(cur, line.history))
        out["turn"] = ",".join(e["move"].rstrip(",") for e in entries)
        out["san"] = ",".join(e["san"] for e in entries)
    out["rule_titles"] = rule_titles(out["rules"], cases_dir)
    if finding is not None:
        line.cut(before)
    return out


def walk(rules, line, halves, single, open_end):
    """Play the moves asked about onto ``line`` with ``Line.try_play`` (the oracle's one
    stepping function) until one is refused: (entries, the rules' refusal or None, the
    label of the refused move).  A move after the one that ended the turn is refused by
    ``why_turn_over``; a turn written with a trailing comma gives its last move the
    comma, which ``try_play`` holds to the comma rule (G8) as it does a single move's."""
    entries, last = [], None
    for i, half in enumerate(halves):
        if not single and i > 0 and line.at_boundary:
            entries.append({"text": half, "legal": False})
            return entries, rules.why_turn_over(last.pos, last.move, i), half
        final = i == len(halves) - 1
        comma = not single and (open_end if final else rules.comma_marks_double)
        tried = line.try_play(half + ("," if comma else ""))
        if isinstance(tried, api.Refused):
            entries.append({"text": half, "legal": False})
            return entries, tried.reason, half
        pos, move = tried.pos, tried.move
        entries.append({"text": half, "legal": True, "move": rules.move_text(pos, move),
                        "san": rules.san(pos, move).rstrip(","), "ends_turn": tried.ends_turn})
        last = tried
    return entries, None, None


def unique(items):
    seen = []
    for x in items:
        if x and x not in seen:
            seen.append(x)
    return seen


_TITLES = None


def rule_titles(ids, cases_dir=None) -> dict:
    """Titles of rule ids from the catalogue.

    The titles only adorn an answer that stands without them, so a catalogue that cannot
    be used (``DataError``: a damaged install or a wrong ``--cases-dir``; ``OSError``: a
    folder that cannot be listed) gives no titles, and the answer goes out without them.
    Any other exception is a fault in the code and is raised."""
    global _TITLES
    if not ids:
        return {}
    if _TITLES is None or cases_dir is not None:
        from doublecheck.casefiles import CASES_DIR, DataError, load_rules   # on demand: start-up time
        try:
            catalogue, _ = load_rules(cases_dir or CASES_DIR)
            titles = {k: v.get("title", "") for k, v in catalogue.items()}
        except (DataError, OSError):
            titles = {}
        if cases_dir is not None:
            return {i: titles[i] for i in ids if i in titles}
        _TITLES = titles
    return {i: _TITLES[i] for i in ids if i in _TITLES}


def explain_text(result: dict) -> str:
    """The explanation for a person."""
    what = "turn" if result["kind"] == "turn" else "move"
    who = result["to_move"].capitalize()
    lines = []
    if result["legal"]:
        desc = result["san"] if result["kind"] == "turn" else result["moves"][0]["san"]
        coords = result["turn"] if result["kind"] == "turn" else result["moves"][0]["move"]
        lines.append(f"{result['input']}: legal {what} for {who} ({desc}, {coords}).")
        for i, e in enumerate(result["moves"], 1):
            tail = "ends the turn" if e["ends_turn"] else "the turn goes on"
            lines.append(f"  {i}. {e['san']:<10} {e['move']:<10} {tail}")
        lines.append(f"Position after it: {result['fen_after']}")
        lines.append(status_sentence(result["status"]))
        return "\n".join(lines)
    lines.append(f"{result['input']}: not a legal {what} for {who}.")
    if result["kind"] == "turn" and len(result["moves"]) > 1:
        for i, e in enumerate(result["moves"], 1):
            state = {True: "legal", False: "refused", None: "not reached"}[e["legal"]]
            shown = f"{e['san']} ({e['move']})" if e["legal"] else e["text"]
            lines.append(f"  {i}. {shown}: {state}")
    lines.append(f"Reason: {result['reason']}")
    for rid in result["rules"]:
        title = result.get("rule_titles", {}).get(rid)
        lines.append(f"Rule {rid}" + (f": {title}" if title else "") +
                     f"   (doublecheck rules {rid})")
    if result.get("note"):
        lines.append(f"Note: {result['note']}")
    return "\n".join(lines)


# --------------------------------------------------------------------- show

def board_lines(rules, pos, ascii_only=False) -> list[str]:
    """The board, top rank first, with file letters above and below and ranks at both sides."""
    g = rules.geometry
    files = "abcdefghijklmnop"[:g.width]
    head = ("    " + "".join(f" {f} " for f in files)).rstrip()
    out = [head]
    for rank in reversed(g.ranks):
        cells = []
        for f in range(g.width):
            sq = g.square(f, rank)
            if sq is None:
                cells.append("   ")
                continue
            piece = pos.board[sq]
            if piece is None:
                cells.append(" . " if ascii_only else " · ")
                continue
            mark = "*" if piece.startswith("*") else " "
            letter = piece[-1]
            glyph = letter if ascii_only else UNICODE[letter]
            cells.append(f"{mark}{glyph} ")
        out.append(f"{rank:>2}  " + "".join(cells) + f"  {rank}")
    out.append(head)
    return out


def show_data(variant, fen=None, moves=None) -> dict:
    """The position after ``moves`` as JSON-able data: board, state sentences, counts, status."""
    return shown(rules_of(variant), fen, moves)[1]


def shown(rules, fen, moves):
    """(position, ``show_data``'s answer) after playing ``moves`` once."""
    line = api.replay(rules, fen, moves)
    pos = line.final
    status = rules.status(pos, line.history)
    g = rules.geometry
    board = {g.name[sq]: pos.board[sq] for sq in g.squares if pos.board[sq] is not None}
    legal = rules.legal_moves(pos)
    return pos, {"variant": rules.name, "fen": rules.fen(pos), "to_move": side(pos.turn).lower(),
                 "mid_turn": rules.mid_turn(pos), "board": board,
                 "state": rules.state_sentences(pos), "moves": len(legal),
                 "turns": turn_count(rules, pos) if legal else 0, "status": status}


def turn_count(rules, pos):
    """How many legal turns there are, or None where the rules refuse to list them (a
    long progressive series has too many ways to be played: the walk is bounded)."""
    try:
        return rules.count_turns(pos)
    except RulesError as e:
        if e.code != INVALID_REQUEST:
            raise
        return None


def show(variant, fen=None, moves=None, ascii_only=False) -> str:
    """A board for the terminal, the turn state, the counts of moves and turns, and the status."""
    rules = rules_of(variant)
    pos, data = shown(rules, fen, moves)
    lines = [f"{rules.name}: {side(pos.turn)} to move"]
    lines += board_lines(rules, pos, ascii_only)
    if rules.double_pieces:
        lines.append("(* marks a double-piece)")
    lines.append("")
    lines.append(f"FEN: {data['fen']}")
    fields = data["fen"].split()   # castling and en passant as the variant writes them (G9)
    lines.append(f"Castling: {fields[2]}   En passant: {fields[3]}   "
                 f"Halfmove clock: {pos.halfmove}   Move: {pos.fullmove}")
    lines += data["state"]
    if rules.has_check and rules.in_check(pos):
        lines.append(f"{side(pos.turn)} is in check.")
    unit = "ways to finish the turn" if data["mid_turn"] else "legal turns"
    count = data["turns"] if data["turns"] is not None else "too many to list"
    lines.append(f"Legal moves: {data['moves']}   {unit[0].upper() + unit[1:]}: {count}")
    lines.append(status_sentence(data["status"]))
    return "\n".join(lines)


# -------------------------------------------------------------------- turns

def grouped_turns(variant, fen=None, moves=None) -> dict:
    """The legal turns grouped by their first move, in coordinates and SAN."""
    rules = rules_of(variant)
    pos, _ = play_line(rules, fen, moves)
    groups = {}
    for line, _after in rules.turns(pos):
        first = line[0]
        key = rules.move_text(pos, first)
        group = groups.get(key)
        if group is None:
            group = groups[key] = {"first": key, "san": rules.san(pos, first), "turns": []}
        texts, sans, p = [], [], pos
        for m in line:
            texts.append(rules.move_text(p, m).rstrip(","))
            sans.append(rules.san(p, m).rstrip(","))
            p = rules.play(p, m)
        group["turns"].append({"turn": ",".join(texts), "san": ",".join(sans)})
    ordered = sorted(groups.values(), key=lambda gr: gr["first"])
    for gr in ordered:
        gr["turns"].sort(key=lambda t: t["turn"])
    return {"variant": rules.name, "fen": rules.fen(pos), "count": sum(len(g["turns"]) for g in ordered),
            "groups": ordered}


def grouped_turns_text(data: dict) -> str:
    lines = [f"{data['count']} legal turns, grouped by first move:"]
    for gr in data["groups"]:
        single = len(gr["turns"]) == 1 and gr["turns"][0]["turn"] == gr["first"]
        if single:
            lines.append(f"{gr['san']:<12} {gr['first']}")
            continue
        lines.append(f"{gr['san']:<12} {gr['first']:<10} {len(gr['turns'])} turn"
                     f"{'s' if len(gr['turns']) != 1 else ''}:")
        for t in gr["turns"]:
            lines.append(f"    {t['san']:<20} {t['turn']}")
    return "\n".join(lines)
