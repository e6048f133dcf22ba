"""``chess``, ``double-move``, ``double-move-anul``, ``marseillais``,
``marseillais-classic``, ``monster``, ``progressive-scottish`` and
``progressive-italian`` built on python-chess.

python-chess does all of the chess here: legal moves, check and attack
detection, reading SAN, writing FEN fields 1-6, insufficient material. This
module adds only what the variants change, which is the *turn structure*
(who moves next, and which moves may come next in the same turn), the variant
state in FEN field 7 (fields 7-9 in progressive chess), and the FEN checks of
ruling G9 where python-chess is more lenient than the project. Where a variant
allows moves python-chess would not (Monster chess: White's king may stand
attacked between its two moves, MO3) python-chess's pseudo-legal moves are the
start, and the rules of the catalogue (``doublecheck rules MO4``) say which
count; the oracle is never asked.

It is the worked example of docs/adapter-guide.md. Run the suite against it::

    doublecheck run --adapter doublecheck.adapters.python_chess_adapter:PythonChessAdapter
"""

import re
from typing import NamedTuple

import chess

# The protocol's vocabulary (operations, variant ids, error codes, the exception that
# refuses a request) comes from the adapter interface; the rules below are this file's own.
from doublecheck.adapter import (ILLEGAL_MOVE, INVALID_FEN, INVALID_MOVE_TEXT, INVALID_REQUEST, OPS,
                                 UNKNOWN_VARIANT, UNSUPPORTED, EngineError, perft_request)
from doublecheck.adapter import VARIANTS as ALL_VARIANTS


class Position(NamedTuple):
    board: chess.Board   # FEN fields 1-6, kept by python-chess
    unused: str = ""     # double-move: the Double Moves still unused ("WB", "W", "B" or "")
    mid: bool = False    # the side to move is between the two moves of its turn (field 7 'm')
    targets: frozenset = frozenset()   # marseillais: the en passant squares of field 4 (M7)


class Step(NamedTuple):
    """One move. In double-move the same move may also open a Double Move (G8: ``e2e4,``)."""

    move: chess.Move
    opens: bool = False

    def text(self) -> str:
        return self.move.uci() + ("," if self.opens else "")


# --- the chess underneath: python-chess, plus two small facts -------------------

def after(board: chess.Board, move: chess.Move, turn_ends: bool = True) -> chess.Board:
    """The board after ``move``. When the turn goes on, the same side moves again,
    no en passant target is left behind (D4, A3), and the fullmove number waits
    for the end of the turn (G2). The halfmove clock counts every move (G2)."""
    new = board.copy(stack=False)
    new.push(move)
    if not turn_ends:
        new.turn = board.turn
        new.ep_square = None
        new.fullmove_number = board.fullmove_number
    return new


def legal(board: chess.Board):
    """python-chess's legal moves, less captures of a king. Between the two halves
    of a Double Move the opponent may stand in check, and python-chess would let
    the second half take the king; the rules never do (G6, D3)."""
    return (m for m in board.legal_moves if not board.kings & chess.BB_SQUARES[m.to_square])


def can_move(board: chess.Board) -> bool:
    return any(True for _ in legal(board))


# --- FEN input: the project's checks (G9) in front of python-chess's parser -----

NUMBER = re.compile(r"[0-9]+")
# python-chess would also take 4 or 5 fields, X-FEN/Shredder castling letters,
# '~' promotion marks and a fullmove number of 0; the project takes none of them.
FIELD_SHAPES = (
    ("piece placement", re.compile(r"[1-8pnbrqkPNBRQK/]+")),
    ("side to move", re.compile(r"[wb]")),
    ("castling", re.compile(r"-|[KQkq]{1,4}")),
    ("en passant", re.compile(r"-|[a-h][36]")),
    ("halfmove clock", NUMBER),
    ("fullmove number", NUMBER),
)
CASTLING_HOMES = {"K": (chess.E1, chess.H1), "Q": (chess.E1, chess.A1),
                  "k": (chess.E8, chess.H8), "q": (chess.E8, chess.A8)}
# What python-chess's Board.status() reports that G9 also rejects.
INVALID = {
    chess.STATUS_NO_WHITE_KING: "White has no king",
    chess.STATUS_NO_BLACK_KING: "Black has no king",
    chess.STATUS_TOO_MANY_KINGS: "a side has more than one king",
    chess.STATUS_PAWNS_ON_BACKRANK: "a pawn stands on the first or last rank",
    chess.STATUS_INVALID_EP_SQUARE: "the en passant square does not follow a two-square pawn step",
    chess.STATUS_OPPOSITE_CHECK: "the side not to move is in check",
}


def invalid_fen(message: str) -> EngineError:
    return EngineError(INVALID_FEN, message)


def read_board(fields: list[str]) -> chess.Board:
    """Fields 1-6 checked for shape, then parsed by python-chess."""
    for value, (name, shape) in zip(fields, FIELD_SHAPES):
        if not shape.fullmatch(value):
            raise invalid_fen(f"{name} field {value!r} is malformed")
    castling = fields[2].strip("-")
    if len(set(castling)) != len(castling):
        raise invalid_fen(f"castling field {fields[2]!r} repeats a letter")
    fields[2] = "".join(c for c in "KQkq" if c in castling) or "-"   # any order is accepted
    if int(fields[5]) < 1:
        raise invalid_fen("the fullmove number starts at 1")
    try:
        board = chess.Board(" ".join(fields))
    except ValueError as e:
        raise invalid_fen(str(e)) from None
    for letter in castling:   # python-chess drops a right whose rook is missing; G9 rejects it
        king, rook = CASTLING_HOMES[letter]
        color = letter.isupper()
        if board.piece_at(king) != chess.Piece(chess.KING, color) \
                or board.piece_at(rook) != chess.Piece(chess.ROOK, color):
            raise invalid_fen(f"castling right {letter!r} needs the king and the rook "
                              f"on {chess.square_name(king)} and {chess.square_name(rook)}")
    return board


