"""Forsyth-Edwards Notation for every board shape (ruling G9).

Fields 1-6 are the usual ones.  Ranks are listed from the top; each rank
string covers only the squares that exist on that rank, and a run of empty
squares may take two digits (``16`` on the 16-file board).  Variant state
goes in fields 7 and up, read and written by the variant itself.
"""

import re

from doublecheck.oracle.errors import INVALID_FEN, RulesError, quote
from doublecheck.oracle.request_limits import MAX_FEN_LENGTH, MAX_FEN_NUMBER_DIGITS
from doublecheck.oracle.position import BLACK, WHITE, Position, other

PIECE_LETTERS = "PNBRQKpnbrqk"


def bad(message):
    return RulesError(INVALID_FEN, message)


def parse(rules, text) -> Position:
    if not isinstance(text, str):
        raise bad(f"a FEN must be a string, not {type(text).__name__}")
    fields = split_fields(text)
    if len(fields) < 6:
        raise bad(f"a FEN needs at least 6 space-separated fields; found {len(fields)} in {quote(text)}")
    if len(fields) > 6 + len(rules.extra_fields):
        raise bad(f"{rules.name} FEN has at most {6 + len(rules.extra_fields)} fields; found {len(fields)}")
    placement, turn, castling, ep, halfmove, fullmove = fields[:6]
    board = parse_placement(rules, placement)
    if turn not in (WHITE, BLACK):
        raise bad(f"side to move must be 'w' or 'b', not {quote(turn)}")
    pos = Position(
        board=board,
        turn=turn,
        castling=parse_castling(rules, castling),
        ep=parse_ep(rules, ep),
        halfmove=parse_number(halfmove, "halfmove clock", 0),
        fullmove=parse_number(fullmove, "fullmove number", 1),
    )
    pos = pos.replace(state=rules.parse_state(fields[6:], pos))
    rules.validate(pos)
    return pos


def split_fields(text):
    """The fields of a FEN, checked before anything else is read: ASCII text of at
    most MAX_FEN_LENGTH characters, fields separated by (one or more) ASCII spaces."""
    if len(text) > MAX_FEN_LENGTH:
        raise bad(f"a FEN has at most {MAX_FEN_LENGTH} characters, not {quote(text, 40)}")
    if not text.isascii() or not text.isprintable():
        at, ch = next((i, c) for i, c in enumerate(text) if not (c.isascii() and c.isprintable()))
        what = "a space other than the ASCII space" if ch.isspace() else \
            "not ASCII" if not ch.isascii() else "a control character"
        raise bad(f"character {at + 1} of the FEN, {ch!r} (U+{ord(ch):04X}), is {what}: a FEN is "
                  f"printable ASCII text whose fields are separated by spaces")
    return [field for field in text.split(" ") if field]


def parse_placement(rules, placement):
    g = rules.geometry
    rows = placement.split("/")
    if len(rows) != g.height:
        raise bad(f"piece placement needs {g.height} ranks separated by '/'; found {len(rows)}")
    board = [None] * g.size
    for row, rank in zip(rows, reversed(g.ranks)):
        squares = g.rank_squares(rank)
        filled = []
        for token in re.findall(r"\d+|\*?.", row):
            if token.isdigit():
                if token.startswith("0"):
                    raise bad(f"rank {rank}: empty-square count {quote(token)} may not start with 0")
                if len(token) > len(str(len(squares))) or len(filled) + int(token) > len(squares):
                    raise bad(f"rank {rank} ({quote(row)}) describes more than its {len(squares)} squares")
                filled.extend([None] * int(token))
            elif token.lstrip("*") in PIECE_LETTERS and len(token.lstrip("*")) == 1:
                if token.startswith("*") and not rules.double_pieces:
                    raise bad(f"rank {rank}: {quote(token)}: {rules.name} has no double-pieces")
                filled.append(token)
            else:
                raise bad(f"rank {rank}: {quote(token)} is not a piece letter or a digit")
        if len(filled) != len(squares):
            raise bad(f"rank {rank} ({quote(row)}) describes {len(filled)} squares; it has {len(squares)}")
        for sq, piece in zip(squares, filled):
            board[sq] = piece
    return tuple(board)


def parse_castling(rules, text):
    if text == "-":
        return frozenset()
    by_letter = {r.letter: r.rook_from for r in rules.castle_rules}
    rights = set()
    for ch in text:
        if ch not in by_letter:
            known = "".join(r.letter for r in rules.castle_rules)
            raise bad(f"castling field {quote(text)}: {ch!r} is not one of {known!r} or '-'")
        if by_letter[ch] in rights:
            raise bad(f"castling field {quote(text)} repeats {ch!r}")
        rights.add(by_letter[ch])
    return frozenset(rights)


