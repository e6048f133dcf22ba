"""FIDE chess on any board shape: the rules every variant starts from.

Section numbers in the comments refer to the FIDE Laws of Chess.  A variant
is a subclass that changes data (board, start position, castling scheme) and,
where its rules differ, overrides the *turn machine*: ``play`` (what a move
does to whose turn it is), ``mid_turn`` and ``status``.  It also answers the
explanation hooks at the end of the class (``rule_ids`` and the ``why_*``
methods), through which the lookups say why its rules refuse a move; see
docs/contributing.md.
"""

from dataclasses import dataclass

from doublecheck.oracle import explain
from doublecheck.oracle import fen as fen_io
from doublecheck.oracle import notation
from doublecheck.oracle import options as declared_options
from doublecheck.oracle.errors import INVALID_FEN, RulesError, quote
from doublecheck.oracle.geometry import BISHOP_DIRECTIONS, QUEEN_DIRECTIONS, ROOK_DIRECTIONS, STANDARD
from doublecheck.oracle.position import BLACK, WHITE, Move, Position, color_of, other

SLIDES = {"R": ROOK_DIRECTIONS, "B": BISHOP_DIRECTIONS, "Q": QUEEN_DIRECTIONS}
PROMOTION_LETTERS = "QRBN"


@dataclass(frozen=True)
class About:
    """What the tables ``doublecheck generate`` writes say of a variant, in its own class:
    the README's variant table (``summary``) and "What is counted" in docs/perft.md (what
    a ``move`` and a ``turn`` are, and a ``note`` worth knowing)."""

    summary: str
    move: str
    turn: str
    note: str


@dataclass(frozen=True)
class CastleRule:
    """One way to castle: the king goes king_from -> king_to, the rook rook_from -> rook_to."""

    color: str
    king_from: int
    rook_from: int
    king_to: int
    rook_to: int
    letter: str  # the FEN castling-field letter for this right
    san: str     # how SAN writes this castling


def castle_rule(geometry, color, king_from, rook_from, king_to, rook_to, letter, san):
    sq = geometry.index
    return CastleRule(color, sq[king_from], sq[rook_from], sq[king_to], sq[rook_to], letter, san)


def diagonal_neighbours(geometry, sq, rank_step):
    """The squares one file to either side and rank_step ranks away (where they exist)."""
    found = (geometry.square(geometry.file[sq] + side, geometry.rank[sq] + rank_step) for side in (-1, 1))
    return tuple(t for t in found if t is not None)


# G3 under each value of the ``draws`` option (OPT-draws): the endings that are
# automatic and those that are only claimable, each (reason, halfmove clock at
# least, times seen at least), in the order they are judged.  A threshold of None
# is not read.
DRAW_ENDINGS = {
    "claims": {"automatic": (("seventy-five-moves", 150, None), ("fivefold-repetition", None, 5)),
               "claimable": (("fifty-moves", 100, None), ("threefold-repetition", None, 3))},
    "automatic": {"automatic": (("fifty-moves", 100, None), ("threefold-repetition", None, 3)),
                  "claimable": ()},
    "claims-only": {"automatic": (),
                    "claimable": (("fifty-moves", 100, None), ("threefold-repetition", None, 3))},
    "none": {"automatic": (), "claimable": ()},
}


def without_move_count(endings) -> dict:
    """``endings`` without the draws that read the clock (OPT-move-count=none)."""
    return {kind: tuple(e for e in rows if e[1] is None) for kind, rows in endings.items()}


def reached(halfmove, seen, clock_at_least, seen_at_least) -> bool:
    if clock_at_least is not None:
        return halfmove >= clock_at_least
    return seen >= seen_at_least


def not_over(claimable=()):
    return {"over": False, "result": None, "reason": None, "claimable": sorted(claimable)}


def game_over(reason, winner=None):
    result = {WHITE: "1-0", BLACK: "0-1", None: "1/2-1/2"}[winner]
    return {"over": True, "result": result, "reason": reason, "claimable": []}