def check_board(board: chess.Board, mid: bool) -> None:
    """G9 on fields 1-6. Between the two moves of a turn the opponent may be in check
    (double-move); a variant that forbids that checks it itself."""
    wrong = board.status() & sum(INVALID)
    if mid:
        wrong &= ~chess.STATUS_OPPOSITE_CHECK
    for bit, message in INVALID.items():
        if wrong & bit:
            raise invalid_fen(message)


# --- move text --------------------------------------------------------------

COORDINATES = re.compile(r"[a-h][1-8][a-h][1-8][qrbnQRBN]?")
# python-chess's SAN reader also takes 'e2-e4' and null moves ('--', '0000'): not move text here.
SAN = re.compile(r"[NBRQK]?[a-h]?[1-8]?x?[a-h][1-8](=?[NBRQnbrq])?|O-O(-O)?")


def read_move(board: chess.Board, text: str) -> chess.Move:
    """The chess move that coordinate text or SAN names; python-chess reads the SAN."""
    if COORDINATES.fullmatch(text):
        if text[:2] == text[2:4]:
            raise EngineError(ILLEGAL_MOVE, f"{text!r} goes nowhere")
        return chess.Move.from_uci(text.lower())
    san = text.rstrip("+#!?").replace("0", "O")
    if not SAN.fullmatch(san):
        raise EngineError(INVALID_MOVE_TEXT, f"{text!r} is neither coordinates (e2e4) nor SAN (Nf3)")
    try:
        return board.parse_san(san)
    except ValueError as e:   # no legal move, or more than one, fits the SAN
        raise EngineError(ILLEGAL_MOVE, f"{text!r}: {e}") from None


def tokens(moves) -> list[str]:
    """The move tokens of a request, a whole turn ``a,b`` split into ``a,`` and ``b``."""
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        raise EngineError(INVALID_REQUEST, "'moves' must be a list of move strings")
    out = []
    for item in moves:
        parts = item.split(",")
        for i, part in enumerate(parts):
            last = i == len(parts) - 1
            if part.strip():
                out.append(part.strip() + ("" if last else ","))
            elif not last or len(parts) == 1:
                raise EngineError(INVALID_MOVE_TEXT, f"{item!r}: an empty move")
    return out


# --- the variants -------------------------------------------------------------

def not_over(claimable=()) -> dict:
    return {"over": False, "result": None, "reason": None, "claimable": sorted(claimable)}


def game_over(reason: str, result: str = "1/2-1/2") -> dict:
    return {"over": True, "result": result, "reason": reason, "claimable": []}


class Chess:
    """FIDE chess: every move is a whole turn. The variants below change
    ``steps`` and ``play`` (the turn structure) and FEN field 7."""

    name = "chess"
    start_fen = chess.STARTING_FEN
    has_field_7 = False

    # The turn structure.

    def steps(self, pos: Position) -> list[Step]:
        """The legal next moves."""
        return [Step(m) for m in legal(pos.board)]

    def play(self, pos: Position, step: Step) -> Position:
        return Position(after(pos.board, step.move))

    # Everything else follows from those two.

    def turns(self, pos: Position) -> list[tuple[list[Step], Position]]:
        """Every way to finish the current turn, with the position it leads to."""
        found = []
        for step in self.steps(pos):
            nxt = self.play(pos, step)
            if self.goes_on(nxt):
                found += [([step] + rest, end) for rest, end in self.turns(nxt)]
            else:
                found.append(([step], nxt))
        return found

    def goes_on(self, pos: Position) -> bool:
        """Does the side to move owe another move of the same turn?"""
        return pos.mid

    def perft(self, pos: Position, depth: int) -> int:
        """Sequences of ``depth`` moves (G7)."""
        if depth == 0:
            return 1
        steps = self.steps(pos)
        if depth == 1:
            return len(steps)
        return sum(self.perft(self.play(pos, s), depth - 1) for s in steps)

    def perft_turns(self, pos: Position, depth: int) -> int:
        """Sequences of ``depth`` complete turns (G7)."""
        if depth == 0:
            return 1
        if depth == 1:
            return self.count_turns(pos)
        return sum(self.perft_turns(end, depth - 1) for _, end in self.turns(pos))

    def count_turns(self, pos: Position) -> int:
        """``len(self.turns(pos))``, counting the moves that surely end the turn instead of
        playing them (the last ply of a turn-perft is most of its work)."""
        if self.last_move_of_turn(pos):
            return len(self.steps(pos))
        total = 0
        for step in self.steps(pos):
            nxt = self.play(pos, step)
            total += self.count_turns(nxt) if self.goes_on(nxt) else 1
        return total

    def last_move_of_turn(self, pos: Position) -> bool:
        """Does every legal move here end the turn?  Only a variant that knows it says yes."""
        return False

    def divide(self, pos: Position, depth: int, turns: bool) -> dict:
        if turns:
            return {",".join(s.move.uci() for s in line): self.perft_turns(end, depth - 1)
                    for line, end in self.turns(pos)}
        return {s.text(): self.perft(self.play(pos, s), depth - 1) for s in self.steps(pos)}

    def status(self, pos: Position, history: list) -> dict:
        """Game end, judged only between turns (G3, D5, A5); ``history`` holds the
        identities of the earlier turn-boundary positions of the line."""
        if pos.mid:
            return not_over()
        return self.no_move_result(pos) or self.draws(pos, history)

    def no_move_result(self, pos: Position):
        """Checkmate or stalemate at a turn boundary, else None."""
        board = pos.board
        if board.is_checkmate():
            return game_over("checkmate", "0-1" if board.turn == chess.WHITE else "1-0")
        if board.is_stalemate():
            return game_over("stalemate")
        return None

    has_dead_position = True    # G4; Monster chess has none (MO9)

    def quiet_count(self, pos) -> tuple[int, int, int]:
        """The count the move-count draws read, the claim's threshold and the automatic
        one: the halfmove clock, 100 and 150 (G3)."""
        return pos.board.halfmove_clock, 100, 150

    def draws(self, pos: Position, history: list) -> dict:
        """Dead position, the move counts and repetition (G3, G4)."""
        board = pos.board
        if self.has_dead_position and board.is_insufficient_material():     # the same material as G4
            return game_over("dead-position")
        count, claim, automatic = self.quiet_count(pos)
        if count >= automatic:
            return game_over("seventy-five-moves")
        seen = 1 + history.count(self.identity(pos))
        if seen >= 5:
            return game_over("fivefold-repetition")
        return not_over(["fifty-moves"] * (count >= claim)
                        + ["threefold-repetition"] * (seen >= 3))

    def depth_limit(self, turns: bool):
        """The deepest perft the variant's rules allow, or None for no limit of its own."""
        return None

    def identity(self, pos: Position) -> str:
        """Placement, side to move, castling rights, en passant only when it can be
        taken, and the variant state (G3, D6)."""
        return " ".join(pos.board.fen().split()[:4] + self.field_7(pos))

    # FEN.

    def parse_fen(self, text) -> Position:
        if not isinstance(text, str):
            raise invalid_fen("a FEN must be a string")
        fields = text.split()
        most = 7 if self.has_field_7 else 6
        if not 6 <= len(fields) <= most:
            raise invalid_fen(f"a {self.name} FEN has {'6 or 7' if most == 7 else '6'} fields, "
                              f"not {len(fields)}")
        board = read_board(fields[:6])
        pos = self.read_field_7(board, fields[6] if len(fields) == 7 else None)
        check_board(board, pos.mid)
        self.check_mid_turn(pos)
        return pos

    def read_field_7(self, board, field) -> Position:
        return Position(board)

    def check_mid_turn(self, pos: Position) -> None:
        """G9: a position between the two moves of a turn has no en passant square and
        a way to finish the turn, and the first move left the mover's king safe."""
        if pos.mid and pos.board.is_check():
            raise invalid_fen("between the two moves of a turn the mover's king cannot be in check")
        if pos.mid and pos.board.ep_square is not None:
            raise invalid_fen("there is no en passant square between the two moves of a turn")
        if pos.mid and not can_move(pos.board):
            raise invalid_fen("the side to move has no legal move to finish its turn")

    def field_7(self, pos: Position) -> list[str]:
        return []

    def fen(self, pos: Position) -> str:
        return " ".join([pos.board.fen()] + self.field_7(pos))

    # Move text.

    def parse_step(self, pos: Position, token: str) -> Step:
        """The legal step a token names. In double-move the trailing comma picks the
        opening half of a Double Move over the ordinary move."""
        opens = token.endswith(",")
        move = read_move(pos.board, token.rstrip(",").strip())
        found = [s for s in self.steps(pos) if s.move == move]
        if len(found) > 1:
            found = [s for s in found if s.opens == opens]
        if not found:
            raise EngineError(ILLEGAL_MOVE, f"{token!r} is not a legal move here")
        return found[0]


