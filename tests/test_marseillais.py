"""marseillais and marseillais-classic: the oracle against its cases, the rules class's own
interface (the one setting, FEN field 4, the reasons it gives), and the lookups on both forms.

The python-chess adapter is the independent second implementation: it runs every case of
both forms and the hypothesis differential in tests/test_adapter_vs_oracle.py.
"""

import pytest

from doublecheck.casefiles import load_cases, load_rules
from doublecheck.harness.compare import compare
from doublecheck.harness.engines import OracleEngine
from doublecheck.lookups.lookup import explain, show, show_data
from doublecheck.lookups.pgn import pgn_for_line, replay_text
from doublecheck.lookups.svg import svg_for
from doublecheck.oracle import api, variants
from doublecheck.oracle.errors import RulesError
from doublecheck.oracle.variants.marseillais import Marseillais, MarseillaisClassic

FORMS = ("marseillais", "marseillais-classic")
CASES = [c for c in load_cases()[0] if c.variant in FORMS]
ALEKHINE = "4k3/8/8/8/1pPpP3/8/8/4K3 b - c3,e3 0 2 -"
STUCK = "7k/7p/8/7P/8/1q6/8/K7 w - - 0 2"
ROOK = "4k3/8/8/8/8/8/8/R3K3 w - - 0 2"


def test_every_m_ruling_is_cited_by_cases_of_both_forms():
    rules, _ = load_rules()
    ids = [r for r in rules if r.startswith("M")]
    assert {"M1", "M2", "M3", "M4", "M5", "M6", "M7", "M8"} <= set(ids)
    for form in FORMS:
        cited = {r for c in CASES if c.variant == form for r in c.rules}
        assert set(ids) <= cited, (form, sorted(set(ids) - cited))


@pytest.mark.parametrize("case", [c for c in CASES if not c.generated], ids=lambda c: c.id)
def test_curated_case_passes_against_the_oracle(case):
    """(The generated cases come from the oracle; the adapter checks those.)"""
    answer = OracleEngine().request(dict(case.request))
    assert not compare(case.variant, case.expect, answer, case.request)


def test_the_forms_differ_in_one_setting():
    balanced, classic = variants.get("marseillais"), variants.get("marseillais-classic")
    assert type(balanced) is Marseillais and type(classic) is MarseillaisClassic
    assert balanced.white_opens_with_one_move and not classic.white_opens_with_one_move
    own = {k for k in vars(MarseillaisClassic) if not k.startswith("__")}
    assert own == {"name", "white_opens_with_one_move"}


# ------------------------------------------------------------------ FEN field 4

def test_field_4_holds_a_frozenset_only_in_marseillais():
    rules = variants.get("marseillais")
    pos = rules.parse_fen(ALEKHINE)
    assert pos.ep == frozenset(rules.geometry.index[s] for s in ("c3", "e3"))
    assert rules.parse_fen(rules.start_fen).ep == frozenset()
    chess = variants.get("chess")
    assert chess.parse_fen("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2").ep == chess.geometry.index["d6"]
    with pytest.raises(RulesError) as e:
        chess.parse_fen("4k3/8/8/8/1pPpP3/8/8/4K3 b - c3,e3 0 2")
    assert e.value.code == "invalid-fen"


def test_field_4_errors_name_the_field():
    rules = variants.get("marseillais")
    for bad in ("c3,c3", "c3,e3,g3", "c3,", "-,c3"):
        with pytest.raises(RulesError) as e:
            rules.parse_fen(ALEKHINE.replace("c3,e3", bad))
        assert e.value.code == "invalid-fen" and "en passant field" in e.value.message


def test_single_square_view_for_callers_that_show_one():
    rules = variants.get("marseillais")
    pos = rules.parse_fen(ALEKHINE)
    assert [rules.geometry.name[t] for t in rules.usable_targets(pos)] == ["c3", "e3"]
    assert rules.geometry.name[rules.legal_ep(pos)] == "c3"
    assert rules.legal_ep(rules.start) is None


# ------------------------------------------------------------------ reasons

