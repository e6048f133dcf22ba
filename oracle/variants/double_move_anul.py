"""Double Move Chess as played on anul.space (seed 002): two moves a turn, with brakes.

The rules are stated in the catalogue (cases/rules/double-move-anul-seed.json
and double-move-anul.json; ``doublecheck rules ID`` prints one); the ids mark
where each acts here:

- DA-1, DA-2, DA-3, DA-complete-turn, DA-opening-turn, A1: every turn is two moves
- DA-5, DA-6, DA-capture-check-brake: a capture or check on move one ends the turn
- DA-no-pass: after a quiet move one the second is owed; none existing ends the turn
- DA-4, DA-king-safety-each-move, DA-turn-begins-in-check: each move keeps the king safe
- A2: promotion and castling are no brakes by themselves
- A3: only a double step that ends a turn leaves a target, for the reply's move one
- DA-7, A5: the game ends only at turn boundaries
- A4: FEN field 7, ``-`` at a turn boundary, ``m`` when the second move is owed
"""

from doublecheck.oracle.chess import About, Chess
from doublecheck.oracle.errors import INVALID_FEN, RulesError, quote
from doublecheck.oracle.explain import Refusal, TurnEnd
from doublecheck.oracle.fen import validate_standard
from doublecheck.oracle.position import WHITE, Position, other

BOUNDARY, MID_TURN = "-", "m"


def with_state(pos, state):
    """pos with field 7 set (built directly: this runs once per move in perft)."""
    if pos.state == state:
        return pos
    return Position(pos.board, pos.turn, pos.castling, pos.ep, pos.halfmove, pos.fullmove, state)


def side_name(color):
    return "White" if color == WHITE else "Black"


