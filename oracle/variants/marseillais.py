"""Marseillais chess, the historical two-move family: ``marseillais`` (balanced) and
``marseillais-classic``, which differ in one setting, ``white_opens_with_one_move``.

The rules are stated in the catalogue (cases/rules/marseillais.json, which also
names the general rulings and FIDE articles both forms keep; ``doublecheck rules
ID`` prints one); the ids mark where each acts here:

- M1: two moves a turn, by one piece or two; a capture does not end the turn
- M2: White's first turn is one move in the balanced form, two in the classic form
- M3: a checking move one ends the turn; each move keeps the own king safe on its own
- M4: double steps on either move leave targets; the Alekhine rule for move two
- M5, M5.1: no legal move two after a move one is a stalemate; nothing follows it
- M6: the game end is judged at turn boundaries (and after an M5 move one)
- M7, M7.1, M7.2: FEN field 7 and a field 4 of up to two squares (``Position.ep``
  is a frozenset of squares here, read and written by ``parse_ep_field`` and
  ``format_ep_field``)
- M8: a trailing comma on a move that ends the turn is refused
- OPT-ep-after-move-one, OPT-second-en-passant, OPT-no-move-two: the three points
  where Marseillais sources differ, as rule options (``options`` of the rules
  object; doublecheck.oracle.options), read in ``use_options``
"""

from doublecheck.oracle import fen as fen_io
from doublecheck.oracle import explain
from typing import NamedTuple

from doublecheck.oracle.chess import About, Chess
from doublecheck.oracle.errors import INVALID_FEN, RulesError, quote
from doublecheck.oracle.explain import Refusal, TurnEnd
from doublecheck.oracle.position import WHITE, Move, Position, other
from doublecheck.oracle.variants.double_move_anul import BOUNDARY, MID_TURN, DoubleMoveAnul, side_name

NO_TARGETS = frozenset()
MOST_TARGETS = 2   # two double steps per turn at most


class NoMoveTwo(NamedTuple):
    """What a move one that gives no check and leaves no legal move two does."""

    rule: str          # the catalogue id that decides
    why: str           # why the turn ends there (turn_end)
    outcome: str       # what follows, in a few words (the desk, explanations)
    ends_game: bool    # the M5 stalemate; else the turn passes to the opponent


# Per value of OPT-no-move-two: M5's stalemate, or the turn simply ends.
NO_MOVE_TWO = {
    "stalemate": NoMoveTwo("M5", "no legal move two exists after it, which ends the game as a "
                           "stalemate", "the game ended at once, drawn by stalemate", True),
    "pass": NoMoveTwo("OPT-no-move-two", "no legal move two exists after it, so the turn ends "
                      "there", "the turn ended there and the game goes on", False),
    # such a move one is not legal at all (legal_moves), so no turn ends this way
    "illegal": NoMoveTwo("OPT-no-move-two", "no legal move two exists after it, which makes it "
                         "an illegal move one", "no such move one is legal", False),
}


def bad_fen(message):
    return RulesError(INVALID_FEN, message)