def test_why_turn_ends():
    b, c = variants.get("marseillais"), variants.get("marseillais-classic")

    def why(rules, fen, text, moves=()):
        pos, _ = api.replay(rules, fen, list(moves))
        return rules.why_turn_ends(pos, rules.parse_move(pos, text))

    assert why(b, None, "e2e4") == ("M2", "White's first turn is a single move in balanced Marseillais")
    assert why(c, None, "e2e4") == (None, None)
    assert why(b, ROOK, "a1a8")[0] == "M3"
    assert why(b, "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 2", "a1a8") == ("M3", "it gives checkmate")
    assert why(b, STUCK, "h5h6")[0] == "M5"
    assert why(b, ROOK, "a1a2", ["e1d1"])[0] == "M1"


def test_move_two_owed_and_refusals():
    rules = variants.get("marseillais")
    pos, _ = api.replay(rules, ROOK, ["e1d1"])
    rule, sentence = rules.move_two_owed(pos)
    assert rule == "M1" and "(14 are possible)" in sentence
    assert rules.move_two_owed(rules.parse_fen(ROOK)) is None
    pos, _ = api.replay(rules, ALKHINE_START, ["c2c4,e2e4", "e8d8"])
    assert rules.why_refused(pos, "d4e3")[0] == "M4"
    assert rules.why_refused(pos, "d4d2") is None          # not about en passant
    pos, _ = api.replay(rules, STUCK, ["h5h6"])
    assert rules.why_refused(pos, "a1b1")[0] == "M5"


ALKHINE_START = "4k3/8/8/8/1p1p4/8/2P1P3/4K3 w - - 0 2"


@pytest.mark.parametrize("moves, words", [
    (["e8d8,d4e3"], "only when move one took en passant"),
    (["e8d8,d8e8", "e1d1,d1e1", "d4e3"], "is not an en passant target now"),
])
def test_refused_en_passant_says_why(moves, words):
    with pytest.raises(RulesError) as e:
        api.handle({"op": "play", "variant": "marseillais", "fen": ALKHINE_START,
                    "moves": ["c2c4,e2e4"] + moves})
    assert e.value.code == "illegal-move" and words in e.value.message and "(M4)" in e.value.message


def test_m5_position_is_over_and_no_longer_mid_turn():
    rules = variants.get("marseillais")
    pos, _ = api.replay(rules, STUCK, ["h5h6"])
    assert rules.fen(pos).endswith(" m") and not rules.mid_turn(pos)
    assert rules.status(pos)["reason"] == "stalemate" and rules.turns(pos) == []


# ------------------------------------------------------------------ lookups

@pytest.mark.parametrize("form", FORMS)
def test_show_and_svg_with_two_targets(form):
    text = show(form, fen=ALEKHINE, ascii_only=True)
    assert "FEN: " + ALEKHINE in text and "Legal moves: 10" in text
    assert show_data(form, fen=ALEKHINE)["turns"] == 81
    assert "en passant c3,e3" in svg_for(form, fen=ALEKHINE, turn="bxc3,dxe3")


@pytest.mark.parametrize("form", FORMS)
def test_explain_legal_turns(form):
    assert explain(form, fen=ALEKHINE, turn="bxc3,dxe3")["legal"]
    assert explain(form, fen="4k3/8/8/8/8/8/p6p/R3K3 w - - 0 2", turn="Rxa2,Rxh2")["legal"]
    result = explain(form, fen=STUCK, turn="h6")
    assert result["legal"] and result["ends_turn"] and result["status"]["reason"] == "stalemate"
    refused = explain(form, fen=ROOK, turn="Ra8+,Ke2")
    assert refused["legal"] is False and refused["refused"] == 2


def test_pgn_of_a_game_ending_in_m5_replays():
    text = pgn_for_line("marseillais-classic", STUCK + " -", ["h5h6"])
    assert '[Variant "marseillais-classic"]' in text and '[Result "1/2-1/2"]' in text
    assert text.rstrip().endswith("2. h6 1/2-1/2")
    report = replay_text(text)
    assert report["ok"] and report["games"][0]["status"]["reason"] == "stalemate"


def test_pgn_balanced_opening_and_alekhine_turn():
    text = pgn_for_line("marseillais", None, ["e4", "d5,d4", "Nf3,c4"])
    assert text.rstrip().endswith("1. e4 d5,d4 2. Nf3,c4 *")
    game = pgn_for_line("marseillais", ALKHINE_START, ["c4,e4", "bxc3,dxe3"])
    assert "2. c4,e4 bxc3,dxe3" in game and replay_text(game)["ok"]
