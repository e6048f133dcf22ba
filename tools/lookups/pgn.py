"""Game records in PGN: check a game turn by turn, and write PGN for a line.

The PGN read and written here is ordinary PGN with two conventions for the
variants:

- a ``Variant`` tag holds the variant id (``double-move``, ``double-chess``,
  ...); without it the game is ``chess``.  An optional ``FEN`` tag gives the
  start position (``SetUp "1"`` is written with it, and not required on input).
- the moves of one turn are joined by commas in one movetext token:
  ``3. Na5,Bd3 e6,f4``.  A space after a comma is tolerated.  A record may
  stop in the middle of a turn only at its very end, with a trailing comma
  (``5. Qg8+,``).
- where the rules say each move number opens one whole turn
  (``pgn_numbers_each_turn``, progressive chess: ``1. e4 2. e5 Qh4 3. ...``),
  the moves between two numbers, separated by spaces or commas, are one turn,
  and a written record numbers each turn with the rules' ``turn_number``.

Comments (``{...}``, ``; ...``), NAGs (``$1``), annotation marks (``!``,
``?``) and variations in parentheses are skipped; a file may hold several
games.  ``replay`` checks each turn with ``doublecheck.lookups.lookup`` (so an illegal turn
comes with its reason and rule) and compares the final position's status
with the ``Result`` tag.

Exit codes of ``doublecheck replay``: 0 every game is legal and its Result
agrees with the board; 1 a game has an illegal turn, or its Result contradicts
the final position; 2 the file cannot be used (missing file, PGN syntax, an
unknown Variant or Result value, an invalid FEN, move text that cannot be
read as a move).
"""

from __future__ import annotations

import os
import re
import textwrap
from dataclasses import dataclass, field

from doublecheck.resource_limits import MAX_DATA_FILE_BYTES
from doublecheck.oracle import api, variants
from doublecheck.oracle.errors import (FILE_NOT_FOUND, FILE_TOO_LARGE, INVALID_MOVE_TEXT, PGN_SYNTAX,
                                       UNKNOWN_RESULT, UNKNOWN_VARIANT, UNREADABLE_FILE, RulesError,
                                       clip, quote)
from doublecheck.oracle.position import WHITE
from doublecheck.lookups.lookup import explain_at, side, status_sentence

RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
# A tag pair; the value is checked by tag_value (one pattern for both would keep some
# backtracking state per character of the value: about 170 bytes, 870 MB for a 5 MB tag).
TAG = re.compile(r'\[\s*([A-Za-z0-9_]+)\s+"(.*)"\s*\]', re.DOTALL)
SPACES = re.compile(r"\s+")                 # (re's \s is exactly str.isspace)
TOKEN_END = re.compile(r"[\s{};()]")
MOVE_NUMBER = re.compile(r"(\d+)(\.+)")
ANNOTATION = re.compile(r"[!?]+$")
MAX_RECORD_BYTES = MAX_DATA_FILE_BYTES   # a PGN file, as a case file (docs/lookups.md)
ROSTER = ("Event", "Site", "Date", "Round", "White", "Black", "Result")

EXIT_OK, EXIT_ILLEGAL, EXIT_BAD_INPUT = 0, 1, 2


class PgnError(Exception):
    """A record that cannot be used: ``code`` is stable, ``line`` is 1-based (or None)."""

    def __init__(self, code: str, message: str, line: int | None = None):
        where = f"line {line}: " if line else ""
        super().__init__(f"{code}: {where}{message}")
        self.code, self.message, self.line = code, f"{where}{message}", line


@dataclass
class Turn:
    text: str
    line: int
    numbered: bool = False   # a move number stood right before it


def numbered_turns(turns: list) -> list:
    """The turns of a record whose every move number opens one whole turn: the tokens
    from one number to the next, joined by commas (``2. e5 Qh4`` is the turn e5,Qh4)."""
    out = []
    for turn in turns:
        if out and not turn.numbered:
            out[-1].text = out[-1].text.rstrip(",") + "," + turn.text
            continue
        out.append(Turn(turn.text, turn.line, turn.numbered))
    return out


@dataclass
class Game:
    line: int                                   # where the game starts
    tags: dict = field(default_factory=dict)
    tag_lines: dict = field(default_factory=dict)
    turns: list = field(default_factory=list)
    termination: str | None = None              # the result token ending the movetext
    termination_line: int | None = None


# ---------------------------------------------------------------- reading