class DoubleMoveAnul(Chess):
    """FIDE chess with two moves a turn and the capture/check brake on move one."""

    name = "double-move-anul"
    extra_fields = ("turn",)
    # OPT-no-move-two defaults to pass here: A1 already ends the turn after a move one with
    # no legal second move.
    option_names = Chess.option_names + ("fullmove", "no-move-two")
    option_choices = {"no-move-two": ("pass", ("pass", "illegal"))}

    def use_options(self, options):
        super().use_options(options)
        # A1, or OPT-no-move-two=illegal: a quiet move one needs a legal move two after it
        self.move_two_owed = options["no-move-two"] == "illegal"

    def legal_moves(self, pos):
        """The chess moves, less (OPT-no-move-two=illegal) a quiet move one that leaves no
        legal move two."""
        moves = super().legal_moves(pos)
        if not self.move_two_owed or self.mid_turn(pos):
            return moves
        return [m for m in moves if self.brakes(pos, m) or self.has_legal_move(self.half(pos, m))]

    def half(self, pos, move):
        """Move one played, its side to move again (field 7 ``m``)."""
        return with_state(self.make(pos, move, ends_turn=False), MID_TURN)

    # ------------------------------------------------------------ turn machine

    def mid_turn(self, pos) -> bool:
        return pos.state == MID_TURN

    def play(self, pos, move):
        """The position after one legal move; its field 7 says whether the turn goes on (A1)."""
        if self.mid_turn(pos):                       # move two always ends the turn
            return self.end_turn(pos, move)
        if self.brakes(pos, move):                   # DA-5, DA-6
            return self.end_turn(pos, move)
        half = self.half(pos, move)
        if self.has_legal_move(half):                # move two is owed (DA-no-pass)
            return half
        return self.end_turn(pos, move)              # no second move exists

    def turns(self, pos):
        """Every way to complete the current turn, as (moves, position after).

        The same machine as ``play``, written out so that the second moves
        are generated once rather than first tested for existence.
        """
        if self.mid_turn(pos):
            return [([m], self.end_turn(pos, m)) for m in self.legal_moves(pos)]
        found = []
        for first in self.legal_moves(pos):
            if self.brakes(pos, first):
                found.append(([first], self.end_turn(pos, first)))
                continue
            half = with_state(self.make(pos, first, ends_turn=False), MID_TURN)
            seconds = self.legal_moves(half)
            if not seconds:
                found.append(([first], self.end_turn(pos, first)))
            found.extend(([first, m], self.end_turn(half, m)) for m in seconds)
        return found

    def end_turn(self, pos, move):
        # make() leaves an en passant target only when the turn ends (A3).
        return with_state(self.make(pos, move, ends_turn=True), BOUNDARY)

    def brakes(self, pos, move) -> bool:
        """Does this first move capture or give check?"""
        if move.en_passant or (move.castle is None and pos.board[move.to] is not None):
            return True
        if not self.has_check:         # OPT-king-safety=king-capture: the capture braked above
            return False
        board = self.move_board(pos, move)
        king = "k" if pos.turn == WHITE else "K"
        return bool(self.attacked(board, board.index(king), pos.turn))

    def has_legal_move(self, pos) -> bool:
        return any(self.king_safe_after(pos, m) for m in self.pseudo_moves(pos))

    # -------------------------------------------------------------------- FEN

    def parse_state(self, fields, pos):
        if not fields:
            return BOUNDARY
        if fields[0] not in (BOUNDARY, MID_TURN):
            raise RulesError(INVALID_FEN, f"field 7 must be '-' (between turns) or 'm' "
                                          f"(between the two moves of a turn), not {quote(fields[0])}")
        return fields[0]

    def format_state(self, pos):
        return [pos.state or BOUNDARY]

    def validate(self, pos):
        """G9 plus what the middle of a turn implies: move one was quiet, gave no
        check, left the mover's king safe, left no en passant target, and a
        second move exists."""
        if not self.mid_turn(pos):
            validate_standard(self, pos)
            return
        who = side_name(pos.turn)
        if pos.ep is not None:
            raise RulesError(INVALID_FEN, "field 7 is 'm' but an en passant square is given: "
                                          "no target exists between the two moves of a turn")
        validate_standard(self, pos)
        if self.in_check(pos, other(pos.turn)):
            raise RulesError(INVALID_FEN, f"field 7 is 'm' but {side_name(other(pos.turn))} is in "
                                          f"check: a checking first move ends the turn")
        if self.in_check(pos):
            raise RulesError(INVALID_FEN, f"field 7 is 'm' but {who} is in check: "
                                          f"{who}'s first move cannot have left its own king attacked")
        if not self.has_legal_move(pos):
            raise RulesError(INVALID_FEN, f"field 7 is 'm' but {who} has no legal second move, "
                                          f"so the turn would already have ended")

    # ------------------------------------------------------------- the brakes

    def why_turn_ends(self, pos, move) -> str:
        """Why move one ``move`` ends the turn, in words: a capture (DA-5), a check (DA-6), or
        no legal second move after it (DA-no-pass); the explanations and the desk say it."""
        if move.en_passant or (move.castle is None and pos.board[move.to] is not None):
            return "it captures"
        if self.brakes(pos, move):
            after = self.end_turn(pos, move)
            return "it gives checkmate" if not self.legal_moves(after) else "it gives check"
        return "no legal second move exists after it"

    # ------------------------------------------------------ explaining refusals

    rule_ids = {**Chess.rule_ids, "en-passant": "A3", "en-passant-unended": "A3"}
    continuing_move = "the second move of a turn"
    unended_move = "was the first move of a two-move turn"
    BRAKE_IDS = {"it captures": "DA-5", "it gives check": "DA-6", "it gives checkmate": "DA-6"}

    def why_comma(self, pos, move):
        """A1: a move written with a trailing comma must leave room for a second move."""
        if self.mid_turn(pos):
            return Refusal("this is already the second move of the turn, and a turn has at most "
                           "two moves", "A1")
        why = self.why_turn_ends(pos, move)
        return Refusal(f"{self.san(pos, move)} ends the turn ({why}), so no second move may follow "
                       f"it", "A1", also=[self.BRAKE_IDS.get(why, "DA-no-pass")])

    def king_safety_rule(self, pos, asked):
        """DA-4: each move of a turn leaves the own king safe."""
        if self.mid_turn(pos) or asked.index > 0:
            return "DA-4", "each move of a turn must leave the own king safe"
        return "DA-4", "each move of a turn must leave the own king safe, not just the pair"

    def why_turn_over(self, pos, move, played):
        """A1: the brake (DA-5, DA-6) or a missing second move ended the turn after one move."""
        if played >= 2:
            return Refusal("no further move is allowed: a turn has at most two moves", "A1")
        san = self.san(pos, move).rstrip(",")
        why = self.why_turn_ends(pos, move)
        if why.startswith("no legal"):
            return Refusal(f"second move not allowed: no legal second move exists after {san}",
                           "A1", also=["DA-no-pass"])
        said = why[3:] if why.startswith("it ") else why
        return Refusal(f"second move not allowed: the first move {san} {said}, which ends the "
                       f"turn", "A1", also=[self.BRAKE_IDS.get(why, "DA-2")])

    def why_incomplete(self, pos, last):
        """A1, DA-no-pass: after a quiet first move the second is compulsory."""
        return Refusal(f"after the quiet first move {last} a second move is compulsory "
                       f"({len(self.legal_moves(pos))} are possible)", "A1", also=["DA-no-pass"])

    turn_actions = ("Move 1", "Move 2")      # as seed 002's interface labels them

    def turn_end_reason(self, pos_before, move, pos_after):
        """A move one that ends the turn: a capture (DA-5), a check (DA-6), or no legal
        second move after it (DA-no-pass)."""
        if self.mid_turn(pos_before) or self.mid_turn(pos_after):
            return None
        why = self.why_turn_ends(pos_before, move)
        san = self.san(pos_before, move)
        if why.startswith("no legal"):
            return TurnEnd("DA-no-pass", f"no legal second move after {san}", ("A1",))
        return TurnEnd(self.BRAKE_IDS[why], f"move 1 {san} {why[3:]}", ("A1",))

    def state_sentences(self, pos):
        """Field 7 (A4): a turn boundary, or a second move owed."""
        if self.mid_turn(pos):
            return [f"{side_name(pos.turn)} has played a quiet first move and owes the second "
                    f"(field 7: m)."]
        return ["At a turn boundary (field 7: -)."]

    # What the tables doublecheck generate writes say of this variant (README, docs/perft.md).
    about = About(summary="every turn is two moves; a capture or check on move one ends the turn",
                  move="one of the up to two moves of a turn",
                  turn=("two moves, or one when move one captures or gives check, or when no second move "
                        "exists (**A1**)"),
                  note=("perft 2 from the start is White's two opening moves (445), not a move by each "
                        "side"))
