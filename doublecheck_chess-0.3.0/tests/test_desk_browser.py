"""The rules desk in a real browser: headless Chromium driven by Selenium, by clicks.

Debian's ``chromium`` and ``chromium-driver`` (installed by .ci/run).  Without
them the tests are skipped with the reason, except in CI (``CI=true``), where a
missing browser is a failure.  Every test takes a screenshot (in its pytest
tmp dir), checks it is not blank, and checks that the browser console logged
no error.

The positions: seed 000's worked example (the mate Qg8+,Qh7# by a Double Move,
and Black's refuted defence Kxh7); double-chess castling with the p-rook from
the curated case double-chess/castling/white-p-legal (seed 003, ruling C3);
the symmetric-monster drop of the double-king on e0 after the e0 double-pawn
stepped to e1 (seed 004 rules 9 and 11, ruling S8: the drop may be the second
double action, onto the square a double-pawn left).
"""

import os
import shutil

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
    browser.open()
    browser.variant("double-chess")
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
    browser.open()
    browser.variant("symmetric-monster")
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
    browser.click("first")
    assert browser.piece("b3") == "Q" and not browser.visible("explanation")
    assert browser.console_errors() == []


def test_promotion_asks_for_the_piece(browser, tmp_path):
    browser.open()
    browser.set_fen("k7/4P3/8/8/8/8/8/4K3 w - - 0 1")
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
    browser.open()
    browser.set_fen("rnbqkbnr/pppppppp/8/8 w KQkq - 0 1")
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
