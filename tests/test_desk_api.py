"""The rules desk's JSON API (docs/desk.md): every route, the bad inputs, the limits.

The server runs on an ephemeral loopback port in a thread; expected answers
come from the oracle's own functions and from the command line (the desk
must say what ``doublecheck explain`` / ``replay`` / ``play --pgn`` say),
and from seed 000's worked example.
"""

import http.client
import json
import re
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import xml.etree.ElementTree as ET

import pytest
from child_signals import default_ctrl_c
from desk_support import MATE_FEN, MATE_LINE, fetch, running_desk
from doublecheck.cli import main as cli_main
from doublecheck.desk import ops
from doublecheck.desk.server import MAX_BODY
from doublecheck.oracle import api, variants

SVG = "{http://www.w3.org/2000/svg}"
SM_FEN = "*p*p*p*p/rnbqkbnr/pppppppp/8/8/8/8/PPP2PPP/RNBK1BNR/*P1*P*P w kq - 0 1 Kk -"
REFUTED = f'[Variant "double-move"]\n[FEN "{MATE_FEN}"]\n\n1. Qg8+,Qh7# Kxh7,Kh8 *\n'


@pytest.fixture(scope="module")
def desk():
    with running_desk() as base:
        yield base


def post(desk, op, body, **kw):
    return fetch(f"{desk}/api/{op}", body, **kw)


def ok(desk, op, body):
    status, _, answer = post(desk, op, body)
    assert status == 200 and answer["ok"] is True, answer
    return answer


def refused(desk, op, body, code, status=400, **kw):
    got, _, answer = post(desk, op, body, **kw)
    assert (got, answer["ok"], answer["error"]["code"]) == (status, False, code), answer
    assert answer["error"]["message"]
    return answer["error"]["message"]


# ------------------------------------------------------------------- pages

def test_page_and_its_files_come_from_the_package(desk):
    status, head, page = fetch(f"{desk}/")
    assert status == 200 and head["Content-Type"].startswith("text/html")
    assert '<script src="/static/desk.js"' in page and "/static/desk.css" in page
    assert "default-src 'none'" in head["Content-Security-Policy"]
    assert head["X-Content-Type-Options"] == "nosniff"
    for name, kind in (("desk.js", "text/javascript"), ("desk.css", "text/css"),
                       ("favicon.svg", "image/svg+xml")):
        status, head, text = fetch(f"{desk}/static/{name}")
        assert status == 200 and head["Content-Type"].startswith(kind) and text
    # nothing is fetched from elsewhere at run time
    for name in ("index.html", "desk.js", "desk.css"):
        text = fetch(f"{desk}/static/{name}")[2] if name != "index.html" else page
        assert "http://" not in text.replace("http://www.w3.org/2000/svg", "")
        assert "https://" not in text and "//cdn" not in text


def test_unknown_files_and_paths_are_404(desk):
    for path in ("/static/nope.js", "/static/../cli.py", "/static/", "/nothing", "/api/"):
        status, _, answer = fetch(f"{desk}{path}")
        assert status in (404, 405) and answer["ok"] is False, path


def test_rule_catalogue_page_has_an_anchor_per_rule(desk):
    status, _, page = fetch(f"{desk}/rules")
    assert status == 200
    catalogue = ops.catalogue()
    assert page.count('<section class="rule"') == len(catalogue)
    assert 'id="DM-every-half-legal"' in page
    assert catalogue["DM-every-half-legal"]["title"] in page


def test_hello_is_the_protocol_hello_plus_what_the_page_needs(desk):
    status, _, hello = fetch(f"{desk}/api/hello")
    assert status == 200 and hello["ok"] is True
    assert hello["protocol"] == api.PROTOCOL_VERSION and hello["variants"] == list(api.VARIANTS)
    assert set(hello["ops"]) == set(ops.OPS) and "perft" not in hello["ops"]
    assert hello["desk"]["max_body"] == MAX_BODY
    for variant in api.VARIANTS:
        assert hello["desk"]["start_fens"][variant] == api.handle({"op": "fen", "variant": variant})["fen"]
    # the figures for the page's buttons and legend, drawn from the one drawing file
    assert set(hello["desk"]["figures"]) == {p for letter in "KQRBNP" for p in
                                             (letter, letter.lower(), "*" + letter, "*" + letter.lower())}
    assert hello["desk"]["figures"]["N"].startswith("<svg")


# ------------------------------------------------- the protocol's operations

@pytest.mark.parametrize("op", ops.ORACLE_OPS)
def test_protocol_operations_answer_as_the_oracle_does(desk, op):
    request = {"variant": "double-move", "fen": MATE_FEN, "moves": ["b3g8,"]}
    answer = ok(desk, op, dict(request, id=7))
    assert answer.pop("id") == 7 and answer.pop("ok") is True
    assert answer == api.handle(dict(request, op=op))


def test_perft_is_not_offered(desk):
    refused(desk, "perft", {"depth": 9}, "unsupported", status=404)


# ---------------------------------------------------------------- position

