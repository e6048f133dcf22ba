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
from doublecheck.pictures.svg import svg_for
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
    ids = [r for r, rule in rules.items() if r.startswith("M") and set(FORMS) & set(rule["variants"])]
    assert {"M1", "M2", "M3", "M4", "M5", "M6", "M7", "M8"} <= set(ids)
    for form in FORMS:
        cited = {r for c in CASES if c.variant == form for r in c.rules}
        assert set(ids) <= cited, (form, sorted(set(ids) - cited))


@pytest.mark.parametrize("case", [c for c in CASES if not c.generated], ids=lambda c: c.id)
def test_curated_case_passes_against_the_oracle(case):
    """(The generated cases come from the oracle; the adapter checks those.)"""
    answer = OracleEngine(options=case.options).request(dict(case.request))   # its rule options
    assert not compare(case.variant, case.expect, answer, case.request)


def test_the_forms_differ_in_one_setting():
    balanced, classic = variants.get("marseillais"), variants.get("marseillais-classic")
    assert type(balanced) is Marseillais and type(classic) is MarseillaisClassic
    assert balanced.white_opens_with_one_move and not classic.white_opens_with_one_move
    own = {k for k in vars(MarseillaisClassic) if not k.startswith("__")}
    assert own == {"name", "white_opens_with_one_move", "about"}   # about: its lines in the docs' tables


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

def test_turn_end_names_the_rule():
    b, c = variants.get("marseillais"), variants.get("marseillais-classic")

    def why(rules, fen, text, moves=()):
        pos = api.replay(rules, fen, list(moves)).final
        return rules.turn_end(pos, rules.parse_move(pos, text))

    assert why(b, None, "e2e4") == ("M2", "White's first turn is a single move in balanced Marseillais")
    assert why(c, None, "e2e4") is None
    assert why(b, ROOK, "a1a8")[0] == "M3"
    assert why(b, "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 2", "a1a8") == ("M3", "it gives checkmate")
    assert why(b, STUCK, "h5h6")[0] == "M5"
    assert why(b, ROOK, "a1a2", ["e1d1"])[0] == "M1"


ALKHINE_START = "4k3/8/8/8/1p1p4/8/2P1P3/4K3 w - - 0 2"


@pytest.mark.parametrize("moves, words", [
    (["e8d8,d4e3"], "only after an en passant move one"),
    # the message is explain's reason, which reads the line played before the move
    (["e8d8,d8e8", "e1d1,d1e1", "d4e3"], "left the target e3 for the turn right after it only"),
    (["h5h6", "a1b1"], "no move may follow"),
])
def test_refusal_messages_say_why(moves, words):
    fen = STUCK if moves[0] == "h5h6" else ALKHINE_START
    played = moves if moves[0] == "h5h6" else ["c2c4,e2e4"] + moves
    with pytest.raises(RulesError) as e:
        api.handle({"op": "play", "variant": "marseillais", "fen": fen, "moves": played})
    rule = "M5" if moves[0] == "h5h6" else "M4"
    assert e.value.code == "illegal-move" and words in e.value.message and f"({rule})" in e.value.message


# ------------------------------------------------------------------ explain and show
# Each refusal the Marseillais turn machine makes, as `doublecheck explain` reports it:
# the rule that decides (and the ones cited with it) and the concrete reason.

