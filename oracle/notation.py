"""Move text (ruling G8): coordinates are canonical, SAN is read and written too.

Coordinates: from-square, to-square, optional lower-case promotion letter
(``e7e8q``); castling as the king's from/to (``e1g1``); a drop as
``LETTER@square`` (``K@e0``).  A trailing comma marks the first half of a
Double Move in double-move; elsewhere the reader leaves it alone, and the one
stepping function, ``api.Line.try_play``, holds it to G8 (the turn goes on).
"""

import re
from dataclasses import dataclass

from doublecheck.oracle.errors import ILLEGAL_MOVE, INVALID_MOVE_TEXT, RulesError, quote
from doublecheck.oracle.request_limits import MAX_MOVE_TEXT
from doublecheck.oracle.position import WHITE

COORDINATES = re.compile(r"([a-p]\d)([a-p]\d)([qrbnQRBN]?)")
DROP = re.compile(r"\*?([KQRBNP])@([a-p]\d)")
SAN = re.compile(r"(\*?)([KQRBN]?)([a-p]?)(\d?)(x?)([a-p]\d)(?:=?([QRBNqrbn]))?")
CASTLING = re.compile(r"[O0](-[O0])+")


def coordinates(rules, move) -> str:
    g = rules.geometry
    if move.drop is not None:
        return f"{move.drop.lstrip('*').upper()}@{g.name[move.to]}"
    text = g.name[move.frm] + g.name[move.to] + (move.promotion or "").lower()
    return text + ("," if move.opens_double else "")


@dataclass(frozen=True)
class MoveText:
    """What a move text says, before anyone asks whether it is legal."""

    kind: str                 # "coordinates", "drop", "castling" or "san"
    to: int | None = None
    frm: int | None = None
    letter: str = "P"         # the piece letter of SAN or of a drop
    double: bool = False      # SAN's "*": a double-piece
    from_file: str = ""       # SAN disambiguation
    from_rank: str = ""
    capture: bool = False     # SAN's "x" (not required when reading)
    promotion: str | None = None
    castling: str = ""        # "O-O", "O-O-O", ...


def read_text(rules, body: str) -> MoveText:
    """Read move text (without a trailing comma); RulesError(invalid-move-text) when it
    is no move at all, is longer than MAX_MOVE_TEXT or names a square this board does not have."""
    g = rules.geometry
    if len(body) > MAX_MOVE_TEXT:
        raise RulesError(INVALID_MOVE_TEXT, f"move text has at most {MAX_MOVE_TEXT} characters, "
                                            f"not {quote(body, 40)}")

    def square(name):
        sq = g.index.get(name)
        if sq is None:
            raise RulesError(INVALID_MOVE_TEXT, f"{body!r}: there is no square {name} on the {rules.name} board")
        return sq

    m = COORDINATES.fullmatch(body)
    if m:
        return MoveText("coordinates", to=square(m[2]), frm=square(m[1]), promotion=m[3].upper() or None)
    m = DROP.fullmatch(body)
    if m:
        return MoveText("drop", to=square(m[2]), letter=m[1])
    clean = body.rstrip("+#!?")
    if CASTLING.fullmatch(clean):
        return MoveText("castling", castling=clean.replace("0", "O"), letter="K")
    m = SAN.fullmatch(clean)
    if m:
        star, letter, ffile, frank, x, to, promo = m.groups()
        return MoveText("san", to=square(to), letter=letter or "P", double=bool(star),
                        from_file=ffile, from_rank=frank, capture=bool(x),
                        promotion=promo.upper() if promo else None)
    raise RulesError(INVALID_MOVE_TEXT, f"{body!r} is neither coordinate notation (e2e4, e7e8q) "
                                        f"nor SAN (Nf3, exd5, O-O)")


def matches(rules, pos, text: MoveText, move) -> bool:
    """Does the move text name this move?"""
    if text.kind == "coordinates":
        return move.frm == text.frm and move.to == text.to and move.promotion == text.promotion
    if text.kind == "drop":
        return move.drop is not None and move.to == text.to and move.drop.lstrip("*").upper() == text.letter
    if text.kind == "castling":
        return move.castle is not None and rules.castle_by_rook[move.castle].san == text.castling
    if move.to != text.to or move.frm is None or move.castle is not None:
        return False
    piece, name = pos.board[move.frm], rules.geometry.name[move.frm]
    return (piece[-1].upper() == text.letter and piece.startswith("*") == text.double
            and (not text.from_file or name[0] == text.from_file)
            and (not text.from_rank or name[1:] == text.from_rank)
            and move.promotion == text.promotion)