def test_position_through_the_seed_000_mate(desk):
    first = ok(desk, "position", {"variant": "double-move", "fen": MATE_FEN, "moves": MATE_LINE[:1]})
    assert first["mid_turn"] and first["to_move"] == "white" and first["fen"].endswith("-Bm")
    assert first["status"]["over"] is False
    assert first["line"] == [{"number": 1, "side": "white", "san": "Qg8+,", "moves": ["b3g8,"],
                              "complete": False, "from": 0, "upto": 1, "actions": ["Qg8+"],
                              "slots": ["First half", "Second half"], "end": None}]
    # the turn panel: the first half played, the second the rules' next action (DM-activation)
    assert first["turn_actions"] == ["First half", "Second half"]
    assert first["turn"] == {"side": "white", "number": 1, "slots": [
        {"name": "First half", "san": "Qg8+", "state": "played"},
        {"name": "Second half", "san": None, "state": "next"}]}
    assert first["coordinates"] == ["b3g8,"]
    # a FEN between the halves: the first half was played before the line, so it has no SAN
    between = ok(desk, "position", {"variant": "double-move", "fen": first["fen"]})
    assert [(s["san"], s["state"]) for s in between["turn"]["slots"]] == [(None, "played"), (None, "next")]
    # in the middle of the turn: the legal next moves of that turn, none opening a Double Move
    assert sorted(first["moves"]) == sorted(api.handle({"op": "moves", "variant": "double-move",
                                                        "fen": MATE_FEN, "moves": ["b3g8,"]})["moves"])
    assert "g8h7" in first["moves"] and not any(m["opens_double"] for m in first["legal"])
    mate = ok(desk, "position", {"variant": "double-move", "fen": MATE_FEN, "moves": MATE_LINE})
    assert mate["status"] == {"over": True, "result": "1-0", "reason": "checkmate", "claimable": []}
    assert "checkmate" in mate["status_text"] and mate["in_check"] is True
    assert mate["moves"] == [] and mate["line"][0]["san"] == "Qg8+,Qh7#"
    assert mate["start_fen"] == MATE_FEN


def test_position_offers_the_double_move_as_its_own_choice(desk):
    start = ok(desk, "position", {"variant": "double-move", "fen": MATE_FEN})
    b3g8 = [m for m in start["legal"] if m["from"] == "b3" and m["to"] == "g8"]
    assert sorted((m["move"], m["opens_double"]) for m in b3g8) == [("b3g8", False), ("b3g8,", True)]


def test_position_svg_names_every_square_and_draws_the_turn(desk):
    for variant in api.VARIANTS:
        answer = ok(desk, "position", {"variant": variant})
        root = ET.fromstring(answer["svg"])
        named = {r.get("data-square") for r in root.iter(f"{SVG}rect") if r.get("class") == "square"}
        rules = variants.get(variant)
        assert named == {rules.geometry.name[sq] for sq in rules.geometry.squares}, variant
    mate = ok(desk, "position", {"variant": "double-move", "fen": MATE_FEN, "moves": MATE_LINE})
    arrows = [e for e in ET.fromstring(mate["svg"]).iter() if e.get("class") == "arrow"]
    assert len(arrows) == 2


def test_position_at_shows_an_earlier_moment_of_the_whole_line(desk):
    line = ["e2e4,", "d2d4", "e7e5"]
    answer = ok(desk, "position", {"variant": "double-move", "moves": line, "at": 2})
    assert answer["at"] == 2 and answer["length"] == 3 and answer["to_move"] == "black"
    assert [t["san"] for t in answer["line"]] == ["e4,d4", "e5"]
    refused(desk, "position", {"variant": "double-move", "moves": line, "at": 4}, "invalid-request")
    refused(desk, "position", {"variant": "double-move", "moves": line, "at": "2"}, "invalid-request")


def test_position_in_symmetric_monster_offers_the_drop_and_names_lost_kings(desk):
    answer = ok(desk, "position", {"variant": "symmetric-monster", "fen": SM_FEN, "moves": ["e0e1"]})
    drops = [m for m in answer["legal"] if m["drop"]]
    assert {m["move"] for m in drops} == {"K@d0", "K@e0"}
    assert all(m["drop"] == "K" and m["from"] is None for m in drops)
    gone = ok(desk, "position", {"variant": "symmetric-monster",
                                 "fen": "4/7k/8/8/8/8/8/8/7K/4 w - - 0 1 - -"})
    assert "White has lost its double-king, so its double-pieces may not move." in gone["notes"]


