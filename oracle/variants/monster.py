"""Classic Monster chess: White's king and four pawns move twice a turn against Black's army.

The rules are stated in the catalogue (cases/rules/monster.json, which also names
the general rulings and FIDE articles the variant keeps; ``doublecheck rules ID``
prints one); the ids mark where each acts here:

- MO1: the setup, White's king e1 and pawns c2-f2 against the full army
- MO2: White two moves a turn, Black one; a move one needs a legal move two after it
- MO3: White's king may stand attacked after move one, never when White's turn ends
- MO4, MO4.1: Black is in check when White's two coming moves could take its king
- MO5: the game end is judged at turn boundaries
- MO6, MO6.1: en passant timing (which double steps leave targets, and for which move)
- MO7: White has no castling; Black never castles out of, across or into an MO4 check
- MO8, MO8.1: FEN field 7 (``-``/``m``) and what a FEN between White's moves may hold
- MO9: no dead-position rule

``Position.ep`` is a frozenset of squares here (none, one, or under the MO6.1
alternative two), read and written by ``parse_ep_field`` and ``format_ep_field``.
"""

from doublecheck.oracle import explain
from doublecheck.oracle import fen as fen_io
from doublecheck.oracle.chess import About, Chess, castle_rule
from doublecheck.oracle.errors import INVALID_FEN, RulesError, quote
from doublecheck.oracle.explain import Refusal
from doublecheck.oracle.position import BLACK, WHITE, Move, Position, other
from doublecheck.oracle.variants.double_move_anul import BOUNDARY, MID_TURN, DoubleMoveAnul, side_name

NO_TARGETS = frozenset()


def bad_fen(message):
    return RulesError(INVALID_FEN, message)