EXPLAINED = [
    # (fen, moves played first, move or turn asked, rule ids cited, words of the reason)
    (ROOK, None, {"turn": "Ra8+,Ke2"}, ["M3", "M1"], "the move one Ra8+ gives check, which ends the turn"),
    ("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 2", None, {"turn": "Ra8#,Kf1"}, ["M3", "M1"], "gives checkmate"),
    ("4k3/8/8/8/4N3/8/8/K3R3 w - - 0 2", None, {"turn": "Nc3,Kb1"}, ["M3", "M1"], "Nc3+ gives check"),
    (STUCK, None, {"turn": "h6,Kb1"}, ["M5", "M5.1"], "White has no legal move two"),
    (STUCK, "h5h6", {"move": "Kb1"}, ["M5", "M5.1"], "left no legal move two"),
    (ROOK, None, {"turn": "Ra2,Rb2,Rc2"}, ["M1"], "Rb2 was move two, and a turn has at most two moves"),
    (ROOK, None, {"turn": "Ra2"}, ["M1"], "a move two is compulsory (19 are possible)"),
    (ALEKHINE, None, {"turn": "Kd7,dxe3"}, ["M4"], "the move one Kd7 took nothing en passant"),
    (ALKHINE_START, "c2c4,e2e4 e8d8,d8e8 e1d1,d1e1", {"move": "dxe3"}, ["M4"],
     "the double step e2e4 left the target e3 for the turn right after it only; that turn has passed"),
    (ALEKHINE, "e8d7,d7c7 e1d2,d2d1", {"move": "dxe3"}, ["M4"],
     "e3 is not an en passant target now: the white pawn on e4 did not step there with a double "
     "step in White's last turn"),
    ("4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 2", "e2e4,e1d2 e8d7,d7c7 d2d1,d1e1", {"move": "dxe3"}, ["M4"],
     "the double step e2e4 left the target e3 for the turn right after it only"),
    ("4k3/8/8/8/8/8/r7/4K3 w - - 0 2", None, {"turn": "Kd1,Kd2"}, ["M3"],
     "d2 is attacked by the rook on a2; each move of a turn must leave the own king safe on its own"),
    ("4k3/8/8/8/1b6/8/8/4K2R w - - 0 2", None, {"turn": "Rh2,Kf1"}, ["M3"],
     "still be in check from the bishop on b4; a side in check at the start of its turn must answer"),
    (ROOK, None, {"move": "Ra8+,"}, ["M8", "M3"], "Ra8+ ends the turn (it gives check)"),
    (STUCK, None, {"move": "h6,"}, ["M8", "M5"], "h6 ends the turn (no legal move two"),
    (ROOK, None, {"turn": "Ra2,Rb2,"}, ["M8", "M1"], "Rb2 ends the turn (it is move two"),
]


@pytest.mark.parametrize("fen, moves, asked, rules, words", EXPLAINED)
def test_explain_cites_the_m_rulings(fen, moves, asked, rules, words):
    for form in FORMS:
        result = explain(form, fen=fen, moves=moves.split() if moves else None, **asked)
        assert result["legal"] is False and result["rules"] == rules, (form, result["reason"])
        assert words in result["reason"], result["reason"]


def test_explain_the_balanced_opening():
    for asked in ({"turn": "e4,d4"}, {"move": "e4,"}):
        result = explain("marseillais", **asked)
        assert result["legal"] is False and "M2" in result["rules"], result["reason"]
        assert "White's first turn is" in result["reason"]
    assert explain("marseillais-classic", turn="e4,d4")["legal"]


@pytest.mark.parametrize("form", FORMS)
def test_show_lists_targets_and_the_pending_square(form):
    text = show(form, fen=ALEKHINE, ascii_only=True)
    assert "En passant: c3,e3" in text and "En passant targets for Black's turn: c3 and e3 (M4)." in text
    text = show(form, fen=ALEKHINE, moves=["bxc3,"], ascii_only=True)
    assert "En passant: e3" in text and "Open to move two after the en passant move one: e3 (M4)." in text
    text = show(form, fen=ALKHINE_START, moves=["e4,"], ascii_only=True)
    assert "En passant: e3" in text
    assert "Pending: e3, passed over by White's double step on move one" in text
    text = show(form, fen=STUCK, moves=["h6"], ascii_only=True)
    assert "left no legal move two: the game ended there, drawn by stalemate (M5; field 7: m)." in text
    assert "by stalemate" in text.splitlines()[-1]
    if form == "marseillais":
        assert "White's first turn is a single move (M2)." in show(form, ascii_only=True)


def test_m5_position_is_over_and_no_longer_mid_turn():
    rules = variants.get("marseillais")
    pos = api.replay(rules, STUCK, ["h5h6"]).final
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