class DoubleMove(Chess):
    """Each side owns one Double Move per game (seed 000, D1-D6)."""

    name = "double-move"
    start_fen = chess.STARTING_FEN + " WB"
    has_field_7 = True

    def steps(self, pos):
        """Ordinary moves; while the ability is unused, each move again as the
        opening half of a Double Move, if a second half can follow it (D2)."""
        moves = list(legal(pos.board))
        ordinary = [Step(m) for m in moves]
        if pos.mid or side(pos.board) not in pos.unused:
            return ordinary
        return ordinary + [Step(m, opens=True) for m in moves
                           if can_move(after(pos.board, m, turn_ends=False))]

    def play(self, pos, step):
        if step.opens:    # the ability is spent and the same side moves again
            unused = pos.unused.replace(side(pos.board), "")
            return Position(after(pos.board, step.move, turn_ends=False), unused, mid=True)
        return Position(after(pos.board, step.move), pos.unused)

    def read_field_7(self, board, field):
        m = re.fullmatch(r"(W|-)(B|-)(m?)", field or "WB")
        if not m:
            raise invalid_fen(f"field 7 must be WB, W-, -B or --, optionally with m; not {field!r}")
        pos = Position(board, (m[1] + m[2]).replace("-", ""), mid=bool(m[3]))
        if pos.mid and side(board) in pos.unused:
            raise invalid_fen("'m' says the side to move is in a Double Move, "
                              "but its ability is unspent")
        return pos

    def field_7(self, pos):
        return [("W" if "W" in pos.unused else "-") + ("B" if "B" in pos.unused else "-")
                + ("m" if pos.mid else "")]


class DoubleMoveAnul(Chess):
    """Two moves a turn; a capture or check on move one ends it (seed 002, A1-A5)."""

    name = "double-move-anul"
    start_fen = chess.STARTING_FEN + " -"
    has_field_7 = True

    def play(self, pos, step):
        board, move = pos.board, step.move
        if pos.mid or board.is_capture(move) or board.gives_check(move):
            return Position(after(board, move))     # move two, or a braking move one (A1, A2)
        half = after(board, move, turn_ends=False)
        if can_move(half):
            return Position(half, mid=True)         # move two is owed
        return Position(after(board, move))         # no move two exists: the turn ends

    def read_field_7(self, board, field):
        if field not in (None, "-", "m"):
            raise invalid_fen(f"field 7 must be '-' or 'm', not {field!r}")
        return Position(board, mid=field == "m")

    def check_mid_turn(self, pos):
        """Move one was quiet: it gave no check (A1)."""
        if pos.mid and pos.board.was_into_check():
            raise invalid_fen("between the two moves of a turn the opponent cannot be in check")
        super().check_mid_turn(pos)

    def field_7(self, pos):
        return ["m" if pos.mid else "-"]


def side(board: chess.Board) -> str:
    return "W" if board.turn == chess.WHITE else "B"


