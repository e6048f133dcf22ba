"""Symmetric Monster Chess (seed 004): extra squares, double-pieces, no check.

The rules are stated in the catalogue (cases/rules/symmetric-monster-seed.json
and symmetric-monster.json; ``doublecheck rules ID`` prints one); the ids
mark where each acts here:

- SM-setup, S1, S2: c0-f0 and c9-f9 added, double-pieces written ``*P``
- SM-R1, SM-R2, S4: no check; kings are captured; castling ignores attacks
- SM-R3, SM-R6, SM-R7, SM-R8, S9, S10: pawns and double-pawns
- SM-R4, SM-R5, S5: a lost king stops its kind of pieces
- SM-R9, S4: a turn is one single-piece move or two double-piece actions
- SM-R10, S6: no null move back to where the piece came from
- SM-R11, S8: the double-king is dropped from hand onto its pawns' start squares
- SM-R12, S7: no king on the board, or no legal turn, loses
- S11: the draw rules of G2/G3 only
- S3, SM-fen-kings, SM-pawn-ranks: FEN fields 7 (hand) and 8 (first action) and valid positions
"""

import re
from typing import NamedTuple

from doublecheck.oracle import explain
from doublecheck.oracle.chess import About, Chess, game_over, not_over
from doublecheck.oracle.errors import INVALID_FEN, RulesError, quote
from doublecheck.oracle.explain import VARIANT, Refusal, TurnEnd, piece_name, side as side_name
from doublecheck.oracle.fen import validate_pawns_and_rights
from doublecheck.oracle.geometry import Geometry
from doublecheck.oracle.position import BLACK, WHITE, Move, color_of, colored, other

BOARD = Geometry(8, range(0, 10), missing_squares=["a0", "b0", "g0", "h0", "a9", "b9", "g9", "h9"])
ACTION = re.compile(r"K@([a-p]\d)|([a-p]\d)(x?)([a-p]\d)([qrbn]?)")


class Action(NamedTuple):
    """The first action of a double turn, as much as R10 needs to know of it."""

    frm: int | None        # None for the drop
    to: int
    capture: bool
    promotion: str | None  # upper-case letter


class State(NamedTuple):
    hand: str                  # double-kings not yet dropped: "Kk", "K", "k" or ""
    first: Action | None       # the first action of the double turn under way


def bad(message):
    return RulesError(INVALID_FEN, message)


def is_double(piece) -> bool:
    return piece is not None and piece.startswith("*")