def parse_pgn(text: str) -> list[Game]:
    """Split PGN text into games (tags, turn tokens with line numbers, result token)."""
    games: list[Game] = []
    game: Game | None = None
    in_moves = False
    depth = 0            # parenthesis depth of a variation being skipped
    comment_from = None  # line where an open {comment} started
    pending = None       # the parts of a turn whose last token ended with a comma (the turn
    pending_line = 0     # goes on), joined once it ends: appending to a string is quadratic
    numbered = False     # a move number came since the last turn was closed
    lines = text.splitlines()
    for number, raw in enumerate(lines, 1):
        line = raw
        if comment_from is None and depth == 0 and line.startswith("%"):
            continue  # escape mechanism: the line is ignored
        stripped = line.strip()
        if comment_from is None and depth == 0 and stripped.startswith("["):
            m = TAG.fullmatch(stripped)
            if not m or tag_value(m[2]) is None:
                raise PgnError(PGN_SYNTAX, f"malformed tag pair {quote(stripped)} (write [Name \"value\"])",
                               number)
            if game is None or in_moves:
                if pending is not None:
                    game.turns.append(Turn("".join(pending), pending_line))
                    pending = None
                game = Game(line=number)
                games.append(game)
                in_moves = False
            name, value = m[1], tag_value(m[2])
            if name in game.tags:
                raise PgnError(PGN_SYNTAX, f"tag {name} given twice in one game", number)
            game.tags[name] = value
            game.tag_lines[name] = number
            continue
        i = 0
        while i < len(line):
            ch = line[i]
            if comment_from is not None:
                end = line.find("}", i)
                if end < 0:
                    break
                comment_from, i = None, end + 1
                continue
            if ch == "{":
                comment_from = number
                i += 1
                continue
            if ch == ";":
                break
            if ch == "(":
                depth += 1
                i += 1
                continue
            if ch == ")":
                if depth == 0:
                    raise PgnError(PGN_SYNTAX, "')' without a matching '('", number)
                depth -= 1
                i += 1
                continue
            if ch == "}":   # (outside a comment: no token could start here, the scan would stall)
                raise PgnError(PGN_SYNTAX, "'}' without a matching '{'", number)
            if ch.isspace():
                i = SPACES.match(line, i).end()
                continue
            end = TOKEN_END.search(line, i)
            j = end.start() if end else len(line)
            token, i = line[i:j], j
            if depth:
                continue
            if game is None:
                game = Game(line=number)
                games.append(game)
            in_moves = True
            if token in RESULTS:
                if pending is not None:
                    game.turns.append(Turn("".join(pending), pending_line, opened))
                    pending = None
                game.termination, game.termination_line = token, number
                game = None
                continue
            if token.startswith("$") or token in ("e.p.", "ep"):
                continue
            m = MOVE_NUMBER.match(token)
            if m:
                if pending is not None:  # a move number closes an unfinished turn
                    game.turns.append(Turn("".join(pending), pending_line, opened))
                    pending = None
                numbered = True
                token = token[m.end():]
                if not token:
                    continue
            if pending is None:
                pending, pending_line, opened = [], number, numbered
                numbered = False
            pending.append(token)
            if not token.endswith(","):
                game.turns.append(Turn("".join(pending), pending_line, opened))
                pending = None
    if comment_from is not None:
        raise PgnError(PGN_SYNTAX, "a '{' comment is never closed", comment_from)
    if depth:
        raise PgnError(PGN_SYNTAX, "a '(' variation is never closed", len(lines))
    if pending is not None and game is not None:
        game.turns.append(Turn("".join(pending), pending_line, opened))
    if not games:
        raise PgnError(PGN_SYNTAX, "no game found (no tags and no moves)")
    return games


def tag_value(quoted: str) -> str | None:
    """The value of a tag from the text between its quotes, or None when that text holds
    an unescaped quote or ends with a lone backslash (the pair is then malformed).  Time
    and memory linear in the text."""
    if "\\" in quoted:
        unpaired = quoted.replace("\\\\", "")   # (each backslash left escapes the next character)
        if unpaired.endswith("\\") or \
                unpaired.count('"') != unpaired.count('\\"'):
            return None
    elif '"' in quoted:
        return None
    return quoted.replace('\\"', '"').replace("\\\\", "\\")


# ---------------------------------------------------------------- checking

def clean_turn(text: str) -> str:
    """Drop annotation marks (``!``, ``?!``) from each move of a turn."""
    parts = text.split(",")
    return ",".join(ANNOTATION.sub("", p) for p in parts)