class Marseillais(Chess):
    """Two moves a turn; a check on move one ends it, a capture does not; the
    Alekhine en passant rule; no move two is a stalemate (M1-M8). python-chess
    keeps one en passant square, so the targets live in ``Position.targets`` and
    each is offered to python-chess in turn."""

    name = "marseillais"
    start_fen = chess.STARTING_FEN + " -"
    has_field_7 = True
    white_opens_with_one_move = True    # M2: the balanced form

    # The turn structure.

    def steps(self, pos):
        """python-chess's legal moves, plus its en passant captures on every open target."""
        found = [Step(m) for m in legal(pos.board)]
        for target in self.open_targets(pos):
            board = pos.board.copy(stack=False)
            board.ep_square = target
            found += [Step(m) for m in board.generate_legal_ep()]
        return found

    def open_targets(self, pos):
        """At a turn boundary every target; between the moves only the other target
        after an en passant move one (M4). Both lie on the opponent's third rank."""
        rank = 5 if pos.board.turn == chess.WHITE else 2
        return sorted(t for t in pos.targets if chess.square_rank(t) == rank)

    def goes_on(self, pos):
        return pos.mid and bool(self.steps(pos))     # M5: no move two ends the turn

    def one_move_turn(self, pos) -> bool:
        board = pos.board
        return (self.white_opens_with_one_move and not pos.mid and board.turn == chess.WHITE
                and board.fullmove_number == 1)

    def play(self, pos, step):
        board = ready(pos.board, step.move)
        if pos.mid or self.one_move_turn(pos) or board.gives_check(step.move):
            return self.end_turn(pos, board, step.move)
        half = after(board, step.move, turn_ends=False)
        kept = {t for t in self.open_targets(pos) if t != step.move.to_square} \
            if board.is_en_passant(step.move) else set()
        kept |= {t for t in [passed(board, step.move)] if t is not None}
        return Position(half, mid=True, targets=frozenset(t for t in kept if live(half, t)))

    def end_turn(self, pos, board, move):
        """The opponent's targets: every double step of this turn still live (M4)."""
        own = 2 if board.turn == chess.WHITE else 5     # the mover's passed-over rank
        steps = {t for t in pos.targets if chess.square_rank(t) == own}
        steps |= {t for t in [passed(board, move)] if t is not None}
        new = after(board, move)
        new.ep_square = None
        return Position(new, targets=frozenset(t for t in steps if live(new, t)))

    def status(self, pos, history):
        if pos.mid:
            return not_over() if self.steps(pos) else game_over("stalemate")
        return super().status(pos, history)

    def no_move_result(self, pos):
        if self.steps(pos):
            return None
        if pos.board.is_check():
            return game_over("checkmate", "0-1" if pos.board.turn == chess.WHITE else "1-0")
        return game_over("stalemate")

    def usable(self, pos) -> list:
        """The targets some legal continuation of the turn takes en passant on (M7, G3)."""
        found = set()
        for step in self.steps(pos):
            if not ready(pos.board, step.move).is_en_passant(step.move):
                continue
            found.add(step.move.to_square)
            nxt = self.play(pos, step)
            if not pos.mid and nxt.mid:
                found |= {s.move.to_square for s in self.steps(nxt)
                          if ready(nxt.board, s.move).is_en_passant(s.move)}
        return sorted(found)

    def identity(self, pos):
        return " ".join(pos.board.fen().split()[:3] + [self.field_4(pos, pending=False)]
                        + self.field_7(pos))

    # FEN.

    def field_4(self, pos, pending=True) -> str:
        """Usable targets, and between the moves the square of move one's double step (M7)."""
        shown = set(self.usable(pos))
        own = 2 if pos.board.turn == chess.WHITE else 5
        if pending and pos.mid:
            shown |= {t for t in pos.targets if chess.square_rank(t) == own}
        return ",".join(chess.square_name(t) for t in sorted(shown)) or "-"

    def fen(self, pos):
        fields = pos.board.fen().split()
        fields[3] = self.field_4(pos)
        return " ".join(fields + self.field_7(pos))

    def parse_fen(self, text):
        """Field 4 is read here (python-chess holds one square); the rest as usual."""
        if not isinstance(text, str):
            raise invalid_fen("a FEN must be a string")
        fields = text.split()
        squares = fields[3].split(",") if len(fields) > 3 and fields[3] != "-" else []
        if len(fields) > 3:
            fields[3] = "-"
        pos = super().parse_fen(" ".join(fields))
        if len(squares) > 2 or len(set(squares)) != len(squares) \
                or not all(re.fullmatch(r"[a-h][1-8]", sq) for sq in squares):
            raise invalid_fen("field 4 holds '-' or one or two different squares (M7)")
        targets = frozenset(chess.parse_square(sq) for sq in squares)
        board, mid = pos.board, pos.mid
        theirs = 5 if board.turn == chess.WHITE else 2
        own = 2 if board.turn == chess.WHITE else 5
        if mid and len(targets) > 1:
            raise invalid_fen("between the two moves field 4 holds one square at most")
        for t in targets:
            if chess.square_rank(t) not in ((theirs, own) if mid else (theirs,)):
                raise invalid_fen(f"en passant square {chess.square_name(t)} is on the wrong rank")
            if not live(board, t):
                raise invalid_fen(f"en passant square {chess.square_name(t)} needs the pawn "
                                  f"that passed over it just beyond it")
        return pos._replace(targets=targets)

    read_field_7 = DoubleMoveAnul.read_field_7
    field_7 = DoubleMoveAnul.field_7

    def check_mid_turn(self, pos):
        """Field 7 'm' after a turn that must have ended (M2, M3); a missing move two
        is the M5 stalemate, not an error (M7.2)."""
        board = pos.board
        if not pos.mid:
            return
        if self.white_opens_with_one_move and board.turn == chess.WHITE and board.fullmove_number == 1:
            raise invalid_fen("White's first turn is a single move (M2)")
        if board.was_into_check():
            raise invalid_fen("between the two moves the opponent cannot be in check (M3)")
        if board.is_check():
            raise invalid_fen("between the two moves the mover's king cannot be in check (M3)")

    # Move text.

    def parse_step(self, pos, token):
        """As for the other variants, with SAN read against each open target in turn."""
        boards = [pos.board]
        for target in self.open_targets(pos):
            board = pos.board.copy(stack=False)
            board.ep_square = target
            boards.append(board)
        error = None
        for board in boards:
            try:
                step = Step(read_move(board, token.rstrip(",").strip()))
            except EngineError as e:
                error = error or e
                continue
            if step in self.steps(pos):
                if token.endswith(",") and not self.goes_on(self.play(pos, step)):
                    raise EngineError(ILLEGAL_MOVE, f"{token!r}: that move ends the turn (M8)")
                return step
        raise error or EngineError(ILLEGAL_MOVE, f"{token!r} is not a legal move here")


