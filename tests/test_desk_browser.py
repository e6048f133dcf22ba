"""The rules desk in a real browser: headless Chromium driven by Selenium, by clicks.

Debian's ``chromium`` and ``chromium-driver`` (installed by .ci/run).  Without
them the tests are skipped with the reason, except in CI (``CI=true``), where a
missing browser is a failure.  Every test takes a screenshot (in its pytest
tmp dir), checks it is not blank, and checks that the browser console logged
no error.

The desk as players use it: the pieces drawn as figures, the turn
panel with the rules' reason for a turn that ended early (double-move-anul's
capture brake DA-5 from the curated case double-move-anul/brakes/capture-ends-
turn, the Marseillais check brake M3 from marseillais/check/check-on-move-one-
ends-turn, a double-move turn with and without the Double Move, symmetric-
monster's drop as one action and single-piece turn S4), flipping the board, a
typed turn, a move made with the keyboard only, the accessible names of the
squares, and a 390 x 844 phone viewport.

The positions: seed 000's worked example (the mate Qg8+,Qh7# by a Double Move,
and Black's refuted defence Kxh7); double-chess castling with the p-rook from
the curated case double-chess/castling/white-p-legal (seed 003, ruling C3);
the symmetric-monster drop of the double-king on e0 after the e0 double-pawn
stepped to e1 (seed 004 rules 9 and 11, ruling S8: the drop may be the second
double action, onto the square a double-pawn left).
"""

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from desk_support import MATE_FEN, Page, chromium, mate_by_clicks, running_desk

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver") or (
    "/usr/lib/chromium/chromedriver" if os.path.exists("/usr/lib/chromium/chromedriver") else None)
try:
    import selenium  # noqa: F401
    SELENIUM = True
except ImportError:
    SELENIUM = False

IN_CI = os.environ.get("CI") == "true"
MISSING = [name for name, there in (("chromium", CHROMIUM), ("chromium-driver", CHROMEDRIVER),
                                    ("selenium", SELENIUM)) if not there]
pytestmark = pytest.mark.skipif(
    bool(MISSING) and not IN_CI,
    reason=f"not installed: {', '.join(MISSING)} (Debian packages chromium and chromium-driver, "
           f"pip selenium from the test extra); CI runs these tests")

DESK_JS = (Path(__file__).resolve().parent.parent / "tools" / "desk" / "static" / "desk.js").read_text()
DC_FEN = "r7k6r/16/16/16/16/16/16/R7K6R w APap - 0 1"        # double-chess/castling/white-p-legal
SM_FEN = "*p*p*p*p/rnbqkbnr/pppppppp/8/8/8/8/PPP2PPP/RNBK1BNR/*P1*P*P w kq - 0 1 Kk -"


@pytest.fixture(scope="module")
def browser():
    assert not MISSING, f"CI must install {', '.join(MISSING)} for the desk's browser tests"
    with chromium(CHROMIUM, CHROMEDRIVER) as driver, running_desk() as base:
        yield Page(driver, base)


def test_seed_000_mate_by_clicks(browser, tmp_path):
    mate_by_clicks(browser)
    assert "checkmate" in browser.text("status")
    assert browser.text("status").startswith("The game is over: White wins (1-0)")
    assert "1. Qg8+,Qh7#" in browser.text("line")
    assert browser.piece("h7") == "Q" and browser.piece("b3") is None
    assert browser.fen() == "r2q3k/ppp3pQ/2np2Pp/5b2/3P1B2/6P1/PPP2P2/3R2K1 b - - 2 1 -B"
    browser.screenshot(tmp_path / "mate.png")
    browser.click("copy-fen")
    assert browser.text("copied")          # copied, or told to copy by hand where no clipboard
    browser.click("copy-pgn")
    pgn = browser.driver.find_element(browser.by.ID, "pgn-output").get_attribute("value")
    assert '[Variant "double-move"]' in pgn and f'[FEN "{MATE_FEN}"]' in pgn
    assert "1. Qg8+,Qh7# 1-0" in pgn
    assert browser.console_errors() == []


