"""Pieces several variants' mutants share."""

from doublecheck.oracle.chess import Chess, game_over, not_over
from doublecheck.oracle.position import WHITE, other
from doublecheck.oracle.variants.double_move_anul import BOUNDARY, with_state


def gives_check(rules, pos, move) -> bool:
    """Does `move` leave the opponent's king attacked?"""
    board = rules.move_board(pos, move)
    king = "k" if pos.turn == WHITE else "K"
    return rules.attacked(board, board.index(king), pos.turn)


def checks_by_moved_piece(rules, pos, move) -> bool:
    """The mistaken check test that sees only the moved piece (and a castling rook), not a
    piece it uncovers: every other piece of the mover is blanked out before asking."""
    board = rules.move_board(pos, move)
    movers = {move.to} | ({rules.castle_by_rook[move.castle].rook_to} if move.castle is not None else set())
    white = pos.turn == WHITE
    only = [p if p is None or p.isupper() != white or sq in movers or p[-1] in "Kk" else "X"
            for sq, p in enumerate(board)]
    king = "k" if white else "K"
    return rules.attacked(only, only.index(king), pos.turn)


def checks_as_plain_step(rules, pos, move) -> bool:
    """The mistaken check test that moves only the piece itself, as it was, from its square
    to the target: a promoting pawn stays a pawn, a castling rook stays at home."""
    board = list(pos.board)
    board[move.to], board[move.frm] = board[move.frm], None
    king = "k" if pos.turn == WHITE else "K"
    return rules.attacked(board, board.index(king), pos.turn)


def is_double_step(rules, pos, move) -> bool:
    g = rules.geometry
    return (move.frm is not None and pos.board[move.frm][-1] in "Pp"
            and abs(g.rank[move.to] - g.rank[move.frm]) == 2)


class GenericTurns:
    """Mixin: list the turns by walking ``play`` (the oracle's anul class has a faster
    copy of its turn machine; a mutant that changes ``play`` must not leave that copy behind)."""

    turns = Chess.turns


class RookRightMixin:
    """Rook rights that come back when the rook does (see the chess and double-chess mutants)."""

    def make(self, pos, move, ends_turn=True):
        after = super().make(pos, move, ends_turn)
        piece = pos.board[move.frm] if move.frm is not None else None
        if piece in ("R", "r") and move.castle is None:
            # neither leaving home nor coming back costs the right
            after = after.replace(castling=after.castling | (pos.castling & {move.frm, move.to}))
        return after

    def fen(self, pos):
        # rights whose rook is away are simply not shown (the FEN stays valid)
        shown = frozenset(sq for sq in pos.castling if pos.board[sq] in ("R", "r"))
        return super().fen(pos.replace(castling=shown))


class CapturedRookMixin:
    """A captured rook's right stays (chess and double-chess mutants)."""

    def make(self, pos, move, ends_turn=True):
        after = super().make(pos, move, ends_turn)
        if move.to in pos.castling and move.to != move.frm and move.castle is None:
            taken = pos.board[move.to]
            if taken is not None and (taken.isupper() != (pos.turn == WHITE)):
                after = after.replace(castling=after.castling | {move.to})
        return after


class EnPassantPinBlindMixin:
    """The king-safety test of an en passant capture moves the capturing pawn but leaves the
    captured one standing, so a pin along the rank is missed (every two-move variant's
    mutants reuse it)."""

    def king_safe_after(self, pos, move):
        if not move.en_passant:
            return super().king_safe_after(pos, move)
        board = list(pos.board)
        board[move.to], board[move.frm] = board[move.frm], None
        king = "K" if pos.turn == WHITE else "k"
        return not self.attacked(board, board.index(king), other(pos.turn))


class KingPathEndsOnlyMixin:
    """Castling's attack test looks at the king's start and end squares only, not the
    squares it crosses (chess and double-chess mutants)."""

    def king_path(self, rule):
        return [rule.king_from, rule.king_to]


class AnyFirstPartCompletesMixin:
    """A first part of a turn is offered even when no second part can follow it (the
    double-move and symmetric-monster mutants)."""

    def completable(self, pos, move):
        return True


