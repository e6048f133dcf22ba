"""The rules desk for the tests: its server on an ephemeral loopback port in a thread, and
headless Chromium driven by Selenium to use the page as a person does."""

import contextlib
import json
import shutil
import tempfile
import threading
import urllib.error
import urllib.request

from doublecheck.desk.server import DeskServer
from pictures import sample

MATE_FEN = "r2q3k/ppp3p1/2np2Pp/5b2/3P1B2/1Q4P1/PPP2P2/3R2K1 w - - 0 1 WB"   # seed 000
MATE_LINE = ["b3g8,", "g8h7"]                                                 # Qg8+,Qh7#


@contextlib.contextmanager
def running_desk(**limits):
    """Yields the base URL (``http://127.0.0.1:PORT``); stops the server afterwards.
    ``limits``: DeskServer's keyword arguments (workers, queue_size, read_timeout, ...)."""
    server = DeskServer("127.0.0.1", 0, **limits)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def fetch(url, body=None, method=None, headers=None, raw=None):
    """(status, headers, parsed JSON or text) of one request; ``body`` is sent as JSON,
    ``raw`` as it is."""
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    request = urllib.request.Request(url, data=data, method=method)
    if data is not None and raw is None:
        request.add_header("Content-Type", "application/json")
    for key, value in (headers or {}).items():
        request.add_header(key, value)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            status, head, text = response.status, response.headers, response.read()
    except urllib.error.HTTPError as e:
        status, head, text = e.code, e.headers, e.read()
    kind = head.get("Content-Type", "")
    return status, head, json.loads(text) if kind.startswith("application/json") else text.decode()


# ------------------------------------------------------------------ browser

# Without the background-networking flags Chromium tries to reach the internet,
# which a closed network refuses; a fresh profile keeps runs apart.
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync")
BOARD_COLOURS = {bytes.fromhex("efe6d2"), bytes.fromhex("b08a63")}    # the SVG's squares


@contextlib.contextmanager
def chromium(binary, driver_path, size=(1400, 1000)):
    """A Selenium driver for headless Chromium with its console log kept; quits afterwards."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in FLAGS + (f"--window-size={size[0]},{size[1]}",):
        options.add_argument(flag)
    profile = tempfile.mkdtemp(prefix="desk-chromium-")
    options.add_argument(f"--user-data-dir={profile}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


class Page:
    """The desk page in the browser, with the few actions a person takes on it."""

    def __init__(self, driver, base):
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support.ui import WebDriverWait

        self.driver, self.base, self.by = driver, base, By
        self.wait = WebDriverWait(driver, 60)

    def open(self, variant=None, fen=None):
        """Load the page, then choose ``variant`` and set ``fen`` when given."""
        self.driver.get(self.base + "/")
        self.idle()
        if variant is not None:
            self.variant(variant)
        if fen is not None:
            self.set_fen(fen)
        return self

    def idle(self):
        """Wait until no request of the page is under way."""
        body = self.by.TAG_NAME, "body"
        self.wait.until(lambda d: d.find_element(*body).get_attribute("data-busy") == "no")

    def find(self, css):
        return self.driver.find_element(self.by.CSS_SELECTOR, css)

    def text(self, element_id):
        return self.driver.find_element(self.by.ID, element_id).text

    def click(self, element_id):
        self.driver.find_element(self.by.ID, element_id).click()
        self.idle()

    def variant(self, name):
        from selenium.webdriver.support.ui import Select
        Select(self.driver.find_element(self.by.ID, "variant")).select_by_value(name)
        self.idle()

    def set_fen(self, fen):
        self.fill("fen-input", fen, "set-fen")

    def fill(self, field_id, text, button_id):
        """Type ``text`` into the emptied field ``field_id``, then press ``button_id``."""
        field = self.driver.find_element(self.by.ID, field_id)
        field.clear()
        field.send_keys(text)
        self.click(button_id)

    def square(self, name):
        """Click a square as a person does: on its piece when one stands there."""
        found = (self.driver.find_elements(self.by.CSS_SELECTOR, f'#board g.piece[data-square="{name}"]')
                 or self.driver.find_elements(self.by.CSS_SELECTOR, f'#board rect.square[data-square="{name}"]'))
        assert found, f"no square {name} on the board"
        found[0].click()
        self.idle()

    def piece(self, name):
        found = self.driver.find_elements(self.by.CSS_SELECTOR, f'#board g.piece[data-square="{name}"]')
        return found[0].get_attribute("data-piece") if found else None

    def targets(self):
        return {e.get_attribute("data-target") for e in
                self.driver.find_elements(self.by.CSS_SELECTOR, "#board circle.mark")}

    def fen(self):
        return self.driver.find_element(self.by.ID, "fen").get_attribute("value")

    def visible(self, element_id):
        return self.driver.find_element(self.by.ID, element_id).is_displayed()

    def console_errors(self, allowed=()):
        entries = self.driver.get_log("browser")
        return [e for e in entries if e["level"] in ("SEVERE", "ERROR")
                and not any(words in e["message"] for words in allowed)]

    def screenshot(self, path):
        """Save a screenshot and check that it shows a drawn board, not a blank page."""
        assert self.driver.save_screenshot(str(path))
        colours, ink = sample(path)
        assert len(colours) > 30, f"{path}: only {len(colours)} colours"
        assert ink > 0.04, f"{path}: almost blank ({ink:.3f} of the pixels drawn)"
        assert BOARD_COLOURS <= colours, f"{path}: the board's squares are not on the screenshot"


def mate_by_clicks(page):
    """Seed 000: White opens its Double Move with Qb3-g8+ and finishes it with Qg8-h7#."""
    page.open()
    page.variant("double-move")
    page.set_fen(MATE_FEN)
    assert page.visible("double-choice")            # White may use its Double Move here
    page.click("double")
    page.square("b3")
    assert "g8" in page.targets()
    page.square("g8")
    assert "under way" in page.text("turn") and "first move Qg8+" in page.text("turn")
    assert page.fen().endswith(" -Bm")              # between the halves (ruling D1)
    assert not page.visible("double-choice")        # no second Double Move between the halves
    page.square("g8")
    assert "h7" in page.targets()
    page.square("h7")