def test_refuted_defence_kxh7_is_explained_naming_the_g6_pawn(browser, tmp_path):
    mate_by_clicks(browser)
    browser.square("h8")
    assert browser.targets() == set()               # checkmated: no legal move at all
    browser.square("h7")
    explanation = browser.text("explanation")
    assert "h7 is attacked by the pawn on g6" in explanation
    assert "not allowed" in explanation and "checkmated" in explanation
    link = browser.find('#explanation-rules a')
    assert link.get_attribute("href").endswith("/rules#FIDE-3.9.2")
    browser.screenshot(tmp_path / "kxh7.png")
    # the seed's whole refuted turn, asked in words: every half must be legal (DM-every-half-legal)
    field = browser.driver.find_element(browser.by.ID, "ask-text")
    field.send_keys("Kxh7,Kh8")
    browser.click("ask-turn")
    explanation = browser.text("explanation")
    assert "Kxh7: h7 is attacked by the pawn on g6" in explanation
    assert "DM-every-half-legal" in explanation
    # the rule link leads to the rule text in the catalogue
    browser.driver.get(browser.find('#explanation-rules a').get_attribute("href"))
    rule = browser.find('section[id="DM-every-half-legal"]')
    assert "Each half is a legal move on its own" in rule.text
    assert browser.console_errors() == []


def test_double_chess_castling_with_the_p_rook(browser, tmp_path):
    browser.open("double-chess")
    assert len(browser.driver.find_elements(browser.by.CSS_SELECTOR, "#board rect.square")) == 128
    browser.set_fen(DC_FEN)
    browser.square("i1")
    assert {"m1", "e1"} <= browser.targets()        # both outside castlings (C3)
    browser.square("m1")
    assert browser.piece("m1") == "K" and browser.piece("l1") == "R"
    assert browser.piece("i1") is None and browser.piece("p1") is None
    assert browser.fen().split()[2] == "ap"          # castling spent all of White's rights
    assert browser.text("line") == "1. O-O-O-O"     # the p-rook's SAN (DC-castling-san)
    browser.screenshot(tmp_path / "castling.png")
    assert browser.console_errors() == []


def test_symmetric_monster_drop_of_the_double_king_on_e0(browser, tmp_path):
    browser.open("symmetric-monster")
    assert len(browser.driver.find_elements(browser.by.CSS_SELECTOR, "#board rect.square")) == 72
    browser.set_fen(SM_FEN)
    browser.square("e0")                             # the double-pawn on e0 ...
    browser.square("e1")                             # ... steps to e1: a first double action
    assert "under way" in browser.text("turn")
    hand = browser.find('#hand button[data-drop="K"]')
    hand.click()
    browser.idle()
    assert {"d0", "e0"} == browser.targets()         # the empty start squares of the double-pawns
    browser.square("e0")
    assert browser.piece("e0") == "*K"
    assert "Black to move" in browser.text("turn")
    assert browser.fen().split()[6:] == ["k", "-"]   # White's double-king left the hand (S3)
    assert "*e1,*K@e0" in browser.text("line")
    browser.screenshot(tmp_path / "drop.png")
    assert browser.console_errors() == []


