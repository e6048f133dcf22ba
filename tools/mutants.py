"""Rule mutants: deliberately wrong rules, to measure what the cases catch.

A *mutant* is the oracle with one plausible implementer's mistake put in:
a small subclass of a variant's rules class that overrides one method (or
one piece of data).  Each entry of the catalogue names the variant, the id
of the rule the mistake breaks (from ``cases/rules/*.json``), a one-line
description, and a *witness*: a request on which the mutant's answer differs
from the oracle's, so that no entry is a mutant equivalent to the oracle.

``run_mutant`` plays every case of the mutant's variant against it, in
process (``oracle.api.handle(request, rules=mutant)``, answered and compared
exactly as the harness does for an adapter).  A mutant is *killed* when at
least one case fails; the run stops after the first few killing cases.  The
cases that cite the mutant's rule go first, then the rest, cheap ones
before expensive ones; perft cases above a node budget are skipped.

Command line (also ``doublecheck mutants``)::

    python -m tools.mutants                       # every mutant: table, counts, exit 1 if one survives
    python -m tools.mutants --variant double-move  # one variant's mutants
    python -m tools.mutants --mutant chess/castle-through-attack
    python -m tools.mutants --list                 # the catalogue, nothing run
    python -m tools.mutants --json                 # the results as JSON

The catalogue is documented in docs/mutants.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass, replace

from oracle import api
from oracle.chess import PROMOTION_LETTERS, Chess, game_over, not_over
from oracle.geometry import Geometry
from oracle.position import BLACK, WHITE, Move, color_of, colored, other
from oracle.variants.double_chess import DoubleChess
from oracle.variants.double_move import LETTER, Abilities, DoubleMove
from oracle.variants.double_move_anul import BOUNDARY, MID_TURN, DoubleMoveAnul, with_state
from oracle.variants.symmetric_monster import SymmetricMonster, is_double
from tools.cases import CASES_DIR, load_cases
from tools.compare import compare
from tools.engines import AdapterEngine

DEFAULT_MAX_NODES = 20_000   # perft cases expecting more nodes are skipped
KILLERS_SHOWN = 3            # a mutant's run stops after this many killing cases

EXIT_ALL_KILLED, EXIT_SURVIVOR, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


@dataclass(frozen=True)
class Mutant:
    """One deliberately wrong rules class and what it gets wrong."""

    name: str          # "<variant>/<slug>"
    variant: str
    rule: str          # the rule id it breaks (cases/rules/*.json)
    description: str   # the mistake, in one line
    cls: type          # subclass of the variant's rules class
    witness: dict      # a request (no "variant") on which it answers differently

    def rules(self):
        """A fresh rules object (the oracle's classes build their tables in __init__)."""
        return self.cls()

    def witness_request(self) -> dict:
        return {**self.witness, "variant": self.variant}


CATALOGUE: dict[str, Mutant] = {}


def mutant(slug: str, rule: str, description: str, witness: dict):
    """Class decorator: register the class as the mutant ``<variant>/<slug>``."""

    def register(cls):
        variant = cls.name  # inherited from the variant's rules class
        name = f"{variant}/{slug}"
        if name in CATALOGUE:
            raise ValueError(f"mutant {name} is defined twice")
        CATALOGUE[name] = Mutant(name, variant, rule, description, cls, witness)
        return cls

    return register


# ============================================ pieces several mutants share

def gives_check(rules, pos, move) -> bool:
    """Does `move` leave the opponent's king attacked?"""
    board = rules.move_board(pos, move)
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


class CountsBetweenMixin:
    """Repetition counts the positions between the two moves of a turn as well.

    The history of a request is kept by ``oracle.api.replay``, which records
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


# =============================================================== chess (FIDE)

@mutant("castle-through-attack", "FIDE-3.8.2.2",
        "castling checks attacks on the king's start and end squares only, not the square it crosses",
        {"op": "moves", "fen": "4k3/8/8/8/8/8/5r2/4K2R w K - 0 1"})
class CastleThroughAttack(Chess):
    def king_path(self, rule):
        return [rule.king_from, rule.king_to]


@mutant("castle-out-of-check", "FIDE-3.8.2.2",
        "castling checks the squares the king crosses and reaches, but not whether it stands in check",
        {"op": "moves", "fen": "4k3/8/8/8/8/8/8/r3K2R w K - 0 1"})
class CastleOutOfCheck(Chess):
    def king_path(self, rule):
        return super().king_path(rule)[1:]


@mutant("castle-over-b-file", "FIDE-3.8.2.2",
        "castling needs empty squares only where the king goes and the rook lands (b1/b8 may be occupied)",
        {"op": "moves", "fen": "4k3/8/8/8/8/8/8/RN2K3 w Q - 0 1"})
class CastleOverBFile(Chess):
    def castling_path_clear(self, board, rule):
        squares = self.king_path(rule)[1:] + [rule.rook_to]
        return all(board[sq] is None or sq in (rule.king_from, rule.rook_from) for sq in squares)


@mutant("rook-right-by-placement", "FIDE-3.8.2.1",
        "a rook's castling right is judged by whether it stands at home, so it comes back when the rook returns",
        {"op": "moves", "fen": "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
         "moves": ["h1h2", "e8d8", "h2h1", "d8e8"]})
class RookRightByPlacement(RookRightMixin, Chess):
    pass


@mutant("en-passant-lingers", "FIDE-3.7.3.2",
        "the en passant square is cleared only by the next double step, so the chance outlives the next move",
        {"op": "moves", "fen": "4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 1",
         "moves": ["e2e4", "e8d8", "e1f1"]})
class EnPassantLingers(Chess):
    def make(self, pos, move, ends_turn=True):
        after = super().make(pos, move, ends_turn)
        if after.ep is None and pos.ep is not None:
            after = after.replace(ep=pos.ep)
        return after


@mutant("en-passant-pin-blind", "FIDE-3.9.2",
        "the king-safety test of an en passant capture forgets to lift the captured pawn (rank pins missed)",
        {"op": "moves", "fen": "8/8/8/KPp4r/8/8/8/4k3 w - c6 0 1"})
class EnPassantPinBlind(Chess):
    def king_safe_after(self, pos, move):
        if not move.en_passant:
            return super().king_safe_after(pos, move)
        board = list(pos.board)
        board[move.to], board[move.frm] = board[move.frm], None
        king = "K" if pos.turn == WHITE else "k"
        return not self.attacked(board, board.index(king), other(pos.turn))


@mutant("king-shadow", "FIDE-3.9.2",
        "a king's step is tested with the king still on its old square, so it may retreat along the checking line",
        {"op": "moves", "fen": "4k3/8/8/8/8/8/8/r3K3 w - - 0 1"})
class KingShadow(Chess):
    def king_safe_after(self, pos, move):
        piece = pos.board[move.frm] if move.frm is not None else None
        if piece not in ("K", "k") or move.castle is not None:
            return super().king_safe_after(pos, move)
        board = self.move_board(pos, move)
        board[move.frm] = "X"  # the old square still blocks lines through it
        return not self.attacked(board, move.to, other(pos.turn))


@mutant("queen-only-promotion", "FIDE-3.7.3.3",
        "a pawn reaching the last rank always becomes a queen (no under-promotion)",
        {"op": "moves", "fen": "4k3/P7/8/8/8/8/8/4K3 w - - 0 1"})
class QueenOnlyPromotion(Chess):
    def add_pawn_move(self, frm, to, piece, moves):
        before = len(moves)
        super().add_pawn_move(frm, to, piece, moves)
        moves[before:] = [m for m in moves[before:] if m.promotion in (None, "Q")]


@mutant("double-step-jumps", "FIDE-3.7.2",
        "a pawn's double step checks only the square it lands on, so it jumps a blocked first square",
        {"op": "moves", "fen": "4k3/8/8/8/8/4n3/4P3/4K3 w - - 0 1"})
class DoubleStepJumps(Chess):
    def pawn_moves(self, pos, sq, piece, moves):
        super().pawn_moves(pos, sq, piece, moves)
        g, color = self.geometry, pos.turn
        file, rank, step = g.file[sq], g.rank[sq], self.forward[color]
        one, two = g.square(file, rank + step), g.square(file, rank + 2 * step)
        if (rank == self.pawn_start_rank[color] and one is not None and pos.board[one] is not None
                and two is not None and pos.board[two] is None):
            moves.append(Move(sq, two))


@mutant("stalemate-loses", "FIDE-5.2.1",
        "a side with no legal move loses whether or not it is in check (stalemate scored as mate)",
        {"op": "status", "fen": "k7/8/1Q6/8/8/8/8/4K3 b - - 0 1"})
class StalemateLoses(Chess):
    def status(self, pos, history=()):
        result = super().status(pos, history)
        if result["reason"] == "stalemate":
            return game_over("checkmate", winner=other(pos.turn))
        return result


@mutant("bishops-always-dead", "FIDE-5.2.2",
        "bishops only, on any colours, are called a dead position (the colour condition is left out)",
        {"op": "status", "fen": "4k3/8/8/8/8/8/8/2B1Kb2 w - - 0 1"})
class BishopsAlwaysDead(Chess):
    def dead_position(self, pos):
        rest = [p for p in pos.board if p is not None and p[-1] not in "Kk"]
        return super().dead_position(pos) or all(p[-1] in "Bb" for p in rest)


@mutant("repetition-without-rights", "FIDE-9.2.3",
        "repetition compares placement and side to move but not castling rights",
        {"op": "status", "fen": "4k2r/8/8/8/8/8/8/4K2R w Kk - 0 1",
         "moves": ["h1h2", "h8h7", "h2h1", "h7h8", "h1h2", "h8h7", "h2h1", "h7h8"]})
class RepetitionWithoutRights(Chess):
    def identity(self, pos):
        return (pos.board, pos.turn, self.legal_ep(pos), pos.state)


@mutant("repetition-raw-en-passant", "FIDE-9.2.3",
        "repetition compares the en passant square as written, even when no capture there is possible",
        {"op": "status", "moves": ["e2e4", "g8f6", "g1f3", "f6g8", "f3g1", "g8f6", "g1f3", "f6g8", "f3g1"]})
class RepetitionRawEnPassant(Chess):
    def identity(self, pos):
        return (pos.board, pos.turn, pos.castling, pos.ep, pos.state)


@mutant("seventy-five-beats-mate", "FIDE-9.6.2",
        "the seventy-five-move rule is looked at before checkmate, so a mate on the 150th move is a draw",
        {"op": "play", "fen": "6k1/5ppp/8/8/8/8/8/R5K1 w - - 149 80", "moves": ["a1a8"]})
class SeventyFiveBeatsMate(Chess):
    def status(self, pos, history=()):
        if not self.mid_turn(pos) and pos.halfmove >= 150:
            return game_over("seventy-five-moves")
        return super().status(pos, history)


@mutant("capture-keeps-clock", "FIDE-9.3",
        "the halfmove clock is reset by pawn moves only, not by captures",
        {"op": "play", "fen": "4k3/8/8/8/8/8/r7/R3K3 w - - 10 1", "moves": ["a1a2"]})
class CaptureKeepsClock(Chess):
    def make(self, pos, move, ends_turn=True):
        after = super().make(pos, move, ends_turn)
        piece = pos.board[move.frm] if move.frm is not None else None
        if after.halfmove == 0 and piece is not None and piece[-1] not in "Pp":
            after = after.replace(halfmove=pos.halfmove + 1)
        return after


@mutant("captured-rook-keeps-right", "FIDE-3.8.2.1",
        "a rook captured on its home square leaves its side's castling right in place",
        {"op": "play", "fen": "r3k3/8/8/8/8/8/8/R3K3 w Qq - 0 1", "moves": ["a1a8"]})
class CapturedRookKeepsRight(CapturedRookMixin, Chess):
    pass


@mutant("pinned-piece-gives-no-check", "FIDE-3.9.1",
        "a piece pinned to its own king is not counted as attacking (so its 'check' is ignored)",
        {"op": "moves", "fen": "4r3/8/8/8/8/4N2k/8/4K3 b - - 0 1"})
class PinnedPieceGivesNoCheck(Chess):
    def attacked(self, board, sq, by):
        if not super().attacked(board, sq, by):
            return False
        white = by == WHITE
        king = "K" if white else "k"
        for t, piece in enumerate(board):
            if piece is None or piece == "X" or piece.isupper() != white:
                continue
            alone = [p if p is None or p.isupper() != white or s == t else "X" for s, p in enumerate(board)]
            if not super().attacked(alone, sq, by):
                continue  # this piece does not attack sq
            if king not in board or piece == king:
                return True
            without = list(board)
            without[t] = None
            if not super().attacked(without, without.index(king), other(by)):
                return True  # an attacker that is not pinned
        return False


@mutant("claims-after-game-over", "G3.1",
        "draw claims are still listed when the game has already ended",
        {"op": "status", "fen": "4k3/8/8/8/8/8/8/R3K3 w - - 150 90"})
class ClaimsAfterGameOver(Chess):
    def status(self, pos, history=()):
        result = super().status(pos, history)
        if result["over"]:
            seen = 1 + list(history).count(self.identity(pos))
            claims = ["fifty-moves"] * (pos.halfmove >= 100) + ["threefold-repetition"] * (seen >= 3)
            result = {**result, "claimable": sorted(claims)}
        return result


@mutant("request-position-not-counted", "G3.1",
        "the position the request starts from is left out of the repetition count",
        {"op": "status", "moves": ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8"]})
class RequestPositionNotCounted(Chess):
    def status(self, pos, history=()):
        return super().status(pos, tuple(history)[1:])


@mutant("fifty-moves-off-by-one", "FIDE-9.3",
        "the fifty-move claim needs a clock above 100 rather than 100 or more",
        {"op": "status", "fen": "4k3/8/8/8/8/8/8/R3K3 w - - 100 80"})
class FiftyMovesOffByOne(Chess):
    def status(self, pos, history=()):
        if pos.halfmove == 100:
            pos = pos.replace(halfmove=99)
        return super().status(pos, history)


@mutant("two-knights-dead", "G4",
        "king and two knights against a lone king is called a dead position",
        {"op": "status", "fen": "4k3/8/8/8/8/8/8/1N2K1N1 w - - 0 1"})
class TwoKnightsDead(Chess):
    def dead_position(self, pos):
        rest = sorted(p for p in pos.board if p is not None and p[-1] not in "Kk")
        return super().dead_position(pos) or rest in (["N", "N"], ["n", "n"])


@mutant("en-passant-not-an-evasion", "FIDE-3.9.2",
        "en passant is left out of the answers to a check, though taking the checking pawn that way is legal",
        {"op": "moves", "fen": "8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1"})
class EnPassantNotAnEvasion(Chess):
    def legal_moves(self, pos):
        moves = super().legal_moves(pos)
        return [m for m in moves if not m.en_passant] if self.in_check(pos) else moves


@mutant("capture-promotion-missing", "FIDE-3.7.3.3",
        "a pawn capturing onto the last rank stays a pawn: only straight advances promote",
        {"op": "moves", "fen": "3rk3/4P3/8/8/8/8/8/4K3 w - - 0 1"})
class CapturePromotionMissing(Chess):
    def pawn_moves(self, pos, sq, piece, moves):
        before = len(moves)
        super().pawn_moves(pos, sq, piece, moves)
        g, kept = self.geometry, []
        for m in moves[before:]:
            if m.promotion and g.file[m.to] != g.file[m.frm]:
                if m.promotion == "Q":
                    kept.append(Move(m.frm, m.to))
            else:
                kept.append(m)
        moves[before:] = kept


@mutant("stalemate-by-pseudo-moves", "FIDE-5.2.1",
        "stalemate is looked for among pseudo-legal moves, so a king whose every step is attacked is not stalemated",
        {"op": "status", "fen": "k7/8/1Q6/8/8/8/8/4K3 b - - 0 1"})
class StalemateByPseudoMoves(Chess):
    def status(self, pos, history=()):
        result = super().status(pos, history)
        if result["reason"] == "stalemate" and self.pseudo_moves(pos):
            return not_over()
        return result


# ================================================================ double-chess

DC_ROOKS = "8k7/16/16/16/16/16/16/R3R3K2R3R w AELP - 0 1"


@mutant("outer-castling-past-inner-rook", "DC-outside-destinations",
        "own rooks that may still castle are not counted as blockers, so outer castling passes the inner rook",
        {"op": "moves", "fen": DC_ROOKS})
class OuterCastlingPastInnerRook(DoubleChess):
    def castling_path_clear(self, board, rule):
        own_rook = "R" if rule.color == WHITE else "r"
        homes = {r.rook_from for r in self.castle_rules if r.color == rule.color}
        cleared = list(board)
        for sq in homes:
            if cleared[sq] == own_rook and sq != rule.rook_from:
                cleared[sq] = None
        return super().castling_path_clear(cleared, rule)


@mutant("castling-skips-crossed-squares", "DC-castling-conditions",
        "castling checks attacks on the king's start and end squares only, not the squares it crosses",
        {"op": "moves", "fen": "8kr6/16/16/16/16/16/16/8K2R4 w L - 0 1"})
class CastlingSkipsCrossedSquares(DoubleChess):
    def king_path(self, rule):
        return [rule.king_from, rule.king_to]


@mutant("castling-path-two-squares", "DC-outside-destinations",
        "the attack test covers a two-square king path as in chess, missing the third square of outer castling",
        {"op": "moves", "fen": "8k2r4/16/16/16/16/16/16/R3R3K6R w AEP - 0 1"})
class CastlingPathTwoSquares(DoubleChess):
    def king_path(self, rule):
        return super().king_path(rule)[:3]


@mutant("castling-rook-shield-ignored", "C3",
        "castling is judged on the board before the rook moves, so a rook that shielded the king's new square is missed",
        {"op": "moves", "fen": "8k7/16/16/16/16/16/16/3rR3K7 w E - 0 1"})
class CastlingRookShieldIgnored(DoubleChess):
    def legal_moves(self, pos):
        return [m for m in self.pseudo_moves(pos) if m.castle is not None or self.king_safe_after(pos, m)]


@mutant("castling-rook-path-attacked", "DC-castling-conditions",
        "castling is refused when any square between king and rook is attacked, including squares only the rook crosses",
        {"op": "moves", "fen": "1r6k7/16/16/16/16/16/16/R7K7 w A - 0 1"})
class CastlingRookPathAttacked(DoubleChess):
    def king_path(self, rule):
        g = self.geometry
        lo, hi = sorted((g.file[rule.king_from], g.file[rule.rook_from]))
        rank = g.rank[rule.king_from]
        between = [g.square(f, rank) for f in range(lo + 1, hi)]
        return list(dict.fromkeys(super().king_path(rule) + between))


@mutant("rook-right-by-placement", "C3",
        "a rook's castling right is judged by whether it stands at home, so it comes back when the rook returns",
        {"op": "moves", "fen": "8k7/16/16/16/16/16/16/8K6R w P - 0 1",
         "moves": ["p1p2", "i8h8", "p2p1", "h8i8"]})
class DoubleChessRookRightByPlacement(RookRightMixin, DoubleChess):
    pass


@mutant("king-right-by-placement", "DC-castle-once",
        "only the rook's own right goes when it castles or moves; a king back on i1 may castle again",
        {"op": "moves", "fen": "8k7/16/16/16/16/16/16/R7K7 w A - 0 1",
         "moves": ["i1h1", "i8h8", "h1i1", "h8i8"]})
class KingRightByPlacement(DoubleChess):
    def make(self, pos, move, ends_turn=True):
        after = super().make(pos, move, ends_turn)
        kept = pos.castling - {move.frm, move.to, move.castle}
        return after.replace(castling=kept)

    def fen(self, pos):
        home = {WHITE: pos.board[self.geometry.index["i1"]] == "K",
                BLACK: pos.board[self.geometry.index["i8"]] == "k"}
        shown = frozenset(sq for sq in pos.castling if home[self.castle_by_rook[sq].color])
        return super().fen(pos.replace(castling=shown))


@mutant("x-fen-castling-field", "C2",
        "castling rights written X-FEN style: K and Q for the outer rooks, file letters for the inner ones",
        {"op": "fen"})
class XFenCastlingField(DoubleChess):
    start_fen = DoubleChess.start_fen.replace("AELPaelp", "KQELkqel")

    def make_castle_rules(self):
        outer = {"A": "Q", "P": "K", "a": "q", "p": "k"}
        return [replace(r, letter=outer.get(r.letter, r.letter)) for r in super().make_castle_rules()]


@mutant("single-digit-empty-runs", "C1",
        "FEN output splits long empty runs into single digits (16 written as 97)",
        {"op": "fen"})
class SingleDigitEmptyRuns(DoubleChess):
    def fen(self, pos):
        fields = super().fen(pos).split(" ")
        rows = []
        for row in fields[0].split("/"):
            out, digits = "", ""
            for ch in row + " ":
                if ch.isdigit():
                    digits += ch
                    continue
                if digits:
                    n = int(digits)
                    out += "9" * (n // 9) + (str(n % 9) if n % 9 else "")
                    digits = ""
                out += ch.strip()
            rows.append(out)
        return " ".join(["/".join(rows)] + fields[1:])


@mutant("captured-rook-keeps-right", "C3",
        "a rook captured on its home square leaves its side's castling right in place",
        {"op": "play", "fen": "r7k7/16/16/16/16/16/16/R7K7 w Aa - 0 1", "moves": ["a1a8"]})
class DoubleChessCapturedRookKeepsRight(CapturedRookMixin, DoubleChess):
    pass


@mutant("outer-castling-names-swapped", "DC-castling-san",
        "the SAN names of the two outer castlings are swapped (O-O-O-O for the a-rook, O-O-O-O-O for the p-rook)",
        {"op": "play", "fen": "8k7/16/16/16/16/16/16/R7K6R w AP - 0 1", "moves": ["O-O-O-O"]})
class OuterCastlingNamesSwapped(DoubleChess):
    def make_castle_rules(self):
        swap = {"O-O-O-O": "O-O-O-O-O", "O-O-O-O-O": "O-O-O-O"}
        return [replace(r, san=swap.get(r.san, r.san)) for r in super().make_castle_rules()]


class SplitBoard(Geometry):
    """The 16x8 board as two 8x8 boards side by side: lines stop at the h/i seam."""

    def __init__(self):
        super().__init__(16, range(1, 9))
        for sq in range(self.size):
            for d, ray in self.rays[sq].items():
                if d[0] == 0:
                    continue
                half = self.file[sq] // 8
                cut = next((i for i, t in enumerate(ray) if self.file[t] // 8 != half), len(ray))
                self.rays[sq][d] = ray[:cut]


@mutant("board-split-in-two", "DC-board",
        "the board is treated as two 8x8 boards: rooks, bishops and queens stop at the h/i seam",
        {"op": "moves", "fen": "8k7/16/16/16/R15/16/16/8K7 w - - 0 1"})
class BoardSplitInTwo(DoubleChess):
    def __init__(self):
        self.geometry = SplitBoard()
        super().__init__()


@mutant("square-colour-by-file", "G4",
        "a square's colour is taken from the parity of its index, which on a 16-file board ignores the rank",
        {"op": "status", "fen": "8k7/16/16/16/16/16/b15/B7K7 w - - 0 1"})
class SquareColourByFile(DoubleChess):
    def dead_position(self, pos):
        others = [(sq, p) for sq, p in enumerate(pos.board) if p is not None and p[-1] not in "Kk"]
        if others and all(p[-1] in "Bb" for _, p in others):
            return len({sq % 2 for sq, _ in others}) == 1
        return super().dead_position(pos)


# ================================================================= double-move

DM_MATE_SEED = "r2q3k/ppp3p1/2np2Pp/5b2/3P1B2/1Q4P1/PPP2P2/3R2K1 w - - 0 1 WB"
DM_EP_SEED = "7k/8/8/8/3p4/8/4P3/7K w - - 0 1 WB"


@mutant("en-passant-on-second-half", "D4",
        "the en passant target from the start of the turn stays usable for the second half",
        {"op": "moves", "fen": "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1 WB", "moves": ["e1d1,"]})
class EnPassantOnSecondHalf(DoubleMove):
    def play(self, pos, move):
        after = super().play(pos, move)
        return after.replace(ep=pos.ep) if move.opens_double else after


@mutant("first-half-target-kept", "D4",
        "a double step made as the first half still leaves an en passant target after the turn",
        {"op": "moves", "fen": DM_EP_SEED, "moves": ["e2e4,", "h1g1"]})
class FirstHalfTargetKept(DoubleMove):
    def play(self, pos, move):
        after = super().play(pos, move)
        if move.opens_double:
            g = self.geometry
            piece = pos.board[move.frm]
            if piece in ("P", "p") and abs(g.rank[move.to] - g.rank[move.frm]) == 2:
                after = after.replace(ep=(move.to + move.frm) // 2)
        elif pos.state.mid and after.ep is None and pos.ep is not None:
            after = after.replace(ep=pos.ep)
        return after


@mutant("first-half-may-expose-king", "DM-every-half-legal",
        "a first half may leave the own king in check when the second half repairs it",
        {"op": "status", "fen": DM_MATE_SEED, "moves": ["b3g8,", "g8h7"]})
class FirstHalfMayExposeKing(DoubleMove):
    def legal_moves(self, pos):
        moves = super().legal_moves(pos)
        if pos.state.mid or not self.has_ability(pos):
            return moves
        return moves + [replace(m, opens_double=True) for m in self.pseudo_moves(pos)
                        if not self.king_safe_after(pos, m) and self.completable(pos, m)]


@mutant("mate-after-first-half", "D5",
        "a first half that leaves the opponent in check with no reply ends the game as mate",
        {"op": "play", "fen": "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1 WB", "moves": ["a1a8,"]})
class MateAfterFirstHalf(DoubleMove):
    def play(self, pos, move):
        after = super().play(pos, move)
        if not move.opens_double:
            return after
        view = self.make(pos, move, ends_turn=True).replace(state=Abilities(after.state.unused, False))
        if self.in_check(view) and not self.legal_moves(view):
            return view
        return after


@mutant("draws-between-halves", "G3",
        "draw rules (dead position, move count, repetition) are judged between the two halves as well",
        {"op": "status", "fen": "4k3/8/8/8/8/8/8/R3K3 w - - 149 90 WB", "moves": ["a1a2,"]})
class DrawsBetweenHalves(DoubleMove):
    def status(self, pos, history=()):
        if self.mid_turn(pos):
            pos = pos.replace(state=Abilities(pos.state.unused, False))
        return super().status(pos, history)


@mutant("second-half-takes-king", "D3",
        "after a checking first half, the second half may capture the king",
        {"op": "moves", "fen": "4k3/8/8/8/8/8/8/4RK2 w - - 0 1 -Bm"})
class SecondHalfTakesKing(DoubleMove):
    taking_kings = False

    def may_capture(self, target):
        return self.taking_kings or super().may_capture(target)

    def legal_moves(self, pos):
        moves = super().legal_moves(pos)
        king = "k" if pos.turn == WHITE else "K"
        if pos.state.mid and king in pos.board:
            self.taking_kings = True
            try:
                target = pos.board.index(king)
                moves += [m for m in self.pseudo_moves(pos) if m.to == target]
            finally:
                self.taking_kings = False
        return moves


@mutant("abilities-not-in-identity", "D6",
        "repetition ignores which Double Moves are still unused",
        {"op": "status", "moves": ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8",
                                   "g1f3,", "f3g1", "g8f6", "g1f3", "f6g8,", "g8f6"]})
class AbilitiesNotInIdentity(DoubleMove):
    def identity(self, pos):
        return (pos.board, pos.turn, pos.castling, self.legal_ep(pos))


@mutant("m-with-ability-accepted", "D1",
        "a FEN whose 'm' says the side is between halves is accepted although its ability is unspent",
        {"op": "fen", "fen": "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1 WBm"})
class MWithAbilityAccepted(DoubleMove):
    def parse_state(self, fields, pos):
        if fields and fields[0].endswith("m"):
            state = super().parse_state([fields[0][:-1]], pos)
            return Abilities(state.unused, True)
        return super().parse_state(fields, pos)


@mutant("uncompletable-first-half", "D2",
        "a Double Move may be opened by a first half after which no second half exists",
        {"op": "moves", "fen": "7k/7p/8/7P/8/1q6/8/K7 w - - 0 1 WB"})
class UncompletableFirstHalf(DoubleMove):
    def completable(self, pos, move):
        return True


@mutant("ability-never-spent", "DM-ability",
        "opening a Double Move does not use up the ability, so a side may use it again",
        {"op": "play", "moves": ["e2e4,", "d2d4"]})
class AbilityNeverSpent(DoubleMove):
    def play(self, pos, move):
        after = super().play(pos, move)
        return after.replace(state=Abilities(pos.state.unused, after.state.mid))


@mutant("fullmove-after-black-first-half", "G2",
        "the fullmove number grows after Black's first half as well as after its turn",
        {"op": "play", "fen": "4k3/8/8/8/8/8/8/R3K3 b - - 0 5 WB", "moves": ["e8d8,", "d8c8"]})
class FullmoveAfterBlackFirstHalf(DoubleMove):
    def play(self, pos, move):
        after = super().play(pos, move)
        if move.opens_double and pos.turn == BLACK:
            after = after.replace(fullmove=after.fullmove + 1)
        return after


@mutant("clock-counts-turns", "G2",
        "the halfmove clock counts turns: a Double Move of two quiet moves adds one",
        {"op": "play", "fen": "4k3/8/8/8/8/8/8/R3K3 w - - 0 1 WB", "moves": ["a1a2,", "a2a3"]})
class ClockCountsTurns(DoubleMove):
    def play(self, pos, move):
        after = super().play(pos, move)
        if pos.state.mid and after.halfmove == pos.halfmove + 1:
            after = after.replace(halfmove=pos.halfmove)
        return after


@mutant("no-en-passant-first-half", "D4",
        "an en passant capture may be an ordinary move but not the first half of a Double Move",
        {"op": "moves", "fen": DM_EP_SEED, "moves": ["h1g1,", "e2e4"]})
class NoEnPassantFirstHalf(DoubleMove):
    def legal_moves(self, pos):
        return [m for m in super().legal_moves(pos) if not (m.opens_double and m.en_passant)]


@mutant("completable-by-pseudo-moves", "D2",
        "a first half counts as completable when any second half could be made, even one leaving the king in check",
        {"op": "moves", "fen": "7k/7p/8/7P/8/1q6/8/K7 w - - 0 1 WB"})
class CompletableByPseudoMoves(DoubleMove):
    def completable(self, pos, move):
        return bool(self.pseudo_moves(self.make(pos, move, ends_turn=False)))


@mutant("spends-opponents-ability", "DM-ability",
        "opening a Double Move strikes the opponent's ability from the FEN field instead of the mover's",
        {"op": "play", "moves": ["e2e4,", "d2d4"]})
class SpendsOpponentsAbility(DoubleMove):
    def play(self, pos, move):
        after = super().play(pos, move)
        if move.opens_double:
            unused = pos.state.unused.replace(LETTER[other(pos.turn)], "")
            after = after.replace(state=Abilities(unused, True))
        return after


@mutant("rights-updated-at-turn-end", "DM-castling",
        "castling rights are brought up to date only when the turn ends, so a first half's losses do not show between the halves",
        {"op": "play", "fen": "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 WB", "moves": ["e1g1,"]})
class RightsUpdatedAtTurnEnd(DoubleMove):
    def play(self, pos, move):
        after = super().play(pos, move)
        return after.replace(castling=pos.castling) if move.opens_double else after


@mutant("positions-between-halves-counted", "DM-draws",
        "the position between the two halves of a Double Move is counted for repetition",
        {"op": "status", "fen": "4k3/8/8/8/8/8/8/R3K3 w - - 0 1 WB",
         "moves": ["a1a2,", "a2a1", "e8d8", "a1a2", "d8e8", "a2a1", "e8d8", "a1a2", "d8e8"]})
class PositionsBetweenHalvesCounted(CountsBetweenMixin, DoubleMove):
    def as_boundary(self, pos):
        return pos.replace(state=Abilities(pos.state.unused, False))


# ============================================================ double-move-anul

@mutant("capture-no-brake", "DA-5",
        "only a check on move one ends the turn; a capture lets the same side move again",
        {"op": "play", "fen": "4k3/8/8/8/8/8/p7/R3K3 w - - 0 1 -", "moves": ["a1a2"]})
class CaptureNoBrake(DoubleMoveAnul):
    def brakes(self, pos, move):
        return gives_check(self, pos, move)


@mutant("en-passant-no-brake", "A1",
        "the capture brake looks for a piece on the target square, so an en passant capture does not end the turn",
        {"op": "play", "fen": "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1 -", "moves": ["e5d6"]})
class EnPassantNoBrake(DoubleMoveAnul):
    def brakes(self, pos, move):
        if move.en_passant:
            return gives_check(self, pos, move)
        return super().brakes(pos, move)


@mutant("discovered-check-no-brake", "DA-6",
        "the check brake asks only whether the moved piece attacks the king, so a discovered check does not end the turn",
        {"op": "play", "fen": "4k3/8/8/8/4N3/8/8/K3R3 w - - 0 1 -", "moves": ["e4c3"]})
class DiscoveredCheckNoBrake(DoubleMoveAnul):
    def brakes(self, pos, move):
        if move.en_passant or (move.castle is None and pos.board[move.to] is not None):
            return True
        board = self.move_board(pos, move)
        movers = {move.to} | ({self.castle_by_rook[move.castle].rook_to} if move.castle is not None else set())
        white = pos.turn == WHITE
        only = [p if p is None or p.isupper() != white or sq in movers or p[-1] in "Kk" else "X"
                for sq, p in enumerate(board)]
        king = "k" if white else "K"
        return self.attacked(only, only.index(king), pos.turn)


@mutant("white-opens-with-one-move", "DA-opening-turn",
        "White's first turn of the game has one move only (the Marseillais habit the seed rejects)",
        {"op": "play", "moves": ["e2e4"]})
class WhiteOpensWithOneMove(GenericTurns, DoubleMoveAnul):
    def play(self, pos, move):
        if pos.turn == WHITE and pos.fullmove == 1 and not self.mid_turn(pos):
            return self.end_turn(pos, move)
        return super().play(pos, move)


@mutant("one-move-turn-forbidden", "DA-no-pass",
        "a quiet first move after which no second move exists is refused, instead of ending the turn after one move",
        {"op": "status", "fen": "7k/7p/8/7P/8/1q6/8/K7 w - - 0 1 -"})
class OneMoveTurnForbidden(DoubleMoveAnul):
    def legal_moves(self, pos):
        moves = super().legal_moves(pos)
        if self.mid_turn(pos):
            return moves
        return [m for m in moves if self.brakes(pos, m)
                or self.has_legal_move(with_state(self.make(pos, m, ends_turn=False), MID_TURN))]


@mutant("castling-brakes", "A2",
        "castling always ends the turn, as if it were a capture or a check",
        {"op": "play", "fen": "4k3/8/8/8/8/8/8/4K2R w K - 0 1 -", "moves": ["e1g1"]})
class CastlingBrakes(DoubleMoveAnul):
    def brakes(self, pos, move):
        return move.castle is not None or super().brakes(pos, move)


@mutant("promotion-brakes", "A2",
        "a promotion always ends the turn, as if it were a capture or a check",
        {"op": "play", "fen": "4k3/P7/8/8/8/8/8/4K3 w - - 0 1 -", "moves": ["a7a8n"]})
class PromotionBrakes(DoubleMoveAnul):
    def brakes(self, pos, move):
        return move.promotion is not None or super().brakes(pos, move)


@mutant("en-passant-on-move-two", "A3",
        "the en passant target from the start of the turn stays usable for move two",
        {"op": "moves", "fen": "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1 -", "moves": ["e1d1"]})
class EnPassantOnMoveTwo(DoubleMoveAnul):
    def make(self, pos, move, ends_turn=True):
        after = super().make(pos, move, ends_turn)
        return after if ends_turn else after.replace(ep=pos.ep)


@mutant("move-one-double-step-target-kept", "A3",
        "a double step played as a quiet move one still leaves an en passant target after move two",
        {"op": "moves", "fen": "7k/8/8/8/3p4/8/4P3/7K w - - 0 1 -", "moves": ["e2e4", "h1g1"]})
class MoveOneDoubleStepTargetKept(DoubleMoveAnul):
    def make(self, pos, move, ends_turn=True):
        after = super().make(pos, move, ends_turn)
        if not ends_turn and is_double_step(self, pos, move):
            return after.replace(ep=(move.frm + move.to) // 2)  # remembered, unusable by the mover
        if ends_turn and self.mid_turn(pos) and after.ep is None and pos.ep is not None:
            return after.replace(ep=pos.ep)
        return after


@mutant("braking-double-step-no-target", "A3",
        "only a double step played as move two leaves a target; one that ends the turn as move one does not",
        {"op": "moves", "fen": "8/8/8/5k2/3p4/8/4P3/4K3 w - - 0 1 -", "moves": ["e2e4"]})
class BrakingDoubleStepNoTarget(DoubleMoveAnul):
    def end_turn(self, pos, move):
        after = super().end_turn(pos, move)
        return after if self.mid_turn(pos) else after.replace(ep=None)


@mutant("move-one-may-expose-king", "DA-king-safety-each-move",
        "move one may leave the own king in check when move two repairs it",
        {"op": "moves", "fen": "4r2k/8/8/8/8/8/4B3/4K3 w - - 0 1 -"})
class MoveOneMayExposeKing(DoubleMoveAnul):
    def legal_moves(self, pos):
        moves = super().legal_moves(pos)
        if self.mid_turn(pos):
            return moves
        return moves + [m for m in self.pseudo_moves(pos)
                        if not self.king_safe_after(pos, m) and not self.brakes(pos, m)
                        and self.has_legal_move(with_state(self.make(pos, m, ends_turn=False), MID_TURN))]


@mutant("draws-between-moves", "G3",
        "draw rules (move count, dead position, repetition) are judged between the two moves of a turn too",
        {"op": "status", "fen": "4k3/8/8/8/8/8/8/R3K3 w - - 149 90 -", "moves": ["a1a2"]})
class DrawsBetweenMoves(DoubleMoveAnul):
    def status(self, pos, history=()):
        return super().status(with_state(pos, BOUNDARY), history)


@mutant("clock-counts-turns", "G2",
        "the halfmove clock counts turns: two quiet moves in one turn add one",
        {"op": "play", "fen": "4k3/8/8/8/8/8/8/R3K3 w - - 0 1 -", "moves": ["a1a2", "a2a3"]})
class AnulClockCountsTurns(DoubleMoveAnul):
    def end_turn(self, pos, move):
        after = super().end_turn(pos, move)
        if self.mid_turn(pos) and after.halfmove == pos.halfmove + 1:
            after = after.replace(halfmove=pos.halfmove)
        return after


@mutant("fullmove-after-black-move-one", "G2",
        "the fullmove number grows after each Black move, not once per Black turn",
        {"op": "play", "fen": "4k3/8/8/8/8/8/8/R3K3 b - - 0 5 -", "moves": ["e8d8", "d8c8"]})
class FullmoveAfterBlackMoveOne(DoubleMoveAnul):
    def make(self, pos, move, ends_turn=True):
        after = super().make(pos, move, ends_turn)
        if not ends_turn and pos.turn == BLACK:
            after = after.replace(fullmove=after.fullmove + 1)
        return after


@mutant("promotion-check-judged-as-pawn", "A2",
        "the check brake looks at the pawn before it promotes, so a promotion giving check does not end the turn",
        {"op": "play", "fen": "4k3/P7/8/8/8/8/8/4K3 w - - 0 1 -", "moves": ["a7a8q"]})
class PromotionCheckJudgedAsPawn(DoubleMoveAnul):
    def brakes(self, pos, move):
        return super().brakes(pos, replace(move, promotion=None) if move.promotion else move)


@mutant("castling-check-missed", "A2",
        "the check brake looks at the king's move only, so a castling whose rook gives check does not end the turn",
        {"op": "play", "fen": "5k2/8/8/8/8/8/8/4K2R w K - 0 1 -", "moves": ["e1g1"]})
class CastlingCheckMissed(DoubleMoveAnul):
    def brakes(self, pos, move):
        if move.castle is None:
            return super().brakes(pos, move)
        board = list(pos.board)
        board[move.to], board[move.frm] = board[move.frm], None
        king = "k" if pos.turn == WHITE else "K"
        return self.attacked(board, board.index(king), pos.turn)


@mutant("second-move-exists-by-pseudo-moves", "DA-no-pass",
        "the turn goes on after a quiet move one when any second move could be made, even one leaving the king in check",
        {"op": "play", "fen": "7k/7p/8/7P/8/1q6/8/K7 w - - 0 1 -", "moves": ["h5h6"]})
class SecondMoveExistsByPseudoMoves(GenericTurns, DoubleMoveAnul):
    def has_legal_move(self, pos):
        return bool(self.pseudo_moves(pos))


@mutant("mid-turn-en-passant-accepted", "G9",
        "a FEN in the middle of a turn may carry an en passant square",
        {"op": "fen", "fen": "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1 m"})
class MidTurnEnPassantAccepted(DoubleMoveAnul):
    def validate(self, pos):
        super().validate(pos.replace(ep=None) if self.mid_turn(pos) else pos)


@mutant("check-answer-ends-turn", "DA-turn-begins-in-check",
        "a turn that begins in check ends after the move that answers it, even a quiet king step",
        {"op": "play", "fen": "4k3/8/8/8/1b6/8/8/4K3 w - - 0 1 -", "moves": ["e1f1"]})
class CheckAnswerEndsTurn(DoubleMoveAnul):
    def brakes(self, pos, move):
        return self.in_check(pos) or super().brakes(pos, move)


@mutant("positions-between-moves-counted", "G3",
        "the position between the two moves of a turn is counted for repetition",
        {"op": "status", "fen": "4k3/8/8/8/8/8/8/R3K3 w - - 0 1 -",
         "moves": ["a1a2", "a2a3", "e8d8", "d8e8", "a3a1", "a1a2", "e8d8", "d8e8",
                   "a2a1", "a1a2", "e8d8", "d8e8"]})
class PositionsBetweenMovesCounted(CountsBetweenMixin, DoubleMoveAnul):
    def as_boundary(self, pos):
        return with_state(pos, BOUNDARY)


# =========================================================== symmetric-monster

SM_LONE = "4/4k3/8/8/8/8/8/8/4K3/4 w - - 0 1 K -"        # kings only, White's double-king in hand
SM_EP = "4/4k3/4p3/8/3*P4/8/8/8/4K3/4 b - - 0 1 Kk -"    # e7e5 lets the double-pawn on d5 take e.p.


@mutant("double-pawn-taken-en-passant", "SM-R6",
        "a double-pawn's double step that ends the turn leaves an en passant target like a single pawn's",
        {"op": "moves", "fen": "4/4k3/8/8/8/3p4/8/4*P3/4K3/4 w - - 0 1 K -", "moves": ["K@c0", "e2e4"]})
class DoublePawnTakenEnPassant(SymmetricMonster):
    def make(self, pos, move, ends_turn=True):
        after = super().make(pos, move, ends_turn)
        if (ends_turn and after.ep is None and move.drop is None and is_double(pos.board[move.frm])
                and is_double_step(self, pos, move)):
            after = after.replace(ep=(move.frm + move.to) // 2)
        return after


@mutant("double-pawn-no-en-passant", "SM-R7",
        "double-pawns are left out of en passant altogether, so they cannot take a single pawn that way",
        {"op": "moves", "fen": SM_EP, "moves": ["e7e5"]})
class DoublePawnNoEnPassant(SymmetricMonster):
    def pawn_moves(self, pos, sq, piece, moves):
        before = len(moves)
        super().pawn_moves(pos, sq, piece, moves)
        if is_double(piece):
            moves[before:] = [m for m in moves[before:] if not m.en_passant]


@mutant("en-passant-on-second-action", "S10",
        "an en passant target survives the first action of a double turn and may be used by the second",
        {"op": "moves", "fen": SM_EP, "moves": ["e7e5", "K@c0"]})
class EnPassantOnSecondAction(SymmetricMonster):
    def open_double(self, pos, move):
        return super().open_double(pos, move).replace(ep=pos.ep)


@mutant("double-pawn-double-step-from-start", "SM-R6",
        "a double-pawn may also step two squares from its starting square on rank 0 / 9",
        {"op": "moves", "fen": "4/4k3/8/8/8/8/8/8/K7/2*P1 w - - 0 1 K -"})
class DoublePawnDoubleStepFromStart(SymmetricMonster):
    def pawn_moves(self, pos, sq, piece, moves):
        super().pawn_moves(pos, sq, piece, moves)
        g, color = self.geometry, pos.turn
        file, rank, step = g.file[sq], g.rank[sq], self.forward[color]
        start = {WHITE: 0, BLACK: 9}[color]
        one, two = g.square(file, rank + step), g.square(file, rank + 2 * step)
        if (is_double(piece) and rank == start and one is not None and two is not None
                and pos.board[one] is None and pos.board[two] is None):
            moves.append(Move(sq, two))


@mutant("null-move-allowed", "SM-R10",
        "a double-piece may go straight back to where its quiet first action started (the null move)",
        {"op": "moves", "fen": "4/4k3/8/8/8/8/8/8/1*N2K3/4 w - - 0 1 K -", "moves": ["b1c3"]})
class NullMoveAllowed(SymmetricMonster):
    def is_null(self, first, move):
        return False


@mutant("null-ban-covers-captures", "SM-R10",
        "every straight return is refused, even after a first action that captured",
        {"op": "moves", "fen": "4/4k3/8/8/8/8/2p5/8/1*N2K3/4 w - - 0 1 K -", "moves": ["b1c3"]})
class NullBanCoversCaptures(SymmetricMonster):
    def is_null(self, first, move):
        return first.frm is not None and move.frm == first.to and move.to == first.frm


@mutant("drop-anywhere", "SM-R11",
        "the double-king may be dropped on any empty square, not only on its side's double-pawn start squares",
        {"op": "moves", "fen": SM_LONE})
class DropAnywhere(SymmetricMonster):
    def drops(self, pos):
        if colored("K", pos.turn) not in pos.state.hand:
            return []
        return [Move(None, sq, drop="*K") for sq in self.squares if pos.board[sq] is None]


@mutant("drop-resets-clock", "S11",
        "dropping the double-king resets the halfmove clock, as if it were a pawn move",
        {"op": "play", "fen": "4/4k3/8/8/8/8/8/8/4K3/4 w - - 10 1 K -", "moves": ["K@e0"]})
class DropResetsClock(SymmetricMonster):
    def make(self, pos, move, ends_turn=True):
        after = super().make(pos, move, ends_turn)
        return after.replace(halfmove=0) if move.drop is not None else after


@mutant("single-king-loss-ignored", "SM-R4",
        "single pieces keep moving after the single king has been captured",
        {"op": "moves", "fen": "4/4k3/8/8/8/8/8/8/R7/2*K1 w - - 0 1 - -"})
class SingleKingLossIgnored(SymmetricMonster):
    def may_move_singles(self, pos):
        return True


@mutant("double-king-loss-ignored", "SM-R5",
        "double-pieces keep moving after the double-king has been captured",
        {"op": "moves", "fen": "4/4k3/8/8/8/8/8/4*P3/4K3/4 w - - 0 1 - -"})
class DoubleKingLossIgnored(SymmetricMonster):
    def may_move_doubles(self, pos):
        return True


@mutant("promotion-at-file-end", "SM-R3",
        "pawns promote on the last square of their file, so rank 9 / 0 on the c- to f-files",
        {"op": "moves", "fen": "4/k7/4P3/8/8/8/8/8/4K3/4 w - - 0 1 Kk -"})
class PromotionAtFileEnd(SymmetricMonster):
    def add_pawn_move(self, frm, to, piece, moves):
        g = self.geometry
        beyond = g.square(g.file[to], g.rank[to] + self.forward[color_of(piece)])
        if beyond is None:
            moves.extend(Move(frm, to, promotion=p) for p in PROMOTION_LETTERS)
        else:
            moves.append(Move(frm, to))


@mutant("double-pawn-promotes-to-single", "SM-R8",
        "a double-pawn promotes to an ordinary queen, rook, bishop or knight",
        {"op": "play", "fen": "4/k7/3*P4/8/8/8/8/8/4K3/4 w - - 0 1 K -", "moves": ["d7d8q"]})
class DoublePawnPromotesToSingle(SymmetricMonster):
    def move_board(self, pos, move):
        board = super().move_board(pos, move)
        if move.promotion and is_double(board[move.to]):
            board[move.to] = board[move.to][1:]
        return board


@mutant("lone-double-action", "SM-R9",
        "a first double-piece action is allowed even when no second action can follow it",
        {"op": "moves", "fen": "4/4k3/8/4*P3/8/8/8/8/1NBQK3/*K*P2 w - - 0 1 k -"})
class LoneDoubleAction(SymmetricMonster):
    def completable(self, pos, move):
        return True


@mutant("check-enforced", "SM-R1",
        "moves that leave the single king attacked are refused, as in FIDE chess",
        {"op": "moves", "fen": "4/3rk3/8/8/8/8/8/8/4K3/4 w - - 0 1 Kk -"})
class CheckEnforced(SymmetricMonster):
    def legal_moves(self, pos):
        king = colored("K", pos.turn)
        safe = []
        for m in super().legal_moves(pos):
            board = self.move_board(pos, m)
            if king not in board or not self.attacked(board, board.index(king), other(pos.turn)):
                safe.append(m)
        return safe


@mutant("castling-respects-attacks", "SM-R2",
        "castling out of, through or into attack is refused, as in FIDE chess",
        {"op": "moves", "fen": "4/4kr2/8/8/8/8/8/8/4K2R/4 w K - 0 1 Kk -"})
class CastlingRespectsAttacks(SymmetricMonster):
    def castling_moves(self, pos):
        for m in super().castling_moves(pos):
            rule = self.castle_by_rook[m.castle]
            if not any(self.attacked(pos.board, sq, other(pos.turn)) for sq in self.king_path(rule)):
                yield m


@mutant("last-king-capture-continues", "SM-R12",
        "a first action that takes the opponent's last king leaves the turn open for a second action",
        {"op": "play", "fen": "4/8/4k3/3*P4/8/8/8/8/4K3/4 w - - 0 1 K -", "moves": ["d6e7"]})
class LastKingCaptureContinues(SymmetricMonster):
    def play(self, pos, move):
        single = move.drop is None and not is_double(pos.board[move.frm])
        if pos.state.first is None and not single:
            return self.open_double(pos, move)
        return super().play(pos, move)


@mutant("no-legal-turn-draws", "SM-R1",
        "a side with no legal turn is stalemated (a draw) instead of losing",
        {"op": "status", "fen": "4/4k3/8/8/8/8/8/8/1NBQ4/*K*P2 w - - 0 1 k -"})
class NoLegalTurnDraws(SymmetricMonster):
    def status(self, pos, history=()):
        result = super().status(pos, history)
        return game_over("stalemate") if result["reason"] == "no-legal-turn" else result


@mutant("dead-position-applied", "S11",
        "the FIDE dead-position draw is applied, so king against king is drawn",
        {"op": "status", "fen": "4/4k3/8/8/8/8/8/8/4K3/4 w - - 0 1 - -"})
class DeadPositionApplied(SymmetricMonster):
    dead_position = Chess.dead_position


@mutant("null-ban-any-piece", "SM-R10",
        "after a quiet first action no piece at all may move to the square it left (not only the same piece)",
        {"op": "moves", "fen": "4/4k3/8/8/8/8/8/8/*R*N2K3/4 w - - 0 1 K -", "moves": ["b1c3"]})
class NullBanAnyPiece(SymmetricMonster):
    def is_null(self, first, move):
        return (first.frm is not None and not first.capture and first.promotion is None
                and move.to == first.frm)


@mutant("null-ban-after-promotion", "SM-R10",
        "a promoted double-piece may not step straight back, as if the promotion were a quiet move",
        {"op": "moves", "fen": "4/k7/3*P4/8/8/8/8/8/4K3/4 w - - 0 1 K -", "moves": ["d7d8q"]})
class NullBanAfterPromotion(SymmetricMonster):
    def is_null(self, first, move):
        return (first.frm is not None and not first.capture
                and move.frm == first.to and move.to == first.frm)


@mutant("king-in-hand-counts", "SM-R12",
        "a double-king still in hand counts as a king, so a side without kings on the board plays on by dropping it",
        {"op": "status", "fen": "4/4k3/8/8/8/8/8/8/R7/4 w - - 0 1 K -"})
class KingInHandCounts(SymmetricMonster):
    def legal_moves(self, pos):
        if (not self.has_king(pos.board, pos.turn) and colored("K", pos.turn) in pos.state.hand
                and pos.state.first is None):
            return [m for m in self.drops(pos) if self.completable(pos, m)]
        return super().legal_moves(pos)

    def status(self, pos, history=()):
        if (not self.mid_turn(pos) and not self.has_king(pos.board, pos.turn)
                and colored("K", pos.turn) in pos.state.hand and self.legal_moves(pos)):
            return Chess.status(self, pos, history)
        return super().status(pos, history)


@mutant("drop-captures", "S8",
        "the double-king may be dropped onto an enemy piece standing on a start square, capturing it",
        {"op": "moves", "fen": "4/4k3/8/8/8/8/8/8/4K3/2n1 w - - 0 1 K -"})
class DropCaptures(SymmetricMonster):
    def drops(self, pos):
        if colored("K", pos.turn) not in pos.state.hand:
            return []
        white = pos.turn == WHITE
        return [Move(None, sq, drop="*K") for sq in self.drop_squares[pos.turn]
                if pos.board[sq] is None or pos.board[sq].isupper() != white]


@mutant("field-8-without-x", "S3",
        "FEN field 8 leaves out the x of a capturing first action",
        {"op": "play", "fen": "4/4k3/8/8/8/8/2p5/8/1*N2K3/4 w - - 0 1 K -", "moves": ["b1c3"]})
class Field8WithoutX(SymmetricMonster):
    def action_text(self, a):
        return super().action_text(a._replace(capture=False))


@mutant("captured-king-keeps-castling-rights", "G9",
        "castling rights of a side whose single king was captured stay in the FEN",
        {"op": "play", "fen": "4/r3k2r/8/8/8/8/8/4Q3/4K3/4 w kq - 0 1 Kk -", "moves": ["e2e8"]})
class CapturedKingKeepsCastlingRights(SymmetricMonster):
    def make(self, pos, move, ends_turn=True):
        after = super().make(pos, move, ends_turn)
        taken = pos.board[move.to] if move.drop is None else None
        if taken in ("K", "k"):
            after = after.replace(castling=after.castling | (pos.castling & self.rights_of[color_of(taken)]))
        return after


# ================================================================ the kill run

@dataclass
class Outcome:
    mutant: Mutant
    killers: list           # ids of the first killing cases
    diff: list              # the first killer's diff lines
    ran: int = 0
    skipped: int = 0
    seconds: float = 0.0

    @property
    def killed(self) -> bool:
        return bool(self.killers)

    def as_json(self) -> dict:
        m = self.mutant
        return {"mutant": m.name, "variant": m.variant, "rule": m.rule, "description": m.description,
                "killed": self.killed, "killers": self.killers, "diff": self.diff,
                "cases_run": self.ran, "cases_skipped": self.skipped, "seconds": round(self.seconds, 2)}


class RulesAdapter:
    """A rules object as an in-process adapter, asked and answered like any engine
    (``rules=None`` is the oracle itself)."""

    def __init__(self, rules, name: str, variant: str):
        self.rules, self.name, self.variant = rules, name, variant

    def hello(self) -> dict:
        return {"name": self.name, "variants": [self.variant], "ops": list(api.OPS)}

    def handle(self, request: dict) -> dict:
        return api.handle(request, rules=self.rules)


def engine_for(m: Mutant, oracle: bool = False) -> AdapterEngine:
    """The mutant (or, with oracle=True, the oracle) as a harness engine."""
    rules = None if oracle else m.rules()
    name = "oracle" if oracle else m.name
    return AdapterEngine(RulesAdapter(rules, name, m.variant), name)


def expected_nodes(case) -> int:
    """What a case costs to answer, roughly: the perft nodes it expects (0 for other ops)."""
    return case.expect.get("nodes", sum(case.expect.get("divide", {}).values()))


def schedule(cases, m: Mutant, max_nodes=DEFAULT_MAX_NODES):
    """(cases to run, in order; number skipped): the mutant's variant only, cases citing its
    rule first, cheap before expensive, perft above max_nodes left out."""
    mine = [c for c in cases if c.variant == m.variant]
    runnable = [c for c in mine if max_nodes is None or expected_nodes(c) <= max_nodes]
    order = sorted(range(len(runnable)),
                   key=lambda i: (m.rule not in runnable[i].rules, expected_nodes(runnable[i]), i))
    return [runnable[i] for i in order], len(mine) - len(runnable)


def run_mutant(m: Mutant, cases, max_nodes=DEFAULT_MAX_NODES, stop_after=KILLERS_SHOWN) -> Outcome:
    """Play the cases against the mutant until `stop_after` of them fail."""
    start = time.perf_counter()
    chosen, skipped = schedule(cases, m, max_nodes)
    engine = engine_for(m)
    outcome = Outcome(m, [], [], skipped=skipped)
    for case in chosen:
        outcome.ran += 1
        answer = engine.request(case.request)
        lines = compare(case.variant, case.expect, answer)
        if lines:
            outcome.killers.append(case.id)
            if not outcome.diff:
                outcome.diff = lines[:4]
            if len(outcome.killers) >= stop_after:
                break
    outcome.seconds = time.perf_counter() - start
    return outcome


def witness_diff(m: Mutant) -> list[str]:
    """How the mutant's answer to its witness differs from the oracle's (empty: it does not)."""
    request = m.witness_request()
    want = engine_for(m, oracle=True).request(request)
    expect = ({k: v for k, v in want.items() if k != "ok"} if want.get("ok")
              else {"error": {"code": want["error"]["code"]}})
    return compare(m.variant, expect, engine_for(m).request(request))


# ================================================================= command line

def chosen_mutants(variant=None, name=None) -> list[Mutant]:
    return [m for m in CATALOGUE.values()
            if (variant is None or m.variant == variant) and (name is None or m.name == name)]


def table(outcomes) -> str:
    rows = [("mutant", "rule", "result", "first killing cases")]
    for o in outcomes:
        rows.append((o.mutant.name, o.mutant.rule, "killed" if o.killed else "SURVIVED",
                     ", ".join(o.killers) if o.killed else f"none of {o.ran} cases failed"))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    lines = ["  ".join(r[i].ljust(widths[i]) for i in range(3)) + "  " + r[3] for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths) + "  " + "-" * len(rows[0][3]))
    return "\n".join(lines)


def counts(outcomes) -> str:
    per = {}
    for o in outcomes:
        k, n = per.get(o.mutant.variant, (0, 0))
        per[o.mutant.variant] = (k + o.killed, n + 1)
    parts = [f"{v}: {k}/{n} killed" for v, (k, n) in per.items()]
    total_k = sum(k for k, _ in per.values())
    total_n = sum(n for _, n in per.values())
    return "; ".join(parts) + f"; total {total_k}/{total_n} killed"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="doublecheck mutants",
        description="Run the cases against deliberately wrong rules (the mutant catalogue, "
                    "docs/mutants.md) and report which mutants no case catches.")
    p.add_argument("--variant", metavar="V", help="only the mutants of this variant")
    p.add_argument("--mutant", metavar="NAME", help="only this mutant (as listed by --list)")
    p.add_argument("--max-nodes", metavar="N", type=int, default=DEFAULT_MAX_NODES,
                   help=f"skip perft cases expecting more than N nodes (default {DEFAULT_MAX_NODES}; 0: no limit)")
    p.add_argument("--list", action="store_true", help="list the catalogue and exit")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.add_argument("--cases-dir", metavar="DIR", default=str(CASES_DIR),
                   help="the case tree to run (default: the project's cases/)")
    return p


def main(argv=None) -> int:
    p = parser()
    try:
        args = p.parse_args(argv)
    except SystemExit as e:  # argparse has printed the problem
        return EXIT_USAGE if e.code else EXIT_ALL_KILLED
    if args.variant is not None and args.variant not in api.VARIANTS:
        print(f"doublecheck mutants: unknown variant {args.variant!r}; known: {', '.join(api.VARIANTS)}",
              file=sys.stderr)
        return EXIT_USAGE
    if args.mutant is not None and args.mutant not in CATALOGUE:
        print(f"doublecheck mutants: unknown mutant {args.mutant!r}; "
              f"'--list' shows the {len(CATALOGUE)} known ones", file=sys.stderr)
        return EXIT_USAGE
    if args.max_nodes < 0:
        print("doublecheck mutants: --max-nodes must be 0 (no limit) or more", file=sys.stderr)
        return EXIT_USAGE
    chosen = chosen_mutants(args.variant, args.mutant)
    if not chosen:
        print(f"doublecheck mutants: no mutant of {args.variant} is named {args.mutant}", file=sys.stderr)
        return EXIT_USAGE
    if args.list:
        if args.json:
            print(json.dumps([{"mutant": m.name, "variant": m.variant, "rule": m.rule,
                               "description": m.description} for m in chosen], indent=2))
        else:
            for m in chosen:
                print(f"{m.name}  [{m.rule}]  {m.description}")
        return EXIT_ALL_KILLED
    cases, problems = load_cases(args.cases_dir)
    for problem in problems:
        print(f"warning: {problem}", file=sys.stderr)
    max_nodes = args.max_nodes or None
    start = time.perf_counter()
    outcomes = []
    try:
        for m in chosen:
            outcomes.append(run_mutant(m, cases, max_nodes))
            if not args.json:
                print(f"  {m.name}: {'killed' if outcomes[-1].killed else 'SURVIVED'} "
                      f"({outcomes[-1].ran} cases, {outcomes[-1].seconds:.1f}s)", file=sys.stderr)
    except KeyboardInterrupt:
        print(f"doublecheck mutants: interrupted after {len(outcomes)} of {len(chosen)} mutants",
              file=sys.stderr)
        return EXIT_INTERRUPTED
    elapsed = time.perf_counter() - start
    if args.json:
        print(json.dumps({"max_nodes": max_nodes, "seconds": round(elapsed, 1),
                          "mutants": [o.as_json() for o in outcomes]}, indent=2))
    else:
        print(table(outcomes))
        print()
        budget = f"perft cases above {max_nodes} nodes skipped" if max_nodes else "no perft case skipped"
        print(counts(outcomes) + f" ({elapsed:.0f}s; {budget})")
        for o in outcomes:
            if not o.killed:
                print(f"survivor {o.mutant.name} [{o.mutant.rule}]: {o.mutant.description}")
    return EXIT_ALL_KILLED if all(o.killed for o in outcomes) else EXIT_SURVIVOR


if __name__ == "__main__":
    sys.exit(main())