class MarseillaisClassic(Marseillais):
    """The same, with two moves in White's first turn as well (M2)."""

    name = "marseillais-classic"
    white_opens_with_one_move = False


def ready(board: chess.Board, move: chess.Move) -> chess.Board:
    """``board``, with its en passant square set when ``move`` is a pawn's diagonal step
    onto an empty square (an en passant capture: the targets are not kept on the board)."""
    if board.piece_type_at(move.from_square) == chess.PAWN and not board.piece_at(move.to_square) \
            and chess.square_file(move.from_square) != chess.square_file(move.to_square):
        board = board.copy(stack=False)
        board.ep_square = move.to_square
    return board


def passed(board: chess.Board, move: chess.Move):
    """The square a two-square pawn step passes over, or None."""
    if board.piece_type_at(move.from_square) == chess.PAWN \
            and abs(move.to_square - move.from_square) == 16:
        return (move.to_square + move.from_square) // 2
    return None


def live(board: chess.Board, target: int) -> bool:
    """M4: the square is empty and the pawn that passed over it stands just beyond it."""
    beyond = target + 8 if chess.square_rank(target) == 2 else target - 8
    color = chess.square_rank(target) == 2     # rank 3: a White pawn passed over it
    return board.piece_at(target) is None and board.piece_at(beyond) == chess.Piece(chess.PAWN, color)


# --- turns whose length depends on the colour or grows: Monster and progressive chess -----

CASTLING_TEXT = re.compile(r"O(-O)+")
SAN_PARTS = re.compile(r"([NBRQK]?)([a-h]?)([1-8]?)x?([a-h][1-8])(?:=?([NBRQnbrq]))?")
PIECE_OF_LETTER = {"": chess.PAWN, "N": chess.KNIGHT, "B": chess.BISHOP, "R": chess.ROOK,
                   "Q": chess.QUEEN, "K": chess.KING}
SQUARE = re.compile(r"[a-h][1-8]")


def san_names(board: chess.Board, parts: tuple, move: chess.Move) -> bool:
    """Does SAN, read into (piece letter, from-file, from-rank, to-square, promotion),
    name ``move``? The capture mark is not required (G8)."""
    letter, file, rank, to, promotion = parts
    if board.is_castling(move) or move.to_square != chess.parse_square(to):
        return False
    name = chess.square_name(move.from_square)
    wanted = PIECE_OF_LETTER[promotion.upper()] if promotion else None
    return (board.piece_type_at(move.from_square) == PIECE_OF_LETTER[letter]
            and name[0] == (file or name[0]) and name[1] == (rank or name[1])
            and move.promotion == wanted)


class ReadsItsOwnMoves:
    """Move text matched against the variant's own legal moves (G8, G8.1). python-chess
    reads SAN against its legal moves, and these variants allow moves it would not
    (Monster's move one may leave the king attacked) or forbid moves it allows."""

    def parse_step(self, pos, token: str) -> Step:
        text = token.rstrip(",").strip()
        board, steps = pos.board, self.steps(pos)
        san = text.rstrip("+#!?").replace("0", "O")
        if COORDINATES.fullmatch(text):
            move = read_move(board, text)
            found = [s for s in steps if s.move == move]
        elif CASTLING_TEXT.fullmatch(san):
            side = {"O-O": board.is_kingside_castling, "O-O-O": board.is_queenside_castling}.get(san)
            found = [s for s in steps if side is not None and side(s.move)]
        elif SAN_PARTS.fullmatch(san):
            parts = SAN_PARTS.fullmatch(san).groups()
            found = [s for s in steps if san_names(board, parts, s.move)]
        else:
            raise EngineError(INVALID_MOVE_TEXT, f"{text!r} is neither coordinates (e2e4) nor SAN (Nf3)")
        if len(found) != 1:
            raise EngineError(ILLEGAL_MOVE, f"{text!r} names {'more than one' if found else 'no'} "
                                            f"legal move here")
        return found[0]


def target_squares(field: str) -> list[int]:
    """FEN field 4 of the variants that may hold several targets: '-' or different
    squares joined by commas."""
    if field == "-":
        return []
    names = field.split(",")
    if not all(SQUARE.fullmatch(n) for n in names) or len(set(names)) != len(names):
        raise invalid_fen(f"en passant field {field!r} must be '-' or different squares joined by commas")
    return [chess.parse_square(n) for n in names]


def pseudo(board: chess.Board) -> list:
    """python-chess's pseudo-legal moves (the mover's king may be left attacked), less
    captures of a king."""
    return [m for m in board.pseudo_legal_moves if not board.kings & chess.BB_SQUARES[m.to_square]]


def no_turn_result(pos, steps, in_check: bool):
    """With no legal move: checkmate when in check, else stalemate (G5); None otherwise."""
    if steps:
        return None
    if in_check:
        return game_over("checkmate", "0-1" if pos.board.turn == chess.WHITE else "1-0")
    return game_over("stalemate")