def test_pasted_record_steps_to_its_illegal_turn(browser, tmp_path):
    browser.open()
    record = f'[Variant "double-move"]\n[FEN "{MATE_FEN}"]\n\n1. Qg8+,Qh7# Kxh7,Kh8 *\n'
    browser.driver.find_element(browser.by.ID, "pgn-input").send_keys(record)
    browser.click("load-pgn")
    report = browser.text("replay-report")
    assert "ILLEGAL turn 1... (black, line 4): Kxh7,Kh8" in report and report.endswith("NOT OK")
    assert browser.piece("b3") == "Q"                # the record opens at its start
    browser.click("forward")
    assert browser.piece("h7") == "Q" and "checkmate" in browser.text("status")
    assert "Kxh7: h7 is attacked by the pawn on g6" in browser.text("explanation")
    assert browser.find("#board circle.arrow") is not None     # the refused Kxh7 marked on h7
    browser.screenshot(tmp_path / "record.png")
    refused = browser.find("#board circle.arrow").get_attribute("cx")
    browser.click("flip")                            # the refused turn is redrawn the other way round
    assert "Kxh7: h7 is attacked by the pawn on g6" in browser.text("explanation")
    assert browser.find("#board circle.arrow").get_attribute("cx") != refused
    browser.click("flip")
    browser.click("first")
    assert browser.piece("b3") == "Q" and not browser.visible("explanation")
    assert browser.console_errors() == []


def test_promotion_asks_for_the_piece(browser, tmp_path):
    browser.open(fen="k7/4P3/8/8/8/8/8/4K3 w - - 0 1")
    browser.square("e7")
    browser.square("e8")
    choices = [b.get_attribute("data-promotion") for b in
               browser.driver.find_elements(browser.by.CSS_SELECTOR, "#promotion button[data-promotion]")]
    assert sorted(choices) == ["b", "n", "q", "r"]
    browser.find('#promotion button[data-promotion="n"]').click()
    browser.idle()
    assert browser.piece("e8") == "N" and "e8=N" in browser.text("line")
    browser.click("undo")
    assert browser.piece("e7") == "P"
    browser.screenshot(tmp_path / "promotion.png")
    assert browser.console_errors() == []


def test_bad_input_gets_a_message_and_the_page_goes_on(browser, tmp_path):
    browser.open(fen="rnbqkbnr/pppppppp/8/8 w KQkq - 0 1")
    message = browser.text("message")
    assert message.startswith("invalid-fen: ")
    assert browser.piece("e1") == "K"                # the board before stays
    browser.driver.find_element(browser.by.ID, "pgn-input").send_keys('[Variant "chess"\n\n1. e4 *')
    browser.click("load-pgn")
    assert browser.text("message").startswith("pgn-syntax: line 1: malformed tag pair")
    browser.square("e2")
    browser.square("e4")
    assert browser.piece("e4") == "P" and not browser.visible("message")
    browser.screenshot(tmp_path / "bad-input.png")
    # the refused requests show in the console as failed loads (status 400), and nothing else
    assert browser.console_errors(allowed=("status of 400",)) == []


# ------------------------------------------------ the desk for players (figures, turns, keys)

ANUL_FEN = "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1"   # double-move-anul/brakes/*
MARSEILLAIS_FEN = "4k3/8/8/8/8/8/8/R3K3 w - - 0 2"      # marseillais/check/check-on-move-one-ends-turn


def slots(browser, list_id="slots"):
    """[(name, what it shows, state, rule id)] of a row of the turn panel."""
    out = []
    for item in browser.driver.find_elements(browser.by.CSS_SELECTOR, f"#{list_id} li"):
        name = item.find_element(browser.by.CSS_SELECTOR, ".name").text
        shown = item.find_elements(browser.by.CSS_SELECTOR, ".san, .open")
        out.append((name.lower(), shown[0].text if shown else "", item.get_attribute("data-state"),
                    item.get_attribute("data-rule")))
    return out


def reasons_in_line(browser):
    return [(r.get_attribute("data-rule"), r.text) for r in
            browser.driver.find_elements(browser.by.CSS_SELECTOR, "#line .reason")]


