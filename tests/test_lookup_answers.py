"""The lookups answer a fixed set of questions exactly as they did when the answers were recorded.

tests/data/lookup_answers.json holds command lines (show, explain, grouped
turns, status, play, PGN, perft, fen, svg, and a few bad inputs) with the
exit status, stdout and stderr the command line gave for each when they were
recorded.  Each one is run through ``doublecheck.cli.main`` in this process
and compared character for character: a change in wording, a rule id, a
count or an error code shows here.  The one part allowed to move is the list
of known variants in an error message, which grows with the registry.  (The
SVG answers were re-recorded once, when the board's squares gained the
``class="square"`` and ``data-square`` attributes the rules desk clicks on,
and once more, deliberately, when the pieces became chess figures from the
project's own drawings with accessible names (``aria-label``) instead of
lettered discs; nothing else in the answers changed either time.)
"""

import contextlib
import io
import json
from pathlib import Path

import pytest

from doublecheck.cli import main
from doublecheck.oracle.variants import VARIANT_NAMES

DATA = Path(__file__).resolve().parent / "data" / "lookup_answers.json"
RECORDED = json.loads(DATA.read_text(encoding="utf-8"))
QUESTIONS = RECORDED["questions"]
KNOWN_THEN, KNOWN_NOW = ", ".join(RECORDED["variants"]), ", ".join(VARIANT_NAMES)


@pytest.fixture(autouse=True)
def no_progress_lines(monkeypatch):
    """A long perft prints a progress line to stderr every 10 s of wall time (progress.py), so on a
    loaded machine stderr would depend on the clock.  The recorded answers are what the commands
    say, never how long they took: interval 0 turns those lines off outside a terminal."""
    monkeypatch.setenv("DOUBLECHECK_PROGRESS_INTERVAL", "0")


def run(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue(), err.getvalue()


def test_the_recorded_set_is_not_empty():
    assert len(QUESTIONS) == 66
    kinds = {q["argv"][0] for q in QUESTIONS}
    assert {"show", "explain", "turns", "status", "play", "svg"} <= kinds


@pytest.mark.parametrize("question", QUESTIONS, ids=[" ".join(q["argv"])[:80] for q in QUESTIONS])
def test_answer_unchanged(question):
    status, out, err = run(question["argv"])
    assert err == question["stderr"].replace(KNOWN_THEN, KNOWN_NOW)
    assert out == question["stdout"].replace(KNOWN_THEN, KNOWN_NOW)
    assert status == question["exit"]
