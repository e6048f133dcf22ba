"""Rules lookups for people: show a position, explain a move or a turn, list turns grouped.

``explain`` answers "is this legal here, and if not, why?".  Legality itself
always comes from the oracle (``parse_move``, ``play``, ``mid_turn``); this
module only works out the *reason* for a refusal and the rule that gives it:

- the text: unreadable, a square the board does not have, nothing or the
  wrong side's piece on the from-square;
- the piece: it does not move that way, its line is blocked, its own piece
  stands on the target, a king is never captured (G6), pawn details
  (blocked steps, double steps, en passant, promotion);
- castling: which condition fails;
- king safety: the move would leave the own king attacked, and by which piece;
- the turn machine of the variant: the Double Move (D2, D3, D4,
  DM-ability), the brake on move one (A1), double-piece turns (S4-S8).

The JSON form of an explanation (``explain``'s return value) is documented
in docs/lookups.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from doublecheck.oracle import api, variants
from doublecheck.oracle.chess import SLIDES
from doublecheck.oracle.errors import ILLEGAL_MOVE, INVALID_MOVE_TEXT, INVALID_REQUEST, RulesError
from doublecheck.oracle.geometry import BISHOP_DIRECTIONS, ROOK_DIRECTIONS
from doublecheck.oracle.notation import read_text
from doublecheck.oracle.position import BLACK, WHITE, Move, other

PIECE_NAMES = {"K": "king", "Q": "queen", "R": "rook", "B": "bishop", "N": "knight", "P": "pawn"}
PIECE_RULES = {"K": "FIDE-3.8.1", "Q": "FIDE-3.4", "R": "FIDE-3.3", "B": "FIDE-3.2",
               "N": "FIDE-3.6", "P": "FIDE-3.7.1"}
UNICODE = {"K": "♔", "Q": "♕", "R": "♖", "B": "♗", "N": "♘", "P": "♙",
           "k": "♚", "q": "♛", "r": "♜", "b": "♝", "n": "♞", "p": "♟"}

# How deep a diagnosis got: deeper findings are more telling when several
# pieces could be meant (SAN "Nd2" with two knights).
TEXT, GEOMETRY, SAFETY, VARIANT = range(4)
REFUSED = "the oracle refuses this move here"


def side(color: str) -> str:
    return "White" if color == WHITE else "Black"


def piece_name(piece: str) -> str:
    """``"*r"`` -> ``"double-rook"``; ``"N"`` -> ``"knight"``."""
    return ("double-" if piece.startswith("*") else "") + PIECE_NAMES[piece[-1].upper()]


@dataclass
class Finding:
    """Why one move is refused: a concrete detail, the rule that decides, an optional gloss."""

    detail: str
    rule: str | None = None
    note: str | None = None          # the rule in a few words, said after the detail
    code: str = ILLEGAL_MOVE
    level: int = GEOMETRY
    also: list = field(default_factory=list)  # further rule ids worth reading

    def text(self, label: str) -> str:
        out = f"{label}: {self.detail}"
        if self.note:
            out += f"; {self.note}"
        return out + (f" ({self.rule})" if self.rule else "")


@dataclass
class Step:
    """One move of a played line: the position before it, the move, the text given."""

    pos: object
    move: Move
    token: str
    ends_turn: bool


def play_line(rules, fen, moves):
    """Play move tokens (as ``doublecheck.oracle.api.replay`` does) and keep every step."""
    pos = rules.parse_fen(fen if fen is not None else rules.start_fen)
    steps = []
    for token in api.split_tokens(moves or []):
        move = rules.parse_move(pos, token)
        after = rules.play(pos, move)
        if token.endswith(",") and not rules.mid_turn(after):
            raise RulesError(ILLEGAL_MOVE, f"{token!r}: the comma says the turn continues, "
                                           f"but {token.rstrip(',')} ends the turn here")
        steps.append(Step(pos, move, token, not rules.mid_turn(after)))
        pos = after
    return pos, steps


def history_of(rules, steps):
    """Identity keys of the turn-boundary positions before the current one (for status)."""
    return [rules.identity(s.pos) for s in steps if not rules.mid_turn(s.pos)]


def attackers(rules, board, sq, by):
    """The squares of the pieces of colour ``by`` that attack ``sq`` (the same test as
    ``Chess.attacked``, collecting instead of stopping at the first)."""
    g = rules.geometry
    white = by == WHITE
    found = []
    for dirs, hitters in ((ROOK_DIRECTIONS, "RQ"), (BISHOP_DIRECTIONS, "BQ")):
        for d in dirs:
            for t in g.rays[sq][d]:
                piece = board[t]
                if piece is not None:
                    if piece.isupper() == white and piece[-1].upper() in hitters:
                        found.append(t)
                    break
    for table, hitter in ((g.knight, "N"), (g.king, "K")):
        for t in table[sq]:
            piece = board[t]
            if piece is not None and piece.isupper() == white and piece[-1].upper() == hitter:
                found.append(t)
    behind = g.rank[sq] - rules.forward[by]
    for df in (-1, 1):
        t = g.square(g.file[sq] + df, behind)
        if t is not None:
            piece = board[t]
            if piece is not None and piece.isupper() == white and piece[-1].upper() == "P":
                found.append(t)
    return sorted(found)


def named(rules, board, squares) -> str:
    """``the pawn on g6`` / ``the rook on e8 and the bishop on b5``."""
    names = [f"the {piece_name(board[s])} on {rules.geometry.name[s]}" for s in squares]
    return " and ".join(names) if names else "no piece"


# --------------------------------------------------------------------- text

# ---------------------------------------------------------------- the reasons

@dataclass
class Context:
    """Where a move is asked about: which half of which turn, and the line before it."""

    index: int = 0                 # 0: first move of the turn, 1: second, ...
    opens: bool = False            # double-move: written with a trailing comma
    comma: bool = False            # any variant: the text ends with a comma
    turn_start: object = None      # the position at the start of this turn
    steps: list = field(default_factory=list)  # the played line before the turn


class Diagnosis:
    """Works out why ``token`` is not a legal move at ``pos`` for ``rules``."""

    def __init__(self, rules, pos, ctx: Context):
        self.rules, self.pos, self.ctx = rules, pos, ctx
        self.g = rules.geometry
        self.board = pos.board
        self.me = pos.turn
        self.name = self.g.name

    # -- entry ---------------------------------------------------------------

    def why(self, token: str) -> Finding | None:
        body = token.strip().rstrip(",")
        try:
            spec = read_text(self.rules, body)
        except RulesError as e:
            return Finding(e.message, "G8.1", code=e.code, level=TEXT)
        early = self.before_pieces(spec)
        if early:
            return early
        if spec.kind == "drop":
            return self.drop(spec)
        if spec.kind == "castling":
            return self.castling_by_name(spec.castling)
        if spec.kind == "coordinates":
            return self.from_square(spec.frm, spec)
        return self.san(spec)

    def before_pieces(self, spec) -> Finding | None:
        """Reasons that hold whatever piece moves (the game is over, the turn is full)."""
        r = self.rules
        if r.name == "symmetric-monster" and not r.has_king(self.board, self.me):
            return Finding(f"{side(self.me)} has no king on the board, so the game is over",
                           "S7", level=VARIANT)
        if r.name == "double-move" and self.pos.state.mid and self.ctx.opens:
            return Finding(f"{side(self.me)} is already between the halves of its Double Move; "
                           f"no Double Move can be opened now", "DM-activation", level=VARIANT)
        return None

    # -- which piece ---------------------------------------------------------

    def from_square(self, frm, spec) -> Finding:
        piece = self.board[frm]
        where = self.name[frm]
        if piece is None:
            return Finding(f"no piece on {where}: the square is empty", "G8.1", level=TEXT)
        if (piece.isupper()) != (self.me == WHITE):
            return Finding(f"no piece of the side to move on {where}: the {piece_name(piece)} "
                           f"there is {side(other(self.me))}'s, and {side(self.me)} is to move",
                           "G8.1", level=TEXT)
        return self.piece_to(frm, spec.to, spec)

    def san(self, spec) -> Finding:
        white = self.me == WHITE
        letter = spec.letter
        cands = []
        for sq in self.g.squares:
            piece = self.board[sq]
            if piece is None or piece.isupper() != white or piece[-1].upper() != letter:
                continue
            if piece.startswith("*") != spec.double:
                continue
            if spec.from_file and self.name[sq][0] != spec.from_file:
                continue
            if spec.from_rank and self.name[sq][1:] != spec.from_rank:
                continue
            if letter == "P" and not spec.capture and not spec.from_file \
                    and self.g.file[sq] != self.g.file[spec.to]:
                continue
            cands.append(sq)
        kind = ("double-" if spec.double else "") + PIECE_NAMES[letter]
        colour = side(self.me).lower()
        if not cands:
            where = ""
            if spec.from_file and spec.from_rank:
                sq = self.g.index.get(spec.from_file + spec.from_rank)
                held = self.board[sq] if sq is not None else None
                what = (f"the {piece_name(held)} there" if held else "it is empty"
                        if sq is not None else "the board has no such square")
                return Finding(f"no such piece on {spec.from_file}{spec.from_rank}: "
                               f"{colour} has no {kind} there ({what})", "G8.1", level=TEXT)
            if spec.from_file:
                where = f" on the {spec.from_file}-file"
            elif spec.from_rank:
                where = f" on rank {spec.from_rank}"
            elif letter == "P" and not spec.capture:
                where = f" on the {self.name[spec.to][0]}-file"
            return Finding(f"{side(self.me)} has no {kind}{where} that could make this move",
                           "G8.1", level=TEXT)
        findings = [self.piece_to(sq, spec.to, spec) for sq in cands]
        best = max(f.level for f in findings)
        top = [f for f in findings if f.level == best]
        if len(top) == 1 or best > GEOMETRY:
            return top[0]
        details = [f"{self.name[sq]}: {f.detail}" for sq, f in zip(cands, findings)
                   if f.level == best]
        return Finding(f"no {colour} {kind} can move to {self.name[spec.to]} "
                       f"({'; '.join(details)})", top[0].rule, level=GEOMETRY)

    # -- the piece's own movement --------------------------------------------

    def piece_to(self, frm, to, spec) -> Finding:
        r, pos = self.rules, self.pos
        piece = self.board[frm]
        kind = piece[-1].upper()
        if kind == "K" and not piece.startswith("*"):
            for rule in r.castle_rules:
                if rule.color == self.me and rule.king_from == frm and rule.king_to == to:
                    if not any(m.frm == frm and m.to == to and m.castle is None
                               for m in r.pseudo_moves(pos)):
                        return self.castling(rule)
        found = [m for m in r.pseudo_moves(pos) if m.frm == frm and m.to == to]
        if not found:
            return self.cannot_reach(frm, to, spec)
        wanted = [m for m in found if (m.promotion or None) == spec.promotion]
        if not wanted:
            if spec.promotion is None:
                return Finding(f"the pawn reaches rank {self.g.rank[to]} and must be promoted: "
                               f"add the new piece ({self.name[frm]}{self.name[to]}q or "
                               f"{self.name[to]}=Q)", self.promotion_rule())
            return Finding(f"a pawn is promoted only on its last rank; {self.name[to]} is not",
                           self.promotion_rule())
        move = wanted[0]
        if r.has_check and not r.king_safe_after(pos, move):
            return self.unsafe(move)
        return self.variant(move)

    def promotion_rule(self):
        return "S9" if self.rules.name == "symmetric-monster" else "FIDE-3.7.3.3"

    def cannot_reach(self, frm, to, spec) -> Finding:
        piece, target = self.board[frm], self.board[to]
        kind, pname = piece[-1].upper(), piece_name(piece)
        f_name, t_name = self.name[frm], self.name[to]
        if frm == to:
            return Finding(f"the {pname} on {f_name} cannot stay where it is", PIECE_RULES[kind])
        if target is not None and target.isupper() == piece.isupper():
            return Finding(f"{t_name} is occupied by {side(self.me)}'s own {piece_name(target)}",
                           "FIDE-3.1")
        if kind == "P":
            return self.pawn(frm, to)
        shape = self.shape(kind, frm, to)
        if shape is None:
            return Finding(f"a {PIECE_NAMES[kind]} does not move from {f_name} to {t_name}",
                           PIECE_RULES[kind])
        if shape:
            return Finding(f"the {pname} on {f_name} cannot pass the "
                           f"{piece_name(self.board[shape[0]])} on {self.name[shape[0]]}",
                           "FIDE-3.5")
        if target is not None and target[-1] in "Kk" and self.rules.has_check:
            return self.king_capture(to)
        r = self.rules
        if r.name == "symmetric-monster" and piece.startswith("*"):
            return self.variant(Move(frm, to))
        return Finding(f"the {pname} on {f_name} cannot move to {t_name}", PIECE_RULES[kind])

    def king_capture(self, to) -> Finding:
        if self.rules.name == "double-move" and self.pos.state.mid:
            return Finding(f"the second half of a Double Move may never capture the king on "
                           f"{self.name[to]}, even after a check", "D3", level=VARIANT)
        return Finding(f"a king is never captured (the king on {self.name[to]})", "G6")

    def shape(self, kind, frm, to):
        """None if the piece cannot go frm -> to on an empty board; else the blocking squares."""
        g = self.g
        if kind == "N":
            return [] if to in g.knight[frm] else None
        if kind == "K":
            return [] if to in g.king[frm] else None
        for d in SLIDES[kind]:
            ray = g.rays[frm][d]
            if to in ray:
                return [s for s in ray[:ray.index(to)] if self.board[s] is not None]
        return None

    def pawn(self, frm, to) -> Finding:
        g, r = self.g, self.rules
        piece, target = self.board[frm], self.board[to]
        double = piece.startswith("*")
        step = r.forward[self.me]
        df, dr = g.file[to] - g.file[frm], g.rank[to] - g.rank[frm]
        t_name = self.name[to]
        pname = piece_name(piece)
        if df == 0 and dr == step:
            return Finding(f"a {pname} does not capture straight ahead, and {t_name} holds the "
                           f"{piece_name(target)}", "FIDE-3.7.1")
        if df == 0 and dr == 2 * step:
            start = r.pawn_start_rank[self.me]
            if g.rank[frm] != start:
                rule = "S9" if double else "FIDE-3.7.2"
                return Finding(f"a {pname} steps two squares only from rank {start}; this one "
                               f"stands on rank {g.rank[frm]}", rule)
            middle = g.square(g.file[frm], g.rank[frm] + step)
            blocker = middle if self.board[middle] is not None else to
            return Finding(f"the double step needs {self.name[middle]} and {t_name} empty, but "
                           f"{self.name[blocker]} holds the {piece_name(self.board[blocker])}",
                           "FIDE-3.7.2")
        if abs(df) == 1 and dr == step:
            if target is None:
                return self.en_passant(frm, to)
            if target[-1] in "Kk" and r.has_check:
                return self.king_capture(to)
        if dr * step <= 0:
            return Finding(f"a {pname} never moves backwards or sideways ({self.name[frm]} to "
                           f"{t_name})", "FIDE-3.7.1")
        return Finding(f"a pawn does not move from {self.name[frm]} to {t_name}", "FIDE-3.7.1")

    def ep_rule(self):
        return {"double-move": "D4", "double-move-anul": "A3",
                "symmetric-monster": "S10"}.get(self.rules.name, "FIDE-3.7.3.2")

    def en_passant(self, frm, to) -> Finding:
        """A pawn moving diagonally to an empty square: en passant, or nothing."""
        g, r = self.g, self.rules
        victim_sq = g.square(g.file[to], g.rank[frm])
        victim = self.board[victim_sq] if victim_sq is not None else None
        t_name = self.name[to]
        enemy = side(other(self.me))
        if victim is None or victim[-1] not in "Pp" or victim.isupper() == (self.me == WHITE):
            return Finding(f"{t_name} is empty, and a pawn moves diagonally only to capture; there "
                           f"is no {enemy.lower()} pawn on {self.name[victim_sq]} to take en passant",
                           "FIDE-3.7.3")
        v_name = self.name[victim_sq]
        if victim.startswith("*"):
            return Finding(f"the piece on {v_name} is a double-pawn, which is never taken en passant",
                           "S9", also=["SM-R6"])
        if r.mid_turn(self.pos):
            start = self.ctx.turn_start
            had = start is not None and start.ep == to and r.legal_ep(start) == to
            what = {"double-move": "the second half of a Double Move",
                    "double-move-anul": "the second move of a turn",
                    "symmetric-monster": "the second action of a double turn"}.get(r.name, "this move")
            if had:
                return Finding(f"the en passant capture on {t_name} was open only to the first "
                               f"move of this turn, not to {what}", self.ep_rule())
            return Finding(f"no en passant capture exists in the middle of a turn ({what})",
                           self.ep_rule())
        step = self.double_step_to(victim_sq)
        if step is None:
            return Finding(f"the {enemy.lower()} pawn on {v_name} did not just make a double step "
                           f"(the position has no en passant square {t_name}), so en passant is "
                           f"not possible", self.ep_rule() if r.name != "chess" else "FIDE-3.7.3.2")
        i, s = step
        text = r.move_text(s.pos, s.move).rstrip(",")
        if not s.ends_turn:
            how = {"double-move": "was the first half of a Double Move",
                   "double-move-anul": "was the first move of a two-move turn",
                   "symmetric-monster": "did not end a turn"}.get(r.name, "did not end the turn")
            return Finding(f"the double step {text} {how}, so it left no en passant chance",
                           self.ep_rule(), also=["DM-en-passant"] if r.name == "double-move" else [])
        return Finding(f"en passant is allowed only on the move right after the double step "
                       f"{text}, and that moment has passed", self.ep_rule(),
                       also=["FIDE-3.7.3.2"])

    def double_step_to(self, sq):
        """The last step of the played line that was a two-square pawn move arriving on sq."""
        g = self.g
        line = list(self.ctx.steps)
        for i in range(len(line) - 1, -1, -1):
            s = line[i]
            mv = s.move
            if mv.to != sq or mv.frm is None:
                continue
            piece = s.pos.board[mv.frm]
            if piece and piece[-1] in "Pp" and abs(g.rank[mv.to] - g.rank[mv.frm]) == 2:
                return i, s
            return None
        return None

    # -- castling ------------------------------------------------------------

    def castling_rule_ids(self):
        n = self.rules.name
        if n == "double-chess":
            return "C3", "C3", "C3"
        if n == "symmetric-monster":
            return "FIDE-3.8.2.1", "FIDE-3.8.2.2", "SM-R2"
        return "FIDE-3.8.2.1", "FIDE-3.8.2.2", "FIDE-3.8.2.2"

    def castling_by_name(self, name) -> Finding:
        mine = [c for c in self.rules.castle_rules if c.color == self.me and c.san == name]
        if not mine:
            known = ", ".join(sorted({c.san for c in self.rules.castle_rules}, key=len))
            return Finding(f"{self.rules.name} has no castling written {name} (there are: {known})",
                           "DC-castling-san" if self.rules.name == "double-chess" else "FIDE-3.8.2",
                           level=TEXT)
        return self.castling(mine[0])

    def castling(self, rule) -> Finding:
        r, pos, board = self.rules, self.pos, self.board
        rights_id, path_id, attack_id = self.castling_rule_ids()
        king = "K" if self.me == WHITE else "k"
        rook = "R" if self.me == WHITE else "r"
        k_name, r_name = self.name[rule.king_from], self.name[rule.rook_from]
        who = side(self.me)
        if board[rule.king_from] != king:
            return Finding(f"{who}'s king is not on {k_name}, so it has moved", rights_id)
        if rule.rook_from not in pos.castling:
            why = ("the rook has left " + r_name) if board[rule.rook_from] != rook else \
                "the king or that rook has moved earlier"
            return Finding(f"{who} has no right to castle with the {r_name} rook any more ({why})",
                           rights_id)
        g = self.g
        lo, hi = sorted((g.file[rule.king_from], g.file[rule.rook_from]))
        rank = g.rank[rule.king_from]
        for f in range(lo + 1, hi):
            sq = g.square(f, rank)
            if board[sq] is not None:
                return Finding(f"every square between king and rook must be empty, but "
                               f"{self.name[sq]} holds the {piece_name(board[sq])}", path_id)
        for sq in (rule.king_to, rule.rook_to):
            if board[sq] is not None and sq not in (rule.king_from, rule.rook_from):
                return Finding(f"{self.name[sq]} must be empty for the castling, but holds the "
                               f"{piece_name(board[sq])}", path_id)
        if r.has_check:
            by = other(self.me)
            path = r.king_path(rule)
            if r.attacked(board, rule.king_from, by):
                hit = attackers(r, board, rule.king_from, by)
                return Finding(f"the king is in check from {named(r, board, hit)}, and castling "
                               f"out of check is not allowed", attack_id)
            for sq in path[1:]:
                if r.attacked(board, sq, by):
                    hit = attackers(r, board, sq, by)
                    verb = "would land on" if sq == rule.king_to else "would pass over"
                    return Finding(f"the king {verb} {self.name[sq]}, which is attacked by "
                                   f"{named(r, board, hit)}", attack_id)
        move = Move(rule.king_from, rule.king_to, castle=rule.rook_from)
        if r.has_check and not r.king_safe_after(pos, move):
            return self.unsafe(move)
        return self.variant(move)

    # -- king safety ---------------------------------------------------------

    def safety_rule(self):
        """(rule id, gloss) for 'this would leave the own king in check'."""
        r = self.rules
        if r.name == "double-move":
            if self.pos.state.mid or self.ctx.opens:
                return "DM-every-half-legal", "every half of a Double Move must be legal on its own"
            return "FIDE-3.9.2", None
        if r.name == "double-move-anul":
            if r.mid_turn(self.pos) or self.ctx.index > 0:
                return "DA-4", "each move of a turn must leave the own king safe"
            return "DA-4", "each move of a turn must leave the own king safe, not just the pair"
        return "FIDE-3.9.2", None

    def unsafe(self, move) -> Finding:
        r, pos = self.rules, self.pos
        after = r.move_board(pos, move)
        king = "K" if self.me == WHITE else "k"
        ksq = after.index(king)
        hit = attackers(r, after, ksq, other(self.me))
        rule, note = self.safety_rule()
        by = named(r, after, hit)
        moved = pos.board[move.frm] if move.frm is not None else None
        if move.castle is not None:
            detail = f"after castling the king on {self.name[ksq]} would be in check from {by}"
            return Finding(detail, self.castling_rule_ids()[2], level=SAFETY,
                           also=["FIDE-3.9.2"])
        elif moved == king:
            detail = f"{self.name[move.to]} is attacked by {by}"
        elif r.in_check(pos):
            detail = f"the king on {self.name[ksq]} would still be in check from {by}"
        else:
            detail = f"the king on {self.name[ksq]} would be left in check by {by}"
        return Finding(detail, rule, note, level=SAFETY)

    # -- the variant's turn machine ------------------------------------------

    def variant(self, move) -> Finding:
        r = self.rules
        handler = {"double-move": self.double_move, "double-move-anul": self.anul,
                   "symmetric-monster": self.monster}.get(r.name)
        if handler:
            found = handler(move)
            if found:
                found.level = VARIANT
                return found
        return Finding(REFUSED, None, level=VARIANT)

    def double_move(self, move) -> Finding | None:
        r, pos = self.rules, self.pos
        who = side(self.me)
        text = r.move_text(pos, move)
        if not pos.state.mid and self.ctx.opens:
            if not r.has_ability(pos):
                return Finding(f"{who} has already used its Double Move, so this turn is one "
                               f"ordinary move", "DM-ability")
            if not r.completable(pos, move):
                return Finding(f"after {text} as a first half {who} would have no legal second "
                               f"half, so it cannot open a Double Move", "D2")
        return Finding(r.why_illegal(pos, text + ("," if self.ctx.opens else "")), None)

    def anul(self, move) -> Finding | None:
        """A move written with a trailing comma that cannot be followed by another."""
        r, pos = self.rules, self.pos
        if not self.ctx.comma:
            return None
        if r.mid_turn(pos):
            return Finding("this is already the second move of the turn, and a turn has at most "
                           "two moves", "A1")
        why = r.why_turn_ends(pos, move)
        also = {"it captures": ["DA-5"], "it gives check": ["DA-6"],
                "it gives checkmate": ["DA-6"]}.get(why, ["DA-no-pass"])
        return Finding(f"{r.san(pos, move)} ends the turn ({why}), so no second move may follow it",
                       "A1", also=also)

    def monster(self, move) -> Finding | None:
        r, pos = self.rules, self.pos
        who = side(self.me)
        piece = move.drop or pos.board[move.frm]
        double = piece.startswith("*")
        first = pos.state.first
        text = r.move_text(pos, move)
        if first is not None:
            if not double:
                return Finding(f"the first action of this turn was a double-piece action, so the "
                               f"second must be one too; the {piece_name(piece)} on "
                               f"{self.name[move.frm]} is a single piece", "S4", also=["SM-R9"])
            if r.is_null(first, move):
                return Finding(f"the {piece_name(piece)} would go straight back to "
                               f"{self.name[move.to]} after the quiet first action "
                               f"{r.action_text(first)}: that is a null move", "S6",
                               also=["SM-R10"])
            return None
        if not double and not r.may_move_singles(pos):
            return Finding(f"{who}'s single king has been captured, so its single pieces may not "
                           f"move any more", "S5", also=["SM-R4"])
        if double and not r.may_move_doubles(pos):
            return Finding(f"{who}'s double-king has been captured, so its double-pieces may not "
                           f"move any more", "S5", also=["SM-R5"])
        if double and not r.completable(pos, move):
            return Finding(f"no legal second double-piece action would follow {text}, and one "
                           f"double-piece action alone is not a turn", "S4", also=["SM-R9"])
        return None

    def drop(self, spec) -> Finding:
        r, pos = self.rules, self.pos
        who = side(self.me)
        t_name = self.name[spec.to]
        if not r.double_pieces:
            return Finding(f"there are no drops in {r.name}", "G8.1", level=TEXT)
        if spec.letter != "K":
            return Finding("only the double-king is ever dropped (written K@square)", "S8",
                           level=VARIANT)
        me_k = "K" if self.me == WHITE else "k"
        if me_k not in pos.state.hand:
            where = "is already on the board" if ("*" + me_k) in pos.board else "has been captured"
            return Finding(f"{who}'s double-king is not in hand: it {where}", "S8",
                           also=["S3"], level=VARIANT)
        allowed = r.drop_squares[self.me]
        if spec.to not in allowed:
            names = "-".join((self.name[allowed[0]], self.name[allowed[-1]]))
            return Finding(f"the double-king is dropped only on {who}'s double-pawn start squares "
                           f"({names}); {t_name} is not one of them", "S8", level=VARIANT)
        if pos.board[spec.to] is not None:
            return Finding(f"{t_name} is occupied by the {piece_name(pos.board[spec.to])}; the "
                           f"double-king is dropped only on an empty square", "S8", level=VARIANT)
        return self.variant(Move(None, spec.to, drop="*K"))


# ----------------------------------------------------------------- explain

def explain(variant: str, fen=None, moves=None, move=None, turn=None, cases_dir=None) -> dict:
    """Is ``move`` (one move) or ``turn`` (moves joined by commas) legal after ``moves``?

    Returns a JSON-able dict (see docs/lookups.md); raises RulesError for a bad
    variant, FEN or an illegal move in ``moves``.
    """
    if (move is None) == (turn is None):
        raise RulesError(INVALID_REQUEST, "give exactly one of a move or a turn")
    rules = variants.get(variant)
    pos, steps = play_line(rules, fen, moves)
    return explain_at(rules, pos, steps, move, turn, cases_dir)[0]


def explain_at(rules, pos, steps, move=None, turn=None, cases_dir=None):
    """``explain`` from a position reached by ``steps``; returns (result, position after, steps
    after) so that a game can be checked turn by turn without replaying it each time."""
    variant = rules.name
    text = (move if move is not None else turn).strip()
    if not text:
        raise RulesError(INVALID_MOVE_TEXT, "empty move text")
    start_status = rules.status(pos, history_of(rules, steps))
    out = {"variant": variant, "fen": rules.fen(pos), "to_move": side(pos.turn).lower(),
           "kind": "move" if move is not None else "turn", "input": text}
    if move is not None:
        halves, open_end = [text], False
        single = True
    else:
        parts = text.split(",")
        open_end = parts[-1] == "" and len(parts) > 1
        if open_end:
            parts = parts[:-1]
        if any(not p.strip() for p in parts):
            raise RulesError(INVALID_MOVE_TEXT, f"{text!r}: empty move between commas")
        halves = [p.strip() for p in parts]
        single = False
    entries, finding, label = [], None, None
    cur, prev = pos, None
    turn_start = pos if not rules.mid_turn(pos) else turn_start_of(rules, steps, pos)
    for i, half in enumerate(halves):
        if not single and i > 0 and not rules.mid_turn(cur):
            finding = turn_over(rules, prev, entries, i)
            label = half
            entries.append({"text": half, "legal": False})
            break
        last = i == len(halves) - 1
        token = half
        if not single and rules.comma_marks_double and (not last or open_end):
            token = half + ","
        ctx = Context(index=i, opens=rules.comma_marks_double and token.endswith(","),
                      comma=token.strip().endswith(","),
                      turn_start=turn_start, steps=list(steps))
        try:
            mv = rules.parse_move(cur, token)
        except RulesError as e:
            finding = refusal(rules, cur, token, ctx, e)
            label = half
            entries.append({"text": half, "legal": False})
            break
        after = rules.play(cur, mv)
        ends = not rules.mid_turn(after)
        if single and token.endswith(",") and ends:
            finding = Finding(f"the trailing comma says the turn goes on, but "
                              f"{rules.san(cur, mv)} ends the turn here", "G8")
            label = half
            entries.append({"text": half, "legal": False})
            break
        entries.append({"text": half, "legal": True, "move": rules.move_text(cur, mv),
                        "san": rules.san(cur, mv).rstrip(","), "ends_turn": ends})
        steps = steps + [Step(cur, mv, token, ends)]
        prev = (cur, mv)
        cur = after
    if finding is None and not single and rules.mid_turn(cur):
        finding = incomplete(rules, cur, entries)
        label = "incomplete turn"
    elif finding is None and open_end:
        finding = Finding(f"the trailing comma says the turn goes on, but {entries[-1]['san']} "
                          f"ends the turn here", "G8")
        label = entries[-1]["text"]
        entries[-1]["legal"] = False
    # halves never reached
    for half in halves[len(entries):]:
        entries.append({"text": half, "legal": None})
    out["moves"] = entries
    if finding is not None:
        stopped = label == "incomplete turn"
        out.update(legal=False, reason=finding.text(label), rule=finding.rule,
                   rules=unique([finding.rule] + finding.also), code=finding.code,
                   detail=finding.detail, incomplete=stopped,
                   refused=None if stopped else len([e for e in entries if e["legal"]]) + 1)
        if start_status["over"]:
            out["note"] = game_over_note(rules, pos, start_status)
    else:
        out.update(legal=True, reason=None, rule=None, rules=[], code=None, incomplete=False,
                   refused=None, fen_after=rules.fen(cur), ends_turn=not rules.mid_turn(cur),
                   status=rules.status(cur, history_of(rules, steps)))
        out["turn"] = ",".join(e["move"].rstrip(",") for e in entries)
        out["san"] = ",".join(e["san"] for e in entries)
    out["rule_titles"] = rule_titles(out["rules"], cases_dir)
    return out, cur, steps


def unique(items):
    seen = []
    for x in items:
        if x and x not in seen:
            seen.append(x)
    return seen


def turn_start_of(rules, steps, pos):
    """The position where the turn under way began (None when the line does not show it)."""
    for s in reversed(steps):
        if not rules.mid_turn(s.pos):
            return s.pos
    return None


def refusal(rules, pos, token, ctx, error: RulesError) -> Finding:
    """The finding for a move the oracle refused with ``error``."""
    message = error.message
    for prefix in (f"{token.strip()!r}: ", f"{token.strip()!r} "):
        if message.startswith(prefix):
            message = ("it " if prefix.endswith(" ") and not prefix.endswith(": ") else "") + \
                message[len(prefix):]
    if error.code == INVALID_MOVE_TEXT:
        return Finding(message, "G8.1", code=error.code, level=TEXT)
    if "ambiguous" in message:
        return Finding(message, "FIDE-C.10", level=TEXT)
    found = Diagnosis(rules, pos, ctx).why(token)
    if found is None or (found.rule is None and found.detail == REFUSED):
        return Finding(message, None, code=error.code, level=VARIANT)
    return found


def turn_over(rules, prev, entries, i) -> Finding:
    """Why a move after the i-th is refused: the turn ended with the previous move."""
    n = rules.name
    if i >= 2 or prev is None:
        words = {"double-move": ("a Double Move has exactly two halves", "DM-activation"),
                 "double-move-anul": ("a turn has at most two moves", "A1"),
                 "symmetric-monster": ("a double-piece turn has exactly two actions", "S4")}
        said, rule = words.get(n, ("a turn is one move", "G1"))
        return Finding(f"no further move is allowed: {said}", rule, level=VARIANT)
    pos, move = prev
    san = entries[-1]["san"]
    if n == "double-move-anul":
        why = rules.why_turn_ends(pos, move)
        also = {"it captures": "DA-5", "it gives check": "DA-6", "it gives checkmate": "DA-6"}
        said = why[3:] if why.startswith("it ") else why
        if why.startswith("no legal"):
            said = f"no legal second move exists after {san}"
            return Finding(f"second move not allowed: {said}", "A1", also=["DA-no-pass"],
                           level=VARIANT)
        return Finding(f"second move not allowed: the first move {san} {said}, which ends the "
                       f"turn", "A1", also=[also.get(why, "DA-2")], level=VARIANT)
    if n == "symmetric-monster":
        piece = move.drop or pos.board[move.frm]
        if piece.startswith("*"):
            return Finding(f"no second action: {san} took the opponent's last king, which ends "
                           f"the game at once", "S7", also=["S4", "SM-R12"], level=VARIANT)
        return Finding(f"no second move: {san} is a single-piece move, which is a whole turn",
                       "S4", also=["SM-R9"], level=VARIANT)
    if n == "double-move":
        return Finding(f"no further move: {san} completed the Double Move", "DM-activation",
                       level=VARIANT)
    return Finding(f"second move not allowed: in {n} every turn is a single move", "G1",
                   level=VARIANT)


def incomplete(rules, pos, entries) -> Finding:
    n = rules.name
    last = entries[-1]["san"] if entries else "the first move"
    seconds = len(rules.legal_moves(pos))
    if n == "double-move":
        return Finding(f"a Double Move cannot stop after its first half {last}; "
                       f"{seconds} second halves are possible", "DM-activation", level=VARIANT)
    if n == "double-move-anul":
        return Finding(f"after the quiet first move {last} a second move is compulsory "
                       f"({seconds} are possible)", "A1", also=["DA-no-pass"], level=VARIANT)
    if n == "symmetric-monster":
        return Finding(f"one double-piece action ({last}) alone is not a turn; a second "
                       f"double-piece action must follow ({seconds} are possible)", "S4",
                       also=["SM-R9"], level=VARIANT)
    return Finding("the turn is not complete", "G1", level=VARIANT)


def game_over_note(rules, pos, status) -> str:
    reason = status.get("reason")
    who = side(pos.turn)
    if rules.name == "double-move" and reason == "checkmate" and rules.has_ability(pos):
        return (f"{who} is checkmated: it has no legal move, so it has no first half with which "
                f"to start its unused Double Move (DM-unused-ability-no-escape)")
    return f"the game is already over: {status.get('result')} by {reason}"


_TITLES = None


def rule_titles(ids, cases_dir=None) -> dict:
    """Titles of rule ids from the catalogue (empty when the catalogue cannot be read)."""
    global _TITLES
    if not ids:
        return {}
    if _TITLES is None or cases_dir is not None:
        try:
            from doublecheck.casefiles import CASES_DIR, load_rules
            catalogue, _ = load_rules(cases_dir or CASES_DIR)
            titles = {k: v.get("title", "") for k, v in catalogue.items()}
        except Exception:
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


STATUS_REASONS = {
    "checkmate": "checkmate", "stalemate": "stalemate", "dead-position": "dead position",
    "seventy-five-moves": "the seventy-five-move rule", "fivefold-repetition": "fivefold repetition",
    "no-legal-turn": "having no legal turn", "no-king": "loss of both kings",
}


def status_sentence(status: dict) -> str:
    claims = " or ".join({"fifty-moves": "the fifty-move rule",
                          "threefold-repetition": "threefold repetition"}.get(c, c)
                         for c in status.get("claimable", []))
    claim = f" A draw can be claimed by {claims}." if claims else ""
    if not status.get("over"):
        return "The game is in progress." + claim
    result = status.get("result")
    winner = {"1-0": "White wins", "0-1": "Black wins", "1/2-1/2": "drawn"}.get(result, result)
    reason = STATUS_REASONS.get(status.get("reason"), status.get("reason"))
    return f"The game is over: {winner} ({result}) by {reason}."


# --------------------------------------------------------------------- show

def state_lines(rules, pos) -> list[str]:
    """The turn state in words: abilities, halves, hands, the turn under way."""
    n = rules.name
    who = side(pos.turn)
    out = []
    if n == "double-move":
        unused = [side(c) for c in (WHITE, BLACK) if {"w": "W", "b": "B"}[c] in pos.state.unused]
        out.append("Double Moves unused: " + (", ".join(unused) or "none") +
                   f"   (field 7: {rules.format_state(pos)[0]})")
        if pos.state.mid:
            out.append(f"{who} is between the two halves of its Double Move: one more move "
                       f"finishes the turn.")
    elif n == "double-move-anul":
        if rules.mid_turn(pos):
            out.append(f"{who} has played a quiet first move and owes the second (field 7: m).")
        else:
            out.append("At a turn boundary (field 7: -).")
    elif n == "symmetric-monster":
        hand = [side(c) for c in (WHITE, BLACK) if ("K" if c == WHITE else "k") in pos.state.hand]
        out.append("Double-kings in hand: " + (", ".join(hand) or "none") +
                   f"   (field 7: {rules.format_state(pos)[0]})")
        first = pos.state.first
        if first is not None:
            out.append(f"Double turn under way: first action {rules.action_text(first)} "
                       f"(field 8); one more double-piece action finishes it.")
        else:
            out.append("At a turn boundary (field 8: -).")
    else:
        for field_name, value in zip(rules.extra_fields, rules.format_state(pos)):
            out.append(f"{field_name}: {value}")
    return out


def castling_text(rules, pos) -> str:
    fields = rules.fen(pos).split()
    return fields[2]


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
    rules = variants.get(variant)
    pos, steps = play_line(rules, fen, moves)
    status = rules.status(pos, history_of(rules, steps))
    g = rules.geometry
    board = {g.name[sq]: pos.board[sq] for sq in g.squares if pos.board[sq] is not None}
    turns = rules.turns(pos) if rules.legal_moves(pos) else []
    return {"variant": variant, "fen": rules.fen(pos), "to_move": side(pos.turn).lower(),
            "mid_turn": rules.mid_turn(pos), "board": board,
            "state": state_lines(rules, pos), "moves": len(rules.legal_moves(pos)),
            "turns": len(turns), "status": status}


def show(variant, fen=None, moves=None, ascii_only=False) -> str:
    """A board for the terminal, the turn state, the counts of moves and turns, and the status."""
    rules = variants.get(variant)
    pos, steps = play_line(rules, fen, moves)
    data = show_data(variant, fen, moves)
    lines = [f"{variant}: {side(pos.turn)} to move"]
    lines += board_lines(rules, pos, ascii_only)
    if rules.double_pieces:
        lines.append("(* marks a double-piece)")
    lines.append("")
    lines.append(f"FEN: {data['fen']}")
    ep = rules.legal_ep(pos)
    lines.append(f"Castling: {castling_text(rules, pos)}   En passant: "
                 f"{rules.geometry.name[ep] if ep is not None else '-'}   "
                 f"Halfmove clock: {pos.halfmove}   Move: {pos.fullmove}")
    lines += state_lines(rules, pos)
    if rules.has_check and rules.in_check(pos):
        lines.append(f"{side(pos.turn)} is in check.")
    unit = "ways to finish the turn" if data["mid_turn"] else "legal turns"
    lines.append(f"Legal moves: {data['moves']}   {unit[0].upper() + unit[1:]}: {data['turns']}")
    lines.append(status_sentence(data["status"]))
    return "\n".join(lines)


# -------------------------------------------------------------------- turns

def grouped_turns(variant, fen=None, moves=None) -> dict:
    """The legal turns grouped by their first move, in coordinates and SAN."""
    rules = variants.get(variant)
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
    return {"variant": variant, "fen": rules.fen(pos), "count": sum(len(g["turns"]) for g in ordered),
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