class Marseillais(Chess):
    """Balanced Marseillais chess: two moves a turn, White's first turn one move."""

    name = "marseillais"
    start_fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 -"
    extra_fields = ("turn",)
    option_choices = {}             # every value of OPT-dead-position: a turn has two moves
    white_opens_with_one_move = True   # M2: the one setting the two ids differ in
    option_names = Chess.option_names + ("fullmove", "ep-after-move-one", "second-en-passant",
                                         "no-move-two")

    def use_options(self, options):
        super().use_options(options)
        # M4, or OPT-ep-after-move-one=none: a double step on move one leaves no target
        self.move_one_leaves_target = options["ep-after-move-one"] == "target"
        # M4's Alekhine rule, or OPT-second-en-passant=none: move two never takes en passant
        self.second_en_passant = options["second-en-passant"] == "allowed"
        self.no_move_two = NO_MOVE_TWO[options["no-move-two"]]             # M5 or OPT-no-move-two

    # ------------------------------------------------------------ turn machine

    def mid_turn(self, pos) -> bool:
        """Does the side to move owe a move two?  Not after an M5 move one: with no
        legal move two that turn (and the game) is over, though field 7 stays ``m``."""
        return pos.state == MID_TURN and self.has_legal_move(pos)

    has_legal_move = DoubleMoveAnul.has_legal_move

    def legal_moves(self, pos):
        """The chess moves, less (OPT-no-move-two=illegal) a move one that does not end the
        turn and leaves no legal move two."""
        moves = super().legal_moves(pos)
        if self.no_move_two is not NO_MOVE_TWO["illegal"] or pos.state == MID_TURN:
            return moves
        return [m for m in moves if self.move_one_ends_turn(pos, m)
                or self.has_legal_move(self.after_move_one(pos, m))]

    def one_move_turn(self, pos) -> bool:
        """M2: in the balanced form White's first turn (fullmove 1) is a single move."""
        return (self.white_opens_with_one_move and pos.turn == WHITE and pos.fullmove == 1
                and pos.state != MID_TURN)

    def gives_check(self, pos, move) -> bool:
        if not self.has_check:         # OPT-king-safety=king-capture
            return False
        board = self.move_board(pos, move)
        king = "k" if pos.turn == WHITE else "K"
        return self.attacked(board, board.index(king), pos.turn)

    def move_one_ends_turn(self, pos, move) -> bool:
        """M2, M3: the opening move of the balanced form, or a move one that checks.
        (A capture does not end the turn, M1.)"""
        return self.one_move_turn(pos) or self.gives_check(pos, move) or self.takes_king(pos, move)

    def play(self, pos, move):
        """The position after one legal move.  After a move one that leaves no
        legal move two the result is an M5 position: field 7 ``m``, game over."""
        if pos.state == MID_TURN or self.move_one_ends_turn(pos, move):
            return self.end_turn(pos, move)
        half = self.after_move_one(pos, move)
        if not self.no_move_two.ends_game and not self.has_legal_move(half):
            return self.end_turn(pos, move)       # OPT-no-move-two=pass: the turn ends here
        return half

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
            if not seconds:       # M5: a one-move turn, drawn by stalemate (or OPT-no-move-two)
                found.append(([first], half if self.no_move_two.ends_game
                               else self.end_turn(pos, first)))
            found.extend(([first, m], self.end_turn(half, m)) for m in seconds)
        return found

    def after_move_one(self, pos, move):
        """Move one played, the same side to move again (field 7 ``m``).  Field 4 keeps
        (a) the other target when move one took en passant, and (b) the square a
        double step of move one passed over (M4, M7)."""
        after = self.make(pos, move, ends_turn=False)
        kept = (frozenset(t for t in self.open_targets(pos)
                          if t != move.to and self.live(after.board, t, other(pos.turn)))
                if move.en_passant and self.second_en_passant else NO_TARGETS)
        passed = self.passed_square(pos, move) if self.move_one_leaves_target else None
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

    def perft_key(self, pos):
        """G7 for the perft cache: the chess key with every target as written (a set of
        up to two, M4/M7) and whether this is the balanced form's one-move first turn
        (M2, the one place the fullmove number changes the moves)."""
        return self.packed_key(pos, pos.ep, self.one_move_turn(pos))

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
            raise bad_fen(f"en passant field {quote(text)} must be '-' or one or two different squares "
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
        if not self.no_move_two.ends_game and not self.has_legal_move(pos):
            raise bad_fen(f"field 7 is 'm' but {who} has no legal move two: under "
                          f"no-move-two=pass the turn would already have ended "
                          f"(OPT-no-move-two)")

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
            if stepper == pos.turn and not self.move_one_leaves_target:
                raise bad_fen(f"en passant square {g.name[t]} is on {side_name(pos.turn)}'s own "
                              f"passed-over rank, but under ep-after-move-one=none a double step "
                              f"on move one leaves no target (OPT-ep-after-move-one)")
            if mid and stepper != pos.turn and not self.second_en_passant:
                raise bad_fen(f"en passant square {g.name[t]} is open to move two, but under "
                              f"second-en-passant=none move two never takes en passant "
                              f"(OPT-second-en-passant)")
            if g.rank[t] != self.passed_rank[stepper]:
                raise bad_fen(f"en passant square {g.name[t]} is not on rank "
                              f"{self.passed_rank[other(pos.turn)]}"
                              + (f" or {self.passed_rank[pos.turn]}" if mid else ""))
            if not self.live(pos.board, t, stepper):
                raise bad_fen(f"en passant square {g.name[t]} must be empty with the "
                              f"{side_name(stepper)} pawn that passed over it just beyond it")

    # ------------------------------------------------------------- turn ends

    def turn_end(self, pos, move):
        """(rule id, reason) when ``move`` ends the turn, else None."""
        if pos.state == MID_TURN:
            return "M1", "it is move two, and a turn has at most two moves"
        if self.one_move_turn(pos):
            return "M2", "White's first turn is a single move in balanced Marseillais"
        if self.gives_check(pos, move):
            mate = not self.legal_moves(self.end_turn(pos, move))
            return "M3", "it gives checkmate" if mate else "it gives check"
        if not self.has_legal_move(self.after_move_one(pos, move)):
            return self.no_move_two.rule, self.no_move_two.why
        return None

    def m5_over(self, pos) -> bool:
        """Is pos the end of an M5 turn: field 7 ``m`` and no legal move two?"""
        return pos.state == MID_TURN and not self.has_legal_move(pos)

    # ------------------------------------------------------ explaining refusals
    # The hooks documented on Chess; each reason cites the M ruling that decides.

    rule_ids = {**Chess.rule_ids, "turn": "M1", "comma": "M8", "en-passant": "M4",
                "en-passant-unended": "M4", "king-safety": "M3"}
    continuing_move = "move two"
    unended_move = "was move one of a two-move turn"

    def why_no_move(self, pos, asked):
        """M5, M5.1: after a move one with no legal move two the game is over."""
        if not self.m5_over(pos):
            return None
        return Refusal(f"{side_name(pos.turn)} played a move one that left no legal move two, so "
                       f"the game ended there, drawn by stalemate; no move may follow", "M5",
                       also=["M5.1"])

    def why_comma(self, pos, move):
        """M8: a trailing comma on a move that ends the turn (the reason it ends, cited too)."""
        rule, why = self.turn_end(pos, move)
        return Refusal(f"{self.san(pos, move).rstrip(',')} ends the turn ({why}), so the trailing "
                       f"comma, which says another move of this turn follows, is wrong", "M8",
                       also=[rule])

    def why_turn_over(self, pos, move, played):
        """Why no move follows ``move`` in its turn: move two (M1), the balanced opening
        (M2), a checking move one (M3) or no legal move two (M5, or OPT-no-move-two)."""
        san = self.san(pos, move).rstrip(",")
        if played >= 2 or pos.state == MID_TURN:
            return Refusal(f"no further move is allowed: {san} was move two, and a turn has at "
                           f"most two moves", "M1")
        rule, why = self.turn_end(pos, move)
        if rule == self.no_move_two.rule:
            return Refusal(f"second move not allowed: after {san} {side_name(pos.turn)} has no "
                           f"legal move two, so {self.no_move_two.outcome}", rule,
                           also=["M5.1"] if self.no_move_two.ends_game else ["M5"])
        if rule == "M2":
            return Refusal(f"second move not allowed: White's first turn is the single move {san} "
                           f"in balanced Marseillais", "M2", also=["M1"])
        return Refusal(f"second move not allowed: the move one {san} {why[3:]}, which ends the "
                       f"turn", "M3", also=["M1"])

    def why_incomplete(self, pos, last):
        """M1: after a move one that gives no check, move two is compulsory."""
        n = len(self.legal_moves(pos))
        return Refusal(f"after the move one {last}, which gives no check, a move two is compulsory "
                       f"({n} {'is' if n == 1 else 'are'} possible); nobody may pass", "M1")

    def king_safety_rule(self, pos, asked):
        """M3: each move keeps the own king safe on its own; a check is answered by move one."""
        if pos.state == MID_TURN or asked.index > 0:
            return "M3", "each move of a turn must leave the own king safe on its own"
        if self.in_check(pos):
            return "M3", "a side in check at the start of its turn must answer it with move one"
        return "M3", "each move must leave the own king safe; move two cannot repair move one"

    def why_no_en_passant(self, pos, frm, to, asked):
        """M4: a pawn moving diagonally onto an empty square behind an enemy pawn: which
        condition of the Marseillais en passant rule fails."""
        g, me = self.geometry, pos.turn
        victim = g.square(g.file[to], g.rank[frm])
        if pos.board[victim] != ("p" if me == WHITE else "P"):
            return explain.en_passant(self, pos, frm, to, asked)   # nothing to take: FIDE 3.7.3
        t, v = g.name[to], g.name[victim]
        them = side_name(other(me))
        if pos.state == MID_TURN:
            if not self.second_en_passant:
                return Refusal(f"move two never takes en passant under second-en-passant=none; "
                               f"only move one may take on {t}", "OPT-second-en-passant",
                               also=["M4"])
            first = asked.steps[-1] if asked.steps and asked.steps[-1].pos.turn == me else None
            if first is not None and not first.move.en_passant:
                return explain.refusal_for(
                    self, "en-passant", f"move two may take en passant only after an en passant "
                    f"move one, and the move one {self.san(first.pos, first.move).rstrip(',')} took "
                    f"nothing en passant")
            return explain.refusal_for(
                self, "en-passant", f"move two may take en passant only after an en passant move "
                f"one, and then only on the other target; {t} is not open to it")
        step = explain.double_step_to(self, asked.steps, victim)
        if step is not None and not step.ends_turn and not self.move_one_leaves_target \
                and self.in_last_turn(asked.steps, step):
            text = self.move_text(step.pos, step.move).rstrip(",")
            return Refusal(f"the double step {text} was move one of a two-move turn, which under "
                           f"ep-after-move-one=none leaves no target", "OPT-ep-after-move-one",
                           also=["M4"])
        if step is not None and not self.in_last_turn(asked.steps, step):
            text = self.move_text(step.pos, step.move).rstrip(",")
            return explain.refusal_for(
                self, "en-passant", f"the double step {text} left the target {t} for the turn right "
                f"after it only; that turn has passed, and every target expires when it ends")
        return explain.refusal_for(
            self, "en-passant", f"{t} is not an en passant target now: the {them.lower()} pawn on "
            f"{v} did not step there with a double step in {them}'s last turn")

    @staticmethod
    def in_last_turn(steps, step) -> bool:
        """Is ``step`` one of the moves of the last turn of ``steps``?"""
        for s in reversed(steps):
            if s.pos.turn != step.pos.turn:
                return False
            if s is step:
                return True
        return False

    turn_actions = ("Move one", "Move two")

    def turn_end_reason(self, pos_before, move, pos_after):
        """A move one that ends the turn: the balanced opening (M2), a check (M3), or no
        legal move two after it, a stalemate (M5)."""
        if pos_before.state == MID_TURN or self.mid_turn(pos_after):
            return None
        rule, why = self.turn_end(pos_before, move)
        san = self.san(pos_before, move)
        words = {"M2": f"White's first turn is the single move {san}",
                 "M3": f"move one {san} {why[3:]}",
                 "M5": f"no legal move two after {san}: drawn by stalemate",
                 "OPT-no-move-two": f"no legal move two after {san}: the turn passes"}[rule]
        return TurnEnd(rule, words, ("M1",))

    def open_slot_reason(self, pos, index):
        """M2: in the balanced form White's first turn has no move two."""
        if index == 1 and self.one_move_turn(pos):
            return TurnEnd("M2", "not this turn: White's first turn is a single move", ("M1",))
        return None

    def game_over_note(self, pos, status):
        if self.m5_over(pos):
            return "the game is already over: a move one with no legal move two ended it, drawn " \
                   "by stalemate (M5)"
        return super().game_over_note(pos, status)

    def state_sentences(self, pos):
        """Field 7 and field 4 in words: the turn so far, the targets and the pending square."""
        g = self.geometry
        who, them = side_name(pos.turn), side_name(other(pos.turn))

        def squares(found):
            return " and ".join(g.name[t] for t in sorted(found, key=g.file.__getitem__))

        opened = self.open_targets(pos)
        if self.m5_over(pos):
            return [f"{who} has played a move one that left no legal move two: the game ended "
                    f"there, drawn by stalemate (M5; field 7: m)."]
        if pos.state == MID_TURN:
            out = [f"{who} has played move one and owes move two (field 7: m)."]
            if opened:
                out.append(f"Open to move two after the en passant move one: {squares(opened)} "
                           f"(M4).")
            pending = [t for t in pos.ep if t not in opened]
            if pending:
                out.append(f"Pending: {squares(pending)}, passed over by {who}'s double step on "
                           f"move one; it becomes {them}'s target if that pawn stays and the "
                           f"square stays empty until the turn ends (M4).")
            return out
        out = ["At a turn boundary (field 7: -)."]
        if self.one_move_turn(pos):
            out.append("White's first turn is a single move (M2).")
        if opened:
            usable = set(self.usable_targets(pos))
            line = f"En passant targets for {who}'s turn: {squares(opened)} (M4)"
            if usable != set(opened):
                line += (f"; taken by no legal continuation: {squares(set(opened) - usable)}")
            out.append(line + ".")
        return out

    # What the tables doublecheck generate writes say of this variant (README, docs/perft.md).
    about = About(summary=("balanced Marseillais: two moves a turn (White's first turn one move), check on "
                           "move one ends the turn, two en passant captures in one turn"),
                  move="one of the up to two moves of a turn",
                  turn=("two moves; one in White's first turn (**M2**), after a move one that gives check"
                        " (**M3**), or when no move two exists (**M5**)"),
                  note=("perft 2 from the start is 20 x 20 = 400 and perft 3 is chess's 8,902; a move one"
                        " with no move two is a whole turn and ends the game (**M5**)"))


class MarseillaisClassic(Marseillais):
    """Marseillais chess with two moves in every turn, White's first included (M2)."""

    name = "marseillais-classic"
    white_opens_with_one_move = False

    # What the tables doublecheck generate writes say of this variant (README, docs/perft.md).
    about = About(summary="as `marseillais`, but White's first turn is two moves too",
                  move="one of the up to two moves of a turn",
                  turn=("two moves, White's first turn too (**M2**); one after a move one that gives "
                        "check (**M3**) or when no move two exists (**M5**)"),
                  note=("perft 2 from the start is White's two opening moves (445), not a move by each "
                        "side"))