def test_pieces_are_figures_and_double_pieces_doubled_with_a_legend(browser, tmp_path):
    browser.open()
    pieces = browser.driver.find_elements(browser.by.CSS_SELECTOR, "#board g.piece")
    assert len(pieces) == 32
    for piece in pieces:                              # figures: paths, never a letter in a disc
        assert piece.find_elements(browser.by.CSS_SELECTOR, "path")
        assert not piece.find_elements(browser.by.CSS_SELECTOR, "text, circle")
    assert not browser.visible("legend")
    browser.variant("symmetric-monster")
    doubled = browser.find('#board g.piece[data-square="c0"]')
    assert len(doubled.find_elements(browser.by.XPATH, "./*[local-name()='g']")) == 2
    single = browser.find('#board g.piece[data-square="c1"]')
    assert len(single.find_elements(browser.by.XPATH, "./*[local-name()='g']")) == 1
    assert browser.visible("legend") and "double-king" in browser.text("legend")
    browser.screenshot(tmp_path / "figures.png")
    assert browser.console_errors() == []


def test_anul_capture_on_move_one_ends_the_turn_with_its_reason(browser, tmp_path):
    browser.open("double-move-anul", ANUL_FEN)
    assert slots(browser) == [("move 1", "to play now", "next", None), ("move 2", "not yet", "waiting", None)]
    browser.square("e4")
    browser.square("d5")                              # exd5: the capture brake (DA-5)
    assert slots(browser, "last-slots") == [("move 1", "exd5", "played", None),
                                            ("move 2", "left empty", "empty", "DA-5")]
    assert "A capture on move one ends the turn" in browser.text("last-turn")
    assert slots(browser)[0][2] == "next" and "Black's turn" in browser.text("turn-title")
    assert reasons_in_line(browser) == [("DA-5", "Move 2 empty: move 1 exd5 captures "
                                                 "(DA-5: A capture on move one ends the turn)")]
    # Black's quiet move one: Move 2 becomes the next slot, the turn goes on
    browser.square("g8")
    browser.square("f6")
    assert slots(browser) == [("move 1", "Nf6", "played", None), ("move 2", "to play now", "next", None)]
    browser.screenshot(tmp_path / "anul-capture.png")
    assert browser.console_errors() == []


def test_marseillais_check_on_move_one_ends_the_turn(browser, tmp_path):
    browser.open("marseillais", MARSEILLAIS_FEN)
    browser.square("a1")
    browser.square("a8")                              # Ra8+: the check brake (M3)
    assert slots(browser, "last-slots") == [("move one", "Ra8+", "played", None),
                                            ("move two", "left empty", "empty", "M3")]
    assert "move one Ra8+ gives check" in browser.text("last-turn")
    assert [rule for rule, _ in reasons_in_line(browser)] == ["M3"]
    browser.screenshot(tmp_path / "marseillais-check.png")
    assert browser.console_errors() == []


def test_double_move_turn_with_and_without_the_double_move(browser, tmp_path):
    mate_by_clicks(browser)                           # seed 000: Qg8+,Qh7# with the Double Move
    assert slots(browser, "last-slots") == [("first half", "Qg8+", "played", None),
                                            ("second half", "Qh7#", "played", None)]
    assert reasons_in_line(browser) == []             # both slots filled: nothing ended early
    browser.screenshot(tmp_path / "double-move-used.png")
    browser.open("double-move")
    browser.square("e2")
    browser.square("e4")                              # an ordinary move: the turn is one move
    assert slots(browser, "last-slots") == [("first half", "e4", "played", None),
                                            ("second half", "left empty", "empty", "DM-ability")]
    assert "Double Move not used" in browser.text("last-turn")
    assert reasons_in_line(browser) == []             # the usual turn of double-move: not marked
    # Black's turn now: its second half comes only if its first half opens the Double Move
    assert slots(browser) == [("first half", "to play now", "next", None),
                              ("second half", "only if the first half opens the Double Move", "waiting",
                               "DM-ability")]
    assert "(DM-ability: " in browser.text("slots")
    browser.screenshot(tmp_path / "double-move-unused.png")
    assert browser.console_errors() == []