class SymmetricMonster(Chess):
    """FIDE chess plus the seed's rules; R1-R12 mark where each one acts."""

    name = "symmetric-monster"
    geometry = BOARD
    start_fen = "*p*p*p*p/rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/*P*P*P*P w KQkq - 0 1 Kk -"
    has_check = False        # R1, R2: kings are captured, castling ignores attacks
    double_pieces = True
    extra_fields = ("double-kings in hand", "first action of the double turn")
    # OPT-draws and OPT-move-count (S11 keeps G3) and OPT-fullmove: a double-piece turn is
    # two actions.  No OPT-king-safety (no check, S4) and no OPT-dead-position (S11).
    option_names = ("draws", "move-count", "fullmove")
    drop_squares = {WHITE: tuple(BOARD.rank_squares(0)), BLACK: tuple(BOARD.rank_squares(9))}

    # ------------------------------------------------------------- kings

    def has_king(self, board, color) -> bool:
        """Is either king of `color` on the board?  Without one, that side has lost (R12)."""
        return colored("K", color) in board or colored("*K", color) in board

    def may_move_singles(self, pos) -> bool:
        """R4: only while the single king is on the board."""
        return colored("K", pos.turn) in pos.board

    def may_move_doubles(self, pos) -> bool:
        """R5: only while the double-king is on the board or still in hand."""
        return colored("*K", pos.turn) in pos.board or colored("K", pos.turn) in pos.state.hand

    LOST_KING = ((may_move_singles, "has lost its single king, so its single pieces may not move"),
                 (may_move_doubles, "has lost its double-king, so its double-pieces may not move"))

    def king_notes(self, pos):
        """R4, R5: a side that lost one of its kings still plays with the other kind of piece."""
        return [f"{side_name(color)} {words}." for color in (WHITE, BLACK)
                for may_move, words in self.LOST_KING if not may_move(self, pos.replace(turn=color))]

    # ------------------------------------------------------------- moves

    def legal_moves(self, pos):
        """The actions the side to move may make next."""
        if not self.has_king(pos.board, pos.turn):
            return []                                   # R12: the game is over
        first = pos.state.first
        if first is not None:                           # R9, R10: the second action
            return [m for m in self.double_actions(pos) if not self.is_null(first, m)]
        pseudo = self.pseudo_moves(pos)
        moves = []
        if self.may_move_singles(pos):                  # R4
            moves += [m for m in pseudo if not is_double(pos.board[m.frm])]
        if self.may_move_doubles(pos):                  # R5, R9: only a first action that can be followed
            moves += [m for m in self.double_actions(pos, pseudo) if self.completable(pos, m)]
        return moves

    def double_actions(self, pos, pseudo=None):
        """Moves of the double-pieces (R1: attacks do not matter) and the drop (R11)."""
        if pseudo is None:
            pseudo = self.pseudo_moves(pos)
        return [m for m in pseudo if is_double(pos.board[m.frm])] + self.drops(pos)

    def drops(self, pos):
        """R11: the double-king from hand onto an empty start square of its side's double-pawns."""
        if colored("K", pos.turn) not in pos.state.hand:
            return []
        return [Move(None, sq, drop="*K") for sq in self.drop_squares[pos.turn] if pos.board[sq] is None]

    def completable(self, pos, move) -> bool:
        """R9: a first action needs a second one after it (even when it took the last king)."""
        after = self.open_double(pos, move)
        return bool(self.drops(after)) or any(not self.is_null(after.state.first, m)
                                              for m in self.double_actions(after))

    def is_null(self, first: Action, move: Move) -> bool:
        """R10: the piece of a quiet, non-promoting first move going straight back."""
        return (first.frm is not None and not first.capture and first.promotion is None
                and move.frm == first.to and move.to == first.frm)

    def pawn_rank_ok(self, piece, rank):
        """Ordinary pawns stand on ranks 2-7; double-pawns start on rank 0 / 9 (R3: promotion on 8 / 1)."""
        if not is_double(piece):
            return 2 <= rank <= 7
        return 0 <= rank <= 7 if piece.isupper() else 2 <= rank <= 9

    # ------------------------------------------------------------ turn machine

    def make(self, pos, move, ends_turn=True):
        """One action.  R6: a double-pawn's double step leaves no en passant target."""
        after = super().make(pos, move, ends_turn)
        if after.ep is not None and is_double(pos.board[move.frm]):
            after = after.replace(ep=None)
        taken = pos.board[move.to] if move.drop is None else None
        if taken in ("K", "k"):  # R1: a captured single king takes its castling rights with it
            after = after.replace(castling=after.castling - self.rights_of[color_of(taken)])
        return after

    def open_double(self, pos, move):
        """The position after the first action of a double turn (the same side moves again)."""
        hand = self.hand_after(pos, move)
        capture = move.en_passant or pos.board[move.to] is not None
        first = Action(move.frm, move.to, capture, move.promotion)
        return self.make(pos, move, ends_turn=False).replace(state=State(hand, first))

    def hand_after(self, pos, move):
        return pos.state.hand.replace(colored("K", pos.turn), "") if move.drop else pos.state.hand

    def play(self, pos, move):
        """R9: a single-piece move is a turn; a double-piece action opens or closes a double turn."""
        single = move.drop is None and not is_double(pos.board[move.frm])
        if pos.state.first is None and not single:
            after = self.open_double(pos, move)
            if self.has_king(after.board, other(pos.turn)):
                return after
            # R12: the opponent's last king is gone; the game ends and this was the whole turn
        return self.make(pos, move).replace(state=State(self.hand_after(pos, move), None))

    def mid_turn(self, pos) -> bool:
        return pos.state.first is not None

    # ---------------------------------------------------------------- game end

    def status(self, pos, history=()):
        """R12 (no king) and R1 (no legal turn) lose; otherwise the draw rules of S11."""
        if self.mid_turn(pos):
            return not_over()
        if not self.has_king(pos.board, pos.turn):
            return game_over("no-king", winner=other(pos.turn))
        if not self.legal_moves(pos):
            return game_over("no-legal-turn", winner=other(pos.turn))
        return super().status(pos, history)  # reaches only the move-count and repetition rules

    def dead_position(self, pos) -> bool:
        return False  # S11

    # -------------------------------------------------------------- FEN

    def parse_state(self, fields, pos):
        hand = fields[0] if fields else "Kk"
        if hand not in ("Kk", "K", "k", "-"):
            raise bad(f"field 7 (double-kings in hand) must be Kk, K, k or -, not {quote(hand)}")
        text = fields[1] if len(fields) > 1 else "-"
        first = None if text == "-" else self.parse_action(text)
        return State(hand.replace("-", ""), first)

    def parse_action(self, text):
        m = ACTION.fullmatch(text)
        names = [n for n in (m.group(1), m.group(2), m.group(4)) if n] if m else []
        if not m or any(n not in self.geometry.index for n in names):
            raise bad(f"field 8 (first action) must be '-' or an action such as d0c1, d4xe5, "
                      f"c7c8q or K@c0 on this board, not {quote(text)}")
        sq = self.geometry.index
        if m.group(1):
            return Action(None, sq[m.group(1)], False, None)
        return Action(sq[m.group(2)], sq[m.group(4)], m.group(3) == "x", m.group(5).upper() or None)

    def format_state(self, pos):
        hand, first = pos.state
        return [hand or "-", "-" if first is None else self.action_text(first)]

    def action_text(self, a: Action):
        name = self.geometry.name
        if a.frm is None:
            return f"K@{name[a.to]}"
        return name[a.frm] + ("x" if a.capture else "") + name[a.to] + (a.promotion or "").lower()

    def validate(self, pos):
        """Reject positions that cannot arise (G9, S3)."""
        board, hand = pos.board, pos.state.hand
        for color in (WHITE, BLACK):
            side = "White" if color == WHITE else "Black"
            for king, what in ((colored("K", color), "single king"), (colored("*K", color), "double-king")):
                if board.count(king) > 1:
                    raise bad(f"{side} has {board.count(king)} pieces {king!r}; at most one {what}")
            if colored("*K", color) in board and colored("K", color) in hand:
                raise bad(f"{side}'s double-king is both in hand (field 7) and on the board")
        validate_pawns_and_rights(self, pos, lambda piece: f"a {'double-' if is_double(piece) else ''}pawn {piece!r}")
        if not self.has_king(board, other(pos.turn)):
            raise bad("the side not to move has no king on the board: the game ended before this position")
        if pos.state.first is not None:
            self.validate_mid_turn(pos)

    def validate_mid_turn(self, pos):
        """Field 8 must describe an action that led to this board, and the turn must be finishable."""
        g, board, me = self.geometry, pos.board, pos.turn
        a = pos.state.first
        text = self.action_text(a)
        if pos.ep is not None:
            raise bad(f"a position in the middle of a double turn ({text}) has no en passant square")
        if not self.has_king(board, me) or not self.may_move_doubles(pos):
            raise bad(f"field 8 is {text!r}, but the side to move cannot make double-piece actions")
        piece = board[a.to]
        if not is_double(piece) or piece.isupper() != (me == WHITE):
            raise bad(f"field 8 is {text!r}, but {g.name[a.to]} holds no double-piece of the side to move")
        if a.frm is None:
            if piece[-1] not in "Kk":
                raise bad(f"field 8 is {text!r}, but {g.name[a.to]} holds no double-king")
            if a.to not in self.drop_squares[me]:
                raise bad(f"field 8 is {text!r}, but the double-king is dropped only on its "
                          f"double-pawns' start squares")
        else:
            kind = "P" if a.promotion else piece[-1].upper()
            if board[a.frm] is not None or not self.could_move(kind, me, a, board):
                raise bad(f"field 8 is {text!r}, but no {piece!r} could have made that move")
            if a.promotion and (piece[-1].upper() != a.promotion
                                or g.rank[a.to] != self.promotion_rank[me]):
                raise bad(f"field 8 is {text!r}, but {g.name[a.to]} holds no piece promoted to {a.promotion}")
        if not self.legal_moves(pos):
            raise bad(f"after the first action {text} no legal second action exists")

    def could_move(self, kind, color, a: Action, board):
        """Could a piece of this kind have gone a.frm -> a.to (capturing or not, as recorded)?"""
        g = self.geometry
        if kind != "P":
            return self.line_blockers(kind, a.frm, a.to, board) == []
        df, dr = g.file[a.to] - g.file[a.frm], g.rank[a.to] - g.rank[a.frm]
        step = self.forward[color]
        if a.capture:
            return abs(df) == 1 and dr == step
        middle = g.square(g.file[a.frm], g.rank[a.frm] + step)
        return df == 0 and (dr == step or (dr == 2 * step and board[middle] is None
                                           and g.rank[a.frm] == self.pawn_start_rank[color]))

    # ------------------------------------------------------ explaining refusals

    # No check and no king safety here (S4, SM-R1): kings are captured, castling ignores attacks.
    rule_ids = {**Chess.rule_ids, "promotion": "S9", "*double-step": "S9", "en-passant": "S10",
                "en-passant-unended": "S10", "castling-path": "SM-R2", "castling-attack": "SM-R2",
                "king-capture": None, "king-safety": None}
    continuing_move = "the second action of a double turn"
    unended_move = "did not end a turn"

    def why_no_move(self, pos, asked):
        """S7: without a king on the board a side has lost, so it moves no more."""
        if not self.has_king(pos.board, pos.turn):
            return Refusal(f"{side_name(pos.turn)} has no king on the board, so the game is over", "S7")
        return None

    def why_refused(self, pos, move, asked):
        """S4 (double turns are two double-piece actions), S5 (lost kings), S6 (no null move)."""
        g, who = self.geometry, side_name(pos.turn)
        piece = move.drop or pos.board[move.frm]
        double = is_double(piece)
        first = pos.state.first
        if first is not None:
            if not double:
                return Refusal(f"the first action of this turn was a double-piece action, so the "
                               f"second must be one too; the {piece_name(piece)} on "
                               f"{g.name[move.frm]} is a single piece", "S4", also=["SM-R9"])
            if self.is_null(first, move):
                return Refusal(f"the {piece_name(piece)} would go straight back to "
                               f"{g.name[move.to]} after the quiet first action "
                               f"{self.action_text(first)}: that is a null move", "S6",
                               also=["SM-R10"])
            return None
        if not double and not self.may_move_singles(pos):
            return Refusal(f"{who}'s single king has been captured, so its single pieces may not "
                           f"move any more", "S5", also=["SM-R4"])
        if double and not self.may_move_doubles(pos):
            return Refusal(f"{who}'s double-king has been captured, so its double-pieces may not "
                           f"move any more", "S5", also=["SM-R5"])
        if double and not self.completable(pos, move):
            return Refusal(f"no legal second double-piece action would follow "
                           f"{self.move_text(pos, move)}, and one double-piece action alone is not "
                           f"a turn", "S4", also=["SM-R9"])
        return None

    def why_no_drop(self, pos, text, asked):
        """S8: only the double-king, from hand, onto an empty start square of the side's double-pawns."""
        g, who = self.geometry, side_name(pos.turn)
        t_name = g.name[text.to]
        if text.letter != "K":
            return Refusal("only the double-king is ever dropped (written K@square)", "S8",
                           level=VARIANT)
        if colored("K", pos.turn) not in pos.state.hand:
            where = "is already on the board" if colored("*K", pos.turn) in pos.board else "has been captured"
            return Refusal(f"{who}'s double-king is not in hand: it {where}", "S8", also=["S3"],
                           level=VARIANT)
        allowed = self.drop_squares[pos.turn]
        if text.to not in allowed:
            names = "-".join((g.name[allowed[0]], g.name[allowed[-1]]))
            return Refusal(f"the double-king is dropped only on {who}'s double-pawn start squares "
                           f"({names}); {t_name} is not one of them", "S8", level=VARIANT)
        if pos.board[text.to] is not None:
            return Refusal(f"{t_name} is occupied by the {piece_name(pos.board[text.to])}; the "
                           f"double-king is dropped only on an empty square", "S8", level=VARIANT)
        return explain.turn_machine(self, pos, Move(None, text.to, drop="*K"), asked)

    def why_no_en_passant(self, pos, frm, to, asked):
        """S9 (SM-R6): a double-pawn is never taken en passant."""
        g = self.geometry
        victim_sq = g.square(g.file[to], g.rank[frm])
        victim = pos.board[victim_sq] if victim_sq is not None else None
        if is_double(victim) and victim[-1] in "Pp" and color_of(victim) != pos.turn:
            return Refusal(f"the piece on {g.name[victim_sq]} is a double-pawn, which is never "
                           f"taken en passant", "S9", also=["SM-R6"])
        return super().why_no_en_passant(pos, frm, to, asked)

    def why_turn_over(self, pos, move, played):
        """S4: a single-piece move is a whole turn; S7: taking the last king ends the game."""
        if played >= 2:
            return Refusal("no further move is allowed: a double-piece turn has exactly two "
                           "actions", "S4")
        san = self.san(pos, move).rstrip(",")
        if is_double(move.drop or pos.board[move.frm]):
            return Refusal(f"no second action: {san} took the opponent's last king, which ends "
                           f"the game at once", "S7", also=["S4", "SM-R12"])
        return Refusal(f"no second move: {san} is a single-piece move, which is a whole turn",
                       "S4", also=["SM-R9"])

    def why_incomplete(self, pos, last):
        """S4: one double-piece action alone is not a turn."""
        return Refusal(f"one double-piece action ({last}) alone is not a turn; a second "
                       f"double-piece action must follow ({len(self.legal_moves(pos))} are "
                       f"possible)", "S4", also=["SM-R9"])

    turn_actions = ("First action", "Second action")

    def turn_end_reason(self, pos_before, move, pos_after):
        """A single-piece move is a whole turn (S4); a first double action that takes the
        opponent's last king ends the game there (S7)."""
        if pos_before.state.first is not None or self.mid_turn(pos_after):
            return None
        san = self.san(pos_before, move)
        if not is_double(move.drop or pos_before.board[move.frm]):
            # S4: most pieces are single pieces, so this is the usual turn
            return TurnEnd("S4", f"{san} is a single-piece move, a whole turn", ("SM-R9",), usual=True)
        return TurnEnd("S7", f"{san} took the opponent's last king, which ends the game",
                       ("SM-R12",))

    def state_sentences(self, pos):
        """The double-kings in hand (field 7) and the double turn under way (field 8)."""
        hand = [side_name(c) for c in (WHITE, BLACK) if colored("K", c) in pos.state.hand]
        out = ["Double-kings in hand: " + (", ".join(hand) or "none") +
               f"   (field 7: {self.format_state(pos)[0]})"]
        if pos.state.first is not None:
            out.append(f"Double turn under way: first action {self.action_text(pos.state.first)} "
                       f"(field 8); one more double-piece action finishes it.")
        else:
            out.append("At a turn boundary (field 8: -).")
        return out

    # What the tables doublecheck generate writes say of this variant (README, docs/perft.md).
    about = About(summary=("extra squares, double-pieces that move twice, a double-king dropped from hand, "
                           "no check"),
                  move=("a single-piece move, or one action of a double turn (a double-piece move or the "
                        "double-king drop)"),
                  turn="one single-piece move, or two double actions (**S4**)",
                  note=("a first double action counts only when a second can follow (**S4**), the second "
                        "may not undo a quiet first (**S6**); a side without kings has no moves (**S7**)"))