def usable_targets(pos, steps) -> list[int]:
    """The squares some legal move takes en passant on (G3, G9)."""
    return sorted({s.move.to_square for s in steps if ready(pos.board, s.move).is_en_passant(s.move)})


def square_list(squares) -> str:
    return ",".join(chess.square_name(t) for t in sorted(squares)) or "-"


def two_move_reach(board: chess.Board) -> bool:
    """MO4, MO4.1: could White, to move on ``board`` (with the en passant square Black's
    double step left), take the black king with its move one, or with its move two after
    any move one at all, its own king attacked or not?"""
    king = board.king(chess.BLACK)
    if king is None:
        return False
    if board.is_attacked_by(chess.WHITE, king):
        return True
    board = board.copy(stack=False)
    for move in pseudo(board):
        board.push(move)
        hit = board.is_attacked_by(chess.WHITE, king)
        board.pop()
        if hit:
            return True
    return False


def white_to_move(board: chess.Board, king_from=None, king_to=None) -> chess.Board:
    """``board`` with White to move and no en passant square, the black king moved from
    ``king_from`` to ``king_to`` if given (a square of a castling path)."""
    out = board.copy(stack=False)
    if king_from is not None:
        out.remove_piece_at(king_from)
        out.set_piece_at(king_to, chess.Piece(chess.KING, chess.BLACK))
    out.turn, out.ep_square = chess.WHITE, None
    return out


class Monster(ReadsItsOwnMoves, Chess):
    """Classic Monster chess (MO1-MO9): White's king and four pawns make two moves a turn,
    Black's army one. Black's king is in check when White's two coming moves could take
    it; White's king may stand attacked between White's moves. ``Position.mid``: between
    White's two moves (field 7 ``m``); the board's en passant square is the one target a
    turn can leave (MO6)."""

    name = "monster"
    start_fen = "rnbqkbnr/pppppppp/8/8/8/8/2PPPP2/4K3 w kq - 0 1 -"     # MO1
    has_field_7 = True
    has_dead_position = False     # MO9: White mates with its king alone

    # The turn structure.

    def steps(self, pos):
        board = pos.board
        if board.turn == chess.BLACK:   # MO4, MO7
            return [Step(m) for m in pseudo(board) if not self.leaves_king_in_reach(board, m)]
        if pos.mid:                     # move two: the turn ends with White's king safe (MO3)
            return [Step(m) for m in legal(board)]
        # move one: any move, White's king attacked after it or not, with a legal move two after it (MO2, MO3)
        return [Step(m) for m in pseudo(board) if can_move(after(board, m, turn_ends=False))]

    def play(self, pos, step):
        """Move one keeps White to move and leaves Black no target (MO6); move two and
        Black's move end the turn, a double step leaving the opponent its target."""
        if pos.board.turn == chess.WHITE and not pos.mid:
            return Position(after(pos.board, step.move, turn_ends=False), mid=True)
        return Position(after(pos.board, step.move))

    def leaves_king_in_reach(self, board: chess.Board, move: chess.Move) -> bool:
        """MO4: after Black's move White's two moves could take the king (a double step
        of Black's gives White's move one its en passant capture); MO7: a castling king
        starts on or passes over a square within that reach."""
        board_after = board.copy(stack=False)
        board_after.push(move)
        if two_move_reach(board_after):
            return True
        if board.is_castling(move):
            passed_over = (move.from_square + move.to_square) // 2
            return any(two_move_reach(white_to_move(board, move.from_square, sq))
                       for sq in (move.from_square, passed_over))
        return False

    def last_move_of_turn(self, pos):
        """Black's one move and White's move two end the turn (MO2)."""
        return pos.board.turn == chess.BLACK or pos.mid

    def in_check(self, pos) -> bool:
        """White: its king attacked (MO3); Black: within reach of White's two moves (MO4)."""
        if pos.board.turn == chess.WHITE:
            return pos.board.is_check()
        return two_move_reach(white_to_move(pos.board))

    def no_move_result(self, pos):
        """MO5: no legal turn is checkmate in the MO3/MO4 sense of check, else stalemate."""
        return no_turn_result(pos, self.steps(pos), self.in_check(pos))

    def identity(self, pos):
        return " ".join(pos.board.fen().split()[:3] + [self.field_4(pos)] + self.field_7(pos))

    # FEN.

    def field_4(self, pos) -> str:
        """The target a legal move takes en passant; none between White's moves (MO6, MO8)."""
        return "-" if pos.mid else square_list(usable_targets(pos, self.steps(pos)))

    def fen(self, pos):
        fields = pos.board.fen().split()
        fields[3] = self.field_4(pos)
        return " ".join(fields + self.field_7(pos))

    def parse_fen(self, text):
        """MO7: no White castling; field 4 read here (the MO4 check may run through the
        target); the rest as usual."""
        if not isinstance(text, str):
            raise invalid_fen("a FEN must be a string")
        fields = text.split()
        if len(fields) > 2 and set(fields[2]) & set("KQ"):
            raise invalid_fen(f"castling field {fields[2]!r}: White has no castling in Monster chess (MO7)")
        squares = target_squares(fields[3]) if len(fields) > 3 else []
        if len(squares) > 1:
            raise invalid_fen("field 4 holds '-' or one square: a turn leaves one target at most (MO6)")
        if squares:
            fields[3] = "-"
        pos = super().parse_fen(" ".join(fields))
        board = pos.board
        for target in squares:
            if pos.mid:
                raise invalid_fen("there is no en passant square between White's two moves (MO8)")
            rank = 5 if board.turn == chess.WHITE else 2     # the opponent stepped over it
            if chess.square_rank(target) != rank or not live(board, target):
                raise invalid_fen(f"en passant square {chess.square_name(target)} needs the pawn that "
                                  f"passed over it just beyond it, on the rank of the side that moved")
            board.ep_square = target
        if board.turn == chess.WHITE and not pos.mid and two_move_reach(board):
            raise invalid_fen("the side not to move is in check: White's two coming moves could take "
                              "the black king (MO4)")
        return pos

    def read_field_7(self, board, field):
        if field not in (None, "-", "m"):
            raise invalid_fen(f"field 7 must be '-' or 'm', not {field!r}")
        if field == "m" and board.turn == chess.BLACK:
            raise invalid_fen("field 7 'm' with Black to move: Black's turn is a single move (MO2, MO8)")
        return Position(board, mid=field == "m")

    def check_mid_turn(self, pos):
        """MO8, MO8.1: between White's moves Black's king is not attacked and White has a
        move two that leaves its king safe; White's own king may stand attacked (MO3)."""
        if not pos.mid:
            return
        if pos.board.was_into_check():
            raise invalid_fen("between White's moves Black's king cannot be attacked (MO4, MO8.1)")
        if not can_move(pos.board):
            raise invalid_fen("between White's moves White has no move two that leaves its king "
                              "safe (MO2, MO3, MO8.1)")

    field_7 = DoubleMoveAnul.field_7


