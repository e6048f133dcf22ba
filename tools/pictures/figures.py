"""The chess figures every board picture draws, read from their one home.

The drawings live in ``doublecheck/desk/static/figures.svg`` (the rules desk
serves the same file to its page): one group per figure, ``K Q R B N P``, on a
100 x 100 grid.  Each group holds paths of three classes: ``shape`` (filled in
the piece's colour and outlined), ``line`` (a detail line) and ``dot`` (a
detail spot), both in the contrasting colour, drawn in file order.

A double-piece (symmetric-monster) is the same figure drawn twice, one copy
behind and above the other, so it reads as a pair at a glance.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from functools import lru_cache
from importlib import resources

from doublecheck.casefiles import DataError
from doublecheck.oracle.errors import FIGURES_NOT_FOUND

LETTERS = "KQRBNP"
GRID = 100
NS = "{http://www.w3.org/2000/svg}"
# (fill, outline, detail) per colour
INKS = {"white": ("#fbfaf5", "#1d1d1f", "#1d1d1f"), "black": ("#2b2b30", "#111114", "#ece9e0")}
OUTLINE, DETAIL = 3.4, 2.8        # stroke widths on the 100-grid
SINGLE, DOUBLE = 0.92, 0.78       # figure size as a share of the square
DOUBLE_SHIFT = 0.11               # how far each copy of a doubled figure sits off centre


@lru_cache(maxsize=1)
def drawings() -> dict:
    """{letter: ((class, path data), ...)} from figures.svg; DataError(figures-not-found)
    when the file is missing or unreadable (a damaged install)."""
    try:
        text = (resources.files("doublecheck.desk") / "static" / "figures.svg").read_text("utf-8")
        root = ET.fromstring(text)
    except (OSError, ET.ParseError, UnicodeDecodeError) as e:
        raise DataError(FIGURES_NOT_FOUND, f"cannot read the chess figures (doublecheck/desk/static/"
                                           f"figures.svg): {e}; reinstall doublecheck-chess") from None
    found = {}
    for group in root.iter(f"{NS}g"):
        letter = group.get("id")
        if letter in LETTERS:
            found[letter] = tuple((p.get("class"), p.get("d")) for p in group.iter(f"{NS}path"))
    missing = [letter for letter in LETTERS if not found.get(letter)]
    if missing:
        raise DataError(FIGURES_NOT_FOUND, f"figures.svg has no drawing for {', '.join(missing)}: "
                                           f"a damaged install; reinstall doublecheck-chess")
    return found


def figure_paths(letter: str, colour: str) -> str:
    """The paths of one figure on the 100-grid, coloured for ``colour`` ("white"/"black")."""
    fill, edge, detail = INKS[colour]
    style = {"shape": f'fill="{fill}" stroke="{edge}" stroke-width="{OUTLINE}" stroke-linejoin="round"',
             "line": f'fill="none" stroke="{detail}" stroke-width="{DETAIL}" stroke-linecap="round"',
             "dot": f'fill="{detail}"'}
    return "".join(f'<path d="{d}" {style[kind]}/>' for kind, d in drawings()[letter])


def piece_figure(piece: str, x: float, y: float, size: float) -> str:
    """SVG markup of ``piece`` (``N``, ``n``, ``*P``) filling the square at (x, y)."""
    letter, colour = piece[-1].upper(), "white" if piece[-1].isupper() else "black"
    paths = figure_paths(letter, colour)
    if not piece.startswith("*"):
        return _placed(paths, x, y, size, SINGLE, 0, 0)
    shift = size * DOUBLE_SHIFT
    return (_placed(paths, x, y, size, DOUBLE, shift, -shift)
            + _placed(paths, x, y, size, DOUBLE, -shift, shift * 0.8))


def _placed(paths: str, x, y, size, share, dx, dy) -> str:
    scale = size * share / GRID
    left = x + (size - size * share) / 2 + dx
    top = y + (size - size * share) / 2 + dy
    return f'<g transform="translate({left:.1f} {top:.1f}) scale({scale:.3f})">{paths}</g>'


def page_figures() -> dict:
    """Each piece (``K``, ``k``, ``*K``, ...) as a small SVG picture of its own, for a page's
    buttons and legends (the rules desk gets them in its ``hello`` answer)."""
    pieces = [p for letter in LETTERS for p in (letter, letter.lower())]
    return {p: (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {GRID} {GRID}" '
                f'class="figure" aria-hidden="true">{piece_figure(p, 0, 0, GRID)}</svg>')
            for p in pieces + ["*" + p for p in pieces]}
