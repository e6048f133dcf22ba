"""Small things a new user met first (issue 24's paper cuts): the rule list says which variants
a rule belongs to and takes --variant, the HTML report shows a refused move of a play case,
and the live progress line keeps the running case's name in sight."""

import io
import re

from doublecheck.cli import main
from doublecheck.harness.html_report import EXTRA_COLOUR, html_report
from doublecheck.progress import Progress


def cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_rule_list_names_each_rules_variants(capsys):
    code, out, _ = cli(capsys, "rules")
    lines = out.splitlines()
    assert code == 0
    assert any(re.fullmatch(r"G7\s+Perft\s+\[all variants\]", line) for line in lines)
    assert any(re.fullmatch(r"M8\s+.+\[marseillais, marseillais-classic\]", line) for line in lines)
    assert all(line.endswith("]") for line in lines)


def test_rules_for_one_variant(capsys):
    code, out, _ = cli(capsys, "rules", "--variant", "double-move")
    ids = [line.split()[0] for line in out.splitlines()]
    assert code == 0 and "D4" in ids and "G7" in ids
    assert not [i for i in ids if i.startswith(("M", "S", "DC-", "A"))]
    code, out, _ = cli(capsys, "rules", "G7", "--variant", "chess", "--cases")
    cases = [line.strip() for line in out.split("Cases (")[1].splitlines()[1:]]
    assert code == 0 and cases and all(c.startswith("chess/") for c in cases)
    code, _, err = cli(capsys, "rules", "--variant", "shogi")
    assert code == 2 and err.startswith("error: unknown-variant: ")


def test_the_html_board_of_a_refused_play_move_has_a_caption_and_the_move():
    result = {"id": "chess/demo/play", "variant": "chess", "outcome": "failed",
              "request": {"op": "play", "moves": ["e2e4", "e7e5", "g1f3"]},
              "expect": {"fen": "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"},
              "answer": {"ok": False, "error": {"code": "illegal-move",
                                                "message": "'g1f3' is not a legal move here"}},
              "lines": ["error: expected a result, got illegal-move"]}
    page = html_report([result])
    assert ("board: the position before move 3 of the request, g1f3 (the dashed arrow), which "
            "the engine refused (illegal-move: &#x27;g1f3&#x27; is not a legal move here)") in page
    assert "chess/demo/play: rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq" in page
    assert EXTRA_COLOUR in page.split("<svg", 1)[1]   # the refused move, drawn


def test_the_board_of_a_play_case_says_which_position_it_is():
    result = {"id": "chess/demo/play", "variant": "chess", "outcome": "failed",
              "request": {"op": "play", "moves": ["e2e4"]}, "expect": {"fen": "x"},
              "answer": {"ok": True, "fen": "y"}, "lines": []}
    assert "board: the position after the request&#x27;s moves" in html_report([result])


def test_the_live_line_shortens_everything_else_before_the_case_name():
    clock = [100.0]
    progress = Progress("doublecheck run", 2026, "cases", "failed or errored", stream=io.StringIO(),
                        clock=lambda: clock[0])
    name = "marseillais-classic/generated-perft/start-turns-2"
    progress.start(name)
    progress.start("chess/fen/other")
    clock[0] = 131
    assert progress.fitted(300) == progress.line()
    for width in (79, 60, len(name)):
        text = progress.fitted(width)
        assert len(text) <= width and name in text
    assert progress.fitted(30) == "..." + name[-27:]
