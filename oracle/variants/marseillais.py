"""Marseillais chess, the historical two-move family (rulings G1-G9, M1-M8).

FIDE chess in which a side plays two moves a turn.  The two family members
differ in one setting, how White's first turn is played (M2):

- ``marseillais`` (balanced): White's first turn is ONE move, then every
  turn is two: W, BB, WW, BB, ...  A turn boundary with White to move and
  fullmove number 1 is that one-move turn.
- ``marseillais-classic``: every turn is two moves, White's first included.

The turn machine (how it differs from double-move-anul):

- M1  A turn is two moves, by one piece or two; castling is one move.  A
      capture does NOT end the turn.
- M3  A move one that gives check (discovered check and mate included) ends
      the turn.  Each move must leave the mover's king safe on its own; a
      side in check answers it with move one.
- M4  A double step made on either move of a turn leaves a target for the
      opponent's next turn, while its pawn still stands where the step put it
      and the square passed over is empty.  Move one of that turn may take en
      passant on any target; move two only on the other target, and only
      after move one took en passant itself (the Alekhine rule).  Every target
      expires when that turn ends.
- M5  A move one without check that leaves no legal move two ends the game
      at once: a stalemate draw.  That move is a whole turn; the position
      stays as it is between the two moves (field 7 ``m``) and has no
      children.
- M6  The game end is judged at turn boundaries (plus M5): mate is check
      with no legal move one, stalemate no legal move one without check.

FEN (M7): field 7 is ``-`` at a turn boundary and ``m`` between the two
moves.  Field 4 lists up to two en passant squares in file order (``b6,d6``).
At a turn boundary these are the live targets of the side to move (on the
opponent's third rank); between the two moves they are (a) the other target,
still open to move two after an en passant move one (opponent's third rank),
or (b) the square passed over by a double step that move one made (the
mover's own third rank), pending for the opponent's next turn.  In a
position, ``pos.ep`` is that frozenset of squares (never None); the other
variants keep a single square there.
"""

from doublecheck.oracle import fen as fen_io
from doublecheck.oracle import notation
from doublecheck.oracle.chess import Chess
from doublecheck.oracle.errors import ILLEGAL_MOVE, INVALID_FEN, RulesError
from doublecheck.oracle.position import BLACK, WHITE, Move, Position, other
from doublecheck.oracle.variants.double_move_anul import BOUNDARY, MID_TURN, DoubleMoveAnul, side_name

NO_TARGETS = frozenset()
MOST_TARGETS = 2   # two double steps per turn at most


def bad_fen(message):
    return RulesError(INVALID_FEN, message)


