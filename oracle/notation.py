"""Move text (ruling G8): coordinates are canonical, SAN is read and written too.

Coordinates: from-square, to-square, optional lower-case promotion letter
(``e7e8q``); castling as the king's from/to (``e1g1``); a drop as
``LETTER@square`` (``K@e0``).  A trailing comma marks the first half of a
Double Move in double-move and is otherwise ignored.
"""

import re

from oracle.errors import ILLEGAL_MOVE, INVALID_MOVE_TEXT, RulesError
from oracle.position import WHITE

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


def parse_move(rules, pos, text):
    """The legal move that `text` (coordinates or SAN) names; RulesError if none."""
    if not isinstance(text, str) or not text.strip():
        raise RulesError(INVALID_MOVE_TEXT, f"empty or non-text move {text!r}")
    raw = text.strip()
    body = raw[:-1] if raw.endswith(",") else raw
    opens = raw.endswith(",")
    legal = rules.legal_moves(pos)
    if rules.comma_marks_double:
        legal = [m for m in legal if m.opens_double == opens]
    g = rules.geometry

    def square(name):
        sq = g.index.get(name)
        if sq is None:
            raise RulesError(INVALID_MOVE_TEXT, f"{raw!r}: there is no square {name} on the {rules.name} board")
        return sq

    m = COORDINATES.fullmatch(body)
    if m:
        frm, to, promo = square(m[1]), square(m[2]), m[3].upper() or None
        found = [mv for mv in legal if mv.frm == frm and mv.to == to and mv.promotion == promo]
        return one(found, raw, pos, rules)
    m = DROP.fullmatch(body)
    if m:
        to = square(m[2])
        found = [mv for mv in legal if mv.drop is not None and mv.to == to
                 and mv.drop.lstrip("*").upper() == m[1]]
        return one(found, raw, pos, rules)
    clean = body.rstrip("+#!?")
    if CASTLING.fullmatch(clean):
        want = clean.replace("0", "O")
        found = [mv for mv in legal if mv.castle is not None
                 and rules.castle_by_rook[mv.castle].san == want]
        return one(found, raw, pos, rules)
    m = SAN.fullmatch(clean)
    if m:
        star, letter, ffile, frank, _, to_name, promo = m.groups()
        to = square(to_name)
        letter = letter or "P"
        found = []
        for mv in legal:
            if mv.to != to or mv.frm is None or mv.castle is not None:
                continue
            piece = pos.board[mv.frm]
            if piece[-1].upper() != letter or piece.startswith("*") != bool(star):
                continue
            if ffile and g.name[mv.frm][0] != ffile or frank and g.name[mv.frm][1:] != frank:
                continue
            if (mv.promotion or None) != (promo.upper() if promo else None):
                continue
            found.append(mv)
        return one(found, raw, pos, rules)
    raise RulesError(INVALID_MOVE_TEXT, f"{raw!r} is neither coordinate notation (e2e4, e7e8q) nor SAN (Nf3, exd5, O-O)")


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
