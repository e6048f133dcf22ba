"""Board pictures as SVG, for every board shape of every variant.

Squares that a board does not have (the corners of symmetric-monster's
ranks 0 and 9) are simply not drawn.  Every square and every piece carries
its square name (``data-square``), so a page can tell which one was clicked,
and an accessible name (``aria-label``: ``white knight on g1``, ``e0, extra
square, empty``).  Pieces are the project's chess figures (``figures.py``,
read from the one drawing file the rules desk serves too): light for White,
dark for Black; a double-piece is its figure drawn twice.  Moves are drawn as arrows, optionally numbered (the halves of a
turn), in any colour; a drop is a dashed circle on its square.

No fonts beyond a generic sans-serif (for the coordinates) are needed, and the output has no
scripts and no external references, so it can be inlined in HTML.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html import escape

from doublecheck.oracle import api, variants
from doublecheck.pictures.figures import piece_figure
from doublecheck.oracle.errors import RulesError
from doublecheck.oracle.explain import piece_name
from doublecheck.oracle.notation import turn_moves
from doublecheck.oracle.position import WHITE

SQUARE = 48
MARGIN = 22
LIGHT, DARK = "#efe6d2", "#b08a63"
MARK = "#f2c500"   # the squares of the last move played
TURN_COLOURS = ("#1f6fd1", "#d1681f", "#7a3fc4")
CHESS_RANKS = range(1, 9)
RAW_MOVE = re.compile(r"([a-p]\d)([a-p]\d)[qrbnQRBN]?|\*?([KQRBNP])@([a-p]\d)")


@dataclass
class Arrow:
    """A move to draw: from-square name (None for a drop), to-square name, colour, label."""

    frm: str | None
    to: str
    colour: str = TURN_COLOURS[0]
    label: str | None = None
    dashed: bool = False


def raw_arrows(rules, token: str, colour: str, numbered: bool = False, dashed: bool = False):
    """Arrows for move text in coordinates (``e2e4``, ``K@e0``, a turn ``g3g8,g8h7``)
    without asking whether it is legal; squares the board lacks are left out."""
    out = []
    parts, _ = turn_moves(token, strict=False)
    for i, part in enumerate(parts, 1):
        m = RAW_MOVE.fullmatch(part)
        if not m:
            continue
        frm, to = (m[1], m[2]) if m[1] else (None, m[4])
        if to not in rules.geometry.index or (frm and frm not in rules.geometry.index):
            continue
        label = str(i) if numbered and len(parts) > 1 else None
        out.append(Arrow(frm, to, colour, label, dashed))
    return out


def turn_arrows(rules, pos, text: str, colours=TURN_COLOURS):
    """Numbered arrows for a turn (SAN or coordinates, halves joined by commas).

    The turn is read through the rules, so SAN works; a turn the rules refuse
    is still drawn when it is written in coordinates.  Raises RulesError when
    it can be read neither way.
    """
    parts, _ = turn_moves(text)
    arrows, line = [], api.Line(rules, pos)
    try:
        for i, part in enumerate(parts):
            token = part + ("," if rules.comma_marks_double and i < len(parts) - 1 else "")
            move = line.play(token).move
            frm = rules.geometry.name[move.frm] if move.frm is not None else None
            label = str(i + 1) if len(parts) > 1 else None
            arrows.append(Arrow(frm, rules.geometry.name[move.to], colours[i % len(colours)], label))
        return arrows
    except RulesError as e:
        raw = raw_arrows(rules, ",".join(parts), colours[0], numbered=True)
        if raw and len(raw) == len(parts):
            for i, a in enumerate(raw):
                a.colour = colours[i % len(colours)]
            return raw
        raise RulesError(e.code, f"cannot draw {text!r}: {e.message} (a turn the rules refuse "
                                 f"is drawn only when written in coordinates)") from None


def square_words(rules, pos, sq) -> str:
    """The accessible name of a square: ``white knight on g1``, ``e0, extra square, empty``."""
    g = rules.geometry
    # The extra squares are those beyond chess's eight ranks (symmetric-monster's c0-f0, c9-f9, S1).
    extra = ", extra square" if g.rank[sq] not in CHESS_RANKS else ""
    piece = pos.board[sq]
    if piece is None:
        return f"{g.name[sq]}{extra}, empty"
    colour = "white" if piece[-1].isupper() else "black"
    return f"{colour} {piece_name(piece)} on {g.name[sq]}{extra}"


def caption_lines(rules, pos) -> list[str]:
    who = "White" if pos.turn == WHITE else "Black"
    fields = rules.fen(pos).split()
    first = f"{who} to move · castling {fields[2]} · en passant {fields[3]}"
    extra = [f"{name}: {value}" for name, value in zip(rules.extra_fields, fields[6:])]
    lines = [first]
    if extra:
        lines.append(" · ".join(extra))
    if rules.double_pieces:
        lines.append("doubled figure = double-piece (the double-king too)")
    return lines


def position_svg(rules, pos, arrows=(), title: str | None = None, caption: bool = True,
                 square: int = SQUARE, flipped: bool = False, marked=()) -> str:
    """The SVG text of ``pos`` with ``arrows`` drawn over it; ``flipped`` draws it from
    Black's side (the top rank at the bottom, the files from right to left); the squares
    named in ``marked`` (the last move's) are shaded."""
    g = rules.geometry
    s, m = square, MARGIN
    width = m + g.width * s + m // 2
    lines = caption_lines(rules, pos) if caption else []
    board_h = g.height * s
    height = m // 2 + board_h + m + 16 * len(lines) + (6 if lines else 0)
    top_rank = g.ranks[-1]

    def column(file):
        return g.width - 1 - file if flipped else file

    def row(rank):
        return rank - g.ranks[0] if flipped else top_rank - rank

    def xy(sq):
        return m + column(g.file[sq]) * s, m // 2 + row(g.rank[sq]) * s

    def centre(name):
        x, y = xy(g.index[name])
        return x + s / 2, y + s / 2

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
           f'width="{width}" height="{height}" font-family="sans-serif" role="img">']
    label = title or f"{rules.name}: {rules.fen(pos)}"
    out.append(f"<title>{escape(label)}</title>")
    colours = sorted({a.colour for a in arrows})
    if colours:
        out.append("<defs>")
        for c in colours:
            out.append(f'<marker id="head-{_cid(c)}" viewBox="0 0 10 10" refX="5" refY="5" '
                       f'markerWidth="3.2" markerHeight="3.2" orient="auto-start-reverse">'
                       f'<path d="M0,0 L10,5 L0,10 z" fill="{c}"/></marker>')
        out.append("</defs>")
    out.append(f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>')
    # squares
    for sq in g.squares:
        x, y = xy(sq)
        fill = LIGHT if g.is_light(sq) else DARK
        out.append(f'<rect class="square" data-square="{g.name[sq]}" '
                   f'aria-label="{square_words(rules, pos, sq)}" x="{x}" y="{y}" '
                   f'width="{s}" height="{s}" fill="{fill}"/>')
    for name in marked:
        x, y = xy(g.index[name])
        out.append(f'<rect class="last-move" data-square="{name}" x="{x}" y="{y}" width="{s}" '
                   f'height="{s}" fill="{MARK}" opacity="0.45"/>')
    # coordinates
    for f in range(g.width):
        x = m + column(f) * s + s / 2
        out.append(f'<text x="{x}" y="{m // 2 + board_h + 15}" font-size="12" '
                   f'text-anchor="middle" fill="#444">{"abcdefghijklmnop"[f]}</text>')
    for rank in g.ranks:
        y = m // 2 + row(rank) * s + s / 2 + 4
        out.append(f'<text x="{m / 2}" y="{y}" font-size="12" text-anchor="middle" '
                   f'fill="#444">{rank}</text>')
    # pieces
    for sq in g.squares:
        piece = pos.board[sq]
        if piece is None:
            continue
        x, y = xy(sq)
        out.append(f'<g class="piece" data-square="{g.name[sq]}" data-piece="{escape(piece)}" '
                   f'aria-label="{square_words(rules, pos, sq)}">'
                   f'<title>{square_words(rules, pos, sq)}</title>')
        out.append(piece_figure(piece, x, y, s))
        out.append("</g>")
    # arrows
    for a in arrows:
        if a.to not in g.index:
            continue
        tx, ty = centre(a.to)
        dash = ' stroke-dasharray="6,4"' if a.dashed else ""
        if a.frm is None or a.frm not in g.index:
            out.append(f'<circle class="arrow" cx="{tx}" cy="{ty}" r="{s * 0.42:.1f}" fill="none" '
                       f'stroke="{a.colour}" stroke-width="{s * 0.08:.1f}" stroke-dasharray="5,3" '
                       f'opacity="0.85"/>')
            lx, ly = tx - s * 0.3, ty - s * 0.3
        else:
            fx, fy = centre(a.frm)
            dx, dy = tx - fx, ty - fy
            length = (dx * dx + dy * dy) ** 0.5 or 1
            ex, ey = tx - dx / length * s * 0.18, ty - dy / length * s * 0.18
            out.append(f'<line class="arrow" x1="{fx:.1f}" y1="{fy:.1f}" x2="{ex:.1f}" '
                       f'y2="{ey:.1f}" stroke="{a.colour}" stroke-width="{s * 0.11:.1f}" '
                       f'stroke-linecap="round" opacity="0.8"{dash} '
                       f'marker-end="url(#head-{_cid(a.colour)})"/>')
            lx, ly = fx + dx / length * s * 0.3, fy + dy / length * s * 0.3
        if a.label:
            out.append(f'<circle cx="{lx:.1f}" cy="{ly:.1f}" r="{s * 0.17:.1f}" fill="{a.colour}" '
                       f'stroke="#ffffff" stroke-width="1.5"/>')
            out.append(f'<text x="{lx:.1f}" y="{ly + s * 0.08:.1f}" font-size="{s * 0.22:.0f}" '
                       f'font-weight="bold" text-anchor="middle" fill="#ffffff">'
                       f'{escape(a.label)}</text>')
    # caption
    y = m // 2 + board_h + m + 12
    for line in lines:
        out.append(f'<text x="{m}" y="{y}" font-size="12" fill="#222">{escape(line)}</text>')
        y += 16
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _cid(colour: str) -> str:
    return re.sub(r"[^0-9a-zA-Z]", "", colour)


def svg_for(variant, fen=None, moves=None, turn: str | None = None,
            title: str | None = None) -> str:
    """The position after ``moves`` from ``fen`` (default: the start), with ``turn`` as arrows."""
    rules = variants.rules_of(variant)
    pos = api.replay(rules, fen, moves).final
    arrows = turn_arrows(rules, pos, turn) if turn else []
    return position_svg(rules, pos, arrows, title=title)