class Series(NamedTuple):
    """A progressive position: python-chess's board (its side to move plays the series)
    and the series state of FEN fields 7-9 (P6.2)."""

    board: chess.Board
    length: int                        # series n has n moves (P1)
    played: int = 0                    # how many of them are played
    quiet: int = 0                     # complete series with no capture and no pawn move (P5)
    # P3: at a series boundary the opponent's double steps of its last series; inside a
    # series the mover's own double steps so far (targets for the opponent once it ends)
    targets: frozenset = frozenset()


# P8: the limits of a turn list (moves left in the series, positions walked) and of perft.
MOST_MOVES_LISTED = 4
SERIES_WALK = 100_000
PERFT_DEPTH = {True: 3, False: 13}
# P5: complete quiet series after which a draw may be claimed, and is automatic.
QUIET_SERIES = (10, 15)
# The protocol's Limits: fields 7-9 are whole numbers of at most nine digits.
MOST_DIGITS = 9


class Progressive(ReadsItsOwnMoves, Chess):
    """Progressive chess (P1-P9): series of 1, 2, 3, ... moves by one side each. The two
    forms differ in where a check may come (``check_before_last``)."""

    has_field_7 = True
    start_fen = chess.STARTING_FEN + " 1 0 0"
    check_before_last = True      # Scottish: a check may come on any move and ends the series (PS1)

    def left(self, pos) -> int:
        return pos.length - pos.played

    # The turn structure.

    def steps(self, pos):
        """Every move leaves the own king safe (P2, PI2); en passant with the first move
        only (P3); in the Italian form no check before the last move (PI1)."""
        board = pos.board
        moves = list(legal(board))
        if pos.played == 0:
            for target in sorted(pos.targets):
                offered = board.copy(stack=False)
                offered.ep_square = target
                moves += list(offered.generate_legal_ep())
        if not self.check_before_last and self.left(pos) > 1:
            moves = [m for m in moves if not ready(board, m).gives_check(m)]
        return [Step(m) for m in moves]

    def play(self, pos, step):
        move = step.move
        board = ready(pos.board, move)
        ends = self.left(pos) == 1 or board.gives_check(move)     # P1, PS1
        new = board.copy(stack=False)
        new.push(move)
        new.ep_square = None
        # P3: the mover's double steps of this series whose pawn has not moved since
        own = {t for t in (pos.targets if pos.played else ()) if beyond(t) != move.from_square}
        own |= {t for t in [passed(board, move)] if t is not None}
        if not ends:
            new.turn, new.fullmove_number = board.turn, board.fullmove_number
            return Series(new, pos.length, pos.played + 1, pos.quiet, frozenset(own))
        new.fullmove_number = board.fullmove_number + (board.turn == chess.BLACK)   # G2
        # P5: the halfmove clock counts every move (G2), so it is at least the series' length
        # so far exactly when no capture or pawn move came in it
        quiet = pos.quiet + 1 if new.halfmove_clock > pos.played else 0
        return Series(new, pos.length + 1, 0, quiet, frozenset(t for t in own if live(new, t)))

    def goes_on(self, pos):
        """Inside a series with a legal move left (P1, P4)."""
        return pos.played > 0 and bool(self.steps(pos))

    def walked(self, pos):
        """P8: refuse a series with too many moves left; else a counter ``walk(n)`` of the
        positions walked, which refuses past the limit."""
        if self.left(pos) > MOST_MOVES_LISTED:
            raise EngineError(INVALID_REQUEST, f"{self.left(pos)} moves left in the series: a turn "
                                               f"list stops at {MOST_MOVES_LISTED} (P8)")
        walked = [0]

        def walk(n):
            walked[0] += n
            if walked[0] > SERIES_WALK:
                raise EngineError(INVALID_REQUEST, f"more than {SERIES_WALK} positions walked "
                                                   f"listing the series (P8)")
        return walk

    def count_turns(self, pos):
        """As many as ``turns`` lists, refused where it is (P8), without playing the
        series' last moves (P1: each ends it)."""
        walk = self.walked(pos)

        def count(p):
            steps = self.steps(p)
            walk(len(steps))
            if self.left(p) == 1:
                return len(steps)
            # a series that goes on with no legal move left ends there (P4): count(q) is 0
            return sum((count(q) or 1) if q.played else 1 for q in (self.play(p, s) for s in steps))
        return count(pos)

    def turns(self, pos):
        """The ways to finish the series, refused beyond the limits of P8."""
        found, walk = [], self.walked(pos)

        def walk_on(p, line):
            for step in self.steps(p):
                walk(1)
                q = self.play(p, step)
                if self.goes_on(q):
                    walk_on(q, line + [step])
                else:
                    found.append((line + [step], q))

        walk_on(pos, [])
        return found

    def depth_limit(self, turns):
        return PERFT_DEPTH[turns]     # P8

    # The end of the game.

    def status(self, pos, history):
        """P4 inside a series; at its boundary mate (P2, PI1), stalemate (P4), G4, the
        quiet series (P5) and repetition (P6)."""
        steps = self.steps(pos)
        if pos.played:
            return not_over() if steps else game_over("stalemate")
        return no_turn_result(pos, steps, pos.board.is_check()) or self.draws(pos, history)

    def quiet_count(self, pos):
        """P5, P5.1: quiet series, reported as the move-count draws."""
        return (pos.quiet,) + QUIET_SERIES

    def identity(self, pos):
        """P6.1: placement, side to move, castling and the usable targets; not the series."""
        return " ".join(pos.board.fen().split()[:3] + [self.field_4(pos)])

    # FEN.

    def field_4(self, pos) -> str:
        """P6.2: at a boundary the targets a legal first move takes; inside, the own steps."""
        if pos.played:
            return square_list(pos.targets)
        return square_list(usable_targets(pos, self.steps(pos)))

    def fen(self, pos):
        fields = pos.board.fen().split()
        fields[3] = self.field_4(pos)
        return " ".join(fields + [str(pos.length), str(pos.played), str(pos.quiet)])

    def parse_fen(self, text):
        if not isinstance(text, str):
            raise invalid_fen("a FEN must be a string")
        fields = text.split()
        if not 6 <= len(fields) <= 9:
            raise invalid_fen(f"a {self.name} FEN has 6 to 9 fields, not {len(fields)}")
        squares = target_squares(fields[3])
        board = read_board(fields[:3] + ["-"] + fields[4:6])
        numbers = []
        for i, value in enumerate(fields[6:]):
            if not NUMBER.fullmatch(value) or len(value) > MOST_DIGITS:
                raise invalid_fen(f"field {7 + i} must be a whole number of at most {MOST_DIGITS} digits")
            numbers.append(int(value))
        # P6.2: absent fields mean the series the fullmove number gives, none played or quiet
        default = 2 * board.fullmove_number - (board.turn == chess.WHITE)
        length, played, quiet = (numbers + [default, 0, 0][len(numbers):])
        if length < 1 or played >= length:
            raise invalid_fen(f"series of {length} with {played} moves played (P6.2)")
        check_board(board, mid=False)     # the side not to move is never in check (G9, PS1, PI1)
        if played and board.is_check():
            raise invalid_fen("inside a series the mover's king cannot be in check (PI2, P6.2)")
        inside = played > 0
        stepper = board.turn if inside else not board.turn
        for target in squares:
            if chess.square_rank(target) != (2 if stepper == chess.WHITE else 5) \
                    or board.piece_at(beyond(target)) != chess.Piece(chess.PAWN, stepper) \
                    or (not inside and board.piece_at(target) is not None):
                raise invalid_fen(f"en passant square {chess.square_name(target)} does not fit: "
                                  f"{'the mover' if inside else 'the opponent'}'s double step (P6.2)")
        return Series(board, length, played, quiet, frozenset(squares))


