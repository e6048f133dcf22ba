"""A refusal is worded once: the error of a refused move and ``explain`` give the same reason.

``api.Line.try_play`` is the one stepping function: ``play``, ``replay``, PGN
replay, the desk, ``explain`` and the harness's SAN writer all step through it.
A refused token's reason and rule id come from the rules' explanation hooks
(``doublecheck.oracle.explain``), and the RulesError of ``play`` is worded from
that same reason, so a fix to a rule's wording shows in both at once.  The
trailing-comma rule (G8) is judged by ``try_play`` alone, in each variant's
``why_comma`` words; castling refusals are worded by ``why_no_castling`` and
offer the side to move only its own castlings (``own_castlings``).
"""

import pytest

from doublecheck.lookups.lookup import explain
from doublecheck.oracle import api, variants
from doublecheck.oracle.chess import Chess
from doublecheck.oracle.errors import RulesError
from doublecheck.oracle.explain import Refusal
from doublecheck.oracle.position import BLACK, WHITE


def play_error(variant, fen=None, moves=()) -> RulesError:
    with pytest.raises(RulesError) as refused:
        api.handle({"op": "play", "variant": variant, "fen": fen, "moves": list(moves)})
    return refused.value


def said(result) -> str:
    """An explanation's reason without the move's label: the refusal's own words."""
    label = result["moves"][result["refused"] - 1]["text"]
    assert result["reason"].startswith(f"{label}: ")
    return result["reason"][len(label) + 2:]


# (variant, FEN or None, moves played first, the refused token, the rule explain cites)
REFUSED = [
    ("chess", None, [], "e2e5", "FIDE-3.7.1"),
    ("chess", "r3k2r/8/8/8/8/8/5q2/R3K2R w KQkq - 0 1", [], "O-O", "FIDE-3.8.2.2"),
    ("chess", None, [], "e2e4,", "G8"),
    ("double-move", "4r1k1/8/8/8/8/8/4B3/4K3 w - - 0 1 WB", [], "e2d3,", "DM-every-half-legal"),
    ("double-move", "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1 -B", [], "e2e4,", "DM-ability"),
    ("double-move-anul", None, ["e2e4"], "e7e5", "G8.1"),
    ("double-move-anul", "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1", [], "Ra8+,", "A1"),
    ("double-chess", "r4r2k6r/16/16/16/16/16/16/R7K6R w APap - 0 1", [], "O-O-O-O-O", "C3"),
    ("symmetric-monster", None, [], "K@e4", "S8"),
    ("marseillais", None, [], "e2e4,", "M8"),
    ("monster", None, [], "O-O", "MO7"),
    ("monster", None, ["e2e4,e4e5", "f7f6", "e1e2,e5f6"], "a7a6", "MO4"),
    ("progressive-italian", "4k3/8/8/8/8/8/8/R3K3 w - - 0 1 3 0 0", [], "Ra8", "PI1"),
    ("progressive-scottish", None, [], "e2e4,", "P7"),
]


@pytest.mark.parametrize("variant, fen, moves, token, rule", REFUSED,
                         ids=[f"{r[0]}-{r[3]}" for r in REFUSED])
def test_the_error_says_what_explain_says(variant, fen, moves, token, rule):
    result = explain(variant, fen=fen, moves=list(moves) or None, move=token)
    assert result["legal"] is False and result["rule"] == rule, result["reason"]
    error = play_error(variant, fen, list(moves) + [token])
    assert error.code == result["code"] == "illegal-move"
    assert error.message.endswith(said(result)), (error.message, result["reason"])


@pytest.mark.parametrize("variant", variants.VARIANT_NAMES)
def test_every_refusal_of_a_start_move_is_worded_alike(variant):
    """For a spread of from/to pairs at the start, every refused one's error ends with
    explain's words for it (never a second wording of its own)."""
    rules = variants.get(variant)
    names = [rules.geometry.name[s] for s in rules.geometry.squares]
    checked = 0
    for a in names[::5]:
        for b in names[2::7]:
            result = explain(variant, move=a + b)
            if result["legal"] or result["code"] != "illegal-move":
                continue
            assert play_error(variant, moves=[a + b]).message.endswith(said(result))
            checked += 1
    assert checked > 20


def test_try_play_gives_the_step_or_the_refusal_and_keeps_the_line():
    rules = variants.get("double-move-anul")
    line = api.Line(rules, rules.start)
    step = line.try_play("e2e4")
    assert isinstance(step, api.Step) and not step.ends_turn and line.steps == [step]
    refused = line.try_play("d2d4,")
    assert isinstance(refused, api.Refused) and line.steps == [step]
    assert refused.reason.rule == "A1" and refused.reason.detail.startswith("this is already the second")
    assert refused.error().message == ("'d2d4,': this is already the second move of the turn, and a "
                                       "turn has at most two moves (A1)")
    unread = line.try_play("zz9")
    assert unread.error().code == "invalid-move-text" and unread.reason.rule == "G8.1"