def replay_game(game: Game, index: int = 1) -> dict:
    """Check one game; returns a JSON-able report (see docs/lookups.md).  Raises PgnError
    for a record that cannot be used."""
    try:
        rules = variants.get(game.tags.get("Variant", "chess"))
    except RulesError as e:
        raise PgnError(UNKNOWN_VARIANT, f"game {index}: the Variant tag: {e.message}",
                       game.tag_lines.get("Variant")) from None
    result_tag = game.tags.get("Result")
    if result_tag is not None and result_tag not in RESULTS:
        raise PgnError(UNKNOWN_RESULT, f"game {index}: Result {quote(result_tag)} is not one of "
                       f"{', '.join(RESULTS)}", game.tag_lines.get("Result"))
    if result_tag and game.termination and game.termination != result_tag:
        raise PgnError(PGN_SYNTAX, f"game {index}: the movetext ends with {game.termination} "
                       f"but the Result tag says {result_tag}", game.termination_line)
    fen = game.tags.get("FEN")
    try:
        line = api.replay(rules, fen, [])
    except RulesError as e:
        raise PgnError(e.code, f"game {index}: FEN tag: {e.message}",
                       game.tag_lines.get("FEN")) from None
    pos = line.start
    report = {"game": index, "line": game.line, "variant": rules.name,
              "fen": rules.fen(pos), "turns": 0, "legal": True, "illegal": None, "notes": []}
    turns = numbered_turns(game.turns) if rules.pgn_numbers_each_turn else game.turns
    for n, turn in enumerate(turns):
        pos = line.final
        last = n == len(turns) - 1
        who = side(pos.turn)
        label = turn_label(rules, pos)
        try:
            api.check_length(turn.text)   # (before the text is split into its moves)
        except RulesError as e:
            raise PgnError(e.code, f"game {index}, turn {label} ({who}): {e.message}", turn.line) from None
        text = clean_turn(turn.text)
        if text.endswith(",") and not last:
            raise PgnError(INVALID_MOVE_TEXT, f"game {index}: turn {label} {quote(turn.text)} ends "
                           f"with a comma but another turn follows", turn.line)
        try:
            result = explain_at(rules, line, turn=text)   # plays a legal turn onto the line
        except RulesError as e:
            raise PgnError(e.code, f"game {index}, turn {label} ({who}): {quote(turn.text)}: "
                           f"{e.message}", turn.line) from None
        if not result["legal"] and result["code"] == INVALID_MOVE_TEXT:
            raise PgnError(INVALID_MOVE_TEXT, f"game {index}, turn {label} ({who}): "
                           f"{quote(turn.text)} cannot be read: {result['detail']} ({result['rule']})", turn.line)
        if not result["legal"] and result["incomplete"] and last and text.endswith(","):
            for token in api.split_tokens([text]):
                line.play(token)
            report["turns"] += 1
            report["notes"].append(f"the record stops in the middle of {who}'s turn {label}")
            break
        if not result["legal"]:
            report["legal"] = False
            report["illegal"] = {"turn": label, "number": n + 1, "side": who.lower(),
                                 "line": turn.line, "text": turn.text,
                                 "reason": result["reason"], "rule": result["rule"],
                                 "rules": result["rules"], "explanation": result}
            break
        report["turns"] += 1
    pos = line.final
    status = rules.status(pos, line.history)
    report.update(final_fen=rules.fen(pos), status=status, result_tag=result_tag)
    report["result_agrees"] = result_agrees(report, status, result_tag, rules.mid_turn(pos))
    return report


def turn_label(rules, pos) -> str:
    """The turn's number as the record writes it: ``rules.turn_number`` (a progressive
    series is numbered by its length, not by the fullmove count), with ``...`` for Black
    only where numbers are shared by White's and Black's turns."""
    shared = not rules.pgn_numbers_each_turn and pos.turn != WHITE
    return f"{rules.turn_number(pos)}{'...' if shared else '.'}"


def result_agrees(report, status, tag, mid) -> bool | None:
    """Does the Result tag fit the final position?  None when there is nothing to compare
    (no tag, or the game had an illegal turn)."""
    notes = report["notes"]
    if tag is None or not report["legal"]:
        if tag is None:
            notes.append("no Result tag")
        return None
    if status["over"]:
        if tag == status["result"]:
            return True
        notes.append(f"the Result tag says {tag}, but on the board the game ended "
                     f"{status['result']} by {status['reason']}")
        return False
    if tag == "*" or mid:
        return True
    claims = status.get("claimable") or []
    if tag == "1/2-1/2" and claims:
        notes.append("the game is not over on the board; a draw could be claimed ("
                     + ", ".join(claims) + ")")
    else:
        notes.append(f"the game is not over on the board, so the result {tag} came from "
                     f"outside the moves (resignation, agreement, time or a claim)")
    return True


def replay_text(text: str) -> dict:
    """Check every game of a PGN text: ``{"ok": bool, "games": [...]}``; raises PgnError."""
    games = [replay_game(g, i) for i, g in enumerate(parse_pgn(text), 1)]
    ok = all(g["legal"] and g["result_agrees"] is not False for g in games)
    return {"ok": ok, "games": games}


def replay_file(path) -> dict:
    return replay_text(read_record(path))


