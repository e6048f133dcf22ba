"""Mutants of monster: the mistakes an implementer of classic Monster chess makes.

Most come from reusing a chess engine's rules where Monster's differ: check and
king safety judged one move at a time (MO3, MO4), castling tested against
present attacks only (MO7), en passant timing copied from chess or from the
other two-move variants (MO6), White's army given chess's castling (MO7), and
chess's dead-position draw (MO9), and G3's order of endings reversed (the
seventy-five-move draw judged before a mate or stalemate the same turn gives).  The catalogue entries (slug, rule id,
description, witness request, why) are data, in ``monster.json`` beside this
module.
"""

from doublecheck.authoring.mutants.common import SeventyFiveBeatsMateMixin  # noqa: F401 (an entry's bases)
from doublecheck.authoring.mutants.common import RepetitionBeforeClockMixin  # noqa: F401 (entries' bases)
from doublecheck.oracle.chess import Chess, castle_rule
from doublecheck.oracle.position import BLACK, WHITE, Position
from doublecheck.oracle.variants.double_move_anul import BOUNDARY, MID_TURN
from doublecheck.oracle.variants.monster import NO_TARGETS, Monster


class OneMoveCheck(Monster):
    """Black is in check only when its king is attacked now, as in chess."""

    def threat(self, board, targets):
        return "k" in board and bool(self.attacked(board, board.index("k"), WHITE))


class ThreatNeedsSafeMoveOne(Monster):
    """The two-move threat counts only move ones that leave White's own king safe."""

    def threat(self, board, targets):
        if "k" not in board:
            return False
        ksq = board.index("k")
        if self.attacked(board, ksq, WHITE):
            return True
        pos = Position(tuple(board), WHITE, NO_TARGETS, targets, 0, 1, BOUNDARY)
        for m in self.pseudo_moves(pos):
            after = self.move_board(pos, m)
            if "K" in after and self.attacked(after, after.index("K"), BLACK):
                continue
            if self.attacked(after, ksq, WHITE):
                return True
        return False


class ThreatWithoutEnPassant(Monster):
    """The two-move threat forgets that Black's double step gives White an en passant move one."""

    def threat(self, board, targets):
        return super().threat(board, NO_TARGETS)


class KingSafeEveryMove(Monster):
    """White's move one must leave White's king safe too, as each move of a chess engine does."""

    def king_safe_after(self, pos, move):
        return Chess.king_safe_after(self, pos, move)

    def legal_moves(self, pos):
        if self.first_of_two(pos):
            return [m for m in super().legal_moves(pos) if self.king_safe_after(pos, m)]
        return super().legal_moves(pos)

    def turns(self, pos):
        return Chess.turns(self, pos)


class MoveOneWithoutMoveTwo(Monster):
    """Any move White's pieces can make is a legal move one, whether a safe move two follows or not."""

    def legal_moves(self, pos):
        if self.first_of_two(pos):
            return self.pseudo_moves(pos)
        return super().legal_moves(pos)

    def turns(self, pos):
        return Chess.turns(self, pos)

    def validate(self, pos):
        try:
            super().validate(pos)
        except Exception:
            if pos.state != MID_TURN:
                raise


class EnPassantOnMoveTwo(Monster):
    """Black's target stays open for White's move two as well."""

    def after_move_one(self, pos, move):
        after = super().after_move_one(pos, move)
        kept = frozenset(t for t in pos.ep if not move.en_passant and after.board[t] is None)
        return after.replace(ep=after.ep | kept)

    def open_targets(self, pos):
        rank = self.passed_rank[BLACK]
        return [t for t in pos.ep if self.geometry.rank[t] == rank] if pos.turn == WHITE \
            else super().open_targets(pos)

    def validate_targets(self, pos):
        pass

    def format_ep_field(self, pos):
        if pos.state == MID_TURN:
            return "-"
        return super().format_ep_field(pos)


class MoveOneStepLeavesTarget(Monster):
    """A double step with White's move one leaves Black a target, as in Marseillais."""

    def use_options(self, options):
        super().use_options(options)
        self.black_takes_both_targets = True


class WhiteCastles(Monster):
    """White keeps chess's castling with a rook that has reached its home square."""

    def make_castle_rules(self):
        g = self.geometry
        return [castle_rule(g, WHITE, "e1", "h1", "g1", "f1", "K", "O-O"),
                castle_rule(g, WHITE, "e1", "a1", "c1", "d1", "Q", "O-O-O")] + super().make_castle_rules()


class CastlingPastPresentAttacksOnly(Monster):
    """Black's castling is tested as in chess: only squares attacked now stop it."""

    def black_move_threatened(self, pos, move):
        if move.castle is not None:
            return self.threat(self.move_board(pos, move), NO_TARGETS)
        return super().black_move_threatened(pos, move)


class CastlingOutOfTwoMoveCheck(Monster):
    """Black's castling tests the squares the king crosses and lands on against White's two
    moves, but its own square only against a present attack (chess's castling code)."""

    def black_move_threatened(self, pos, move):
        if move.castle is not None:
            path = self.king_path(self.castle_by_rook[move.castle])
            return (self.threat(self.move_board(pos, move), NO_TARGETS)
                    or any(self.threat(self.king_on(pos.board, move.frm, sq), NO_TARGETS) for sq in path[1:-1]))
        return super().black_move_threatened(pos, move)


class DeadPositionDraws(Monster):
    """Chess's dead-position draw: king against king (or a minor piece) is drawn."""

    dead_position = Chess.dead_position


class BlackMovesTwice(Monster):
    """Black too makes two moves a turn, as in the symmetric two-move variants."""

    def first_of_two(self, pos):
        return pos.state != MID_TURN

    def legal_moves(self, pos):
        if pos.turn == BLACK and pos.state != MID_TURN:
            return [m for m in self.pseudo_moves(pos)
                    if any(not self.black_move_threatened(self.after_move_one(pos, m), m2)
                           for m2 in self.pseudo_moves(self.after_move_one(pos, m)))]
        return super().legal_moves(pos)

    def validate(self, pos):
        try:
            super().validate(pos)
        except Exception:
            if not (pos.state == MID_TURN and pos.turn == BLACK):
                raise


# ------------------------------------------------------------------ rule options

class OnlyLastDoubleStepTarget(Monster):
    """Under ep-after-white-move-one=target, a double step with White's move two replaces the
    target of move one's double step instead of adding to it."""

    def end_turn(self, pos, move):
        after = super().end_turn(pos, move)
        passed = self.passed_square(pos, move)
        if self.black_takes_both_targets and passed is not None and len(after.ep) > 1:
            return after.replace(ep=frozenset([passed]))
        return after


class OneMoveCheckKingUntouchable(Monster):
    """black-check=one-move (OPT-black-check) without its consequence: Black may step within
    reach of White's two moves, but White's move two may not take the king."""

    def may_capture(self, target):
        return Chess.may_capture(self, target)