def turn_moves(text: str, strict: bool = True) -> tuple[list[str], bool]:
    """G8: the text of a turn, ``a,b``, as its moves (each stripped), and whether it ends
    in a comma (``a,``: another move of the same turn follows).  Every caller that reads
    turn text reads it here.  RulesError(invalid-move-text) for an empty move anywhere
    (``a,,b``, ``,a``, or no text at all); ``strict=False`` leaves empty moves out instead
    (for drawing whatever can be drawn of a text)."""
    parts = [part.strip() for part in text.split(",")]
    open_end = len(parts) > 1 and parts[-1] == ""
    moves = parts[:-1] if open_end else parts
    if "" in moves and strict:
        raise RulesError(INVALID_MOVE_TEXT, f"{quote(text)}: empty move between commas")
    return [m for m in moves if m], open_end


def turn_tokens(text: str) -> list[str]:
    """The move tokens of a turn's text: every move but the last carries the comma that
    says the turn goes on (``a,b`` -> ``a,`` and ``b``; ``a,`` -> ``a,``)."""
    moves, open_end = turn_moves(text)
    return [m + "," for m in moves[:-1]] + [moves[-1] + ("," if open_end else "")]


def read_token(rules, text) -> tuple[str, bool, MoveText]:
    """One move token read without a position: the stripped text, whether it ends
    in a comma (G8), and what it says; RulesError(invalid-move-text) if it is no move."""
    if not isinstance(text, str) or not text.strip():
        raise RulesError(INVALID_MOVE_TEXT, f"empty or non-text move {quote(text)}")
    raw = text.strip()
    opens = raw.endswith(",")
    return raw, opens, read_text(rules, raw[:-1] if opens else raw)


def parse_move(rules, pos, text):
    """The legal move that `text` (coordinates or SAN) names; RulesError if none."""
    raw, opens, wanted = read_token(rules, text)
    legal = rules.legal_moves(pos)
    if rules.comma_marks_double:
        legal = [m for m in legal if m.opens_double == opens]
    return one([m for m in legal if matches(rules, pos, wanted, m)], raw, pos, rules)


def one(found, raw, pos, rules):
    if len(found) == 1:
        return found[0]
    if not found:
        raise RulesError(ILLEGAL_MOVE, f"{raw!r} is not a legal move here ({'White' if pos.turn == WHITE else 'Black'} to move)")
    names = ", ".join(sorted(coordinates(rules, m) for m in found))
    raise RulesError(ILLEGAL_MOVE, f"{raw!r} is ambiguous here: it could be {names}")


def san(rules, pos, move) -> str:
    """Standard Algebraic Notation for a legal move, with + and # per G8."""
    g, board = rules.geometry, pos.board
    if move.castle is not None:
        text = rules.castle_by_rook[move.castle].san
    elif move.drop is not None:
        text = f"{move.drop.upper()}@{g.name[move.to]}"
    else:
        piece = board[move.frm]
        star = "*" if piece.startswith("*") else ""
        kind = piece[-1].upper()
        capture = move.en_passant or board[move.to] is not None
        if kind == "P":
            text = star + (g.name[move.frm][0] + "x" if capture else "") + g.name[move.to]
            if move.promotion:
                text += "=" + move.promotion.upper()
        else:
            text = star + kind + disambiguation(rules, pos, move) + ("x" if capture else "") + g.name[move.to]
    return text + check_suffix(rules, pos, move)


def disambiguation(rules, pos, move):
    g = rules.geometry
    piece = pos.board[move.frm]
    rivals = {m.frm for m in rules.legal_moves(pos)
              if m.to == move.to and m.frm != move.frm and m.castle is None
              and m.frm is not None and pos.board[m.frm] == piece}
    if not rivals:
        return ""
    if all(g.file[r] != g.file[move.frm] for r in rivals):
        return g.name[move.frm][0]
    if all(g.rank[r] != g.rank[move.frm] for r in rivals):
        return g.name[move.frm][1:]
    return g.name[move.frm]


def check_suffix(rules, pos, move):
    if not rules.has_check:
        return ""
    after = rules.play(pos, move)
    opponent = "b" if pos.turn == WHITE else "w"
    if not rules.in_check(after, opponent):
        return ""
    turn_over = not rules.mid_turn(after)
    if turn_over and rules.status(after)["reason"] == "checkmate":
        return "#"
    return "+"
