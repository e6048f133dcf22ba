"""Take the README's picture of the rules desk from a real render:
``python3 tests/desk_screenshot.py docs/desk.png``.

Seed 000's worked example played by clicks in headless Chromium (Qg8+ opening
White's Double Move, Qh7# finishing it), then Black's refuted defence Kxh7
tried on the board, so the picture shows the board with its figures, the
status, the turn panel with the two halves of White's turn, and an
explanation with its rule.  Needs Debian's chromium and chromium-driver and
the selenium package (the test extra).
"""

import shutil
import sys

from desk_support import Page, chromium, mate_by_clicks, running_desk


def main(path: str) -> int:
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver") or "/usr/lib/chromium/chromedriver"
    with chromium(binary, driver_path, size=(1280, 900)) as driver, running_desk() as base:
        page = Page(driver, base)
        mate_by_clicks(page)
        page.square("h8")
        page.square("h7")
        assert "h7 is attacked by the pawn on g6" in page.text("explanation")
        driver.execute_script("window.scrollTo(0, 0); document.activeElement.blur();")
        page.screenshot(path)
        assert page.console_errors() == []
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "docs/desk.png"))