def read_record(path) -> str:
    """The text of a PGN file, read with the size limit of every data file (16 MiB): a
    larger file, or a device or pipe that gives more, is refused after reading just past
    the limit.  Opening never waits for a pipe's writer (a pipe with none reads as empty)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with open(fd, "rb") as f:
            os.set_blocking(fd, True)    # (only the open must not wait)
            data = f.read(MAX_RECORD_BYTES + 1)
    except FileNotFoundError:
        raise PgnError(FILE_NOT_FOUND, f"no such file: {path}") from None
    except OSError as e:
        raise PgnError(UNREADABLE_FILE, f"cannot read {path}: {e.strerror or e}") from None
    if len(data) > MAX_RECORD_BYTES:
        raise PgnError(FILE_TOO_LARGE, f"{path} holds more than {MAX_RECORD_BYTES // 2 ** 20} MiB, "
                                       f"the limit of a record (doublecheck docs lookups)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise PgnError(UNREADABLE_FILE, f"cannot read {path}: not UTF-8 text (byte "
                                        f"{data[e.start]:#04x} at offset {e.start})") from None


def exit_code(report: dict) -> int:
    return EXIT_OK if report["ok"] else EXIT_ILLEGAL


def report_text(report: dict) -> str:
    out = []
    for g in report["games"]:
        start = "" if g["fen"] == variants.get(g["variant"]).fen(
            variants.get(g["variant"]).start) else f" from {g['fen']}"
        out.append(f"game {g['game']} (line {g['line']}): {g['variant']}{start}")
        if g["illegal"]:
            bad = g["illegal"]
            out.append(f"  {g['turns']} turn{'s' if g['turns'] != 1 else ''} legal, then")
            out.append(f"  ILLEGAL turn {bad['turn']} ({bad['side']}, line {bad['line']}): "
                       f"{clip(bad['text'])}")
            out.append(f"    {bad['reason']}")
            note = bad["explanation"].get("note")
            if note:
                out.append(f"    note: {note}")
        else:
            out.append(f"  {g['turns']} turn{'s' if g['turns'] != 1 else ''}, all legal")
        where = "position before that turn" if g["illegal"] else "final position"
        out.append(f"  {where}: {g['final_fen']}")
        out.append(f"  {status_sentence(g['status'])}")
        tag = g["result_tag"]
        if g["result_agrees"] is True:
            out.append(f"  Result {tag}: agrees with the board")
        elif g["result_agrees"] is False:
            out.append(f"  Result {tag}: CONTRADICTS the board")
        for note in g["notes"]:
            out.append(f"  note: {note}")
    out.append("OK" if report["ok"] else "NOT OK")
    return "\n".join(out)


# ---------------------------------------------------------------- writing

def turns_of_line(rules, line):
    """Group the steps of a played line (``api.replay``) into turns:
    [(position before, [SAN of each move], complete)]."""
    turns, current, start = [], [], line.start
    for step in line.steps:
        if not current:
            start = step.pos
        current.append(rules.san(step.pos, step.move).rstrip(","))
        if step.ends_turn:
            turns.append((start, current, True))
            current = []
    if current:
        turns.append((start, current, False))
    return turns


def pgn_for_line(variant, fen: str | None, moves, tags: dict | None = None) -> str:
    """PGN text for the line ``moves`` (tokens as for ``--moves``) from ``fen`` or the start;
    ``variant`` is an id or the rules object.

    Raises RulesError for an unknown variant, an invalid FEN or an illegal move.
    """
    rules = variants.rules_of(variant)
    line = api.replay(rules, fen, moves)
    pos, final = line.start, line.final
    turns = turns_of_line(rules, line)
    status = rules.status(final, line.history)
    result = status["result"] if status["over"] and not rules.mid_turn(final) else "*"
    head = {"Event": "?", "Site": "?", "Date": "????.??.??", "Round": "?", "White": "?",
            "Black": "?", "Result": result}
    head.update(tags or {})
    head["Result"] = result
    head["Variant"] = rules.name
    if fen is not None and rules.fen(pos) != rules.fen(rules.start):
        head["SetUp"] = "1"
        head["FEN"] = rules.fen(pos)
    lines = [f'[{k} "{_escape(str(v))}"]' for k, v in head.items()]
    words = []
    first = True
    for start, sans, complete in turns:
        text = ",".join(sans) + ("" if complete else ",")
        if rules.pgn_numbers_each_turn:      # every turn numbered, its moves apart
            words.append(f"{rules.turn_number(start)}. " + " ".join(sans) + ("" if complete else ","))
            continue
        if start.turn == WHITE:
            words.append(f"{start.fullmove}. {text}")
        elif first:
            words.append(f"{start.fullmove}... {text}")
        else:
            words.append(text)
        first = False
    words.append(result)
    body = textwrap.fill(" ".join(words), 79, break_long_words=False, break_on_hyphens=False)
    return "\n".join(lines) + "\n\n" + body + "\n"


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')