class CountsBetweenMixin:
    """Repetition counts the positions between the two moves of a turn as well.

    The history of a request is kept by ``doublecheck.oracle.api.replay``, which records
    turn boundaries only; this mutant keeps its own log of the in-between
    positions of the request being answered (reset when the request's FEN is
    read) and adds it to that history.
    """

    def parse_fen(self, text):
        self.between = []
        return super().parse_fen(text)

    def play(self, pos, move):
        after = super().play(pos, move)
        if self.mid_turn(after):
            self.between.append(self.identity(self.as_boundary(after)))
        return after

    def status(self, pos, history=()):
        return super().status(pos, tuple(history) + tuple(getattr(self, "between", ())))


class CountsBetweenFieldSevenMixin(CountsBetweenMixin):
    """CountsBetweenMixin for the variants whose turn state is FEN field 7 (double-move-anul,
    the Marseillais forms): a position between the moves is keyed as a turn boundary."""

    def as_boundary(self, pos):
        return with_state(pos, BOUNDARY)


# --- position identity (repetition): one component left out of the key ------------

class SideBlindIdentityMixin:
    """Repetition compares positions without the side to move."""

    def identity(self, pos):
        return (pos.board, pos.castling, self.legal_ep(pos), pos.state)


class RightsBlindIdentityMixin:
    """Repetition compares positions without the castling rights."""

    def identity(self, pos):
        return (pos.board, pos.turn, self.legal_ep(pos), pos.state)


class RawEnPassantIdentityMixin:
    """Repetition compares the en passant targets as stored, also those no capture can use."""

    def identity(self, pos):
        return (pos.board, pos.turn, pos.castling, pos.ep, pos.state)


class EnPassantBlindIdentityMixin:
    """Repetition compares positions without the en passant target, legal or not."""

    def identity(self, pos):
        return (pos.board, pos.turn, pos.castling, pos.state)


# --- game end: a special move left out of (or let into) the 'any legal move?' test --

class GameEndWithoutEnPassantMixin:
    """Checkmate and stalemate are judged as if en passant captures did not exist."""

    def status(self, pos, history=()):
        result = super().status(pos, history)
        if result["over"] or self.mid_turn(pos):
            return result
        if all(m.en_passant for m in self.legal_moves(pos)):
            return (game_over("checkmate", winner=other(pos.turn)) if self.in_check(pos)
                    else game_over("stalemate"))
        return result


class SeventyFiveBeatsMateMixin:
    """The 75-move rule is tested before checkmate and stalemate, so a mate given on the
    move that reaches the limit is lost to the automatic draw (several variants' mutants)."""

    def status(self, pos, history=()):
        if not self.mid_turn(pos) and pos.halfmove >= 150:
            return game_over("seventy-five-moves")
        return super().status(pos, history)


class DeadPositionBeforeStalemateMixin:
    """The pair stalemate + dead position (ruling G5.1) asked in the wrong order: the cheap
    material count comes before the move generation (several variants' mutants)."""

    def status(self, pos, history=()):
        if not self.mid_turn(pos) and self.dead_position(pos):
            return game_over("dead-position")
        return super().status(pos, history)


class ClockBeforeDeadPositionMixin:
    """The pair dead position + seventy-five moves (ruling G3.2) asked in the wrong order: the
    draw rules of G3 are looked at before the material, so a dead position whose clock stands at
    the automatic mark is reported as the move-count draw (several variants' mutants)."""

    def status(self, pos, history=()):
        result = super().status(pos, history)
        if result["reason"] != "dead-position":
            return result
        drawn = self.draw_status(pos, history)
        return drawn if drawn["over"] else result


class RepetitionBeforeClockMixin:
    """The pair seventy-five moves + fivefold repetition (ruling G3.2) asked in the wrong order:
    the repetition count is looked at before the clock (several variants' mutants)."""

    def use_options(self, options):
        super().use_options(options)
        self.draw_endings = {**self.draw_endings, "automatic": tuple(reversed(self.draw_endings["automatic"]))}


