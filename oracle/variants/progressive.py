"""Progressive chess: series of 1, 2, 3, ... moves, in two forms that differ in how a
check meets the series: ``progressive-scottish`` (a check ends the series at once)
and ``progressive-italian`` (a check only with the last move of a full series).
One class holds the family; each form is a subclass that changes one setting,
``early_check_allowed``.

The rules are stated in the catalogue (cases/rules/progressive.json, which also
names the general rulings and FIDE articles both forms keep; ``doublecheck rules
ID`` prints one); the ids mark where each acts here:

- P1: series n has n moves, all by one side; a series is a turn
- P2: a side in check answers it with the first move of its series
- P3: en passant only with a series' first move, on a double step of the opponent's last series
- P4: no legal move, not in check, at the start of or inside a series: drawn
- P5, P5.1: ten quiet series claimable, fifteen automatic (reported as the move-count draws)
- P6, P6.1, P6.2: repetition at series boundaries; FEN fields 7-9 and field 4
- PS1: a check ends the series at once (both forms: in the Italian form it can only come last)
- the Italian form's own check rule is named on its class, ``ProgressiveItalian``
- PI2: each move is judged on its own
- P7: the series shown with a comma says it goes on; a comma on a series' last move is refused
- P8: a series has too many ways to finish to be listed (turn lists and turn-perft are bounded)
- P9: game records number each series (``1. e4 2. e5 Qh4 3. ...``)
"""

from typing import NamedTuple

from doublecheck.oracle import explain
from doublecheck.oracle import fen as fen_io
from doublecheck.oracle.chess import About, Chess, game_over
from doublecheck.oracle.errors import INVALID_FEN, INVALID_REQUEST, RulesError, quote
from doublecheck.oracle.explain import Refusal, TurnEnd
from doublecheck.oracle.request_limits import MAX_FEN_NUMBER_DIGITS
from doublecheck.oracle.position import BLACK, WHITE, Move, Position, other

NO_TARGETS = frozenset()
# P8: listing the ways to finish a series visits at most this many positions; a
# longer walk is refused (a series of n moves has some 30**n ways to be played).
SERIES_WALK_LIMIT = 100_000
# P8: and a series with more moves left than this is not listed at all (instant refusal).
MAX_LISTED_LEFT = 4
# P5: quiet series (no capture, no pawn move) after which a draw may be claimed, and
# after which it is automatic (the sources' ten, and fifteen mirroring G3's 50/75).
QUIET_SERIES_CLAIM, QUIET_SERIES_AUTO = 10, 15
# G3's draw table (chess.DRAW_ENDINGS) with the quiet series of P5 for its clock.
SERIES_DRAW_ENDINGS = {
    "claims": {"automatic": (("seventy-five-moves", QUIET_SERIES_AUTO, None), ("fivefold-repetition", None, 5)),
               "claimable": (("fifty-moves", QUIET_SERIES_CLAIM, None), ("threefold-repetition", None, 3))},
    "automatic": {"automatic": (("fifty-moves", QUIET_SERIES_CLAIM, None), ("threefold-repetition", None, 3)),
                  "claimable": ()},
    "claims-only": {"automatic": (),
                    "claimable": (("fifty-moves", QUIET_SERIES_CLAIM, None), ("threefold-repetition", None, 3))},
    "none": {"automatic": (), "claimable": ()},
}
# The turn-perft depth limit (P8): depth 4 from the start is already 10 moves, some
# 10**13 sequences, and its series of 4 pass the walk's limit in most positions.
MAX_TURN_PERFT_DEPTH = 3


class Series(NamedTuple):
    """The state of a progressive position (FEN fields 7-9, P6.2)."""

    length: int      # n: how many moves this series has
    played: int      # how many of them are played (0 at a series boundary)
    quiet: int       # complete series since the last capture or pawn move (P5)


def side_name(color):
    return "White" if color == WHITE else "Black"


def bad_fen(message):
    return RulesError(INVALID_FEN, message)


def default_length(turn, fullmove) -> int:
    """P1, G2: White's series in fullmove f is series 2f-1, Black's series 2f."""
    return 2 * fullmove - (1 if turn == WHITE else 0)