def test_symmetric_monster_drop_fills_one_action_slot(browser, tmp_path):
    browser.open("symmetric-monster", SM_FEN)
    browser.square("e0")
    browser.square("e1")                              # the first double action
    assert slots(browser) == [("first action", "*e1", "played", None),
                              ("second action", "to play now", "next", None)]
    browser.find('#hand button[data-drop="K"]').click()
    browser.idle()
    browser.square("e0")                              # the drop is the second action (S8)
    assert slots(browser, "last-slots") == [("first action", "*e1", "played", None),
                                            ("second action", "*K@e0", "played", None)]
    browser.square("a7")
    browser.square("a6")                              # a single-piece move: a whole turn (S4)
    assert slots(browser, "last-slots")[1][2:] == ("empty", "S4")
    assert reasons_in_line(browser) == []             # the usual turn: a single-piece move
    browser.screenshot(tmp_path / "drop-action.png")
    assert browser.console_errors() == []


def square_x(browser, name):
    return float(browser.find(f'#board rect.square[data-square="{name}"]').get_attribute("x"))


def test_flip_draws_the_board_from_blacks_side_and_it_still_plays(browser, tmp_path):
    browser.open()
    assert square_x(browser, "a1") < square_x(browser, "h1")
    browser.click("flip")
    assert square_x(browser, "a1") > square_x(browser, "h1")
    assert browser.find("#flip").get_attribute("aria-pressed") == "true"
    assert "Black at the bottom" in browser.text("orientation")
    browser.square("e2")
    browser.square("e4")
    assert browser.piece("e4") == "P" and square_x(browser, "a1") > square_x(browser, "h1")
    browser.screenshot(tmp_path / "flipped.png")
    browser.click("flip")
    assert square_x(browser, "a1") < square_x(browser, "h1")
    assert browser.console_errors() == []


def type_move(browser, text):
    browser.fill("move-text", text, "play-text")


def test_a_typed_turn_is_played_and_a_refused_one_explained(browser, tmp_path):
    browser.open("double-move", MATE_FEN)
    type_move(browser, "Qg8+,Qh7#")                   # seed 000's whole turn, typed in SAN
    assert "checkmate" in browser.text("status") and "1. Qg8+,Qh7#" in browser.text("line")
    assert browser.piece("h7") == "Q"
    browser.wait.until(lambda d: "White played Qg8+. White played Qh7#." in
                       d.find_element(browser.by.ID, "announce").text)
    type_move(browser, "Kxh7")                        # Black's refuted defence: explained
    assert "h7 is attacked by the pawn on g6" in browser.text("explanation")
    browser.screenshot(tmp_path / "typed.png")
    browser.click("dismiss")
    browser.click("undo")
    browser.click("undo")
    type_move(browser, "b3g8,")                        # a first half in coordinates, then SAN
    type_move(browser, "Qh7#")
    assert "checkmate" in browser.text("status")
    assert browser.console_errors(allowed=("status of 400",)) == []


def test_a_move_made_with_the_keyboard_only(browser, tmp_path):
    from selenium.webdriver.common.keys import Keys
    browser.open()
    board = browser.driver.find_element(browser.by.ID, "board")
    board.send_keys(Keys.ARROW_UP)                     # the focus starts on White's first piece, a1
    keys = [Keys.ARROW_DOWN, Keys.ARROW_RIGHT, Keys.ARROW_RIGHT, Keys.ARROW_RIGHT, Keys.ARROW_RIGHT,
            Keys.ARROW_UP]                             # ... to e2
    for key in keys:
        board.send_keys(key)
    browser.wait.until(lambda d: "white pawn on e2" in d.find_element(browser.by.ID, "announce").text)
    board.send_keys(Keys.ENTER)                        # pick up the pawn
    browser.idle()
    assert browser.targets() == {"e3", "e4"}
    board.send_keys(Keys.ARROW_UP)
    board.send_keys(Keys.ARROW_UP)
    board.send_keys(Keys.ENTER)                        # put it down on e4
    browser.idle()
    assert browser.piece("e4") == "P" and browser.piece("e2") is None
    browser.wait.until(lambda d: "White played e4" in d.find_element(browser.by.ID, "announce").text)
    browser.screenshot(tmp_path / "keyboard.png")
    assert browser.console_errors() == []