@pytest.mark.parametrize("variant, moves, last, rule", [
    ("chess", [], "e4", "G8"),
    ("double-move-anul", ["e4,d4", "d5,Nc6"], "exd5", "A1"),
    ("marseillais-classic", [], "e4,e5", "M8"),
    ("monster", [], "e4,d4", "MO2"),
    ("progressive-scottish", ["e4"], "e5,d5", "P7"),
    ("symmetric-monster", [], "e4", "G8"),
])
def test_the_comma_rule_reads_the_same_for_a_move_a_turn_and_play(variant, moves, last, rule):
    """G8 is judged in one place: a move written ``X,``, a turn written ``...,X,`` and a
    played token ``X,`` are refused with the same words."""
    *before, final = last.split(",")
    rules = variants.get(variant)
    line = api.replay(rules, moves=moves + ([",".join(before) + ","] if before else []))
    as_move = explain(rules, moves=moves + ([",".join(before) + ","] if before else []) or None,
                      move=final + ",")
    as_turn = explain(rules, moves=moves or None, turn=last + ",")
    assert as_move["rule"] == as_turn["rule"] == rule
    assert said(as_move) == said(as_turn)
    with pytest.raises(RulesError) as refused:
        line.play(final + ",")
    assert refused.value.message == f"'{final},': {said(as_move)}"


# ------------------------------------------------------------------ castling

def test_each_side_is_offered_its_own_castlings():
    monster, chess, double = (variants.get(v) for v in ("monster", "chess", "double-chess"))
    assert monster.own_castlings(WHITE) == [] and len(monster.own_castlings(BLACK)) == 2
    assert [c.san for c in chess.own_castlings(WHITE)] == ["O-O", "O-O-O"]
    assert [c.san for c in double.own_castlings(BLACK)] == ["O-O-O-O-O", "O-O-O", "O-O", "O-O-O-O"]


@pytest.mark.parametrize("move", ["O-O", "O-O-O", "e1g1", "Kg1"])
def test_monster_white_has_no_castling_and_is_told_so(move):
    result = explain("monster", move=move)
    assert result["rule"] == "MO7" and result["rules"] == ["MO7"]
    assert said(result) == "White has no castling in Monster chess; only Black castles (MO7)"


def test_monster_black_is_shown_its_own_castlings_and_the_two_move_check():
    result = explain("monster", fen="r3k2r/pppppppp/8/8/8/8/2PPPP2/4K3 b kq - 0 1 -", move="O-O-O-O")
    assert said(result) == ("monster has no castling written O-O-O-O (there are: O-O, O-O-O) "
                            "(FIDE-3.8.2)")
    # f8 is not attacked now, but the bishop reaches it with White's two moves (Bb4, Bxf8)
    fen = "r3k2r/8/8/8/8/8/3B4/4K3 b kq - 0 1 -"
    for move in ("O-O", "e8g8"):
        result = explain("monster", fen=fen, move=move)
        assert result["rules"] == ["MO7", "MO4"]
        assert said(result).startswith("the king would pass over f8, which White's two coming moves "
                                       "could reach")
    assert said(explain("monster", fen=fen, move="O-O-O")).startswith("the king would pass over d8")


def test_double_chess_castling_words_name_its_own_squares():
    fen = "r4r2k6r/16/16/16/16/16/16/R7K6R w APap - 0 1"
    assert said(explain("double-chess", fen=fen, move="O-O-O-O-O")) == (
        "the king would pass over f1, which is attacked by the rook on f8 (C3)")
    assert explain("double-chess", fen=fen, move="O-O-O-O")["legal"]
    assert said(explain("double-chess", fen=fen, move="O-O")) == (
        "White has no right to castle with the l1 rook any more (the rook has left l1) (C3)")
    assert said(explain("double-chess", move="O-O-O-O-O-O")) == (
        "double-chess has no castling written O-O-O-O-O-O (there are: O-O, O-O-O, O-O-O-O, "
        "O-O-O-O-O) (DC-castling-san)")


class QuietCastling(Chess):
    """A toy whose castling refusals are worded its own way (the hook, not the walk)."""

    name = "toy-quiet-castling"

    def why_no_castling(self, pos, rule, obstacle):
        if obstacle is not None and obstacle[0] == "attacked":
            return Refusal(f"castling needs {self.geometry.name[obstacle[1]]} quiet", "TOY-C")
        return super().why_no_castling(pos, rule, obstacle)


def test_a_variant_words_its_castling_refusals_in_one_hook():
    rules, fen = QuietCastling(), "r3k2r/8/8/8/8/5b2/8/R3K2R w KQkq - 0 1"
    result = explain(rules, fen, move="O-O-O")
    assert said(result) == "castling needs d1 quiet (TOY-C)"
    with pytest.raises(RulesError) as refused:
        api.replay(rules, fen, ["O-O-O"])
    assert refused.value.message.endswith("castling needs d1 quiet (TOY-C)")
    # the conditions the toy leaves alone keep the chess words
    checked = "r3k2r/8/8/8/8/8/4q3/R3K2R w KQkq - 0 1"
    assert said(explain(rules, checked, move="O-O")) == (
        "the king is in check from the queen on e2, and castling out of check is not allowed "
        "(FIDE-3.8.2.2)")