class Marseillais(Chess):
    """Balanced Marseillais chess: two moves a turn, White's first turn one move."""

    name = "marseillais"
    start_fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 -"
    extra_fields = ("turn",)
    white_opens_with_one_move = True   # M2: the one setting the two ids differ in

    def __init__(self):
        # The rank a double-stepping pawn of each colour passes over (M4, M7).
        self.passed_rank = {c: self.pawn_start_rank[c] + self.forward[c] for c in (WHITE, BLACK)}
        super().__init__()

    # ------------------------------------------------------------ turn machine

    def mid_turn(self, pos) -> bool:
        """Does the side to move owe a move two?  Not after an M5 move one: with no
        legal move two that turn (and the game) is over, though field 7 stays ``m``."""
        return pos.state == MID_TURN and self.has_legal_move(pos)

    has_legal_move = DoubleMoveAnul.has_legal_move

    def one_move_turn(self, pos) -> bool:
        """M2: in the balanced form White's first turn (fullmove 1) is a single move."""
        return (self.white_opens_with_one_move and pos.turn == WHITE and pos.fullmove == 1
                and pos.state != MID_TURN)

    def gives_check(self, pos, move) -> bool:
        board = self.move_board(pos, move)
        king = "k" if pos.turn == WHITE else "K"
        return self.attacked(board, board.index(king), pos.turn)

    def move_one_ends_turn(self, pos, move) -> bool:
        """M2, M3: the opening move of the balanced form, or a move one that checks.
        (A capture does not end the turn, M1.)"""
        return self.one_move_turn(pos) or self.gives_check(pos, move)

    def play(self, pos, move):
        """The position after one legal move.  After a move one that leaves no
        legal move two the result is an M5 position: field 7 ``m``, game over."""
        if pos.state == MID_TURN or self.move_one_ends_turn(pos, move):
            return self.end_turn(pos, move)
        return self.after_move_one(pos, move)

    def turns(self, pos):
        """Every way to complete the current turn, as (moves, position after); the
        same machine as ``play``, generating each move two once."""
        if pos.state == MID_TURN:
            return [([m], self.end_turn(pos, m)) for m in self.legal_moves(pos)]
        found = []
        for first in self.legal_moves(pos):
            if self.move_one_ends_turn(pos, first):
                found.append(([first], self.end_turn(pos, first)))
                continue
            half = self.after_move_one(pos, first)
            seconds = self.legal_moves(half)
            if not seconds:                       # M5: a one-move turn, drawn by stalemate
                found.append(([first], half))
            found.extend(([first, m], self.end_turn(half, m)) for m in seconds)
        return found

    def after_move_one(self, pos, move):
        """Move one played, the same side to move again (field 7 ``m``).  Field 4 keeps
        (a) the other target when move one took en passant, and (b) the square a
        double step of move one passed over (M4, M7)."""
        after = self.make(pos, move, ends_turn=False)
        kept = (frozenset(t for t in self.open_targets(pos)
                          if t != move.to and self.live(after.board, t, other(pos.turn)))
                if move.en_passant else NO_TARGETS)
        passed = self.passed_square(pos, move)
        targets = kept | {passed} if passed is not None else kept
        return Position(after.board, after.turn, after.castling, targets, after.halfmove,
                        after.fullmove, MID_TURN)

    def end_turn(self, pos, move):
        """The last move of a turn: the opponent moves next, with a target for each
        double step of this turn whose pawn is still there and whose passed-over
        square is still empty (M4).  The targets of this turn expire."""
        after = self.make(pos, move, ends_turn=True)
        steps = [t for t in pos.ep if self.geometry.rank[t] == self.passed_rank[pos.turn]]
        passed = self.passed_square(pos, move)
        if passed is not None:
            steps.append(passed)
        targets = frozenset(t for t in steps if self.live(after.board, t, pos.turn))
        return Position(after.board, after.turn, after.castling, targets, after.halfmove,
                        after.fullmove, BOUNDARY)

    # ------------------------------------------------------------ en passant

    def passed_square(self, pos, move):
        """The square a two-square pawn step passes over, or None for any other move."""
        g = self.geometry
        if move.frm is None or pos.board[move.frm][-1] not in "Pp":
            return None
        if abs(g.rank[move.to] - g.rank[move.frm]) != 2:
            return None
        return g.square(g.file[move.frm], (g.rank[move.to] + g.rank[move.frm]) // 2)

    def live(self, board, target, stepper) -> bool:
        """M4: the square passed over is empty and the pawn of ``stepper`` that made the
        double step still stands just beyond it."""
        beyond = self.pawn_step[stepper][target]
        return board[target] is None and board[beyond] == ("P" if stepper == WHITE else "p")

    def open_targets(self, pos):
        """The targets the side to move may take en passant on with its next move: any
        target at a turn boundary; between the moves only the other target after an
        en passant move one (M4).  A (b) square is the mover's own and never open."""
        return [t for t in pos.ep if self.geometry.rank[t] == self.passed_rank[other(pos.turn)]]

    def pawn_moves(self, pos, sq, piece, moves):
        """FIDE pawn moves (``pos.ep`` is a set here, so the core adds no en passant),
        plus en passant on every open target (M4)."""
        super().pawn_moves(pos, sq, piece, moves)
        if pos.ep:
            for to in self.pawn_hits[pos.turn][sq]:
                if to in pos.ep and self.geometry.rank[to] == self.passed_rank[other(pos.turn)] \
                        and self.en_passant_victim(pos, sq, to) is not None:
                    moves.append(Move(sq, to, en_passant=True))

    def usable_targets(self, pos) -> tuple:
        """The targets that some legal continuation of the turn takes en passant, in
        file order: what field 4 shows (G9) and what repetition compares (G3).
        At a turn boundary a target may be usable by move two only (after an en
        passant move one on the other target)."""
        if not pos.ep:
            return ()
        found = set()
        for first in self.legal_moves(pos):
            if not first.en_passant:
                continue
            found.add(first.to)
            if pos.state != MID_TURN and not self.move_one_ends_turn(pos, first):
                half = self.after_move_one(pos, first)
                found.update(m.to for m in self.legal_moves(half) if m.en_passant)
        return tuple(sorted(found, key=self.geometry.file.__getitem__))

    def legal_ep(self, pos):
        """One en passant square, for callers that show a single one: the first usable
        target in file order, or None (``usable_targets`` has them all)."""
        usable = self.usable_targets(pos)
        return usable[0] if usable else None

    def identity(self, pos):
        """G3: the live targets count only when an en passant capture on them is legal."""
        return (pos.board, pos.turn, pos.castling, self.usable_targets(pos), pos.state)

    # ------------------------------------------------------------------- FEN

    parse_state = DoubleMoveAnul.parse_state      # field 7: '-' or 'm', absent '-' (M7 = A4)
    format_state = DoubleMoveAnul.format_state

    def parse_ep_field(self, text):
        """M7: ``-`` or up to two squares joined by a comma (any order on input)."""
        if text == "-":
            return NO_TARGETS
        names = text.split(",")
        squares = [fen_io.parse_ep_square(self, name) if name != "-" else None for name in names]
        if None in squares or len(squares) > MOST_TARGETS or len(set(squares)) != len(squares):
            raise bad_fen(f"en passant field {text!r} must be '-' or one or two different squares "
                          f"joined by a comma (b6,d6)")
        return frozenset(squares)

    def format_ep_field(self, pos):
        """M7: at a turn boundary the usable targets; between the moves the usable
        (a) target and, always, the (b) square of move one's double step."""
        shown = set(self.usable_targets(pos))
        if pos.state == MID_TURN:
            shown.update(t for t in pos.ep if self.geometry.rank[t] == self.passed_rank[pos.turn])
        g = self.geometry
        return ",".join(g.name[t] for t in sorted(shown, key=g.file.__getitem__)) or "-"

    def validate(self, pos):
        """G9 and M7, plus what field 7 ``m`` implies (M2, M3).  A position between
        the moves with no legal move two is valid: it is the M5 stalemate."""
        fen_io.validate_standard(self, pos.replace(ep=None))
        self.validate_targets(pos)
        if pos.state != MID_TURN:
            return
        who, them = side_name(pos.turn), side_name(other(pos.turn))
        if self.white_opens_with_one_move and pos.turn == WHITE and pos.fullmove == 1:
            raise bad_fen("field 7 is 'm' with White to move at fullmove 1, but White's first "
                          "turn is a single move in balanced Marseillais (M2)")
        if self.in_check(pos, other(pos.turn)):
            raise bad_fen(f"field 7 is 'm' but {them} is in check: a move one that gives check "
                          f"ends the turn (M3)")
        if self.in_check(pos):
            raise bad_fen(f"field 7 is 'm' but {who} is in check: {who}'s move one cannot have "
                          f"left its own king attacked (M3)")

    def validate_targets(self, pos):
        """M7: each square empty with the double-stepped pawn beyond it, on the rank
        that fits: the opponent's passed-over rank (a target of the side to move),
        or between the moves the mover's own (a double step of move one)."""
        g = self.geometry
        mid = pos.state == MID_TURN
        if mid and len(pos.ep) > 1:
            raise bad_fen("between the two moves field 4 holds one square at most: move one "
                          "either took en passant or made a double step")
        for t in pos.ep:
            stepper = other(pos.turn)
            if mid and g.rank[t] == self.passed_rank[pos.turn]:
                stepper = pos.turn
            if g.rank[t] != self.passed_rank[stepper]:
                raise bad_fen(f"en passant square {g.name[t]} is not on rank "
                              f"{self.passed_rank[other(pos.turn)]}"
                              + (f" or {self.passed_rank[pos.turn]}" if mid else ""))
            if not self.live(pos.board, t, stepper):
                raise bad_fen(f"en passant square {g.name[t]} must be empty with the "
                              f"{side_name(stepper)} pawn that passed over it just beyond it")

    # ------------------------------------------------------------- move text

    def parse_move(self, pos, text):
        """The legal move ``text`` names.  A trailing comma (``e2e4,``) says the turn
        goes on; it is refused on a move that ends the turn (M8)."""
        try:
            move = notation.parse_move(self, pos, text)
        except RulesError as e:
            reason = self.why_refused(pos, text) if e.code == ILLEGAL_MOVE else None
            if reason is None:
                raise
            raise RulesError(ILLEGAL_MOVE, f"{e.message}: {reason[1]} ({reason[0]})") from None
        if text.strip().endswith(","):
            rule, why = self.why_turn_ends(pos, move)
            if why is not None:
                raise RulesError(ILLEGAL_MOVE, f"{text.strip()!r}: {self.move_text(pos, move)} ends "
                                               f"the turn ({why}, {rule}), so no move may follow it")
        return move

    # --------------------------------------- reasons, for messages and explain
    # Each answers (rule id, sentence): why a turn ends, why a move text is refused
    # for a reason of the turn structure, why a turn is not complete yet.

    def why_turn_ends(self, pos, move):
        """(rule id, reason) when ``move`` ends the turn, else (None, None)."""
        if pos.state == MID_TURN:
            return "M1", "it is move two, and a turn has at most two moves"
        if self.one_move_turn(pos):
            return "M2", "White's first turn is a single move in balanced Marseillais"
        if self.gives_check(pos, move):
            mate = not self.legal_moves(self.end_turn(pos, move))
            return "M3", "it gives checkmate" if mate else "it gives check"
        if not self.has_legal_move(self.after_move_one(pos, move)):
            return "M5", "no legal move two exists after it, which ends the game as a stalemate"
        return None, None

    def move_two_owed(self, pos):
        """(rule id, reason) when the side to move still owes a move two, else None."""
        if not self.mid_turn(pos):
            return None
        n = len(self.legal_moves(pos))
        return "M1", (f"after a move one that gives no check a move two is compulsory "
                      f"({n} {'is' if n == 1 else 'are'} possible); nobody may pass")

    def why_refused(self, pos, text):
        """(rule id, reason) when the turn structure is why ``text`` is not a legal
        move here, else None: any move after an M5 move one (M5), a pawn capture onto
        an empty square behind an enemy pawn that is no open target (M4)."""
        try:
            wanted = notation.read_text(self, text.strip().rstrip(","))
        except RulesError:
            return None
        if pos.state == MID_TURN and not self.has_legal_move(pos):
            return "M5", "no legal move two exists, so the game ended in stalemate after move one"
        to = wanted.to
        pawn_text = wanted.kind == "coordinates" or (wanted.kind == "san" and wanted.letter == "P")
        if not pawn_text:
            return None
        g = self.geometry
        mover_pawn = "P" if pos.turn == WHITE else "p"
        pawns = [sq for sq in self.pawn_hit_from[pos.turn][to] if pos.board[sq] == mover_pawn
                 and (wanted.frm is None or wanted.frm == sq)]
        if not pawns or pos.board[to] is not None or g.rank[to] != self.passed_rank[other(pos.turn)]:
            return None
        victim = g.square(g.file[to], g.rank[to] - self.forward[pos.turn])
        if pos.board[victim] != ("p" if pos.turn == WHITE else "P"):
            return None
        if to in self.open_targets(pos):
            return None       # open: refused for some other reason (a pin, say)
        if pos.state == MID_TURN:
            return ("M4", "move two may take en passant only when move one took en passant, and "
                          "then only on the other target")
        return ("M4", f"{g.name[to]} is not an en passant target now: only a double step of the "
                      f"opponent's last turn leaves one, while its pawn stays put and the square it "
                      f"passed over stays empty")


class MarseillaisClassic(Marseillais):
    """Marseillais chess with two moves in every turn, White's first included (M2)."""

    name = "marseillais-classic"
    white_opens_with_one_move = False