class Monster(Chess):
    """Classic Monster chess: White (king and four pawns) moves twice a turn, Black once."""

    name = "monster"
    start_fen = "rnbqkbnr/pppppppp/8/8/8/8/2PPPP2/4K3 w kq - 0 1 -"     # MO1
    extra_fields = ("turn",)
    max_perft_depth = 13
    moves_per_turn = {WHITE: 2, BLACK: 1}                                      # MO2
    # MO6.1: the sources disagree on one point of en passant, so it is a rule option
    # (OPT-ep-after-white-move-one): by default (MO6) only a double step made with White's
    # move two leaves Black a target; with ``target`` (as PlayStrategy plays it) either
    # double step of White's turn does, so Black may face two targets.
    # MO9: no dead position, so no OPT-dead-position.
    option_names = ("draws", "move-count", "king-safety", "black-check", "ep-after-white-move-one")

    def __init__(self, options=None):
        # The squares on a line (rank, file, diagonal) through each square: only a move
        # from one of them can open a slider's line onto a king standing there.
        self.aligned = [frozenset(t for ray in rays.values() for t in ray) for rays in self.geometry.rays]
        super().__init__(options)

    def use_options(self, options):
        super().use_options(options)
        self.black_takes_both_targets = options["ep-after-white-move-one"] == "target"   # MO6.1
        # MO4, or OPT-black-check=one-move: Black's king need only be out of reach of one
        # White move, so White's move two may take it (and win, as under king-capture)
        self.black_one_move_check = options["black-check"] == "one-move"

    def make_castle_rules(self):
        """MO7: Black castles as in chess; White has no castling at all."""
        g = self.geometry
        return [castle_rule(g, BLACK, "e8", "h8", "g8", "f8", "k", "O-O"),
                castle_rule(g, BLACK, "e8", "a8", "c8", "d8", "q", "O-O-O")]

    # ------------------------------------------------------------ turn machine

    def first_of_two(self, pos) -> bool:
        """Is the next move White's move one (MO2)?"""
        return pos.turn == WHITE and pos.state != MID_TURN

    def mid_turn(self, pos) -> bool:
        """Between White's two moves (field 7 ``m``, MO8)."""
        return pos.state == MID_TURN

    def play(self, pos, move):
        """White's move one keeps White to move (MO2; a legal move one always has a legal
        move two after it); White's move two and Black's move end the turn."""
        if self.first_of_two(pos) and not self.takes_king(pos, move):
            return self.after_move_one(pos, move)
        return self.end_turn(pos, move)

    def turns(self, pos):
        """Every way to complete the current turn, as (moves, position after): the same
        machine as ``play``, generating each move two once."""
        if not self.first_of_two(pos):
            return [([m], self.end_turn(pos, m)) for m in self.legal_moves(pos)]
        found = []
        for first in self.first_moves(pos):
            if self.takes_king(pos, first):
                found.append(([first], self.end_turn(pos, first)))
                continue
            half = self.after_move_one(pos, first)
            found.extend(([first, m], self.end_turn(half, m)) for m in self.legal_moves(half))
        return found

    def count_turns(self, pos) -> int:
        """``len(self.turns(pos))`` without playing the turns' last moves: each ends the
        turn (MO2), so White's moves two are counted after each move one, not played."""
        if not self.first_of_two(pos):
            return len(self.legal_moves(pos))
        return sum(1 if self.takes_king(pos, first) else len(self.legal_moves(self.after_move_one(pos, first)))
                   for first in self.first_moves(pos))

    def first_moves(self, pos):
        """White's candidate moves one for a walk through its turns: every move the pieces can
        make (one with no legal move two after it adds no turn), none once a king is taken."""
        return [] if self.king_taken(pos) else self.pseudo_moves(pos)

    def after_move_one(self, pos, move):
        """White's move one played, White to move again (field 7 ``m``).  Under the MO6.1
        alternative the square a double step passed over is kept, pending (MO6)."""
        after = self.make(pos, move, ends_turn=False)
        passed = self.passed_square(pos, move) if self.black_takes_both_targets else None
        pending = frozenset((passed,)) if passed is not None else NO_TARGETS
        return Position(after.board, after.turn, after.castling, pending, after.halfmove,
                        after.fullmove, MID_TURN)

    def end_turn(self, pos, move):
        """The last move of a turn: the opponent moves next, with a target for a double
        step of this turn whose pawn is still there and whose square is empty (MO6)."""
        after = self.make(pos, move, ends_turn=True)
        steps = [t for t in pos.ep if self.geometry.rank[t] == self.passed_rank[pos.turn]]
        passed = self.passed_square(pos, move)
        if passed is not None:
            steps.append(passed)
        targets = frozenset(t for t in steps if self.live(after.board, t, pos.turn))
        return Position(after.board, after.turn, after.castling, targets, after.halfmove,
                        after.fullmove, BOUNDARY)

    def legal_moves(self, pos):
        """MO2/MO3: White's move one is any move after which a legal move two exists (its
        own king may stand attacked in between); White's move two leaves its king safe.
        MO4: Black's move may not leave White able to take the black king with its two
        coming moves, and Black never castles out of or across such a threat (MO7).
        OPT-king-safety=king-capture: every move the pieces can make, until a king is taken;
        OPT-black-check=one-move: Black's move keeps its king safe as in chess."""
        if self.king_taken(pos):
            return []
        if self.kings_captured:
            return self.pseudo_moves(pos)
        if pos.turn == BLACK and self.black_one_move_check:
            return [m for m in self.pseudo_moves(pos) if Chess.king_safe_after(self, pos, m)]
        if pos.turn == BLACK:
            return [m for m in self.pseudo_moves(pos) if not self.black_move_threatened(pos, m)]
        if self.first_of_two(pos):
            return [m for m in self.pseudo_moves(pos) if self.has_legal_move(self.after_move_one(pos, m))]
        return [m for m in self.pseudo_moves(pos) if self.king_safe_after(pos, m)]

    def has_legal_move(self, pos) -> bool:
        """Has White, between its moves, a move two that leaves its king safe (MO3)?"""
        return any(self.king_safe_after(pos, m) for m in self.pseudo_moves(pos))

    def king_safe_after(self, pos, move):
        """The one-move king safety the explanations name an attacker for: none is owed by
        White's move one (MO3); the two-move threat of MO4 is ``black_move_threatened``."""
        if self.first_of_two(pos):
            return True
        return super().king_safe_after(pos, move)

    def may_capture(self, target: str) -> bool:
        """OPT-black-check=one-move: White may take a black king left within reach of its
        move two; otherwise as in chess (kings are never taken, or always under king-capture)."""
        return super().may_capture(target) or (target == "k" and self.black_one_move_check)

    def king_taken(self, pos) -> bool:
        """Under OPT-black-check=one-move Black's king may be taken by White's move two."""
        if self.black_one_move_check and pos.turn == BLACK:
            return "k" not in pos.board
        return super().king_taken(pos)

    def takes_king(self, pos, move) -> bool:
        return super().takes_king(pos, move) or (self.black_one_move_check and pos.board[move.to] == "k")

    # ------------------------------------------------------- MO4: Black's check

    def black_move_threatened(self, pos, move) -> bool:
        """Would Black's ``move`` leave its king within reach of White's two moves (MO4), or
        castle out of or across such a threat (MO7)?"""
        board = self.move_board(pos, move)
        targets = NO_TARGETS
        passed = self.passed_square(pos, move)
        if passed is not None:
            targets = frozenset((passed,))
        if self.threat(board, targets):
            return True
        if move.castle is not None:
            return any(self.threat(self.king_on(pos.board, move.frm, sq), NO_TARGETS)
                       for sq in self.king_path(self.castle_by_rook[move.castle])[:-1])
        return False

    @staticmethod
    def king_on(board, frm, sq):
        """The board with the king of frm standing on sq instead (a castling king passing,
        or standing still when sq is frm: emptied first, so that the king stays)."""
        out = list(board)
        king, out[frm] = out[frm], None
        out[sq] = king
        return out

    def threat(self, board, targets) -> bool:
        """MO4: could White, to move at a turn boundary on ``board`` (with en passant
        ``targets``), take the black king with move one, or with move two after some move
        one?  Any move one counts, its own king attacked or not (MO4.1)."""
        if "k" not in board:
            return False
        ksq = board.index("k")
        if self.attacked(board, ksq, WHITE):
            return True
        pos = Position(tuple(board), WHITE, NO_TARGETS, targets, 0, 1, BOUNDARY)
        lines = self.aligned[ksq]
        for m in self.pseudo_moves(pos):
            after = self.move_board(pos, m)
            if self.moved_piece_attacks(after, m.to, ksq):
                return True
            # a move from a line through the king (or an en passant capture, which also
            # empties the taken pawn's square) may open a slider's line onto it
            if (m.frm in lines or m.en_passant) and self.attacked(after, ksq, WHITE):
                return True
        return False

    def moved_piece_attacks(self, board, frm, ksq) -> bool:
        """Does the white piece now on frm attack ksq?"""
        kind = board[frm][-1]
        if kind == "P":
            return ksq in self.pawn_hits[WHITE][frm]
        return self.line_blockers(kind, frm, ksq, board) == []

    def in_check(self, pos, color=None) -> bool:
        """White (MO3): its king is attacked.  Black (MO4): between White's moves, its king
        is attacked; otherwise White's two coming moves could take it."""
        color = color or pos.turn
        if color == WHITE or "k" not in pos.board or not self.has_check or self.black_one_move_check:
            return super().in_check(pos, color)
        if pos.turn == WHITE and pos.state == MID_TURN:
            return bool(self.attacked(pos.board, pos.board.index("k"), WHITE))
        return self.threat(pos.board, pos.ep if pos.turn == WHITE else NO_TARGETS)

    def dead_position(self, pos) -> bool:
        """MO9: White mates with its king alone, so no position is dead."""
        return False

    # ------------------------------------------------------------ en passant

    def open_targets(self, pos):
        """MO6: the targets the next move may take on: at a turn boundary, the opponent's;
        between White's moves none (White takes en passant only with move one)."""
        if pos.state == MID_TURN:
            return []
        return [t for t in pos.ep if self.geometry.rank[t] == self.passed_rank[other(pos.turn)]]

    def pawn_moves(self, pos, sq, piece, moves):
        """FIDE pawn moves (``pos.ep`` is a set here, so the core adds no en passant), plus
        en passant on every open target (MO6)."""
        super().pawn_moves(pos, sq, piece, moves)
        if pos.ep:
            opened = self.open_targets(pos)
            for to in self.pawn_hits[pos.turn][sq]:
                if to in opened and self.en_passant_victim(pos, sq, to) is not None:
                    moves.append(Move(sq, to, en_passant=True))

    def usable_targets(self, pos) -> tuple:
        """The open targets some legal move takes en passant, in file order: what field 4
        shows (G9) and what repetition compares (G3)."""
        if not self.open_targets(pos):
            return ()
        found = {m.to for m in self.legal_moves(pos) if m.en_passant}
        return tuple(sorted(found, key=self.geometry.file.__getitem__))

    def legal_ep(self, pos):
        usable = self.usable_targets(pos)
        return usable[0] if usable else None

    def identity(self, pos):
        """G3: the targets count only when an en passant capture on them is legal; a pending
        square of the MO6.1 alternative is state of the turn, and counts as it stands."""
        pending = tuple(sorted(pos.ep)) if pos.state == MID_TURN else ()
        return (pos.board, pos.turn, pos.castling, self.usable_targets(pos) + pending, pos.state)

    def perft_key(self, pos):
        return self.packed_key(pos, pos.ep)

    # ------------------------------------------------------------------- FEN

    parse_state = DoubleMoveAnul.parse_state      # field 7: '-' or 'm', absent '-' (MO8)
    format_state = DoubleMoveAnul.format_state

    def parse_fen(self, text):
        """MO7: a White castling letter gets its reason (the field reader only says the
        letter is unknown)."""
        try:
            return super().parse_fen(text)
        except RulesError as e:
            fields = str(text).split()
            if e.code == INVALID_FEN and len(fields) > 2 and set(fields[2]) & set("KQ"):
                raise bad_fen(f"castling field {quote(fields[2])}: White has no castling in "
                              f"Monster chess (MO7); only k and q may be given") from None
            raise

    def parse_ep_field(self, text):
        """``-``, one square, or (MO6.1 alternative) two squares joined by a comma."""
        if text == "-":
            return NO_TARGETS
        names = text.split(",")
        most = 2 if self.black_takes_both_targets else 1
        squares = [fen_io.parse_ep_square(self, name) if name != "-" else None for name in names]
        if None in squares or len(squares) > most or len(set(squares)) != len(squares):
            allowed = "'-' or one square" if most == 1 else "'-' or one or two squares joined by a comma"
            raise bad_fen(f"en passant field {quote(text)} must be {allowed}")
        return frozenset(squares)

    def format_ep_field(self, pos):
        """At a turn boundary the usable targets; between White's moves the pending square
        of the MO6.1 alternative, if any."""
        shown = set(self.usable_targets(pos)) | (set(pos.ep) if pos.state == MID_TURN else set())
        g = self.geometry
        return ",".join(g.name[t] for t in sorted(shown, key=g.file.__getitem__)) or "-"

    def validate(self, pos):
        """G9, MO7 and MO8: what a position at a boundary and between White's moves may hold."""
        fen_io.validate_standard(self, pos.replace(ep=None))
        self.validate_targets(pos)
        if pos.state != MID_TURN:
            if pos.turn == WHITE and pos.ep and self.in_check(pos, BLACK):
                raise bad_fen("the side not to move is in check: White's two coming moves could "
                              "take the black king, using the en passant target (MO4)")
            return
        if pos.turn == BLACK:
            raise bad_fen("field 7 is 'm' with Black to move, but Black's turn is a single move (MO2)")
        if self.has_check and not self.black_one_move_check and self.attacked(pos.board, pos.board.index("k"), WHITE):
            raise bad_fen("field 7 is 'm' but Black's king is attacked: Black's last move could "
                          "not have left it within reach of White's two moves (MO4)")
        if not self.has_legal_move(pos):
            raise bad_fen("field 7 is 'm' but White has no move two that leaves its king safe, so "
                          "the move one before it was not legal (MO2, MO3)")

    def validate_targets(self, pos):
        """MO6, MO8: each square empty with the double-stepped pawn beyond it, on the rank
        of the side that stepped; between White's moves only a pending square of the MO6.1
        alternative (MO8.1)."""
        g = self.geometry
        mid = pos.state == MID_TURN
        if mid and pos.ep and not self.black_takes_both_targets:
            raise bad_fen("field 7 is 'm' but an en passant square is given: White takes en "
                          "passant only with move one, and a double step of move one leaves "
                          "Black no target (MO6, MO8)")
        stepper = WHITE if mid else other(pos.turn)
        for t in pos.ep:
            if g.rank[t] != self.passed_rank[stepper]:
                raise bad_fen(f"en passant square {g.name[t]} is not on rank {self.passed_rank[stepper]}")
            if not self.live(pos.board, t, stepper):
                raise bad_fen(f"en passant square {g.name[t]} must be empty with the "
                              f"{side_name(stepper)} pawn that passed over it just beyond it")
        if pos.turn == WHITE and not mid and len(pos.ep) > 1:
            raise bad_fen("White's turn starts with one en passant target at most: Black made "
                          "one move (MO6)")

    # ------------------------------------------------------ explaining refusals

    rule_ids = {**Chess.rule_ids, "turn": "MO2", "comma": "MO2", "castling": ("FIDE-3.8.2", "MO7"),
                "en-passant": "MO6", "en-passant-unended": "MO6", "king-safety": "MO3"}
    # Where a side's rule is not the one rule_ids names: White's king is safe at the end of its
    # turn (MO3), Black's out of reach of White's two coming moves (MO4).
    own_rule_ids = {WHITE: {}, BLACK: {"king-safety": "MO4"}}
    continuing_move = "White's move two"
    unended_move = "was White's move one"

    def rule_ids_for(self, color):
        return {**self.rule_ids, **self.own_rule_ids[color]}

    def why_refused(self, pos, move, asked):
        """MO2/MO3: a move one after which White has no safe move two; MO4: a Black move
        that leaves its king within reach of the two-move threat."""
        if pos.turn == BLACK and self.black_move_threatened(pos, move):
            return self.threat_refusal(pos, move)
        if self.first_of_two(pos) and not self.has_legal_move(self.after_move_one(pos, move)):
            return Refusal(f"after the move one {self.san(pos, move).rstrip(',')} White has no move "
                           f"two that leaves its king safe, and White's turn must end with its king "
                           f"safe", "MO3", also=["MO2"])
        return None

    def why_comma(self, pos, move):
        """MO2: only White's move one leaves the turn open for another move."""
        san = self.san(pos, move).rstrip(",") if pos.turn == WHITE else self.move_text(pos, move)
        what = "White's move two" if pos.turn == WHITE else "Black's turn is a single move"
        return Refusal(f"{san} ends the turn ({what}), so the trailing comma, which says another "
                       f"move of this turn follows, is wrong", "MO2")

    def threat_refusal(self, pos, move):
        """Which two White moves would take the king after Black's ``move`` (MO4)."""
        board = self.move_board(pos, move)
        line = self.capture_line(board, self.passed_square(pos, move))
        return Refusal(f"after {self.move_text(pos, move)} White could take the black king with its "
                       f"two moves ({line})", "MO4",
                       note="Black may not leave its king within reach of White's next turn",
                       also=["MO4.1"])

    def why_no_castling(self, pos, rule, obstacle):
        """MO7: White has no castling at all; Black castles as in chess, but never out of or
        across a check of MO4 (a square White's two coming moves could reach)."""
        if rule is None and pos.turn == WHITE:
            return Refusal("White has no castling in Monster chess; only Black castles", "MO7")
        if obstacle is None:
            return self.threatened_path(pos, rule)
        return super().why_no_castling(pos, rule, obstacle)

    def threatened_path(self, pos, rule):
        """MO7: the square of the castling king's path (its own square included, not the one
        it lands on: that is MO4's) within reach of White's two coming moves; None if none."""
        move = Move(rule.king_from, rule.king_to, castle=rule.rook_from)
        if self.threat(self.move_board(pos, move), NO_TARGETS):
            return None        # the king would land in reach: MO4, said by why_refused
        for sq in self.king_path(rule)[:-1]:
            if self.threat(self.king_on(pos.board, move.frm, sq), NO_TARGETS):
                where = "stands on" if sq == rule.king_from else "would pass over"
                return Refusal(f"the king {where} {self.geometry.name[sq]}, which White's two coming "
                               f"moves could reach; Black never castles out of or across such a "
                               f"check", "MO7", also=["MO4"])
        return None

    def capture_line(self, board, passed):
        """The White moves that would take the black king on ``board``, in coordinates."""
        g, ksq = self.geometry, board.index("k")
        by = self.attacked(board, ksq, WHITE)
        if by:
            return f"{g.name[by[0]]}{g.name[ksq]} at once"
        targets = frozenset((passed,)) if passed is not None else NO_TARGETS
        pos = Position(tuple(board), WHITE, NO_TARGETS, targets, 0, 1, BOUNDARY)
        for m in self.pseudo_moves(pos):
            after = self.move_board(pos, m)
            by = self.attacked(after, ksq, WHITE)
            if by:
                return f"{self.move_text(pos, m)} then {g.name[by[0]]}{g.name[ksq]}"
        return "no line found"

    def king_safety_rule(self, pos, asked):
        """MO3: White's turn ends with its king safe; MO4: Black's king stays out of reach."""
        if pos.turn == WHITE:
            return "MO3", "White's king must be safe when White's turn ends"
        return "MO4", "Black may not leave its king where White's next move could take it"

    def why_turn_over(self, pos, move, played):
        """MO2: White's turn is two moves, Black's one."""
        if pos.turn == WHITE and played < 2:
            return None
        if pos.turn == WHITE:
            return Refusal("no further move is allowed: White's turn is two moves", "MO2")
        return Refusal("no further move is allowed: Black's turn is a single move", "MO2")

    def why_incomplete(self, pos, last):
        """MO2: after White's move one, move two is compulsory."""
        n = len(self.legal_moves(pos))
        return Refusal(f"after White's move one {last} a move two is compulsory ({n} "
                       f"{'is' if n == 1 else 'are'} possible); nobody may pass", "MO2")

    def why_no_en_passant(self, pos, frm, to, asked):
        """MO6: which condition of Monster's en passant timing fails."""
        g, me = self.geometry, pos.turn
        victim = g.square(g.file[to], g.rank[frm])
        if pos.board[victim] != ("p" if me == WHITE else "P"):
            return explain.en_passant(self, pos, frm, to, asked)
        if pos.state == MID_TURN:
            return explain.refusal_for(self, "en-passant", "White takes en passant only with "
                                       "move one of its turn; this is move two")
        step = explain.double_step_to(self, asked.steps, victim)
        if me == BLACK and step is not None and step.pos.state != MID_TURN \
                and step is self.last_white_turn_step(asked.steps, step):
            return explain.refusal_for(self, "en-passant", f"the double step "
                                       f"{self.move_text(step.pos, step.move)} was White's move one; "
                                       f"only a double step made with move two leaves Black a target")
        return explain.refusal_for(self, "en-passant", f"{g.name[to]} is not an en passant target "
                                   f"now: the pawn on {g.name[victim]} did not step there with a "
                                   f"double step that gives {side_name(me)} a target")

    @staticmethod
    def last_white_turn_step(steps, step):
        """``step`` if it belongs to the turn just played (the steps after it are White's)."""
        for s in reversed(steps):
            if s is step:
                return step
            if s.pos.turn != step.pos.turn:
                return None
        return None

    def turn_actions_for(self, color):
        """MO2: White's turn has two moves, Black's one."""
        return ("Move 1", "Move 2") if color == WHITE else ("Move",)

    turn_actions = ("Move 1", "Move 2")

    def state_sentences(self, pos):
        """Field 7 and field 4 in words."""
        g = self.geometry
        out = []
        if pos.state == MID_TURN:
            out.append("White has played move one and owes move two (field 7: m).")
            if pos.ep:
                out.append(f"Pending: {', '.join(g.name[t] for t in sorted(pos.ep))}, passed over "
                           f"by White's double step on move one; a target for Black if the pawn "
                           f"stays (MO6.1 alternative).")
            return out
        out.append("At a turn boundary (field 7: -); "
                   + ("White moves twice this turn (MO2)." if pos.turn == WHITE
                      else "Black moves once this turn (MO2)."))
        usable = self.usable_targets(pos)
        if usable:
            out.append(f"En passant targets for {side_name(pos.turn)}: "
                       f"{' and '.join(g.name[t] for t in usable)} (MO6).")
        return out

    # What the tables doublecheck generate writes say of this variant (README, docs/perft.md).
    about = About(summary=("classic Monster chess: White's king and four pawns move twice a turn against "
                           "Black's full army, which moves once"),
                  move="one of White's two moves, or Black's move",
                  turn="two moves for White (**MO2**), one for Black",
                  note=("perft 2 from the start is White's two opening moves; Black is in check when "
                        "White's two coming moves could take its king (**MO4**)"))
