"""The plugins page's worked example of a turn that is not one move runs as written.

docs/plugins.md ("The turn machine") holds a complete rules class, black-twice
(Black plays two moves a turn unless move one captures, checks or leaves no move
two; Black has no castling), and a session with the answers the tools give it.
The class is executed from the page and the session checked as a doctest, so
the page cannot drift from the code it teaches.  The tests below then ask the
rules desk and the coverage matrix's hook of the same class, as the page says
they read it.
"""

import doctest
import re
from pathlib import Path

import pytest

from doublecheck.desk import ops
from doublecheck.oracle import api, variants
from doublecheck.oracle.errors import RulesError

DOC = Path(__file__).resolve().parent.parent / "docs" / "plugins.md"
TEXT = DOC.read_text(encoding="utf-8")


def block_after(marker: str) -> str:
    """The fenced block that follows an HTML comment starting with ``marker``."""
    found = re.search(re.escape(marker) + r"[^\n]*\n```[a-z]*\n(.*?)^```", TEXT, re.S | re.M)
    assert found, f"docs/plugins.md has no block after {marker!r}"
    return found.group(1)


def example() -> dict:
    """The names the page's class block defines, run as a module of its own."""
    namespace = {"__name__": "black_twice"}
    exec(compile(block_after("<!-- turn machine example"), str(DOC), "exec"), namespace)
    return namespace


BlackTwice = example()["BlackTwice"]


def test_the_session_on_the_page_gives_the_answers_it_shows():
    session = block_after("<!-- turn machine session")
    test = doctest.DocTestParser().get_doctest(session, example(), "plugins.md: the turn machine",
                                               str(DOC), 0)
    out = []
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test, out=out.append)
    assert runner.failures == 0, "".join(out)
    assert runner.tries >= 10


def test_the_turn_machine_plays_the_rules_it_states():
    rules = BlackTwice()
    line = api.replay(rules, moves=["e4", "e5,Nf6", "Nf3"])
    assert rules.fen(line.final) == "rnbqkb1r/pppp1ppp/5n2/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQ - 2 2 -"
    # BT2: a capture on move one is the whole turn; White moves next
    line = api.replay(rules, moves=["e4", "d5,Nc6", "exd5", "Qxd5"])
    assert line.final.turn == "w" and line.steps[-1].ends_turn
    assert [len(rules.turns(line.final)[0][0]), rules.mid_turn(line.final)] == [1, False]
    with pytest.raises(RulesError) as refused:
        api.replay(rules, moves=["e4", "d5,Nc6", "exd5", "Qxd5,Qe6"])
    assert refused.value.message == ("'Qxd5,': Qxd5 ends the turn (move 1 captures), so no move of "
                                     "this turn may follow it (BT2)")
    # one move a turn for White; the comma rule in the class's own words
    with pytest.raises(RulesError) as refused:
        api.replay(rules, moves=["e4,"])
    assert refused.value.message == ("'e4,': e4 ends the turn (White's turn is one move), so no "
                                     "move of this turn may follow it (BT1)")
    # a FEN between Black's moves is read and written back; one with White to move is not
    mid = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR b KQ - 0 1 m"
    assert api.replay(rules, mid).final.state == "m"
    with pytest.raises(RulesError) as refused:
        api.replay(rules, mid.replace(" b ", " w "))
    assert refused.value.code == "invalid-fen"


def test_the_matrix_hook_is_worked_out_from_the_castlings_and_the_turn_shapes():
    assert BlackTwice().colour_lacks() == {
        "castling": {"b": "Black has no castling in black-twice"},
        "second-move": {"w": "every White turn in black-twice is a single move"},
    }


@pytest.fixture
def desk_knows_the_example(monkeypatch):
    """The desk's operations find the example by its id, as they would an installed plugin's."""
    real = variants.get
    monkeypatch.setattr(variants, "get", lambda name, options=None:
                        BlackTwice(options) if name == "black-twice" else real(name, options))


def test_the_desk_draws_the_turn_from_the_hooks(desk_knows_the_example):
    answer = ops.position({"variant": "black-twice", "moves": ["e4", "e5", "Nc6", "d4", "exd4"]})
    assert answer["side_actions"] == {"white": ["Move"], "black": ["Move 1", "Move 2"]}
    black = [(t["actions"], t["slots"]) for t in answer["line"] if t["side"] == "black"]
    assert black == [(["e5", "Nc6"], ["Move 1", "Move 2"]), (["exd4"], ["Move 1", "Move 2"])]
    assert [s["state"] for s in answer["turn"]["slots"]] == ["next"]      # White's one-move turn
    mid = ops.position({"variant": "black-twice", "moves": ["e4", "e5"]})
    assert [s["state"] for s in mid["turn"]["slots"]] == ["played", "next"]
    assert mid["turn"]["slots"][0]["san"] == "e5"


def test_the_desk_marks_a_black_turn_cut_short_with_its_reason(desk_knows_the_example):
    answer = ops.position({"variant": "black-twice", "moves": ["e4", "d5,Nc6", "exd5", "Qxd5"]})
    short = answer["line"][-1]
    assert short["side"] == "black" and short["actions"] == ["Qxd5"] and short["complete"]
    assert short["end"]["rule"] == "BT2" and short["end"]["words"] == "move 1 Qxd5 captures"
    refused = ops.explain({"variant": "black-twice", "moves": ["e4", "d5,Nc6", "exd5"],
                           "turn": "Qxd5,Qe6"})
    assert refused["legal"] is False and refused["rule"] == "BT2"