class Chess:
    """The orthodox game: check, castling, en passant, promotion, FIDE draws."""

    name = "chess"
    rules_page = ("FIDE Laws", "https://handbook.fide.com/chapter/E012023")   # no docs/chess.md
    geometry = STANDARD
    start_fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    has_check = True               # False: no check, kings may be captured
    double_pieces = False          # FEN and SAN may use the `*` double marker
    pawn_start_rank = {WHITE: 2, BLACK: 7}
    promotion_rank = {WHITE: 8, BLACK: 1}
    forward = {WHITE: 1, BLACK: -1}
    extra_fields = ()              # names of the FEN fields after the sixth
    comma_marks_double = False     # only double-move writes a first half as `e2e4,`
    # The deepest perft (moves or turns) a request may ask for: the start position's
    # count passes 2**64 one ply deeper (docs/protocol.md, Limits).
    max_perft_depth = 13
    # The rule options this variant takes (doublecheck.oracle.options); a subclass adds
    # its own.  Every variant has the draw rules of G3, so every variant takes ``draws``.
    # ``option_choices`` narrows an option for this variant where its default or its values
    # differ from the table's: {name: (default, values)}.
    option_names = ("draws", "move-count", "dead-position", "king-safety")
    # A turn of one move ends at every move, so a dead position at once is at the turn's end.
    option_choices = {"dead-position": ("turn-end", ("turn-end", "none"))}

    def perft_depth_limit(self, turns: bool) -> int:
        """The deepest perft a request may ask for, by moves or (``turns``) by turns:
        ``max_perft_depth`` for both unless turns grow so long that a lower turn depth
        already passes 2**64 (progressive chess)."""
        return self.max_perft_depth

    def __init__(self, options=None):
        # The rule options this object plays under, defaults filled in; the rules read
        # them where the rule differs (``draw_endings``, ``make``).
        self.options = declared_options.settings(self, options)
        # What tells this object's answers apart from another's of the same variant (the
        # perft cache keeps counts per rules key): the id and the non-default options.
        self.rules_key = (self.name, declared_options.frozen(
            {k: v for k, v in self.options.items() if v != declared_options.default_of(self, k)}))
        self.use_options(self.options)
        g = self.geometry
        self.castle_rules = self.make_castle_rules()
        self.castle_by_rook = {r.rook_from: r for r in self.castle_rules}
        self.rights_of = {c: frozenset(r.rook_from for r in self.castle_rules if r.color == c)
                          for c in (WHITE, BLACK)}
        self.squares = g.squares
        # Lines grouped by the pieces that slide along them (empty lines left out).
        lines = {kind: [tuple(rays[d] for d in dirs if rays[d]) for rays in g.rays]
                 for kind, dirs in SLIDES.items()}
        self.slides = lines
        # Pawn tables, per colour and square: the square a pawn steps to, the
        # squares it captures on, and the squares from which a pawn of that
        # colour attacks the given square.
        self.pawn_step, self.pawn_hits, self.pawn_hit_from = {}, {}, {}
        for c in (WHITE, BLACK):
            ahead = self.forward[c]
            self.pawn_step[c] = [g.square(g.file[sq], g.rank[sq] + ahead) for sq in range(g.size)]
            self.pawn_hits[c] = [diagonal_neighbours(g, sq, ahead) for sq in range(g.size)]
            self.pawn_hit_from[c] = [diagonal_neighbours(g, sq, -ahead) for sq in range(g.size)]
        # The rank a two-square pawn step of each colour passes over (3.7.2): where the
        # variants whose en passant targets outlive one move look for them (passed_square).
        self.passed_rank = {c: self.pawn_start_rank[c] + self.forward[c] for c in (WHITE, BLACK)}
        # What attacks along lines, along diagonals, by a knight's leap, as a
        # king and as a pawn, per colour (double-pieces attack like single ones).
        self.hitters = {c: tuple(frozenset(p if c == WHITE else p.lower()
                                             for letter in letters for p in (letter, "*" + letter))
                                   for letters in ("RQ", "BQ", "N", "K", "P"))
                          for c in (WHITE, BLACK)}
        self.shared_parts = {}  # castling sets and states, one object each (see perft_key)
        self.start = self.parse_fen(self.start_fen)

    def use_options(self, options):
        """Read the rule options (every one this class takes, defaults filled in) into
        the settings the rules consult; a variant taking options of its own extends this.
        Called before the start position is read, so validation may consult them too."""
        self.draw_endings = self.endings_under(options, DRAW_ENDINGS)     # OPT-draws, OPT-move-count
        self.fullmove_per_move = options.get("fullmove") == "per-move"     # OPT-fullmove
        self.kings_captured = options.get("king-safety") == "king-capture"   # OPT-king-safety
        if self.kings_captured:
            self.has_check = False
        # G4, or OPT-dead-position: "turn-end", "at-once" or "none" (under king-capture: none,
        # since a king can always walk into capture)
        self.dead_rule = "none" if self.kings_captured else options.get("dead-position", "turn-end")

    @staticmethod
    def endings_under(options, table) -> dict:
        """The draw endings of ``table`` (G3's, or progressive chess's series counts) under the
        options draws and move-count."""
        endings = table[options.get("draws", "claims")]
        return without_move_count(endings) if options.get("move-count") == "none" else endings

    def make_castle_rules(self):
        g = self.geometry
        return [
            castle_rule(g, WHITE, "e1", "h1", "g1", "f1", "K", "O-O"),
            castle_rule(g, WHITE, "e1", "a1", "c1", "d1", "Q", "O-O-O"),
            castle_rule(g, BLACK, "e8", "h8", "g8", "f8", "k", "O-O"),
            castle_rule(g, BLACK, "e8", "a8", "c8", "d8", "q", "O-O-O"),
        ]

    # ----------------------------------------------------------------- moves

    def pseudo_moves(self, pos: Position):
        """Every move the pieces of the side to move could make, ignoring king safety (3.1-3.8)."""
        g, board = self.geometry, pos.board
        white = pos.turn == WHITE
        moves = []
        add = moves.append
        for sq in self.squares:
            piece = board[sq]
            if piece is None or piece.isupper() != white:
                continue
            kind = piece[-1].upper()
            if kind == "P":
                self.pawn_moves(pos, sq, piece, moves)
                continue
            if kind in SLIDES:
                for ray in self.slides[kind][sq]:
                    for to in ray:
                        target = board[to]
                        if target is None:
                            add(Move(sq, to))
                            continue
                        if target.isupper() != white and self.may_capture(target):
                            add(Move(sq, to))
                        break
                continue
            for to in (g.knight[sq] if kind == "N" else g.king[sq]):
                target = board[to]
                if target is None or (target.isupper() != white and self.may_capture(target)):
                    add(Move(sq, to))
        moves.extend(self.castling_moves(pos))
        return moves

    def may_capture(self, target: str) -> bool:
        """G6: in the check-based variants a king is never captured."""
        return not self.has_check or target[-1] not in "Kk"

    def pawn_moves(self, pos, sq, piece, moves):
        """3.7: one step forward, two from the start rank, diagonal captures, en passant, promotion."""
        g, board, color = self.geometry, pos.board, pos.turn
        one = self.pawn_step[color][sq]
        if one is not None and board[one] is None:
            self.add_pawn_move(sq, one, piece, moves)
            if g.rank[sq] == self.pawn_start_rank[color]:
                two = self.pawn_step[color][one]
                if two is not None and board[two] is None:
                    moves.append(Move(sq, two))
        for to in self.pawn_hits[color][sq]:
            target = board[to]
            if target is not None:
                if target.isupper() != piece.isupper() and self.may_capture(target):
                    self.add_pawn_move(sq, to, piece, moves)
            elif to == pos.ep and self.en_passant_victim(pos, sq, to) is not None:
                moves.append(Move(sq, to, en_passant=True))

    def add_pawn_move(self, frm, to, piece, moves):
        if self.geometry.rank[to] == self.promotion_rank[color_of(piece)]:
            moves.extend(Move(frm, to, promotion=p) for p in PROMOTION_LETTERS)
        else:
            moves.append(Move(frm, to))

    def en_passant_victim(self, pos, frm, to):
        """The square of the pawn an en passant capture frm->to would take, if one is there (3.7.3)."""
        g = self.geometry
        victim_sq = g.square(g.file[to], g.rank[frm])
        victim = pos.board[victim_sq]
        if victim is not None and victim[-1] in "Pp" and victim.isupper() != (pos.turn == WHITE):
            return victim_sq
        return None

    def passed_square(self, pos, move):
        """The square a two-square pawn step passes over (3.7.2), or None for any other move."""
        g = self.geometry
        if move.frm is None or pos.board[move.frm][-1] not in "Pp":
            return None
        if abs(g.rank[move.to] - g.rank[move.frm]) != 2:
            return None
        return g.square(g.file[move.frm], (g.rank[move.to] + g.rank[move.frm]) // 2)

    def live(self, board, target, stepper) -> bool:
        """Does an en passant target still stand: the square passed over empty, and the pawn
        of ``stepper`` that stepped over it still just beyond?  Asked by the variants whose
        targets outlive the move right after the step (Marseillais M4, Monster MO6,
        progressive chess P3), each at its own moments."""
        beyond = self.pawn_step[stepper][target]
        return board[target] is None and board[beyond] == ("P" if stepper == WHITE else "p")

    def own_castlings(self, color: str) -> list:
        """The castlings of ``color`` alone (``CastleRule``s, in ``castle_rules`` order): what
        the explanations offer the side to move.  Empty for a colour without castling
        (White in Monster chess), though the other colour castles."""
        return [rule for rule in self.castle_rules if rule.color == color]

    def castling_moves(self, pos):
        """3.8.2: castling with a rook that still has its right, when no condition stops it."""
        for rule in self.castle_rules:
            if rule.color == pos.turn and rule.rook_from in pos.castling \
                    and self.castling_obstacle(pos, rule) is None:
                yield Move(rule.king_from, rule.king_to, castle=rule.rook_from)

    def castling_obstacle(self, pos, rule):
        """Which condition of castling (3.8.2) stops `rule` at pos; None when nothing does.

        The answer is (condition, square), conditions in this order:
        ``king-moved`` the king is not on its home square (so it has moved);
        ``no-right`` the right for this rook is gone (3.8.2.1);
        ``rook-gone`` no rook of the side stands on the rook's home square;
        ``between`` a square strictly between king and rook is occupied, or
        ``destination`` a square king or rook must land on is (3.8.2.2; a
        subclass's own path test may leave the square None);
        ``in-check`` the king stands in check, ``attacked`` a square it passes
        over or lands on is attacked (3.8.2.2; only where check exists).
        """
        board = pos.board
        king, rook = ("K", "R") if rule.color == WHITE else ("k", "r")
        if board[rule.king_from] != king:
            return "king-moved", rule.king_from
        if rule.rook_from not in pos.castling:
            return "no-right", rule.rook_from
        if board[rule.rook_from] != rook:
            return "rook-gone", rule.rook_from
        if not self.castling_path_clear(board, rule):
            return self.castling_blocker(board, rule) or ("between", None)
        if self.has_check:
            by = other(rule.color)
            for sq in self.king_path(rule):
                if self.attacked(board, sq, by):
                    return ("in-check" if sq == rule.king_from else "attacked"), sq
        return None

    def castling_path_clear(self, board, rule):
        """Every square between king and rook is empty, and so are both destinations."""
        return self.castling_blocker(board, rule) is None

    def castling_blocker(self, board, rule):
        """("between", sq) for the first occupied square between king and rook, else
        ("destination", sq) for an occupied square king or rook must land on, else None."""
        g = self.geometry
        lo, hi = sorted((g.file[rule.king_from], g.file[rule.rook_from]))
        rank = g.rank[rule.king_from]
        for f in range(lo + 1, hi):
            sq = g.square(f, rank)
            if board[sq] is not None:
                return "between", sq
        for sq in (rule.king_to, rule.rook_to):
            if board[sq] is not None and sq not in (rule.king_from, rule.rook_from):
                return "destination", sq
        return None

    def king_path(self, rule):
        """The squares the king stands on, passes over and lands on while castling."""
        g = self.geometry
        a, b = g.file[rule.king_from], g.file[rule.king_to]
        step = 1 if b >= a else -1
        rank = g.rank[rule.king_from]
        return [g.square(f, rank) for f in range(a, b + step, step)]

    def legal_moves(self, pos: Position):
        """The moves the side to move may make next (3.9: never leaving its own king in check).

        Each candidate is tried on a copy of the board (``king_safe_after``),
        except those that cannot expose the king: when the king is not in
        check, a move that is not the king's own, not en passant and not made
        by a pinned piece leaves every line to the king as it was.
        """
        if self.king_taken(pos):      # OPT-king-safety=king-capture: the game is over
            return []
        moves = self.pseudo_moves(pos)
        board = pos.board
        king = "K" if pos.turn == WHITE else "k"
        if not self.has_check or king not in board:
            return moves
        sq = board.index(king)
        if self.attacked(board, sq, other(pos.turn)):
            return [m for m in moves if self.king_safe_after(pos, m)]
        risky = self.pinned(board, sq, pos.turn) | {sq}
        return [m for m in moves if (m.frm not in risky and not m.en_passant) or self.king_safe_after(pos, m)]

    def pinned(self, board, sq, color: str) -> set:
        """The squares of the pieces of `color` that alone stand between their king on sq
        and an enemy piece moving along that line."""
        lines, diagonals = self.hitters[other(color)][:2]
        white = color == WHITE
        found = set()
        for rays, hitters in ((self.slides["R"][sq], lines), (self.slides["B"][sq], diagonals)):
            for ray in rays:
                shield = None
                for t in ray:
                    piece = board[t]
                    if piece is None:
                        continue
                    if shield is None and piece.isupper() == white:
                        shield = t
                        continue
                    if shield is not None and piece in hitters:
                        found.add(shield)
                    break
        return found

    def king_safe_after(self, pos, move):
        if not self.has_check:        # kings are captured: no move is unsafe
            return True
        board = self.move_board(pos, move)
        king = "K" if pos.turn == WHITE else "k"
        try:
            sq = board.index(king)
        except ValueError:
            return True
        return not self.attacked(board, sq, other(pos.turn))

    def line_blockers(self, kind: str, frm: int, to: int, board):
        """How a knight, king, rook, bishop or queen (`kind`, upper case) would go frm -> to:
        None when it does not move that way at all, else the occupied squares it would
        have to pass (an empty list: the way is clear)."""
        g = self.geometry
        if kind in ("N", "K"):
            return [] if to in (g.knight if kind == "N" else g.king)[frm] else None
        for d in SLIDES[kind]:
            ray = g.rays[frm][d]
            if to in ray:
                return [s for s in ray[:ray.index(to)] if board[s] is not None]
        return None

    def attacked(self, board, sq, by: str, every: bool = False) -> list:
        """Is square sq attacked by a piece of colour `by`?  The answer is a list of the
        attacking pieces' squares: empty when none attacks (so it reads as no), the first
        one found, or with `every` all of them in square order (see ``attackers``).

        A piece attacks along the lines it slides on up to the first piece in the way, by
        a knight's leap, as a king one step away, and as a pawn one step diagonally
        forward; a double-piece attacks like its single counterpart.
        """
        g = self.geometry
        lines, diagonals, knights, kings, pawns = self.hitters[by]
        found = []
        for rays, hitters in ((self.slides["R"][sq], lines), (self.slides["B"][sq], diagonals)):
            for ray in rays:
                for t in ray:
                    piece = board[t]
                    if piece is not None:
                        if piece in hitters:
                            if not every:
                                return [t]
                            found.append(t)
                        break
        for near, hitters in ((g.knight[sq], knights), (g.king[sq], kings),
                              (self.pawn_hit_from[by][sq], pawns)):
            for t in near:
                if board[t] in hitters:
                    if not every:
                        return [t]
                    found.append(t)
        if found:
            found.sort()
        return found

    def attackers(self, board, sq, by: str) -> list:
        """The squares of every piece of colour `by` that attacks square sq, in square order."""
        return self.attacked(board, sq, by, every=True)

    def in_check(self, pos: Position, color: str | None = None) -> bool:
        """Is the (single) king of `color` (default: the side to move) attacked?"""
        color = color or pos.turn
        king = "K" if color == WHITE else "k"
        if not self.has_check or king not in pos.board:
            return False
        return bool(self.attacked(pos.board, pos.board.index(king), other(color)))

    # ------------------------------------------------------------ making moves

    def move_board(self, pos, move):
        """The board after `move` (a new list; pos is unchanged)."""
        board = list(pos.board)
        if move.drop is not None:
            board[move.to] = move.drop if pos.turn == WHITE else move.drop.lower()
            return board
        piece = board[move.frm]
        board[move.frm] = None
        if move.castle is not None:
            rook = board[move.castle]
            board[move.castle] = None
            board[self.castle_by_rook[move.castle].rook_to] = rook
        elif move.en_passant:
            board[self.en_passant_victim(pos, move.frm, move.to)] = None
        if move.promotion:
            letter = piece[:-1] + move.promotion
            piece = letter.upper() if piece.isupper() else letter.lower()
        board[move.to] = piece
        return board

    def make(self, pos: Position, move: Move, ends_turn: bool = True) -> Position:
        """Apply one move.  With ends_turn the other side moves next (the FIDE case)."""
        board = pos.board
        piece = board[move.frm] if move.frm is not None else move.drop
        pawn = piece[-1] in "Pp" and move.drop is None
        capture = move.en_passant or (board[move.to] is not None and move.castle is None)
        rights = pos.castling
        if rights:
            if move.castle is not None or piece in ("K", "k"):
                rights = rights - self.rights_of[pos.turn]
            rights = rights - {move.frm, move.to}
            if board[move.to] in ("K", "k") and move.castle is None:   # a king taken (OPT-king-safety)
                rights = rights - self.rights_of[other(pos.turn)]
        ep = None
        g = self.geometry
        if ends_turn and pawn and abs(g.rank[move.to] - g.rank[move.frm]) == 2:
            ep = g.square(g.file[move.frm], (g.rank[move.to] + g.rank[move.frm]) // 2)
        return Position(
            board=tuple(self.move_board(pos, move)),
            turn=other(pos.turn) if ends_turn else pos.turn,
            castling=rights,
            ep=ep,
            halfmove=0 if pawn or capture else pos.halfmove + 1,
            # G2: after Black's turn; OPT-fullmove=per-move: after every Black move
            fullmove=pos.fullmove + (1 if pos.turn == BLACK and (ends_turn or self.fullmove_per_move)
                                     else 0),
            state=pos.state,
        )

    # ------------------------------------------------------------ turn machine

    def play(self, pos: Position, move: Move) -> Position:
        """The position after a legal move.  In chess every move is a whole turn."""
        return self.make(pos, move)

    def mid_turn(self, pos: Position) -> bool:
        """Is the side to move between the moves of one turn?"""
        return False

    def turns(self, pos: Position):
        """All ways to complete the current turn: list of (moves, position after)."""
        found = []

        def walk(p, line):
            for m in self.legal_moves(p):
                q = self.play(p, m)
                if self.mid_turn(q):
                    walk(q, line + [m])
                else:
                    found.append((line + [m], q))

        walk(pos, [])
        return found

    def count_turns(self, pos: Position) -> int:
        """How many ways there are to complete the current turn: ``len(self.turns(pos))``.
        A variant whose turns are long may count them without playing each one's last
        move (progressive chess); the turn count of show and the desk and turn-perft's
        last ply ask this."""
        return len(self.turns(pos))

    # ---------------------------------------------------------------- game end

    def status(self, pos: Position, history=()) -> dict:
        """How the game stands (5.1, 5.2, 9.2, 9.3, 9.6; rulings G3-G5).

        `history` holds the identity keys of the earlier turn-boundary
        positions of the game line, oldest first (anything with ``count``:
        a tuple, a list, or the ``api.History`` a played line keeps).  Automatic endings come in
        the order checkmate, stalemate, dead position, seventy-five moves,
        fivefold repetition; claimable draws are listed only while the game
        goes on.  Under ``draws=automatic`` (OPT-draws) the fifty-move mark and
        threefold repetition end the game instead, and nothing is claimable.
        """
        if self.mid_turn(pos):
            return self.mid_turn_status(pos)
        if self.king_taken(pos):
            return game_over("no-king", winner=other(pos.turn))
        if not self.legal_moves(pos):
            if self.in_check(pos):
                return game_over("checkmate", winner=other(pos.turn))
            return game_over("stalemate")
        if self.dead_rule != "none" and self.dead_position(pos):
            return game_over("dead-position")
        return self.draw_status(pos, history)

    def mid_turn_status(self, pos: Position) -> dict:
        """Between the moves of a turn the game goes on (the end is judged at a turn's end),
        except under OPT-dead-position=at-once, which ends it the moment a position is dead."""
        if self.dead_rule == "at-once" and self.dead_position(pos):
            return game_over("dead-position")
        return not_over()

    def king_taken(self, pos: Position) -> bool:
        """The side to move has lost its king, and so the game: only where kings may be
        captured (OPT-king-safety=king-capture); where check exists a king is never taken (G6)."""
        return self.kings_captured and ("K" if pos.turn == WHITE else "k") not in pos.board

    def takes_king(self, pos: Position, move: Move) -> bool:
        """Does ``move`` take the enemy king?  Under OPT-king-safety=king-capture that ends
        the turn at once, whatever move of the turn it is: the game is won."""
        return self.kings_captured and move.castle is None and pos.board[move.to] in ("K", "k")

    def draw_status(self, pos: Position, history=()) -> dict:
        """The draws of G3 at a turn boundary where the game is not otherwise over: the
        clock (``draw_clock``) and the repetition count against ``draw_endings`` (G3, or
        OPT-draws=automatic)."""
        seen = 1 + history.count(self.identity(pos))   # a tuple, a list or an api.History
        clock, endings = self.draw_clock(pos), self.draw_endings
        for reason, at_least, times in endings["automatic"]:
            if reached(clock, seen, at_least, times):
                return game_over(reason)
        return not_over([reason for reason, at_least, times in endings["claimable"]
                         if reached(clock, seen, at_least, times)])

    def draw_clock(self, pos: Position) -> int:
        """What the move-count draws count: the halfmove clock (G2); a variant counting
        something else (progressive chess: quiet series, P5) says so here and gives
        ``draw_endings`` its own thresholds."""
        return pos.halfmove

    def with_draw_clock(self, pos: Position, value: int) -> Position:
        """``pos`` with the count ``draw_clock`` reads set to ``value`` (the witness search
        puts positions at the automatic draw's mark this way)."""
        return pos.replace(halfmove=value)

    def before_turn_end(self, pos: Position) -> Position | None:
        """``pos`` put before the last move of its turn, for a variant whose draw clock only a
        turn's end moves (the witness search sets clocks there too); None where nothing
        but the turn's end is written (here: a turn is one move)."""
        return None

    def dead_position(self, pos: Position) -> bool:
        """G4: only kings, plus one minor piece, or only bishops all on squares of one colour."""
        others = [(sq, p) for sq, p in enumerate(pos.board) if p is not None and p[-1] not in "Kk"]
        if not others:
            return True
        if len(others) == 1 and others[0][1][-1] in "NBnb":
            return True
        if all(p[-1] in "Bb" for _, p in others):
            return len({self.geometry.is_light(sq) for sq, _ in others}) == 1
        return False

    def identity(self, pos: Position):
        """What makes two turn-boundary positions 'the same' for repetition (G3)."""
        return (pos.board, pos.turn, pos.castling, self.legal_ep(pos), pos.state)

    def perft_key(self, pos: Position):
        """What perft needs to know of a position (G7): two positions with the same
        key have the same move counts and turn counts at every depth.

        This is ``identity`` (G3) made cheap enough to compute at every node:
        the en passant square is kept when a pawn of the side to move stands
        where it could take on it (deciding whether that capture is legal, as
        ``identity`` does, would cost a move generation; keeping a square that
        turns out unusable only costs a cache hit), and the clocks are left out
        because no rule perft follows reads them (G7: draw rules do not stop
        it).  Whether the turn is half done lives in ``pos.state``.  A variant
        whose moves depend on anything else (a clock, the fullmove number, more
        than one en passant square) overrides this.

        The board is packed into one string and the castling rights and the
        state are shared objects, so that a stored key costs little more than
        its board string (the perft cache keeps millions of them).
        """
        return self.packed_key(pos, self.ep_in_reach(pos))

    def packed_key(self, pos: Position, *more):
        """The placement as one string, the side to move, ``more`` (what a variant's
        perft_key adds), and the castling rights and state as shared objects."""
        shared = self.shared_parts
        return ("".join([p or "." for p in pos.board]), pos.turn, *more,
                shared.setdefault(pos.castling, pos.castling), shared.setdefault(pos.state, pos.state))

    def ep_in_reach(self, pos: Position):
        """The en passant square if a pawn of the side to move stands beside it, else None."""
        ep = pos.ep
        if ep is None:
            return None
        pawn = "P" if pos.turn == WHITE else "p"
        for sq in self.pawn_hit_from[pos.turn][ep]:
            piece = pos.board[sq]
            if piece is not None and piece[-1] == pawn:
                return ep
        return None

    def legal_ep(self, pos: Position):
        """The en passant square if an en passant capture is actually legal, else None."""
        if pos.ep is None:
            return None
        return pos.ep if any(m.en_passant for m in self.legal_moves(pos)) else None

    # -------------------------------------------------------------- FEN, text

    def parse_fen(self, text: str) -> Position:
        return fen_io.parse(self, text)

    def fen(self, pos: Position) -> str:
        return fen_io.write(self, pos)

    def parse_ep_field(self, text):
        """FEN field 4 -> ``Position.ep``: '-' or one square (a variant with several
        en passant squares overrides this and ``format_ep_field``)."""
        return fen_io.parse_ep_square(self, text)

    def format_ep_field(self, pos) -> str:
        return fen_io.format_ep_square(self, pos)

    def parse_state(self, fields, pos):
        """Read the variant's FEN fields 7+ (absent fields mean the default state)."""
        if fields:
            raise RulesError(INVALID_FEN, f"{self.name} FEN has 6 fields; found extra field(s) {quote(' '.join(fields))}")
        return None

    def format_state(self, pos):
        return []

    def validate(self, pos: Position):
        """Reject positions that cannot arise (G9).  Raises RulesError(invalid-fen)."""
        fen_io.validate_standard(self, pos)

    def pawn_rank_ok(self, piece, rank):
        """A pawn never stands on its own back rank or on its promotion rank."""
        c = color_of(piece)
        back = self.pawn_start_rank[c] - self.forward[c]
        return rank != back and rank != self.promotion_rank[c]

    def move_text(self, pos, move) -> str:
        return notation.coordinates(self, move)

    def parse_move(self, pos, text) -> Move:
        return notation.parse_move(self, pos, text)

    def san(self, pos, move) -> str:
        return notation.san(self, pos, move)

    # ------------------------------------------------------ explaining refusals
    #
    # The lookups (``doublecheck explain``, ``show``) ask the rules why a move
    # or a turn is refused and how the variant's state reads; legality never
    # comes from here.  ``doublecheck.oracle.explain`` walks from the move text
    # to the piece, its movement, castling and king safety, and asks these
    # hooks wherever a variant may differ.  A ``why_*`` hook answers with an
    # ``explain.Refusal`` (a concrete detail, the rule id that decides, an
    # optional gloss and related ids) or None when it has nothing to add.  A
    # variant overrides the hooks its rules change, next to those rules.

    # The rule ids (cases/rules/*.json) that decide each kind of refusal.  A
    # value is an id, or a tuple of the id and related ids cited with it; a key
    # with a leading ``*`` gives the id for double-pieces where it differs.
    rule_ids = {
        "move-text": "G8.1",          # text naming no move of the side to move
        "ambiguous": "FIDE-C.10",     # SAN that fits several legal moves
        "comma": "G8",                # a trailing comma on a move that ends the turn
        "turn": "G1",                 # how many moves a turn has
        "K": "FIDE-3.8.1", "Q": "FIDE-3.4", "R": "FIDE-3.3",   # how each piece moves
        "B": "FIDE-3.2", "N": "FIDE-3.6", "P": "FIDE-3.7.1",
        "occupied": "FIDE-3.1",       # no move onto a square the own side holds
        "blocked": "FIDE-3.5",        # lines stop at the first piece
        "king-capture": "G6",         # a king is never captured
        "double-step": "FIDE-3.7.2",  # a pawn's two-square step
        "pawn-capture": "FIDE-3.7.3",  # a pawn moves diagonally only to capture
        "en-passant": "FIDE-3.7.3.2",  # when an en passant capture is open
        "en-passant-unended": "FIDE-3.7.3.2",  # a double step after which the turn went on
        "promotion": "FIDE-3.7.3.3",
        "castling": "FIDE-3.8.2",     # the castlings there are (by name)
        "castling-rights": "FIDE-3.8.2.1",
        "castling-path": "FIDE-3.8.2.2",
        "castling-attack": "FIDE-3.8.2.2",
        "king-safety": "FIDE-3.9.2",  # no move leaves the own king in check
    }

    def rule_ids_for(self, color: str) -> dict:
        """The rule ids of ``color``'s moves: ``rule_ids`` wherever both sides follow the
        same rules; a variant whose rule for a topic differs by side gives that side's."""
        return self.rule_ids

    # How explanations name a move made in the middle of a turn, and what they
    # say of a move after which the same side moved again.
    continuing_move = "this move"
    unended_move = "did not end the turn"

    def why_no_move(self, pos, asked):
        """A reason that refuses every move at pos, whatever the piece (the game is
        already decided, no turn of the asked kind can start here).  Chess has none."""
        return None

    def why_refused(self, pos, move, asked):
        """The turn machine's reason to refuse `move`, which the pieces can make with the
        own king safe (a spent ability, a first move with no second, a null move...).
        In chess every such move is legal, so there is none."""
        return None

    def why_comma(self, pos, move):
        """G8: why the trailing comma on ``move`` is refused: the move is legal, but it ends
        the turn, and the comma says another move of the turn follows.  Asked by
        ``api.Line.try_play``, the one place the comma rule is checked; a variant words
        why its turn ends there (a brake, the last move of a series)."""
        return explain.refusal_for(self, "comma", f"the trailing comma says the turn goes on, but "
                                   f"{self.san(pos, move).rstrip(',')} ends the turn here")

    def why_no_castling(self, pos, rule, obstacle):
        """The words of a refused castling.  ``rule`` is the castling asked for (a
        ``CastleRule`` of ``own_castlings(pos.turn)``), ``obstacle`` what
        ``castling_obstacle`` found: (condition, square), or None when every condition of
        3.8.2 holds.  When the side to move has no castling of the name asked for,
        ``rule`` is None and ``obstacle`` is (``explain.NO_SUCH_CASTLING``, the text asked).
        Return a Refusal, or None to let king safety and the turn machine say why; chess
        words each condition (``explain.castling_words``) and has nothing to add when none
        fails."""
        if obstacle is None:
            return None
        return explain.castling_words(self, pos, rule, obstacle)

    def why_no_drop(self, pos, text, asked):
        """Why the drop `text` (a ``notation.MoveText``) is refused: chess has no drops."""
        return explain.refusal_for(self, "move-text", f"there are no drops in {self.name}",
                                   level=explain.TEXT)

    def why_no_king_capture(self, pos, to):
        """G6: in the check-based variants a king is never captured."""
        return explain.refusal_for(self, "king-capture", f"a king is never captured (the king on "
                                   f"{self.geometry.name[to]})")

    def why_no_en_passant(self, pos, frm, to, asked):
        """A pawn moving diagonally to an empty square: why no en passant capture is
        there (3.7.3.2: only right after the enemy pawn's two-square step)."""
        return explain.en_passant(self, pos, frm, to, asked)

    def king_safety_rule(self, pos, asked):
        """(rule id, gloss or None) for a move that would leave the own king attacked (3.9)."""
        return explain.cite(self, "king-safety", color=pos.turn)[0], None

    def why_turn_over(self, pos, move, played):
        """Why no further move follows `move` in this turn: it ended the turn (the turn
        started at pos had `played` moves with it).  In chess a turn is one move."""
        if played >= 2:
            return explain.refusal_for(self, "turn", "no further move is allowed: a turn is one move")
        return explain.refusal_for(self, "turn", f"second move not allowed: in {self.name} every "
                                   f"turn is a single move")

    def why_incomplete(self, pos, last):
        """Why a turn may not stop at pos, after its move `last` (SAN): another move is owed."""
        return explain.refusal_for(self, "turn", "the turn is not complete")

    def game_over_note(self, pos, status):
        """A sentence on a game that was already over before the move asked about."""
        return f"the game is already over: {status.get('result')} by {status.get('reason')}"

    def king_notes(self, pos):
        """What a side may no longer move because it lost a king, one sentence each (the
        rules desk shows them under the board).  In chess a lost king ends the game: none."""
        return []

    def state_sentences(self, pos):
        """The variant's state at pos in words, for ``doublecheck show`` (one line each):
        by default each extra FEN field with its value; chess has none."""
        return [f"{name}: {value}" for name, value in zip(self.extra_fields, self.format_state(pos))]

    # ------------------------------------------------- the turn as players see it
    #
    # The rules desk shows a turn as one slot per action, named as players name
    # them, and says why a turn ended before its last slot.  Both answers come
    # from here, so a page never works out a rule of its own.

    # How game records number the turns: False, the usual fullmove numbers (``3. Na5,Bd3
    # e6,f4``); True, every turn numbered on its own with ``turn_number``, its moves
    # apart (progressive chess: ``1. e4 2. e5 Qh4 3. ...``).  doublecheck.lookups.pgn.
    pgn_numbers_each_turn = False

    def turn_number(self, pos) -> int:
        """The number a game record gives the turn starting at ``pos``."""
        return pos.fullmove

    # The names of a turn's actions, in order: as many as the longest turn has.
    turn_actions = ("Move",)

    def turn_actions_for(self, color: str) -> tuple:
        """The names of the actions of a turn of ``color``: ``turn_actions`` in every
        variant whose turns have the same shape for both sides; a variant whose turn
        length depends on the colour (Monster: White two moves, Black one) says so here."""
        return self.turn_actions

    def colour_lacks(self) -> dict:
        """What one colour never has in this variant while the other does, from the rules
        themselves: ``{"castling": {colour: why}}`` for a colour without a castling rule,
        ``{"second-move": {colour: why}}`` for a colour whose turns are one action.  The
        coverage matrix asks no case of that colour there.  Empty when both sides have
        the same rights and the same turn shape (every variant but Monster so far)."""
        names = {WHITE: "White", BLACK: "Black"}
        lacks = {}
        for color in (WHITE, BLACK):
            them = other(color)
            if not self.rights_of[color] and self.rights_of[them]:
                lacks.setdefault("castling", {})[color] = f"{names[color]} has no castling in {self.name}"
            if len(self.turn_actions_for(color)) < 2 <= len(self.turn_actions_for(them)):
                lacks.setdefault("second-move", {})[color] = \
                    f"every {names[color]} turn in {self.name} is a single move"
        return lacks

    def turn_slots(self, pos):
        """The names of the actions of the turn being played at ``pos`` (the desk's turn
        panel draws one slot each): those of the side to move (``turn_actions_for``)
        unless the turn's length depends on the position, as a progressive series of n
        moves does."""
        return self.turn_actions_for(pos.turn)

    def actions_played(self, pos) -> int:
        """How many actions of the turn being played at ``pos`` are already played (a FEN
        may start inside a turn): none at a turn boundary, else one, as in every variant
        whose turns have two actions at most."""
        return 1 if self.mid_turn(pos) else 0

    def turn_end_reason(self, pos_before, move, pos_after):
        """Why the turn that ``move`` (played at ``pos_before``, giving ``pos_after``)
        ends has fewer actions than ``turn_actions`` names: an ``explain.TurnEnd``
        (rule id, the reason in words), or None when the turn goes on or has every
        action.  In chess a turn is one move (G1), so no slot is ever left empty."""
        return None

    def open_slot_reason(self, pos, index: int):
        """Why action ``index`` (from 0) of the turn being played at ``pos``, neither
        played nor the next one, will not come this turn or on what it depends: an
        ``explain.TurnEnd``, or None when it simply comes later (the desk's turn
        panel shows "not yet").  In chess a turn has one action, so there is none."""
        return None

    # What the tables doublecheck generate writes say of this variant (README, docs/perft.md).
    about = About(summary="the FIDE Laws: the base every other variant shares",
                  move="a FIDE move",
                  turn="one move",
                  note="perft and turn-perft are equal")