def test_position_ends_the_turn_where_the_rules_end_it(desk):
    # double-move-anul (A1): a capture on move one ends the turn; a quiet move one does not
    line = ["e2e4,", "d2d4", "d7d5,", "b8c6"]
    quiet = ok(desk, "position", {"variant": "double-move-anul", "moves": line + ["g1f3"]})
    assert quiet["mid_turn"] and quiet["to_move"] == "white"
    capture = ok(desk, "position", {"variant": "double-move-anul", "moves": line + ["e4d5"]})
    assert not capture["mid_turn"] and capture["to_move"] == "black"
    assert capture["line"][-1] == {"number": 2, "side": "white", "san": "exd5", "moves": ["e4d5"],
                                   "complete": True, "from": 4, "upto": 5, "actions": ["exd5"],
                                   "slots": ["Move 1", "Move 2"],
                                   "end": {"rule": "DA-5", "words": "move 1 exd5 captures",
                                           "also": ["A1"], "title": ops.catalogue()["DA-5"]["title"],
                                           "usual": False}}
    assert capture["line"][-2]["end"] is None                 # Black's two quiet moves: a full turn
    assert [s["state"] for s in capture["turn"]["slots"]] == ["next", "waiting"]
    # symmetric-monster (S4): a double-piece action is the first of two; a single move is a turn
    double = ok(desk, "position", {"variant": "symmetric-monster", "fen": SM_FEN, "moves": ["e0e1"]})
    assert double["mid_turn"] and double["to_move"] == "white"
    assert [(s["name"], s["san"], s["state"]) for s in double["turn"]["slots"]] == [
        ("First action", "*e1", "played"), ("Second action", None, "next")]
    single = ok(desk, "position", {"variant": "symmetric-monster", "fen": SM_FEN, "moves": ["a2a3"]})
    assert not single["mid_turn"] and single["to_move"] == "black"
    assert single["line"][-1]["end"]["rule"] == "S4"
    assert single["line"][-1]["end"]["usual"]          # most turns are single-piece moves


def waiting_reasons(desk, body):
    """(state, the rules' reason words or None, rule id or None) of each slot of the turn panel."""
    slots = ok(desk, "position", body)["turn"]["slots"]
    return [(s["state"], s.get("why", {}).get("words"), s.get("why", {}).get("rule")) for s in slots]


def test_the_turn_panel_says_why_a_later_action_will_not_come(desk):
    # double-move: a second half only with the Double Move (DM-ability), which a side has once
    assert waiting_reasons(desk, {"variant": "double-move"}) == [
        ("next", None, None), ("waiting", "only if the first half opens the Double Move", "DM-ability")]
    used = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 -B"
    assert waiting_reasons(desk, {"variant": "double-move", "fen": used})[1] == (
        "waiting", "White's Double Move is already used", "DM-ability")
    slot = ok(desk, "position", {"variant": "double-move"})["turn"]["slots"][1]
    assert slot["why"]["title"] == ops.catalogue()["DM-ability"]["title"]
    # balanced Marseillais: White's first turn is one move (M2); the classic form has two
    assert waiting_reasons(desk, {"variant": "marseillais"})[1][2] == "M2"
    assert waiting_reasons(desk, {"variant": "marseillais", "moves": ["e2e4"]})[1] == ("waiting", None, None)
    assert waiting_reasons(desk, {"variant": "marseillais-classic"})[1] == ("waiting", None, None)
    # a move two that depends on move one (double-move-anul) is simply "not yet"
    assert waiting_reasons(desk, {"variant": "double-move-anul"}) == [("next", None, None), ("waiting", None, None)]


def test_position_flipped_draws_the_board_from_blacks_side(desk):
    plain = ok(desk, "position", {"variant": "chess"})
    flipped = ok(desk, "position", {"variant": "chess", "flip": True})

    def x_of(svg, square):
        found = re.search(f'data-square="{square}" aria-label="[^"]*" x="([0-9.]+)"', svg)
        return float(found[1])
    assert x_of(plain["svg"], "a1") < x_of(plain["svg"], "h1")
    assert x_of(flipped["svg"], "a1") > x_of(flipped["svg"], "h1")
    refused(desk, "position", {"variant": "chess", "flip": "yes"}, "invalid-request")


def test_position_says_which_draws_may_be_claimed(desk):
    # G3: the start position again after two knight round trips each, a third time: threefold
    trip = ["g1f3", "g8f6", "f3g1", "f6g8"]
    answer = ok(desk, "position", {"moves": trip * 2})
    assert answer["status"]["claimable"] == ["threefold-repetition"]
    assert "A draw can be claimed by threefold repetition." in answer["status_text"]


def test_position_refuses_a_line_that_does_not_play(desk):
    message = refused(desk, "position", {"moves": ["e2e4", "e2e4"]}, "illegal-move")
    assert "e2e4" in message


@pytest.mark.parametrize("variant", ["marseillais", "marseillais-classic"])
def test_position_with_two_en_passant_targets(desk, variant):
    # M4: c4 and e4 in one White turn leave c3 and e3; Black's move one may take either,
    # and after an en passant move one the other target stays open to move two (M7 (a))
    start, line = "4k3/8/8/8/1p1p4/8/2P1P3/4K3 w - - 0 2", ["c2c4,e2e4"]
    both = ok(desk, "position", {"variant": variant, "fen": start, "moves": line})
    assert both["fen"] == "4k3/8/8/8/1pPpP3/8/8/4K3 b - c3,e3 0 2 -" and not both["mid_turn"]
    assert {"b4c3", "d4c3", "d4e3"} <= set(both["moves"]) and both["turn_count"] == 81
    assert "En passant targets for Black's turn: c3 and e3 (M4)." in both["state"]
    assert both["line"] == [{"number": 2, "side": "white", "san": "c4,e4", "moves": ["c2c4,", "e2e4"],
                             "complete": True, "from": 0, "upto": 2, "actions": ["c4", "e4"],
                             "slots": ["Move one", "Move two"], "end": None}]
    half = ok(desk, "position", {"variant": variant, "fen": start, "moves": line + ["b4c3"]})
    assert half["mid_turn"] and half["to_move"] == "black" and half["fen"].endswith(" e3 0 2 m")
    assert "d4e3" in half["moves"] and "Open to move two after the en passant move one: e3 (M4)." \
        in half["state"]
    assert half["line"][-1]["san"] == "bxc3," and half["line"][-1]["complete"] is False
    done = ok(desk, "position", {"variant": variant, "fen": start, "moves": line + ["b4c3", "d4e3"]})
    assert done["to_move"] == "white" and done["fen"] == "4k3/8/8/8/8/2p1p3/8/4K3 w - - 0 3 -"
    assert done["line"][-1]["san"] == "bxc3,dxe3"
    pending = ok(desk, "position", {"variant": variant, "fen": start, "moves": ["e2e4"]})
    assert pending["fen"].endswith(" e3 0 2 m") and any(s.startswith("Pending: e3") for s in pending["state"])