class GameEndCastlingUncheckedMixin:
    """The end-of-game test counts a castling whose squares are empty, without its attack tests."""

    def status(self, pos, history=()):
        result = super().status(pos, history)
        if result["reason"] not in ("checkmate", "stalemate"):
            return result
        board = pos.board
        king, rook = ("K", "R") if pos.turn == WHITE else ("k", "r")
        for rule in self.castle_rules:
            if (rule.color == pos.turn and rule.rook_from in pos.castling and board[rule.king_from] == king
                    and board[rule.rook_from] == rook and self.castling_path_clear(board, rule)):
                return not_over()
        return result


# --- two-move turns: what the first move did, undone or misjudged at the turn's end --

class KingReturnKeepsRightsMixin:
    """A king that steps out and back home within one turn keeps its side's castling rights
    (rights cleared at the end of the turn only for a king found away from home)."""

    def parse_fen(self, text):
        self.kept = frozenset()
        return super().parse_fen(text)

    def play(self, pos, move):
        starts_turn = not self.mid_turn(pos)
        if starts_turn:
            self.kept = frozenset()
            piece = pos.board[move.frm] if move.frm is not None else None
            if piece in ("K", "k") and move.castle is None:
                self.kept = pos.castling & self.rights_of[pos.turn]
        after = super().play(pos, move)
        if not starts_turn and self.kept:      # the move that ends the turn
            king, rook = ("K", "R") if pos.turn == WHITE else ("k", "r")
            home = self.castle_by_rook[next(iter(self.kept))].king_from
            if after.board[home] == king:
                after = after.replace(castling=after.castling | {sq for sq in self.kept if after.board[sq] == rook})
            self.kept = frozenset()
        return after


# --- FEN output: a field written for one colour only -------------------------------

class TargetNotWrittenMixin:
    """The FEN writer tests whether an en passant capture is possible only for one side to move,
    so the targets the other side's double steps leave are never written (``left_by``)."""

    left_by = WHITE

    def fen(self, pos):
        return super().fen(pos.replace(ep=None) if pos.turn == other(self.left_by) else pos)


class NoCastlingInATurnBegunInCheckMixin:
    """"No castling out of check" tied to the turn instead of the move: a side that began
    its turn in check may not castle with a later move of it, though an earlier move
    answered the check.  ``between_moves`` says whether pos is inside a turn (a variant
    whose ``mid_turn`` asks for the legal moves answers from its state field instead)."""

    def between_moves(self, pos) -> bool:
        return self.mid_turn(pos)

    def parse_fen(self, text):
        self.began_in_check = False
        return super().parse_fen(text)

    def play(self, pos, move):
        if not self.between_moves(pos):
            self.began_in_check = self.in_check(pos)
        return super().play(pos, move)

    def castling_moves(self, pos):
        if self.between_moves(pos) and getattr(self, "began_in_check", False):
            return []
        return super().castling_moves(pos)


# --- side-owned state: the other side's part left out of position identity ----------

class MoverRightsOnlyIdentityMixin:
    """Repetition compares only the side to move's castling rights: the rights were read
    as "can I still castle?", so the other side's rights drop out of the key."""

    def identity(self, pos):
        return super().identity(pos.replace(castling=pos.castling & self.rights_of[pos.turn]))


# --- where two rules meet at one moment ------------------------------------------------

class EnPassantRankOnlyMixin:
    """The king-safety test of an en passant capture lifts the taken pawn only when the king
    stands on the rank of the two pawns: the well-known rank pin is handled, and a check the
    taken pawn gave is gone with it, but every other line through the taken pawn's square is
    taken as still blocked, so a pawn that shielded its capturer's king on a diagonal is missed."""

    def king_safe_after(self, pos, move):
        if not move.en_passant:
            return super().king_safe_after(pos, move)
        g = self.geometry
        board = self.move_board(pos, move)
        king = "K" if pos.turn == WHITE else "k"
        if king not in board:
            return True
        sq = board.index(king)
        victim = self.en_passant_victim(pos, move.frm, move.to)
        if g.rank[sq] != g.rank[victim]:
            board[victim] = "X"     # lines through the taken pawn's square are taken as still blocked
        return not self.attacked(board, sq, other(pos.turn))