def parse_ep(rules, text):
    """Field 4, read by the variant's hook ``rules.parse_ep_field`` (the default,
    ``parse_ep_square``, takes '-' or one square; marseillais takes up to two, M7).
    The value goes to ``Position.ep``."""
    return rules.parse_ep_field(text)


def parse_ep_square(rules, text):
    """The usual field 4: '-' (None) or one square of the board."""
    if text == "-":
        return None
    sq = rules.geometry.index.get(text)
    if sq is None:
        raise bad(f"en passant field {quote(text)} is not '-' or a square of this board")
    return sq


def parse_number(text, what, least):
    if not text.isdigit() or len(text) > MAX_FEN_NUMBER_DIGITS or int(text) < least:
        raise bad(f"{what} must be a whole number >= {least} of at most {MAX_FEN_NUMBER_DIGITS} "
                  f"digits, not {quote(text)}")
    return int(text)


def validate_pawns_and_rights(rules, pos, pawn_name=lambda piece: "a pawn"):
    """No pawn on a rank it may not stand on (``pawn_name(piece)`` names it in the error),
    and castling rights and the en passant field that fit the board (G9)."""
    g, board = rules.geometry, pos.board
    for sq in g.squares:
        piece = board[sq]
        if piece is not None and piece[-1] in "Pp" and not rules.pawn_rank_ok(piece, g.rank[sq]):
            raise bad(f"{pawn_name(piece)} cannot stand on {g.name[sq]}")
    validate_castling(rules, pos)
    validate_ep(rules, pos)


def validate_standard(rules, pos):
    """The checks every check-based variant shares (G9)."""
    board = pos.board
    for color, king in ((WHITE, "K"), (BLACK, "k")):
        n = board.count(king)
        if n == 0 and color == pos.turn and rules.king_taken(pos):
            continue   # kings may be captured (OPT-king-safety): the game ended with this one
        if n != 1:
            raise bad(f"{'White' if color == WHITE else 'Black'} must have exactly one king; found {n}")
    validate_pawns_and_rights(rules, pos)
    if not rules.mid_turn(pos) and rules.in_check(pos, other(pos.turn)):
        raise bad("the side not to move is in check")


def validate_castling(rules, pos):
    for rook_sq in pos.castling:
        rule = rules.castle_by_rook[rook_sq]
        king, rook = ("K", "R") if rule.color == WHITE else ("k", "r")
        if pos.board[rule.king_from] != king or pos.board[rook_sq] != rook:
            raise bad(f"castling right {rule.letter!r} needs the king on "
                      f"{rules.geometry.name[rule.king_from]} and a rook on {rules.geometry.name[rook_sq]}")


def validate_ep(rules, pos):
    """An en passant square must sit just behind a pawn that could have stepped two squares."""
    if pos.ep is None:
        return
    g, board = rules.geometry, pos.board
    mover = other(pos.turn)  # the side that made the double step
    step = rules.forward[mover]
    file, rank = g.file[pos.ep], g.rank[pos.ep]
    start, landed = g.square(file, rank - step), g.square(file, rank + step)
    pawn = "P" if mover == WHITE else "p"
    if (rank - step != rules.pawn_start_rank[mover] or board[pos.ep] is not None
            or start is None or board[start] is not None or landed is None or board[landed] != pawn):
        raise bad(f"en passant square {g.name[pos.ep]} does not follow a two-square pawn step")


def write(rules, pos) -> str:
    g = rules.geometry
    rows = []
    for rank in reversed(g.ranks):
        row, empty = "", 0
        for sq in g.rank_squares(rank):
            piece = pos.board[sq]
            if piece is None:
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            row += piece
        rows.append(row + (str(empty) if empty else ""))
    castling = "".join(r.letter for r in sorted_rules(rules) if r.rook_from in pos.castling) or "-"
    fields = ["/".join(rows), pos.turn, castling, rules.format_ep_field(pos),
              str(pos.halfmove), str(pos.fullmove)]
    return " ".join(fields + rules.format_state(pos))


def format_ep_square(rules, pos) -> str:
    """The usual field 4 on output: the en passant square only when an en passant
    capture is legal (G9), else '-'.  Variants may write field 4 their own way
    (``rules.format_ep_field``)."""
    ep = rules.legal_ep(pos)
    return rules.geometry.name[ep] if ep is not None else "-"


def sorted_rules(rules):
    """Castling letters in canonical order: White's before Black's, then as the variant lists them."""
    return sorted(rules.castle_rules, key=lambda r: (r.color != WHITE, rules.castle_rules.index(r)))