def test_every_square_and_piece_has_an_accessible_name(browser):
    browser.open("symmetric-monster", SM_FEN)
    squares = browser.driver.find_elements(browser.by.CSS_SELECTOR, "#board rect.square")
    names = {r.get_attribute("data-square"): r.get_attribute("aria-label") for r in squares}
    assert len(names) == 72 and all(names.values())
    assert names["d0"] == "d0, extra square, empty"
    assert names["g1"] == "white knight on g1" and names["e4"] == "e4, empty"
    assert names["c0"] == "white double-pawn on c0, extra square"
    for piece in browser.driver.find_elements(browser.by.CSS_SELECTOR, "#board g.piece"):
        assert piece.get_attribute("aria-label").endswith(piece.get_attribute("data-square")) or \
            "extra square" in piece.get_attribute("aria-label")
    live = browser.find("#announce")
    assert live.get_attribute("aria-live") == "polite"


def test_a_phone_screen_shows_the_whole_board_first(browser, tmp_path):
    driver = browser.driver
    # the viewport of a 390 x 844 phone screen, exactly (a window size would include the frame)
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
    try:
        browser.open("symmetric-monster")
        view = driver.execute_script("return [window.innerWidth, window.innerHeight, window.scrollY];")
        assert view[:2] == [390, 844]
        board = driver.execute_script(
            "const r = document.querySelector('#board svg').getBoundingClientRect();"
            "return [r.left, r.top, r.right, r.bottom];")
        facts = driver.execute_script("return document.getElementById('status').getBoundingClientRect().top;")
        assert view[2] == 0
        assert board[0] >= 0 and board[1] >= 0 and board[2] <= view[0] and board[3] <= view[1], (board, view)
        assert facts > board[3]                        # the panels come below the board
        browser.screenshot(tmp_path / "phone.png")
        browser.square("e2")
        browser.square("e4")                           # and it plays there too
        assert browser.piece("e4") == "P"
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    assert browser.console_errors() == []


def test_a_fen_between_the_halves_shows_the_earlier_half_as_played_before_it(browser, tmp_path):
    # seed 000 after Qg8+ opened White's Double Move (ruling D1: field 7 "-Bm")
    browser.open("double-move", "r2q2Qk/ppp3p1/2np2Pp/5b2/3P1B2/6P1/PPP2P2/3R2K1 w - - 1 1 -Bm")
    assert slots(browser) == [("first half", "before this position", "played", None),
                              ("second half", "to play now", "next", None)]
    browser.square("g8")
    browser.square("h7")
    assert not browser.visible("message") and "checkmate" in browser.text("status")
    assert slots(browser, "last-slots") == [("first half", "before this position", "played", None),
                                            ("second half", "Qh7#", "played", None)]
    assert browser.text("line") == "1. Qh7#" and reasons_in_line(browser) == []
    browser.screenshot(tmp_path / "between-halves.png")
    assert browser.console_errors() == []