@pytest.mark.parametrize("variant", ["marseillais", "marseillais-classic"])
def test_explain_the_alekhine_rule(desk, variant, capsys):
    start, line = "4k3/8/8/8/1p1p4/8/2P1P3/4K3 w - - 0 2", ["c2c4,e2e4"]
    legal = ok(desk, "explain", {"variant": variant, "fen": start, "moves": line, "turn": "bxc3,dxe3"})
    assert legal["legal"] and legal["turn"] == "b4c3,d4e3" and legal["ends_turn"]
    # move two may take en passant only after an en passant move one (M4): a click on d4-e3
    request = {"variant": variant, "fen": start, "moves": line + ["e8d8"], "click": {"from": "d4", "to": "e3"}}
    refused_move = ok(desk, "explain", request)
    assert refused_move["legal"] is False and refused_move["rule"] == "M4"
    assert "the move one Kd8 took nothing en passant" in refused_move["detail"]
    assert refused_move["rule_statements"]["M4"] == ops.catalogue()["M4"]["statement"]
    assert cli_main(["explain", "--variant", variant, "--fen", start, "--moves", "c2c4,e2e4 e8d8",
                     "--move", "d4e3", "--json"]) == 1
    printed = json.loads(capsys.readouterr().out)
    for key, value in printed.items():
        assert refused_move[key] == value, key
    expired = ok(desk, "explain", {"variant": variant, "fen": start,
                                   "moves": line + ["e8d8,d8e8", "e1d1,d1e1"], "move": "dxe3"})
    assert expired["rule"] == "M4" and "every target expires" in expired["detail"]


# ----------------------------------------------------------------- explain

def test_explain_a_click_names_the_g6_pawn(desk):
    answer = ok(desk, "explain", {"variant": "double-move", "fen": MATE_FEN, "moves": MATE_LINE,
                                  "click": {"from": "h8", "to": "h7"}})
    assert answer["legal"] is False and answer["input"] == "h8h7"
    assert answer["detail"] == "h7 is attacked by the pawn on g6"
    assert answer["rule"] in answer["rule_statements"] and "checkmated" in answer["note"]
    assert ops.catalogue()[answer["rule"]]["statement"] == answer["rule_statements"][answer["rule"]]
    assert ET.fromstring(answer["svg"]) is not None


def test_explain_says_what_the_command_line_says(desk, capsys):
    request = {"variant": "double-move", "fen": MATE_FEN, "moves": MATE_LINE, "turn": "Kxh7,Kh8"}
    answer = ok(desk, "explain", request)
    assert cli_main(["explain", "--variant", "double-move", "--fen", MATE_FEN, "--moves",
                     " ".join(MATE_LINE), "--turn", "Kxh7,Kh8", "--json"]) == 1
    printed = json.loads(capsys.readouterr().out)
    for key, value in printed.items():
        assert answer[key] == value, key
    assert answer["rule"] == "DM-every-half-legal" and "pawn on g6" in answer["reason"]


def test_explain_a_click_that_opens_a_double_move(desk):
    # D2 in seed 000's en passant position: after e4 as a first half White still has a second
    legal = ok(desk, "explain", {"variant": "double-move", "fen": "7k/8/8/8/3p4/8/4P3/7K w - - 0 1 WB",
                                 "click": {"from": "e2", "to": "e4", "double": True}})
    assert legal["legal"] is True and legal["input"] == "e2e4," and legal["ends_turn"] is False
    used = ok(desk, "explain", {"variant": "double-move", "fen": "7k/8/8/8/3p4/8/4P3/7K w - - 0 1 -B",
                                "click": {"from": "e2", "to": "e4", "double": True}})
    assert used["legal"] is False and used["rule"] == "DM-ability"


def test_explain_a_click_to_the_last_rank_asks_about_a_promotion(desk):
    # the rook on h1 checks the king on e1: the pawn may not promote, whatever it becomes
    answer = ok(desk, "explain", {"fen": "k7/4P3/8/8/8/8/8/4K2r w - - 0 1",
                                  "click": {"from": "e7", "to": "e8"}})
    assert answer["input"] == "e7e8q" and "rook on h1" in answer["detail"]


