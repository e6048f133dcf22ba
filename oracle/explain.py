"""Why the rules refuse a move: the reasons behind ``doublecheck explain`` and behind
every illegal-move error.

Legality always comes from the rules class (``parse_move``, ``legal_moves``,
``play``), stepped by ``api.Line.try_play``; this module only works out the
*reason* for a refusal and the id of the rule that gives it.  ``try_play``
hands a refused token here (``refusal``), and both ``doublecheck explain`` and
the error message of a refused move (``api.Refused.error``) say the Refusal
found, so each reason is worded once.  It asks the rules class at every step:
its move generator (``pseudo_moves``, ``line_blockers``), its conditions
(``castling_obstacle``, ``attackers``, ``king_safe_after``) and the
explanation hooks documented on ``doublecheck.oracle.chess.Chess`` (the rule
ids in ``rule_ids`` and the ``why_*`` methods a variant overrides where its
rules differ).  Nothing here names a variant.

The reasons, in the order they are looked for:

- the text: unreadable, a square the board does not have, nothing or the
  wrong side's piece on the from-square (``rule_ids["move-text"]``);
- reasons that refuse every move now (``why_no_move``: the game is over, a
  turn cannot be opened here);
- the piece: it does not move that way, its line is blocked, its own piece
  stands on the target, a king is never captured, pawn details (blocked
  steps, double steps, en passant, promotion);
- castling: the side's own castlings (``own_castlings``) and which condition
  fails (``castling_obstacle``), worded by ``why_no_castling``;
- king safety: the move would leave the own king attacked, and by which
  piece (``attackers``, ``king_safety_rule``);
- the variant's turn machine (``why_refused``, ``why_no_drop``).

A legal move whose trailing comma says the turn goes on where it ends is
refused by ``try_play`` itself (G8), in the words of ``why_comma``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from doublecheck.oracle.errors import ILLEGAL_MOVE, INVALID_MOVE_TEXT, RulesError
from doublecheck.oracle.notation import read_text
from doublecheck.oracle.position import WHITE, Move, other

PIECE_NAMES = {"K": "king", "Q": "queen", "R": "rook", "B": "bishop", "N": "knight", "P": "pawn"}

# How deep a reason goes: deeper reasons are more telling when several pieces
# could be meant (SAN "Nd2" with two knights).
TEXT, GEOMETRY, SAFETY, VARIANT = range(4)
REFUSED = "the oracle refuses this move here"


def side(color: str) -> str:
    return "White" if color == WHITE else "Black"


def piece_name(piece: str) -> str:
    """``"*r"`` -> ``"double-rook"``; ``"N"`` -> ``"knight"``."""
    return ("double-" if piece.startswith("*") else "") + PIECE_NAMES[piece[-1].upper()]


def named(rules, board, squares) -> str:
    """``the pawn on g6`` / ``the rook on e8 and the bishop on b5``."""
    names = [f"the {piece_name(board[s])} on {rules.geometry.name[s]}" for s in squares]
    return " and ".join(names) if names else "no piece"


@dataclass
class Refusal:
    """Why one move is refused: a concrete detail, the rule that decides, an optional gloss."""

    detail: str
    rule: str | None = None
    note: str | None = None          # the rule in a few words, said after the detail
    also: list = field(default_factory=list)  # further rule ids worth reading
    code: str = ILLEGAL_MOVE
    level: int = GEOMETRY
    echoes_error: bool = False       # the detail is the move reader's own error message

    def words(self) -> str:
        """``h7 is attacked by the pawn on g6; <gloss> (<rule>)``: how an explanation and an
        error message both say it."""
        out = self.detail + (f"; {self.note}" if self.note else "")
        return out + (f" ({self.rule})" if self.rule else "")


class TurnEnd(NamedTuple):
    """Why a turn has fewer actions than the variant's most (``turn_end_reason``): the
    rule that ends it, the concrete reason in words (no rule id in it), related ids, and
    whether most turns of the variant end so (the desk's move list marks only the others)."""

    rule: str
    words: str
    also: tuple = ()
    usual: bool = False


@dataclass
class Asked:
    """Where a move is asked about: which move of the turn, how it was written, the line before it."""

    index: int = 0                 # 0: first move of the turn, 1: second, ...
    opens: bool = False            # written with the comma that opens a double turn (comma_marks_double)
    comma: bool = False            # the text ends with a comma
    turn_start: object = None      # the position at the start of this turn (None: not known)
    steps: list = field(default_factory=list)  # the played line before the turn (api.Step)


def cite(rules, topic: str, piece: str | None = None, color: str | None = None) -> tuple[str | None, list]:
    """(rule id, related ids) that ``rules.rule_ids`` gives for a topic (None: the variant has
    no such rule); for a double-piece the key ``"*" + topic`` wins where the rules give one.
    ``color``: the side whose move it is, for a variant whose rule for a topic differs by
    side (``rules.rule_ids_for``); None: the ids both sides share."""
    ids = rules.rule_ids if color is None else rules.rule_ids_for(color)
    value = ids.get("*" + topic, ids[topic]) if piece and piece.startswith("*") else ids[topic]
    if value is None or isinstance(value, str):
        return value, []
    return value[0], list(value[1:])


def refusal_for(rules, topic: str, detail: str, piece=None, **extra) -> Refusal:
    """A Refusal citing the rule ``rules.rule_ids`` gives for ``topic``."""
    rule, also = cite(rules, topic, piece)
    return Refusal(detail, rule, also=also + extra.pop("also", []), **extra)


# ----------------------------------------------------------------- the entry

def refusal(rules, pos, token: str, asked: Asked, error: RulesError) -> Refusal:
    """The reason for a move ``token`` that the rules refused at ``pos`` with ``error``."""
    message = error.message
    for prefix in (f"{token.strip()!r}: ", f"{token.strip()!r} "):
        if message.startswith(prefix):
            message = ("it " if prefix.endswith(" ") and not prefix.endswith(": ") else "") + \
                message[len(prefix):]
    if error.code == INVALID_MOVE_TEXT:
        return refusal_for(rules, "move-text", message, code=error.code, level=TEXT, echoes_error=True)
    if "ambiguous" in message:
        return refusal_for(rules, "ambiguous", message, level=TEXT, echoes_error=True)
    found = why(rules, pos, token, asked)
    if found is None or (found.rule is None and found.detail == REFUSED):
        return Refusal(message, None, code=error.code, level=VARIANT, echoes_error=True)
    return found


def why(rules, pos, token: str, asked: Asked) -> Refusal | None:
    """Why ``token`` is not a legal move at ``pos``, as far as the rules can say."""
    body = token.strip().rstrip(",")
    try:
        spec = read_text(rules, body)
    except RulesError as e:
        return refusal_for(rules, "move-text", e.message, code=e.code, level=TEXT)
    early = rules.why_no_move(pos, asked)
    if early:
        early.level = VARIANT
        return early
    if spec.kind == "drop":
        return rules.why_no_drop(pos, spec, asked)
    if spec.kind == "castling":
        return castling_by_name(rules, pos, spec.castling, asked)
    if spec.kind == "coordinates":
        return from_square(rules, pos, spec, asked)
    return san(rules, pos, spec, asked)


def turn_machine(rules, pos, move, asked) -> Refusal:
    """The variant's own reason for a move the pieces can make with the king safe."""
    found = rules.why_refused(pos, move, asked)
    if found is None:
        return Refusal(REFUSED, None, level=VARIANT)
    found.level = VARIANT
    return found


# -------------------------------------------------------------- which piece

def from_square(rules, pos, spec, asked) -> Refusal:
    piece = pos.board[spec.frm]
    where = rules.geometry.name[spec.frm]
    me = pos.turn
    if piece is None:
        return refusal_for(rules, "move-text", f"no piece on {where}: the square is empty", level=TEXT)
    if piece.isupper() != (me == WHITE):
        turn = f"still to move: this is {rules.continuing_move}" if rules.mid_turn(pos) else "to move"
        return refusal_for(rules, "move-text", f"no piece of the side to move on {where}: the "
                           f"{piece_name(piece)} there is {side(other(me))}'s, and {side(me)} is "
                           f"{turn}", level=TEXT)
    return piece_to(rules, pos, spec.frm, spec.to, spec, asked)


def san(rules, pos, spec, asked) -> Refusal:
    """SAN names a kind of piece: explain for each piece it could mean, keep the most telling."""
    g, board, me = rules.geometry, pos.board, pos.turn
    name = g.name
    letter = spec.letter
    cands = []
    for sq in g.squares:
        piece = board[sq]
        if piece is None or piece.isupper() != (me == WHITE) or piece[-1].upper() != letter:
            continue
        if piece.startswith("*") != spec.double:
            continue
        if spec.from_file and name[sq][0] != spec.from_file:
            continue
        if spec.from_rank and name[sq][1:] != spec.from_rank:
            continue
        if letter == "P" and not spec.capture and not spec.from_file and g.file[sq] != g.file[spec.to]:
            continue
        cands.append(sq)
    kind = ("double-" if spec.double else "") + PIECE_NAMES[letter]
    colour = side(me).lower()
    if not cands:
        return no_candidate(rules, pos, spec, kind, colour)
    found = [piece_to(rules, pos, sq, spec.to, spec, asked) for sq in cands]
    best = max(f.level for f in found)
    top = [f for f in found if f.level == best]
    if len(top) == 1 or best > GEOMETRY:
        return top[0]
    details = [f"{name[sq]}: {f.detail}" for sq, f in zip(cands, found) if f.level == best]
    return Refusal(f"no {colour} {kind} can move to {name[spec.to]} ({'; '.join(details)})",
                   top[0].rule, level=GEOMETRY)


def no_candidate(rules, pos, spec, kind, colour) -> Refusal:
    """SAN that names no piece of the side to move."""
    g = rules.geometry
    if spec.from_file and spec.from_rank:
        sq = g.index.get(spec.from_file + spec.from_rank)
        held = pos.board[sq] if sq is not None else None
        what = (f"the {piece_name(held)} there" if held else "it is empty"
                if sq is not None else "the board has no such square")
        return refusal_for(rules, "move-text", f"no such piece on {spec.from_file}{spec.from_rank}: "
                           f"{colour} has no {kind} there ({what})", level=TEXT)
    where = ""
    if spec.from_file:
        where = f" on the {spec.from_file}-file"
    elif spec.from_rank:
        where = f" on rank {spec.from_rank}"
    elif spec.letter == "P" and not spec.capture:
        where = f" on the {g.name[spec.to][0]}-file"
    return refusal_for(rules, "move-text", f"{side(pos.turn)} has no {kind}{where} that could make "
                       f"this move", level=TEXT)


# ------------------------------------------------------- the piece's movement

def piece_to(rules, pos, frm, to, spec, asked) -> Refusal:
    g, board = rules.geometry, pos.board
    piece = board[frm]
    if piece[-1].upper() == "K" and not piece.startswith("*"):
        for rule in rules.own_castlings(pos.turn):
            if rule.king_from == frm and rule.king_to == to:
                if not any(m.frm == frm and m.to == to and m.castle is None
                           for m in rules.pseudo_moves(pos)):
                    return castling(rules, pos, rule, asked)
    found = [m for m in rules.pseudo_moves(pos) if m.frm == frm and m.to == to]
    if not found and piece in "Kk" and looks_like_castling(rules, pos, frm, to):
        return rules.why_no_castling(pos, None, (NO_SUCH_CASTLING, g.name[frm] + g.name[to]))
    if not found:
        return cannot_reach(rules, pos, frm, to, asked)
    wanted = [m for m in found if (m.promotion or None) == spec.promotion]
    if not wanted:
        f_name, t_name = g.name[frm], g.name[to]
        if spec.promotion is None:
            return refusal_for(rules, "promotion", f"the pawn reaches rank {g.rank[to]} and must be "
                               f"promoted: add the new piece ({f_name}{t_name}q or {t_name}=Q)")
        return refusal_for(rules, "promotion", f"a pawn is promoted only on its last rank; "
                           f"{t_name} is not")
    return safe_then_turn(rules, pos, wanted[0], asked)


def safe_then_turn(rules, pos, move, asked) -> Refusal:
    """A move the pieces can make: refused for the own king's safety, or by the turn machine."""
    if rules.has_check and not rules.king_safe_after(pos, move):
        return unsafe(rules, pos, move, asked)
    return turn_machine(rules, pos, move, asked)


def cannot_reach(rules, pos, frm, to, asked) -> Refusal:
    name, board = rules.geometry.name, pos.board
    piece, target = board[frm], board[to]
    kind, pname = piece[-1].upper(), piece_name(piece)
    f_name, t_name = name[frm], name[to]
    if frm == to:
        return refusal_for(rules, kind, f"the {pname} on {f_name} cannot stay where it is")
    if target is not None and target.isupper() == piece.isupper():
        return refusal_for(rules, "occupied", f"{t_name} is occupied by {side(pos.turn)}'s own "
                           f"{piece_name(target)}")
    if kind == "P":
        return pawn(rules, pos, frm, to, asked)
    blockers = rules.line_blockers(kind, frm, to, board)
    if blockers is None:
        return refusal_for(rules, kind, f"a {PIECE_NAMES[kind]} does not move from {f_name} to {t_name}")
    if blockers:
        return refusal_for(rules, "blocked", f"the {pname} on {f_name} cannot pass the "
                           f"{piece_name(board[blockers[0]])} on {name[blockers[0]]}")
    if target is not None and target[-1] in "Kk" and rules.has_check:
        return rules.why_no_king_capture(pos, to)
    return refusal_for(rules, kind, f"the {pname} on {f_name} cannot move to {t_name}")


def pawn(rules, pos, frm, to, asked) -> Refusal:
    """A pawn move the move generator does not make: say which part of 3.7 stops it."""
    g, board, me = rules.geometry, pos.board, pos.turn
    piece, target = board[frm], board[to]
    step = rules.forward[me]
    df, dr = g.file[to] - g.file[frm], g.rank[to] - g.rank[frm]
    f_name, t_name = g.name[frm], g.name[to]
    pname = piece_name(piece)
    if df == 0 and dr == step:
        return refusal_for(rules, "P", f"a {pname} does not capture straight ahead, and {t_name} "
                           f"holds the {piece_name(target)}")
    if df == 0 and dr == 2 * step:
        start = rules.pawn_start_rank[me]
        if g.rank[frm] != start:
            return refusal_for(rules, "double-step", f"a {pname} steps two squares only from rank "
                               f"{start}; this one stands on rank {g.rank[frm]}", piece)
        middle = g.square(g.file[frm], g.rank[frm] + step)
        blocker = middle if board[middle] is not None else to
        return refusal_for(rules, "double-step", f"the double step needs {g.name[middle]} and "
                           f"{t_name} empty, but {g.name[blocker]} holds the "
                           f"{piece_name(board[blocker])}")
    if abs(df) == 1 and dr == step:
        if target is None:
            return rules.why_no_en_passant(pos, frm, to, asked)
        if target[-1] in "Kk" and rules.has_check:
            return rules.why_no_king_capture(pos, to)
    if dr * step <= 0:
        return refusal_for(rules, "P", f"a {pname} never moves backwards or sideways ({f_name} to "
                           f"{t_name})")
    return refusal_for(rules, "P", f"a pawn does not move from {f_name} to {t_name}")


def en_passant(rules, pos, frm, to, asked) -> Refusal:
    """A pawn moving diagonally to an empty square: en passant, or nothing (3.7.3)."""
    g, board = rules.geometry, pos.board
    victim_sq = g.square(g.file[to], g.rank[frm])
    victim = board[victim_sq] if victim_sq is not None else None
    t_name = g.name[to]
    enemy = side(other(pos.turn)).lower()
    if victim is None or victim[-1] not in "Pp" or victim.isupper() == (pos.turn == WHITE):
        return refusal_for(rules, "pawn-capture", f"{t_name} is empty, and a pawn moves diagonally "
                           f"only to capture; there is no {enemy} pawn on {g.name[victim_sq]} to "
                           f"take en passant")
    v_name = g.name[victim_sq]
    if rules.mid_turn(pos):
        start = asked.turn_start
        had = start is not None and start.ep == to and rules.legal_ep(start) == to
        what = rules.continuing_move
        if had:
            return refusal_for(rules, "en-passant", f"the en passant capture on {t_name} was open "
                               f"only to the first move of this turn, not to {what}")
        return refusal_for(rules, "en-passant", f"no en passant capture exists in the middle of a "
                           f"turn ({what})")
    step = double_step_to(rules, asked.steps, victim_sq)
    if step is None:
        return refusal_for(rules, "en-passant", f"the {enemy} pawn on {v_name} did not just make a "
                           f"double step (the position has no en passant square {t_name}), so en "
                           f"passant is not possible")
    text = rules.move_text(step.pos, step.move).rstrip(",")
    if not step.ends_turn:
        return refusal_for(rules, "en-passant-unended", f"the double step {text} "
                           f"{rules.unended_move}, so it left no en passant chance")
    return refusal_for(rules, "en-passant", f"en passant is allowed only on the move right after "
                       f"the double step {text}, and that moment has passed", also=["FIDE-3.7.3.2"])


def double_step_to(rules, steps, sq):
    """The last step of the played line arriving on sq, if it was a pawn's two-square step."""
    g = rules.geometry
    for s in reversed(steps):
        mv = s.move
        if mv.to != sq or mv.frm is None:
            continue
        piece = s.pos.board[mv.frm]
        if piece and piece[-1] in "Pp" and abs(g.rank[mv.to] - g.rank[mv.frm]) == 2:
            return s
        return None
    return None


# ------------------------------------------------------------------ castling
#
# The castlings of the side to move are ``rules.own_castlings(colour)``, never the
# whole list (in Monster chess only Black castles), and every refused castling is
# worded by the rules' ``why_no_castling`` hook, whose chess answer is
# ``castling_words`` below.

def castling_by_name(rules, pos, name, asked) -> Refusal:
    mine = [c for c in rules.own_castlings(pos.turn) if c.san == name]
    if not mine:
        return rules.why_no_castling(pos, None, (NO_SUCH_CASTLING, name))
    return castling(rules, pos, mine[0], asked)


def looks_like_castling(rules, pos, frm, to) -> bool:
    """Does the king move frm -> to as one of the variant's castlings would (of either
    colour, along its own rank), while the side to move has no castling at all?"""
    g = rules.geometry
    return not rules.own_castlings(pos.turn) and g.rank[frm] == g.rank[to] and any(
        g.file[c.king_from] == g.file[frm] and g.file[c.king_to] == g.file[to]
        for c in rules.castle_rules)


def castling(rules, pos, rule, asked) -> Refusal:
    """Why the castling ``rule`` is refused: the rules' words for the condition of 3.8.2
    that fails (``castling_obstacle``, ``why_no_castling``), else king safety or the
    turn machine."""
    found = rules.why_no_castling(pos, rule, rules.castling_obstacle(pos, rule))
    if found is not None:
        return found
    move = Move(rule.king_from, rule.king_to, castle=rule.rook_from)
    return safe_then_turn(rules, pos, move, asked)


# What ``why_no_castling`` is given when the side to move has no castling of the name
# (or the king move) asked for: (NO_SUCH_CASTLING, the text asked).
NO_SUCH_CASTLING = "no-such-castling"


def castling_words(rules, pos, rule, obstacle) -> Refusal:
    """The chess wording of a refused castling (the default ``why_no_castling``): which
    castlings the side to move has, or which condition of ``castling_obstacle`` fails,
    each citing ``rule_ids`` for its topic."""
    g, board, me = rules.geometry, pos.board, pos.turn
    name, who = g.name, side(me)
    what, sq = obstacle
    if what == NO_SUCH_CASTLING:
        return no_such_castling(rules, pos, sq)
    k_name, r_name = name[rule.king_from], name[rule.rook_from]
    if what == "king-moved":
        return refusal_for(rules, "castling-rights", f"{who}'s king is not on {k_name}, so it has moved")
    if what in ("no-right", "rook-gone"):
        rook = "R" if me == WHITE else "r"
        why_gone = ("the rook has left " + r_name) if board[rule.rook_from] != rook else \
            "the king or that rook has moved earlier"
        return refusal_for(rules, "castling-rights", f"{who} has no right to castle with the "
                           f"{r_name} rook any more ({why_gone})")
    if what == "between":
        return refusal_for(rules, "castling-path", f"every square between king and rook must be "
                           f"empty, but {name[sq]} holds the {piece_name(board[sq])}")
    if what == "destination":
        return refusal_for(rules, "castling-path", f"{name[sq]} must be empty for the castling, "
                           f"but holds the {piece_name(board[sq])}")
    found = rules.attackers(board, sq, other(me))
    if not found:   # a castling_obstacle counting other threats: its variant's hook words them
        return Refusal(REFUSED, None)
    by = named(rules, board, found)
    if what == "in-check":
        return refusal_for(rules, "castling-attack", f"the king is in check from {by}, and "
                           f"castling out of check is not allowed")
    verb = "would land on" if sq == rule.king_to else "would pass over"
    return refusal_for(rules, "castling-attack", f"the king {verb} {name[sq]}, which is attacked by {by}")


def no_such_castling(rules, pos, asked_for) -> Refusal:
    """The side to move has no castling written ``asked_for``: the ones it has, or that it
    has none while the other side has some."""
    mine = sorted({c.san for c in rules.own_castlings(pos.turn)}, key=len)
    if mine:
        there = f"(there are: {', '.join(mine)})"
    elif rules.castle_rules:
        there = f"({side(pos.turn)} has none; only {side(other(pos.turn))} castles)"
    else:
        there = "(it has no castling at all)"
    return refusal_for(rules, "castling", f"{rules.name} has no castling written {asked_for} {there}",
                       level=TEXT)


# --------------------------------------------------------------- king safety

def unsafe(rules, pos, move, asked) -> Refusal:
    """The move would leave the own king attacked: by which piece, and the rule that forbids it."""
    name, me = rules.geometry.name, pos.turn
    after = rules.move_board(pos, move)
    king = "K" if me == WHITE else "k"
    ksq = after.index(king)
    found = rules.attackers(after, ksq, other(me))
    if not found:   # the rules' safety test sees a threat no one-move attacker explains:
        return Refusal(REFUSED, None, level=SAFETY)     # better no reason than a false one
    by = named(rules, after, found)
    if move.castle is not None:
        return refusal_for(rules, "castling-attack", f"after castling the king on {name[ksq]} "
                           f"would be in check from {by}", level=SAFETY, also=["FIDE-3.9.2"])
    rule, note = rules.king_safety_rule(pos, asked)
    if move.frm is not None and pos.board[move.frm] == king:
        detail = f"{name[move.to]} is attacked by {by}"
    elif rules.in_check(pos):
        detail = f"the king on {name[ksq]} would still be in check from {by}"
    else:
        detail = f"the king on {name[ksq]} would be left in check by {by}"
    return Refusal(detail, rule, note, level=SAFETY)