def test_house_rules_replay_the_line_under_an_option(browser, tmp_path):
    """The House rules control: the same repetition is a claim by default and the end of
    the game under draws=automatic (docs/options.md); changing variant goes back to the
    defaults."""
    from selenium.webdriver.support.ui import Select
    browser.open("chess")
    for move in ["Nf3", "Nf6", "Ng1", "Ng8"] * 2:
        type_move(browser, move)
    assert not browser.text("status").startswith("The game is over")
    browser.find("#options-box summary").click()
    Select(browser.find('#options select[data-option="draws"]')).select_by_value("automatic")
    browser.idle()
    assert browser.text("status").startswith("The game is over: drawn (1/2-1/2) by threefold repetition")
    browser.screenshot(tmp_path / "house-rules.png")
    browser.variant("marseillais")
    from doublecheck.oracle import options, variants
    taken = options.taken_by(variants.get("marseillais"))   # the variant's rule options, each a control
    assert len(browser.driver.find_elements(browser.by.CSS_SELECTOR, "#options select")) == len(taken) == 8
    assert Select(browser.find('#options select[data-option="draws"]')).first_selected_option \
        .get_attribute("value") == "claims"
    assert browser.console_errors() == []


def box(driver, css):
    """[left, top, right, bottom] of the first element matching css, in viewport pixels."""
    return driver.execute_script(
        "const r = document.querySelector(arguments[0]).getBoundingClientRect();"
        "return [r.left, r.top, r.right, r.bottom];", css)


def test_a_phone_shows_why_a_tap_is_refused_with_the_panel_and_status_on_screen(browser, tmp_path):
    driver = browser.driver
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
    try:
        browser.open("double-move")
        browser.square("e2")
        browser.square("e4")                          # a turn played: the last-turn row shows too
        browser.square("e8")
        browser.square("e6")                          # the king does not move two squares: refused
        assert driver.execute_script("return window.scrollY;") == 0
        assert browser.text("verdict").startswith("Not allowed: e8e6: a king does not move")
        board = box(driver, "#board svg")
        for css in ("#verdict", "#status", "#turn-panel"):
            left, top, right, bottom = box(driver, css)
            assert 0 <= left and right <= 390 and top >= board[3] - 1 and bottom <= 844, (css, top, bottom)
        assert box(driver, "#verdict")[1] < box(driver, "#status")[1] < box(driver, "#turn-panel")[1]
        browser.screenshot(tmp_path / "phone-refused.png")
        browser.square("e7")
        browser.square("e5")                          # a legal move clears the line
        assert not browser.visible("verdict")
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    assert browser.console_errors() == []


def test_enter_in_the_fen_field_sets_the_position(browser):
    from selenium.webdriver.common.keys import Keys
    browser.open("chess")
    field = browser.driver.find_element(browser.by.ID, "fen-input")
    field.clear()
    field.send_keys("7k/8/8/8/8/8/8/K7 w - - 0 1" + Keys.ENTER)
    browser.idle()
    assert browser.fen() == "7k/8/8/8/8/8/8/K7 w - - 0 1"
    assert browser.piece("a1") == "K" and browser.piece("e1") is None


RECORD_EXAMPLES = re.search(r"const RECORD_EXAMPLES = (\{.*?\});", DESK_JS, re.S)


def test_the_record_box_shows_an_example_of_the_chosen_variant(browser):
    browser.open()
    for variant in json.loads(RECORD_EXAMPLES.group(1)):
        browser.variant(variant)
        shown = browser.find("#pgn-input").get_attribute("placeholder")
        assert shown.startswith(f'[Variant "{variant}"]'), shown


@pytest.mark.parametrize("variant, turns", json.loads(RECORD_EXAMPLES.group(1)).items())
def test_each_record_example_is_legal_in_its_variant(variant, turns, tmp_path):
    from doublecheck.cli import main
    record = tmp_path / "example.pgn"
    record.write_text(f'[Variant "{variant}"]\n\n{turns} *\n')
    assert main(["replay", str(record)]) == 0