class Progressive(Chess):
    """The progressive family: the turn machine of series; a form sets one attribute."""

    name = "progressive"
    start_fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 1 0 0"
    extra_fields = ("series length", "moves played", "quiet series")
    early_check_allowed = True   # PS1 (True) or PI1 (False): the one setting the forms differ in
    en_passant_allowed = True    # P3; False under OPT-series-en-passant=none
    option_names = Chess.option_names + ("series-en-passant", "no-move-two")
    option_choices = {"no-move-two": ("stalemate", ("stalemate", "pass"))}

    def use_options(self, options):
        super().use_options(options)
        # P5, P5.1: the draws of G3 counted in quiet series, ten and fifteen (OPT-draws as
        # everywhere: automatic ends the game at the claim's thresholds).
        self.draw_endings = self.endings_under(options, SERIES_DRAW_ENDINGS)
        # P3, or OPT-series-en-passant=none: no en passant capture at all
        self.en_passant_allowed = options["series-en-passant"] == "first-move"
        # P4, or OPT-no-move-two=pass: a series its mover cannot go on with passes the turn
        self.series_passes = options["no-move-two"] == "pass"

    # ------------------------------------------------------------ turn machine

    def left(self, pos) -> int:
        """How many moves of the series are still to play, this one included."""
        return pos.state.length - pos.state.played

    def gives_check(self, pos, move) -> bool:
        if not self.has_check:         # OPT-king-safety=king-capture
            return False
        board = self.move_board(pos, move)
        king = "k" if pos.turn == WHITE else "K"
        return king in board and bool(self.attacked(board, board.index(king), pos.turn))

    def placed_wrongly(self, pos, move) -> bool:
        """PI1: in the Italian form a move that gives check before the series' last move."""
        return not self.early_check_allowed and self.left(pos) > 1 and self.gives_check(pos, move)

    def legal_moves(self, pos):
        """The chess moves that keep the own king safe (P2, PI2), less the moves the
        place in the series forbids (PI1)."""
        moves = super().legal_moves(pos)
        if self.early_check_allowed or self.left(pos) == 1:
            return moves
        return [m for m in moves if not self.gives_check(pos, m)]

    def has_legal_move(self, pos) -> bool:
        return any(self.king_safe_after(pos, m) and not self.placed_wrongly(pos, m)
                   for m in self.pseudo_moves(pos))

    def mid_turn(self, pos) -> bool:
        """Inside a series with a move to play.  With no legal move left inside a series
        the series, and the game, is over (P4), though field 8 stays above 0."""
        return pos.state.played > 0 and self.has_legal_move(pos)

    def ends_series(self, pos, move) -> bool:
        """P1: the series' last move; PS1: a move that gives check; under
        OPT-king-safety=king-capture a move that takes the king."""
        return self.left(pos) == 1 or self.gives_check(pos, move) or self.takes_king(pos, move)

    def play(self, pos, move):
        after = self.make(pos, move, ends_turn=False)
        pending = self.pending_targets(pos, move)
        st = pos.state
        inside = Position(after.board, pos.turn, after.castling, pending, after.halfmove,
                          after.fullmove, Series(st.length, st.played + 1, st.quiet))
        if self.ends_series(pos, move) or (self.series_passes and not self.has_legal_move(inside)):
            quiet = st.quiet + 1 if after.halfmove > st.played else 0
            targets = frozenset(t for t in pending if self.live(after.board, t, pos.turn))
            return Position(after.board, other(pos.turn), after.castling, targets, after.halfmove,
                            after.fullmove + (1 if pos.turn == BLACK else 0),
                            Series(st.length + 1, 0, quiet))
        return inside

    def turns(self, pos):
        """Every way to finish the current series, as (moves, position after); P8 bounds
        the walk."""
        found, step = [], self.walk_guard(pos)

        def walk(p, line):
            for m in self.legal_moves(p):
                step(1)
                q = self.play(p, m)
                if self.mid_turn(q):
                    walk(q, line + [m])
                else:
                    found.append((line + [m], q))

        walk(pos, [])
        return found

    def count_turns(self, pos) -> int:
        """``len(self.turns(pos))``, with the same P8 refusals, without playing the series'
        last moves: each legal move there ends the series (P1), so they are counted, not
        played (a series of 3 has some 30 times more last moves than earlier ones)."""
        step = self.walk_guard(pos)

        def walk(p):
            moves = self.legal_moves(p)
            if self.left(p) == 1:
                step(len(moves))
                return len(moves)
            n = 0
            for m in moves:
                step(1)
                q = self.play(p, m)
                # a series that goes on but has no legal move left ends there (P4): one way
                # to finish it; walking q finds that (0) at no extra cost, where mid_turn
                # would scan q's moves once more
                n += (walk(q) or 1) if q.state.played else 1
            return n

        return walk(pos)

    def walk_guard(self, pos):
        """P8 for a walk through the rest of the series from ``pos``: refused at once with
        more than MAX_LISTED_LEFT moves left, else a step counter ``step(n)`` that refuses
        once more than SERIES_WALK_LIMIT positions are walked."""
        if self.left(pos) > MAX_LISTED_LEFT:
            raise RulesError(INVALID_REQUEST, self.walk_refusal(pos))
        visited = [0]

        def step(n):
            visited[0] += n
            if visited[0] > SERIES_WALK_LIMIT:
                raise RulesError(INVALID_REQUEST, self.walk_refusal(pos))

        return step

    def walk_refusal(self, pos) -> str:
        return (f"the {self.left(pos)} moves left in this series have too many ways to be played for "
                f"a turn list or a turn-perft (P8: at most {MAX_LISTED_LEFT} moves left and "
                f"{SERIES_WALK_LIMIT:,} positions walked): ask for moves, or perft by moves")

    def perft_depth_limit(self, turns: bool) -> int:
        return MAX_TURN_PERFT_DEPTH if turns else self.max_perft_depth

    # ------------------------------------------------------------ en passant

    def pending_targets(self, pos, move):
        """P3: the mover's own double steps of this series whose pawn has not moved since,
        with this move's double step added (the opponent's targets expire after move 1)."""
        own = self.passed_rank[pos.turn]
        kept = {t for t in pos.ep if self.geometry.rank[t] == own
                and self.pawn_step[pos.turn][t] != move.frm}
        passed = self.passed_square(pos, move)
        if passed is not None:
            kept.add(passed)
        return frozenset(kept)

    def pawn_moves(self, pos, sq, piece, moves):
        """FIDE pawn moves (``pos.ep`` is a set here, so the core adds no en passant), and
        with the first move of a series en passant on each of the opponent's targets (P3)."""
        super().pawn_moves(pos, sq, piece, moves)
        if pos.ep and pos.state.played == 0 and self.en_passant_allowed:
            for to in self.pawn_hits[pos.turn][sq]:
                if to in pos.ep and self.geometry.rank[to] == self.passed_rank[other(pos.turn)] \
                        and self.en_passant_victim(pos, sq, to) is not None:
                    moves.append(Move(sq, to, en_passant=True))

    def usable_targets(self, pos) -> tuple:
        """The targets a legal first move takes en passant, in file order (G9, G3)."""
        if not pos.ep or pos.state.played:
            return ()
        found = {m.to for m in self.legal_moves(pos) if m.en_passant}
        return tuple(sorted(found, key=self.geometry.file.__getitem__))

    def legal_ep(self, pos):
        usable = self.usable_targets(pos)
        return usable[0] if usable else None

    # ---------------------------------------------------------------- game end

    def status(self, pos, history=()) -> dict:
        """P4 inside a series; at a boundary checkmate (P2, PI1), stalemate (P4), G4,
        P5's series count (as the move-count draws, P5.1) and repetition (P6)."""
        if pos.state.played and not self.mid_turn(pos):
            return game_over("stalemate")
        return super().status(pos, history)

    def draw_clock(self, pos) -> int:
        """P5: the draws count quiet series, not moves."""
        return pos.state.quiet

    def before_turn_end(self, pos):
        """P6.2 field 8 at the series' last move, with as many quiet moves on the halfmove
        clock (P5's count moves only when a series ends)."""
        st = pos.state._replace(played=pos.state.length - 1)
        return pos.replace(state=st, halfmove=max(pos.halfmove, st.played))

    def with_draw_clock(self, pos, value):
        """P5's count set to ``value``, with the halfmove clock (G2, which still counts moves)
        lifted to at least the moves that many full quiet series before this one hold, so
        that the two clocks tell one story."""
        st = pos.state
        held = sum(max(st.length - k, 0) for k in range(1, value + 1)) + st.played
        return pos.replace(state=st._replace(quiet=value), halfmove=max(pos.halfmove, held))

    def identity(self, pos):
        """P6.1: placement, side to move, castling rights and usable targets; the series
        length grows every series, so it is left out with the clocks."""
        return (pos.board, pos.turn, pos.castling, self.usable_targets(pos))

    def perft_key(self, pos):
        """G7 for the perft cache: the targets as written and the series' length and
        progress (the quiet count changes no move)."""
        st = pos.state
        return self.packed_key(pos.replace(state=(st.length, st.played)), pos.ep)

    # ------------------------------------------------------------------- FEN

    def parse_state(self, fields, pos):
        """P6.2: fields 7-9, series length, moves played, quiet series; absent fields
        mean the series the fullmove number gives, none played, none quiet."""
        values = []
        names = self.extra_fields
        for i, text in enumerate(fields):
            if not text.isdigit() or len(text) > MAX_FEN_NUMBER_DIGITS:
                raise bad_fen(f"field {7 + i} ({names[i]}) must be a whole number of at most "
                              f"{MAX_FEN_NUMBER_DIGITS} digits, not {quote(text)}")
            values.append(int(text))
        length = values[0] if values else default_length(pos.turn, pos.fullmove)
        played = values[1] if len(values) > 1 else 0
        quiet = values[2] if len(values) > 2 else 0
        if length < 1:
            raise bad_fen("field 7 (series length) must be 1 or more (P1)")
        if played >= length:
            raise bad_fen(f"field 8 (moves played) is {played}, but a series of {length} "
                          f"has only moves 0 to {length - 1} still to come; once all are played "
                          f"the other side moves (P1)")
        return Series(length, played, quiet)

    def format_state(self, pos):
        return [str(v) for v in pos.state]

    def parse_ep_field(self, text):
        """P6.2: ``-`` or squares joined by a comma (a series may hold several double steps)."""
        if text == "-":
            return NO_TARGETS
        names = text.split(",")
        squares = [fen_io.parse_ep_square(self, name) if name != "-" else None for name in names]
        if None in squares or len(set(squares)) != len(squares) or len(squares) > self.geometry.width:
            raise bad_fen(f"en passant field {quote(text)} must be '-' or different squares joined "
                          f"by a comma (b6,d6)")
        return frozenset(squares)

    def format_ep_field(self, pos):
        """At a series boundary the usable targets (G9); inside a series the mover's own
        double steps so far (they become targets when the series ends)."""
        g = self.geometry
        shown = pos.ep if pos.state.played else self.usable_targets(pos)
        return ",".join(g.name[t] for t in sorted(shown, key=g.file.__getitem__)) or "-"

    def validate(self, pos):
        """G9 and P6.2: the targets fit the moment, a check ended any series (PS1, PI1),
        and no move of the series left the mover in check (PI2)."""
        fen_io.validate_standard(self, pos.replace(ep=None))
        inside = pos.state.played > 0
        g = self.geometry
        for t in pos.ep:
            stepper = pos.turn if inside else other(pos.turn)
            if g.rank[t] != self.passed_rank[stepper]:
                when = "inside a series it names the mover's own double steps" if inside else \
                    "at a series boundary it names the opponent's double steps"
                raise bad_fen(f"en passant square {g.name[t]} is not on rank "
                              f"{self.passed_rank[stepper]}: {when} (P6.2)")
            beyond = self.pawn_step[stepper][t]
            if pos.board[beyond] != ("P" if stepper == WHITE else "p") or (
                    not inside and pos.board[t] is not None):
                raise bad_fen(f"en passant square {g.name[t]} must have the {side_name(stepper)} "
                              f"pawn that passed over it just beyond it" +
                              ("" if inside else ", and be empty") + " (P3)")
        if not inside:
            return
        who, them = side_name(pos.turn), side_name(other(pos.turn))
        if self.in_check(pos, other(pos.turn)):
            raise bad_fen(f"field 8 says {who}'s series goes on, but {them} is in check: a check "
                          f"ends the series (PS1, PI1)")
        if self.in_check(pos):
            raise bad_fen(f"field 8 says {who}'s series goes on, but {who} is in check: no move of "
                          f"the series may leave the own king attacked (PI2)")
        if self.series_passes and not self.has_legal_move(pos):
            raise bad_fen(f"field 8 says {who}'s series goes on, but {who} has no legal move: under "
                          f"no-move-two=pass the series would already have ended (OPT-no-move-two)")

    def state_sentences(self, pos):
        st, g = pos.state, self.geometry
        who = side_name(pos.turn)
        line = (f"{who}'s series {st.length}: {st.played} of {st.length} moves played "
                f"(fields 7-8: {st.length} {st.played}).")
        out = [line]
        if st.played and not self.mid_turn(pos):
            out.append(f"{who} has no legal move left inside the series: the game ended there, "
                       f"drawn (P4).")
        if st.played and pos.ep:
            names = " and ".join(g.name[t] for t in sorted(pos.ep, key=g.file.__getitem__))
            out.append(f"Pending: {names}, passed over by {who}'s double steps in this series "
                       f"(P3).")
        out.append(f"Series since the last capture or pawn move: {st.quiet} (field 9; claim at "
                   f"{QUIET_SERIES_CLAIM}, drawn at {QUIET_SERIES_AUTO}, P5).")
        return out

    # ------------------------------------------------------------- series ends

    def series_end(self, pos, move):
        """(rule id, reason) when ``move`` ends its series, else None."""
        st = pos.state
        if self.gives_check(pos, move):
            mate = not self.has_legal_move(self.play(pos, move))
            what = "gives checkmate" if mate else "gives check"
            if self.left(pos) == 1:
                return "P1", f"it is the last move of the series, and it {what}"
            return "PS1", f"move {st.played + 1} of {st.length} {what}"
        if self.left(pos) == 1:
            return "P1", f"it is move {st.length} of {st.length}, the last of the series"
        if not self.has_legal_move(self.play(pos, move)):
            return "P4", (f"no legal move {st.played + 2} exists after it, which ends the game "
                          f"drawn")
        return None

    # ------------------------------------------------------ explaining refusals

    rule_ids = {**Chess.rule_ids, "turn": "P1", "comma": "P7", "en-passant": "P3",
                "en-passant-unended": "P3", "king-safety": "PI2"}
    continuing_move = "a later move of a series"
    unended_move = "was followed by more moves of the same series"

    def why_no_move(self, pos, asked):
        if pos.state.played and not self.mid_turn(pos):
            return Refusal(f"{side_name(pos.turn)} had no legal move left inside its series, so "
                           f"the game ended there, drawn; no move may follow", "P4")
        return None

    def why_refused(self, pos, move, asked):
        """PI1: a check before the series' last move."""
        st = pos.state
        if self.placed_wrongly(pos, move):
            return Refusal(f"{self.san(pos, move).rstrip(',+#')} would give check with move "
                           f"{st.played + 1} of a series of {st.length}: a check before the last "
                           f"move of the series is illegal", "PI1", also=["PI2"])
        return None

    def why_comma(self, pos, move):
        """P7: a trailing comma on a move that ends its series (the reason it ends, cited too)."""
        rule, why = self.series_end(pos, move)
        return Refusal(f"{self.san(pos, move).rstrip(',')} ends the series ({why}), so the trailing "
                       f"comma, which says another move of this series follows, is wrong", "P7",
                       also=[rule])

    def why_no_en_passant(self, pos, frm, to, asked):
        """P3: en passant only with a series' first move, on the opponent's last series."""
        g, me = self.geometry, pos.turn
        victim = g.square(g.file[to], g.rank[frm])
        if pos.board[victim] != ("p" if me == WHITE else "P"):
            return explain.en_passant(self, pos, frm, to, asked)
        st = pos.state
        if st.played:
            return explain.refusal_for(self, "en-passant", f"this is move {st.played + 1} of the "
                                       f"series: en passant is allowed only with the first move of "
                                       f"a series")
        return explain.refusal_for(self, "en-passant", f"{g.name[to]} is not an en passant target "
                                   f"now: the pawn on {g.name[victim]} did not make a two-square "
                                   f"step in {side_name(other(me))}'s last series, or has moved "
                                   f"since")

    def king_safety_rule(self, pos, asked):
        if pos.state.played == 0 and self.in_check(pos):
            return "P2", "a side in check must answer it with the first move of its series"
        return "PI2", "each move of a series must leave the own king safe on its own"

    def why_turn_over(self, pos, move, played):
        rule, why = self.series_end(pos, move) or ("P1", "the series is complete")
        return Refusal(f"no further move of this series is allowed: {self.san(pos, move).rstrip(',')} "
                       f"ended it ({why})", rule, also=["P1"] if rule != "P1" else [])

    def why_incomplete(self, pos, last):
        st = pos.state
        n = len(self.legal_moves(pos))
        return Refusal(f"after {last}, move {st.played} of {st.length}, the series owes "
                       f"{self.left(pos)} more move{'s' if self.left(pos) > 1 else ''} ({n} legal "
                       f"now); nobody may pass", "P1")

    def game_over_note(self, pos, status):
        if pos.state.played and not self.mid_turn(pos):
            return "the game is already over: no legal move was left inside the series (P4)"
        return super().game_over_note(pos, status)

    # ------------------------------------------------- the turn as players see it

    turn_actions = ("Move 1", "Move 2", "Move 3")
    pgn_numbers_each_turn = True     # P9: the customary record numbers each series

    def turn_number(self, pos) -> int:
        """P9: a record numbers each series by its length (series n is move n)."""
        return pos.state.length

    def turn_slots(self, pos):
        """P1: one slot per move of the series being played at pos (Move 1 ... Move n)."""
        return tuple(f"Move {i}" for i in range(1, pos.state.length + 1))

    def actions_played(self, pos) -> int:
        return pos.state.played

    def turn_end_reason(self, pos_before, move, pos_after):
        """A series that ends before its last move: a check (PS1) or no legal move left (P4)."""
        if self.mid_turn(pos_after) or self.left(pos_before) == 1:
            return None
        rule, why = self.series_end(pos_before, move)
        san = self.san(pos_before, move).rstrip(",")
        k = pos_before.state.played + 1
        words = {"PS1": f"the check {san} on move {k} ended the series",
                 "P4": f"no legal move left after {san} (move {k}): drawn"}[rule]
        return TurnEnd(rule, words, ("P1",))


class ProgressiveScottish(Progressive):
    """Scottish progressive chess: any move may check, and a check ends the series (PS1)."""

    name = "progressive-scottish"
    early_check_allowed = True

    about = About(summary="series of 1, 2, 3, ... moves; a check ends the series at once",
                  move="one move of a series",
                  turn=("a series: n moves in series n (**P1**), fewer when a move gives check "
                        "(**PS1**) or no legal move is left (**P4**)"),
                  note=("perft 3 from the start is White's move, then Black's two; turn-perft is "
                        "limited to depth 3, a series walk to 100,000 positions (**P8**)"))


class ProgressiveItalian(Progressive):
    """Italian progressive chess: a check only with the last move of a full series (PI1)."""

    name = "progressive-italian"
    early_check_allowed = False

    about = About(summary="series of 1, 2, 3, ... moves; check only with the last move of a series",
                  move="one move of a series",
                  turn=("a series: n moves in series n (**P1**), fewer only when no legal move is "
                        "left (**P4**); a check before the last move is illegal (**PI1**)"),
                  note=("a side in check whose only answers give check is mated (**PI1**); "
                        "turn-perft is limited to depth 3, a series walk to 100,000 positions "
                        "(**P8**)"))