def test_explain_a_drop_click(desk):
    answer = ok(desk, "explain", {"variant": "symmetric-monster", "fen": SM_FEN,
                                  "click": {"drop": "K", "to": "e4"}})
    assert answer["input"] == "K@e4" and answer["rule"] == "S8"


@pytest.mark.parametrize("body, code", [
    ({"fen": MATE_FEN}, "invalid-request"),                                   # nothing asked
    ({"move": "e4", "turn": "e4"}, "invalid-request"),                        # two things asked
    ({"move": 5}, "invalid-request"),
    ({"move": "zz9"}, "invalid-move-text"),
    ({"click": {"from": "e2", "to": "e9"}}, "invalid-request"),               # no such square
    ({"click": {"from": "e2", "to": "e4", "double": "yes"}}, "invalid-request"),
    ({"click": {"drop": "X", "to": "e4"}}, "invalid-request"),
    ({"click": {"from": "e7", "to": "e8", "promotion": "k"}}, "invalid-request"),
    ({"click": "e2e4"}, "invalid-request"),
    ({"move": "e4", "moves": ["e2e5"]}, "illegal-move"),                      # the line is illegal
])
def test_explain_bad_input(desk, body, code):
    refused(desk, "explain", body, code)


# ------------------------------------------------------------------ replay

def test_replay_reports_as_the_command_does_and_gives_the_moves(desk, tmp_path, capsys):
    answer = ok(desk, "replay", {"pgn": REFUTED})
    path = tmp_path / "game.pgn"
    path.write_text(REFUTED)
    assert cli_main(["replay", str(path)]) == 1
    assert answer["report"] == capsys.readouterr().out.rstrip("\n")
    assert answer["record_ok"] is False
    (game,) = answer["games"]
    assert game["moves"] == MATE_LINE and game["fen"] == MATE_FEN and game["turns"] == 1
    bad = game["illegal"]
    assert bad["text"] == "Kxh7,Kh8" and "pawn on g6" in bad["reason"]
    assert bad["rule"] in bad["rule_statements"]
    root = ET.fromstring(bad["svg"])
    assert [e.tag for e in root.iter() if e.get("class") == "arrow"] == [f"{SVG}circle"]  # h7 circled


def test_replay_of_several_games_and_of_a_record_that_stops_mid_turn(desk):
    text = ('[Variant "double-move-anul"]\n\n1. e4,d4 d5,Nc6 *\n\n'
            f'[Variant "double-move"]\n[FEN "{MATE_FEN}"]\n\n1. Qg8+,\n')
    answer = ok(desk, "replay", {"pgn": text})
    first, second = answer["games"]
    assert first["moves"] == ["e2e4", "d2d4", "d7d5", "b8c6"] and first["legal"]
    assert second["moves"] == ["b3g8,"]


@pytest.mark.parametrize("text, code", [
    ('[Variant "double-move"\n\n1. e4 *', "pgn-syntax"),
    ('[Variant "no-such-game"]\n\n1. e4 *', "unknown-variant"),
    ('[Variant "chess"]\n\n1. e4 {never closed', "pgn-syntax"),
    ('[Variant "chess"]\n\n1. e4 e5 2. Zz9 *', "invalid-move-text"),
    ('[FEN "8/8 w - - 0 1"]\n\n1. e4 *', "invalid-fen"),
    ("   ", "invalid-request"),
])
def test_replay_bad_records(desk, text, code):
    refused(desk, "replay", {"pgn": text}, code)


def test_replay_needs_pgn_text(desk):
    refused(desk, "replay", {"pgn": 3}, "invalid-request")
    refused(desk, "replay", {}, "invalid-request")


# --------------------------------------------------------------------- pgn

def test_pgn_is_what_play_writes(desk, capsys):
    answer = ok(desk, "pgn", {"variant": "double-move", "fen": MATE_FEN, "moves": MATE_LINE})
    assert cli_main(["play", "--variant", "double-move", "--fen", MATE_FEN, "--moves",
                     " ".join(MATE_LINE), "--pgn", "-"]) == 0
    assert answer["pgn"] == capsys.readouterr().out
    assert "1. Qg8+,Qh7# 1-0" in answer["pgn"]


# ---------------------------------------------------------------- bad input