def test_monster_white_turn_has_two_slots_and_black_one(browser, tmp_path):
    # MO2: White moves twice a turn (Move 1, Move 2), Black once (a single Move slot)
    browser.open("monster")
    assert slots(browser) == [("move 1", "to play now", "next", None), ("move 2", "not yet", "waiting", None)]
    browser.square("e2")
    browser.square("e4")
    assert slots(browser) == [("move 1", "e4", "played", None), ("move 2", "to play now", "next", None)]
    browser.square("d2")
    browser.square("d4")
    assert slots(browser, "last-slots") == [("move 1", "e4", "played", None), ("move 2", "d4", "played", None)]
    assert slots(browser) == [("move", "to play now", "next", None)] and "Black's turn" in browser.text("turn-title")
    browser.square("e7")
    browser.square("e5")
    assert slots(browser, "last-slots") == [("move", "e5", "played", None)]
    assert slots(browser)[0][:3] == ("move 1", "to play now", "next")
    browser.screenshot(tmp_path / "monster-turns.png")
    assert browser.console_errors() == []


def test_progressive_series_grow_and_a_check_ends_one_early(browser, tmp_path):
    # P1: series n has n moves, shown as Move 1 ... Move n; PS1: a check ends the series at
    # once, the moves left in it forfeited; P9: the line numbers each series by its length
    browser.open("progressive-scottish")
    assert slots(browser) == [("move 1", "to play now", "next", None)]
    browser.square("e2")
    browser.square("e4")                              # White's series of one
    assert slots(browser, "last-slots") == [("move 1", "e4", "played", None)]
    assert slots(browser) == [("move 1", "to play now", "next", None), ("move 2", "not yet", "waiting", None)]
    assert browser.text("turn-title") == "Black's turn 2."
    browser.square("f7")
    browser.square("f6")
    assert slots(browser) == [("move 1", "f6", "played", None), ("move 2", "to play now", "next", None)]
    browser.square("g7")
    browser.square("g5")                              # Black's series of two, complete
    assert slots(browser, "last-slots") == [("move 1", "f6", "played", None), ("move 2", "g5", "played", None)]
    assert [s[:3] for s in slots(browser)] == [("move 1", "to play now", "next"), ("move 2", "not yet", "waiting"),
                                               ("move 3", "not yet", "waiting")]
    browser.square("d1")
    browser.square("h5")                              # Qh5# with move 1 of 3 ends the series (PS1)
    assert slots(browser, "last-slots") == [("move 1", "Qh5#", "played", None),
                                            ("move 2", "left empty", "empty", "PS1"),
                                            ("move 3", "left empty", "empty", "PS1")]
    assert "the check Qh5# on move 1 ended the series" in browser.text("last-turn")
    assert [rule for rule, _ in reasons_in_line(browser)] == ["PS1"]
    assert "checkmate" in browser.text("status")
    assert browser.text("line").splitlines()[:3] == ["1. e4", "2. f6 g5", "3. Qh5#"]
    browser.screenshot(tmp_path / "progressive-series.png")
    assert browser.console_errors() == []


def test_progressive_italian_refuses_a_check_before_the_last_move(browser, tmp_path):
    # PI1: in the Italian form a check may come only with the last move of a full series
    browser.open("progressive-italian")
    for frm, to in (("e2", "e4"), ("e7", "e5"), ("d7", "d6")):
        browser.square(frm)
        browser.square(to)
    browser.square("f1")
    assert "b5" not in browser.targets()              # Bb5+ would be move 1 of 3
    browser.square("b5")
    assert "PI1" in browser.text("verdict") and browser.piece("f1") == "B"
    browser.square("f1")
    browser.square("c4")
    browser.square("d1")
    browser.square("h5")                              # Bc4, Qh5: quiet moves 1 and 2
    browser.square("h5")
    assert "f7" in browser.targets()                  # Qxf7# is move 3 of 3: allowed
    browser.square("f7")
    assert "checkmate" in browser.text("status")
    assert slots(browser, "last-slots") == [("move 1", "Bc4", "played", None), ("move 2", "Qh5", "played", None),
                                            ("move 3", "Qxf7#", "played", None)]
    browser.screenshot(tmp_path / "progressive-italian.png")
    assert browser.console_errors(allowed=("status of 400",)) == []
