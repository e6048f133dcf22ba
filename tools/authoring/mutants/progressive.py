"""Mutants of progressive-scottish and progressive-italian: the mistakes a site or an engine
makes with progressive chess.

Most mistakes fit both forms, so each mixin below is registered once per form (its
entry in ``progressive.json`` names both rules classes under ``on``); the mistakes about
how a check meets the series exist in one form only.  The catalogue entries (slug, rule
id, description, witness request, why) are data, in ``progressive.json`` beside this
module.
"""

# The rules classes the entries (progressive.json) name under "on" are looked up here by name.
from doublecheck.authoring.mutants.common import (  # noqa: F401 (entries' bases)
    ClockBeforeDeadPositionMixin, DeadPositionBeforeStalemateMixin, RepetitionBeforeClockMixin)
from doublecheck.oracle.chess import game_over
from doublecheck.oracle.position import other
from doublecheck.oracle.variants.progressive import Progressive, ProgressiveItalian, ProgressiveScottish, Series


# ------------------------------------------------------------------ the series

class CheckDoesNotEndSeries:
    """PS1 forgotten: a check in the middle of a series lets it go on."""

    def ends_series(self, pos, move):
        return self.left(pos) == 1


class ShortSeriesShortensReply:
    """PS1 misread: after a series cut short by check the reply has one move more than
    were played, not its full length."""

    def play(self, pos, move):
        after = super().play(pos, move)
        if after.turn != pos.turn and self.left(pos) > 1:
            st = after.state
            return after.replace(state=Series(pos.state.played + 2, 0, st.quiet))
        return after


class EarlyCheckAllowed:
    """PI1 forgotten in the Italian form: a check before the last move is legal (and then
    ends the series, as in the Scottish form)."""

    early_check_allowed = True


class CheckAnswerMayCheck:
    """PI1 half-read: the answer to a check may give check, as if a series had no place
    rules for its first move."""

    def legal_moves(self, pos):
        if pos.state.played == 0 and self.in_check(pos):
            return super(Progressive, self).legal_moves(pos)   # the chess moves, checks kept
        return super().legal_moves(pos)

    def has_legal_move(self, pos):
        return bool(self.legal_moves(pos))


# ------------------------------------------------------------------ en passant

class NoEnPassant:
    """P3 dropped: no en passant at all (the reading of one site's rules, which is
    OPT-series-en-passant=none played without declaring it)."""

    def use_options(self, options):
        super().use_options(options)
        self.en_passant_allowed = False


class LastMoveTargetsOnly:
    """P3 as in FIDE: only a double step made by the last move of a series leaves a target."""

    def pending_targets(self, pos, move):
        passed = self.passed_square(pos, move)
        return frozenset() if passed is None else frozenset({passed})


class EnPassantOnAnyMove:
    """P3's first-move rule forgotten: the opponent's targets stay open all series long."""

    def pending_targets(self, pos, move):
        kept = super().pending_targets(pos, move)
        theirs = {t for t in pos.ep if self.geometry.rank[t] == self.passed_rank[other(pos.turn)]
                  and t != move.to}
        return kept | frozenset(theirs)

    def pawn_moves(self, pos, sq, piece, moves):
        saved = pos.state
        if saved.played:
            pos = pos.replace(state=saved._replace(played=0))
        super().pawn_moves(pos, sq, piece, moves)


# ------------------------------------------------------------------ game end

class StuckSeriesLoses:
    """P4 misread: a side that cannot complete its series loses instead of drawing."""

    def status(self, pos, history=()):
        if pos.state.played and not self.mid_turn(pos):
            return game_over("no-legal-turn", winner=other(pos.turn))
        return super().status(pos, history)


class FiftyMovesKept:
    """P5 replaced by FIDE's count of moves: the claim at halfmove 100, the draw at 150."""

    def status(self, pos, history=()):
        found = super().status(pos, history)
        if found["over"] and found["reason"] == "seventy-five-moves":
            found = super().status(pos.replace(state=pos.state._replace(quiet=0)), history)
        found["claimable"] = [c for c in found["claimable"] if c != "fifty-moves"]
        if not found["over"] and not pos.state.played and pos.halfmove >= 100:
            found["claimable"] = sorted(found["claimable"] + ["fifty-moves"])
        return found


class TenSeriesAutomatic:
    """P5 misread: ten quiet series draw at once, with nothing left to claim."""

    def status(self, pos, history=()):
        if not pos.state.played and pos.state.quiet >= 10 and self.has_legal_move(pos):
            return game_over("seventy-five-moves")
        return super().status(pos, history)


class QuietDrawBeatsMate:
    """P5.1 reversed: the automatic quiet-series draw is looked at before checkmate and
    stalemate, so the series that completes the fifteenth quiet one and mates is a draw
    (the order of the other endings is kept: a dead position, a draw either way, stays one)."""

    def status(self, pos, history=()):
        found = super().status(pos, history)
        reason, at_least, _ = self.draw_endings["automatic"][0]     # the count comes first in G3's table
        if found["reason"] in ("checkmate", "stalemate") and not pos.state.played \
                and self.draw_clock(pos) >= at_least:
            return game_over(reason)
        return found


class SeriesLengthInIdentity:
    """P6.1 forgotten: the series length counts for repetition, so no position repeats."""

    def identity(self, pos):
        return super().identity(pos) + (pos.state.length,)


class SeriesEnPassantKept:
    """series-en-passant=none (OPT-series-en-passant) read nowhere: en passant is still offered."""

    def use_options(self, options):
        super().use_options(options)
        self.en_passant_allowed = True


class StuckSeriesStillEndsTheGame:
    """no-move-two=pass (OPT-no-move-two) not applied: a series its mover cannot go on with
    still ends the game drawn (P4)."""

    def use_options(self, options):
        super().use_options(options)
        self.series_passes = False