@pytest.mark.parametrize("body, code", [
    ({"variant": "no-such-game"}, "unknown-variant"),
    ({"variant": 3}, "invalid-request"),
    ({"fen": "8/8/8 w - - 0 1"}, "invalid-fen"),
    ({"fen": ["not", "text"]}, "invalid-fen"),
    ({"moves": "e2e4 e7e5 e5e4"}, "illegal-move"),
    ({"moves": [1, 2]}, "invalid-request"),
    ({"moves": ["e2e4,,e7e5"]}, "invalid-move-text"),
    ({"moves": ["g1f3", "g8f6", "f3g1", "f6g8"] * (ops.MAX_MOVES // 4 + 1)}, "invalid-request"),
])
@pytest.mark.parametrize("op", ["position", "pgn", "status"])
def test_bad_positions_and_lines(desk, op, body, code):
    refused(desk, op, body, code)


def test_a_body_that_is_not_json_or_not_an_object(desk):
    assert "not JSON" in refused(desk, "position", None, "invalid-request", raw=b"{nope",
                                 headers={"Content-Type": "application/json"})
    refused(desk, "position", None, "invalid-request", raw=b"\xff\xfe",
            headers={"Content-Type": "application/json"})
    refused(desk, "position", ["e2e4"], "invalid-request")
    refused(desk, "position", None, "invalid-request", raw=b"[" * 100000,
            headers={"Content-Type": "application/json"})              # nests too deeply
    refused(desk, "position", None, "unsupported-media-type", status=415, raw=b"{}",
            headers={"Content-Type": "text/plain"})


def raw_exchange(desk, head: bytes, body: bytes = b"", wait=10.0) -> bytes:
    """Send bytes on a fresh connection; return everything the server answers."""
    host, port = desk.rsplit("/", 1)[-1].split(":")
    with socket.create_connection((host, int(port)), timeout=wait) as s:
        s.sendall(head + body)
        chunks = []
        while True:
            try:
                chunk = s.recv(65536)
            except (TimeoutError, ConnectionResetError):
                break
            if not chunk:
                break
            chunks.append(chunk)
    return b"".join(chunks)


def test_a_huge_body_is_refused_before_it_is_read(desk):
    # the length alone decides: the server answers 413 without waiting for 10 MB to arrive
    head = (b"POST /api/position HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 10000000\r\n\r\n")
    answer = raw_exchange(desk, head, b"{")
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert b'"code":"too-large"' in answer
    # a body just over the limit, sent whole, still gets its answer (not a reset connection)
    big = json.dumps({"moves": ["e2e4"] * (MAX_BODY // 8)}).encode()
    assert len(big) > MAX_BODY
    status, _, answer = post(desk, "position", None, raw=big,
                             headers={"Content-Type": "application/json"})
    assert status == 413 and answer["error"]["code"] == "too-large"


def test_a_body_without_a_length_is_refused(desk):
    head = (b"POST /api/position HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n")
    answer = raw_exchange(desk, head, b"2\r\n{}\r\n0\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 411") and b"length-required" in answer
    head = b"POST /api/position HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\r\n"
    answer = raw_exchange(desk, head)
    assert answer.startswith(b"HTTP/1.1 411")


def test_wrong_methods_and_foreign_hosts(desk):
    status, head, answer = fetch(f"{desk}/api/position")
    assert status == 405 and answer["error"]["code"] == "method-not-allowed" and head["Allow"] == "POST"
    status, _, answer = fetch(f"{desk}/", {}, method="POST")
    assert status == 405
    status, _, answer = fetch(f"{desk}/api/position", {}, method="PUT")
    assert status == 405
    status, _, answer = fetch(f"{desk}/", headers={"Host": "desk.example:80"})
    assert status == 403 and answer["error"]["code"] == "forbidden"
    refused(desk, "position", {}, "forbidden", status=403, headers={"Origin": "http://evil.example"})
    ok_status, _, _ = post(desk, "position", {}, headers={"Origin": desk, "Host": "localhost"})
    assert ok_status == 200


def test_the_server_keeps_answering_after_bad_input(desk):
    for _ in range(3):
        raw_exchange(desk, b"GARBAGE\r\n\r\n")
        raw_exchange(desk, b"POST /api/position HTTP/1.1\r\nContent-Length: 5\r\n\r\n{", wait=0.5)
    assert ok(desk, "position", {})["to_move"] == "white"


def test_a_fault_of_the_desk_is_a_500_and_the_server_goes_on(desk, monkeypatch, capsys):
    def broken(request):
        raise ZeroDivisionError("a planted fault")

    monkeypatch.setattr(ops, "position", broken)
    message = refused(desk, "position", {}, "internal-error", status=500)
    assert message == "ZeroDivisionError: a planted fault"
    assert "Traceback" in capsys.readouterr().err               # logged for whoever runs it
    monkeypatch.undo()
    assert ok(desk, "position", {})["to_move"] == "white"


def test_tabs_cannot_disturb_each_other(desk):
    """Many lines asked about at once, interleaved: each answer is the one asked alone."""
    lines = [("double-move", None, ["e2e4,", "d2d4", "e7e5"]),
             ("double-move", MATE_FEN, MATE_LINE),
             ("symmetric-monster", SM_FEN, ["e0e1", "K@e0"]),
             ("double-chess", "r7k6r/16/16/16/16/16/16/R7K6R w APap - 0 1", ["i1m1"]),
             ("chess", None, ["f2f3", "e7e5", "g2g4", "d8h4"])]
    alone = {i: ok(desk, "position", {"variant": v, "fen": f, "moves": m})
             for i, (v, f, m) in enumerate(lines)}
    seen, errors = [], []

    def ask(i):
        v, f, m = lines[i]
        try:
            seen.append((i, ok(desk, "position", {"variant": v, "fen": f, "moves": m})))
        except AssertionError as e:
            errors.append(e)

    threads = [threading.Thread(target=ask, args=(i % len(lines),)) for i in range(15)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors and len(seen) == 15
    for i, answer in seen:
        assert answer == alone[i]


# ------------------------------------------------- HTTP, exactly as documented

def address(base):
    host, port = base.rsplit("/", 1)[-1].split(":")
    return host, int(port)


def test_a_kept_connection_answers_request_after_request(desk):
    conn = http.client.HTTPConnection(*address(desk), timeout=60)
    conn.connect()
    first = conn.sock
    for i in range(20):
        conn.request("POST", "/api/status", body=json.dumps({"id": i}).encode(),
                     headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        assert response.status == 200 and json.loads(response.read()) == {
            "id": i, "ok": True, **api.handle({"op": "status"})}
        assert conn.sock is first                      # the same connection all along
    conn.close()


@pytest.mark.parametrize("head, code", [
    (b"GET / HTTP/1.1\r\nHost: [::1]evil.example\r\n\r\n", "forbidden"),
    (b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\n\r\n", "forbidden"),
    (b"GET / HTTP/1.1\r\nHost: 127.0.0.1:80:80\r\n\r\n", "forbidden"),
    (b"GET / HTTP/1.1\r\nHost: 127.0.0.1 evil.example\r\n\r\n", "forbidden"),
    (b"GET / HTTP/1.1\r\n\r\n", "forbidden"),                                  # no Host at all
    (b"GET /api/hello HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: null\r\n\r\n", "forbidden"),
    (b"GET /api/hello HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://[::1]evil.example\r\n\r\n",
     "forbidden"),
    (b"GET /api/hello HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://127.0.0.1\r\n"
     b"Origin: http://evil.example\r\n\r\n", "forbidden"),
    (b"BREW /api/position HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", "method-not-allowed"),
    (b"PROPFIND / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", "method-not-allowed"),
])
def test_host_origin_and_method_are_checked_exactly(desk, head, code):
    answer = raw_exchange(desk, head[:-2] + b"Connection: close\r\n\r\n")
    status = {"forbidden": b"403", "method-not-allowed": b"405"}[code]
    assert answer.startswith(b"HTTP/1.1 " + status), answer[:200]
    assert b"application/json" in answer and f'"code":"{code}"'.encode() in answer


@pytest.mark.parametrize("line, status", [(b"GARBAGE", b"400"), (b"GET / HTTP/9.9", b"505"),
                                          (b"GET /" + b"x" * 70000 + b" HTTP/1.1", b"414")])
def test_malformed_http_is_refused_in_json_too(desk, line, status):
    answer = raw_exchange(desk, line + b"\r\nHost: 127.0.0.1\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 " + status) and b'"code":"invalid-request"' in answer


def test_loopback_names_are_answered(desk):
    for host in (b"127.0.0.1", b"localhost:8765", b"[::1]:8765", b"LOCALHOST"):
        answer = raw_exchange(desk, b"GET /api/hello HTTP/1.1\r\nHost: " + host +
                              b"\r\nOrigin: http://[::1]:8765\r\nConnection: close\r\n\r\n")
        assert answer.startswith(b"HTTP/1.1 200"), (host, answer[:200])


@pytest.mark.parametrize("lengths", [[b"+2"], [b"0x2"], [b"2, 2"], [b"1_0"], [b"-1"], [b"2 2"],
                                     [b"2", b"2"], [b"\xd9\xa2"], [b"99999999999999999999"]])
def test_content_length_is_one_header_of_digits(desk, lengths):
    head = (b"POST /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + b"".join(b"Content-Length: " + n + b"\r\n" for n in lengths) + b"\r\n")
    answer = raw_exchange(desk, head, b"{}")
    assert answer.startswith((b"HTTP/1.1 400", b"HTTP/1.1 413")), answer[:200]
    assert b'"code":"invalid-request"' in answer or b'"code":"too-large"' in answer


@pytest.mark.parametrize("body_too", [False, True])
def test_a_request_must_arrive_whole_within_its_time(body_too):
    """Bytes 0.3 s apart keep every single read short, but the whole request has 1.5 s."""
    head = b"POST /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    head += b"Content-Length: 100\r\n\r\n"
    data = head + b"{" + b" " * 98 + b"}"
    start = len(head) - 3 if body_too else 0
    with running_desk(read_timeout=1.5) as base:
        with socket.create_connection(address(base), timeout=30) as s:
            s.sendall(data[:start])
            sent, answer = trickle(s, data[start:], 0.3, 80)
        assert sent < 40, sent                # cut off after about 5 bytes (1.5 s), not after 80
        assert answer.startswith(b"HTTP/1.1 408") and b'"code":"request-timeout"' in answer
        assert fetch(f"{base}/api/hello")[0] == 200       # and the desk goes on


def trickle(s, data: bytes, every: float, limit: int):
    """Send ``data`` a byte at a time, ``every`` seconds apart, until the server answers (at
    most ``limit`` bytes): (bytes sent, the answer)."""
    for sent, byte in enumerate(data[:limit]):
        ready, _, _ = select.select([s], [], [], every)
        if ready:
            return sent, s.recv(65536)
        s.sendall(bytes([byte]))
    return limit, b""


def endless(stopped: threading.Event):
    """An operation that never ends by itself; ``stopped`` is set once it is stopped."""
    def run(request):
        try:
            while True:
                pass
        finally:
            stopped.set()
    return run


def test_an_operation_is_stopped_at_the_time_limit(monkeypatch):
    stopped = threading.Event()
    monkeypatch.setattr(ops, "position", endless(stopped))
    with running_desk(request_seconds=0.5) as base:
        status, _, answer = fetch(f"{base}/api/position", {"id": 7})
        assert status == 503 and answer["id"] == 7
        assert answer["error"]["code"] == "budget-exceeded" and "0.5 seconds" in answer["error"]["message"]
        assert stopped.is_set()
        assert fetch(f"{base}/api/status", {})[0] == 200


def test_an_operation_is_stopped_when_its_client_goes_away(monkeypatch):
    stopped = threading.Event()
    monkeypatch.setattr(ops, "position", endless(stopped))
    with running_desk(request_seconds=600) as base:
        with socket.create_connection(address(base), timeout=30) as s:
            s.sendall(b"POST /api/position HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                      b"application/json\r\nContent-Length: 2\r\n\r\n{}")
        assert stopped.wait(60)                           # long before its 600 s limit
        assert fetch(f"{base}/api/status", {})[0] == 200


def test_an_idle_kept_connection_gives_its_worker_up_to_one_that_waits():
    """One worker: a kept connection, idle after its answer, is closed as soon as another
    connection waits, which is then answered (not after the 60 s request time)."""
    with running_desk(workers=1, read_timeout=60) as base:
        kept = http.client.HTTPConnection(*address(base), timeout=60)
        kept.request("POST", "/api/status", body=b"{}", headers={"Content-Type": "application/json"})
        response = kept.getresponse()
        assert response.status == 200 and response.getheader("Connection") != "close"
        response.read()
        other = http.client.HTTPConnection(*address(base), timeout=20)     # (not 60)
        other.request("POST", "/api/status", body=b'{"id": 2}',
                      headers={"Content-Type": "application/json"})
        response = other.getresponse()
        assert response.status == 200 and json.loads(response.read())["id"] == 2
        other.close()
        assert kept.sock.recv(1) == b""                              # closed by the server
        kept.close()


def test_time_limit_unless_gone_stops_when_asked_and_leaves_no_signal_behind():
    """time_limit_unless_gone stops the block once ``gone()`` says so, in the main thread
    too (by the watchdog: no alarm signal is touched), and leaves nothing behind."""
    import signal
    import time

    from doublecheck.harness.deadline import TimeLimitExceeded, time_limit_unless_gone
    handler = signal.getsignal(signal.SIGALRM)
    since = time.monotonic()
    with pytest.raises(TimeLimitExceeded):
        with time_limit_unless_gone(600, lambda: time.monotonic() > since + 0.3):
            while True:
                pass
    with time_limit_unless_gone(600, lambda: False):
        pass                                              # a block that ends by itself
    time.sleep(0.3)                                       # (no stop arrives afterwards)
    assert signal.getsignal(signal.SIGALRM) == handler
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_a_full_queue_is_answered_503_with_retry_after(monkeypatch):
    entered, gate = threading.Event(), threading.Event()

    def held(request):
        entered.set()
        gate.wait(60)
        return {}

    monkeypatch.setattr(ops, "position", held)
    request = (b"POST /api/position HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
               b"Content-Length: 2\r\nConnection: close\r\n\r\n{}")
    with running_desk(workers=1, queue_size=1) as base:
        first = socket.create_connection(address(base), timeout=60)
        first.sendall(request)
        assert entered.wait(60)                           # the one worker is busy
        second = socket.create_connection(address(base), timeout=60)
        second.sendall(request)                           # waits in the queue
        answer = raw_exchange(base, request)              # finds the queue full
        assert answer.startswith(b"HTTP/1.1 503") and b"Retry-After: 1\r\n" in answer
        assert b'"code":"busy"' in answer
        gate.set()
        for s in (first, second):
            assert s.recv(65536).startswith(b"HTTP/1.1 200")
            s.close()


# ---------------------------------------------------------------- command

def start_desk(*args):
    """``doublecheck desk`` as a user starts it; returns (process, first line of output)."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "doublecheck", "desk", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=default_ctrl_c)
    return proc, proc.stdout.readline()


def test_desk_command_prints_its_address_and_stops_cleanly_on_ctrl_c():
    proc, line = start_desk("--port", "0")
    try:
        assert line.startswith("doublecheck desk: http://127.0.0.1:"), line
        url = line.split()[2]
        status, _, page = fetch(url)
        assert status == 200 and "rules desk" in page
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "stopped" in out and "Traceback" not in err


def test_desk_command_warns_when_not_on_loopback():
    proc, line = start_desk("--port", "0", "--host", "0.0.0.0")
    try:
        port = line.split()[2].rsplit(":", 1)[1].strip("/")
        status, _, _ = fetch(f"http://127.0.0.1:{port}/api/hello")
        assert status == 200
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    assert "warning: listening on 0.0.0.0, not on loopback only" in err
    assert proc.returncode == 0


def test_desk_command_reports_a_busy_port(capsys):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        assert cli_main(["desk", "--port", str(port)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: cannot-listen: 127.0.0.1:") and "--port 0" in err
    assert cli_main(["desk", "--port", "70000"]) == 2
    assert "usage" in capsys.readouterr().err