def beyond(target: int) -> int:
    """The square of the pawn that passed over ``target`` (ranks 3 and 6)."""
    return target + 8 if chess.square_rank(target) == 2 else target - 8


class ProgressiveScottish(Progressive):
    """A check may come with any move of a series and ends it at once (PS1)."""

    name = "progressive-scottish"


class ProgressiveItalian(Progressive):
    """A check only with the last move of a full series (PI1)."""

    name = "progressive-italian"
    check_before_last = False


VARIANTS = {rules.name: rules for rules in (Chess(), DoubleMove(), DoubleMoveAnul(), Marseillais(),
                                            MarseillaisClassic(), Monster(), ProgressiveScottish(),
                                            ProgressiveItalian())}


# --- the adapter interface (docs/adapter-guide.md) -----------------------------

class PythonChessAdapter:
    def hello(self) -> dict:
        return {"name": "python-chess-adapter", "variants": list(VARIANTS), "ops": list(OPS)}

    def handle(self, request: dict) -> dict:
        if not isinstance(request, dict):
            raise EngineError(INVALID_REQUEST, "a request is a JSON object")
        op = request.get("op")
        if op not in OPS:
            raise EngineError(INVALID_REQUEST, f"unknown op {op!r}")
        variant = request.get("variant", "chess")
        rules = VARIANTS.get(variant)
        if rules is None:
            code = UNSUPPORTED if variant in ALL_VARIANTS else UNKNOWN_VARIANT
            raise EngineError(code, f"variant {variant!r}: this adapter plays {', '.join(VARIANTS)}")
        if op == "perft":   # a depth over the rules' limit is refused before any other work
            depth, by_first_step, turns = perft_request(request)
            limit = rules.depth_limit(turns)
            if limit is not None and depth > limit:
                raise EngineError(INVALID_REQUEST, f"perft depth {depth} by {'turns' if turns else 'moves'}: "
                                                   f"{variant} allows at most {limit}")
        fen = request.get("fen")
        pos = rules.parse_fen(rules.start_fen if fen is None else fen)
        history = []
        for token in tokens(request.get("moves") or []):
            if not rules.goes_on(pos):
                history.append(rules.identity(pos))
            pos = rules.play(pos, rules.parse_step(pos, token))
            if token.endswith(",") and not rules.goes_on(pos):
                raise EngineError(ILLEGAL_MOVE, f"{token!r}: the comma says the turn goes on, "
                                                 f"but that move ends it")
        if op == "moves":
            return {"moves": [s.text() for s in rules.steps(pos)]}
        if op == "turns":
            return {"turns": [",".join(s.move.uci() for s in line) for line, _ in rules.turns(pos)]}
        if op == "play":
            return {"fen": rules.fen(pos), "status": rules.status(pos, history)}
        if op == "status":
            return {"status": rules.status(pos, history)}
        if op == "fen":
            return {"fen": rules.fen(pos)}
        if by_first_step:
            table = rules.divide(pos, depth, turns)
            return {"nodes": sum(table.values()), "divide": table}
        return {"nodes": (rules.perft_turns if turns else rules.perft)(pos, depth)}
