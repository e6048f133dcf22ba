"""Board pictures (SVG) and the HTML report, including a look at it in headless Chromium."""

import os
import shutil
import subprocess
import xml.etree.ElementTree as ET
from types import SimpleNamespace

import pytest

from doublecheck.oracle import api, variants
from doublecheck.oracle.errors import RulesError
from doublecheck.casefiles import Case
from doublecheck.harness.engines import AdapterEngine
from doublecheck.harness.html_report import (EXTRA_COLOUR, MISSING_COLOUR, case_view, differences,
                                             html_report, write_html_report)
from doublecheck.harness.runner import run_case
from doublecheck.pictures.svg import MARGIN, SQUARE, position_svg, raw_arrows, svg_for
from pictures import png_pixels

NS = "{http://www.w3.org/2000/svg}"
MATE_FEN = "r2q3k/ppp3p1/2np2Pp/5b2/3P1B2/1Q4P1/PPP2P2/3R2K1 w - - 0 1 WB"
SM_FEN = "*p*p*p*p/rnbqkbnr/pppppppp/8/8/8/8/PPP2PPP/RNBK1BNR/*P1*P*P w kq - 0 1 Kk -"


def parsed(text):
    return ET.fromstring(text)


def squares(root):
    return [r for r in root.iter(f"{NS}rect") if r.get("width") == r.get("height")
            and r.get("fill") != "#ffffff"]


# --------------------------------------------------------------------- SVG

@pytest.mark.parametrize("variant", list(api.VARIANTS))
def test_every_board_shape_is_drawn_square_by_square(variant):
    rules = variants.get(variant)
    root = parsed(svg_for(variant))
    assert len(squares(root)) == len(rules.geometry.squares)
    pieces = [g for g in root.iter(f"{NS}g") if g.get("class") == "piece"]
    on_board = [sq for sq in rules.geometry.squares if rules.start.board[sq] is not None]
    assert len(pieces) == len(on_board)


def test_symmetric_monster_extra_squares_and_double_pieces():
    root = parsed(svg_for("symmetric-monster"))
    drawn = {g.get("data-square"): g for g in root.iter(f"{NS}g") if g.get("class") == "piece"}
    assert {"c0", "d0", "e0", "f0", "c9", "d9", "e9", "f9"} <= set(drawn)
    doubled = drawn["c0"].findall(f"{NS}g")
    single = drawn["e1"].findall(f"{NS}g")
    assert len(doubled) == 2 and len(single) == 1       # a double-piece is its figure drawn twice
    assert drawn["c0"].get("aria-label") == "white double-pawn on c0, extra square"
    assert drawn["e1"].get("aria-label") == "white king on e1"
    names = {r.get("data-square"): r.get("aria-label") for r in squares(root)}
    assert names["d4"] == "d4, empty" and names["c0"] == "white double-pawn on c0, extra square"
    assert names["b1"] == "white knight on b1"
    # no square is drawn where rank 0 has no square: x positions on rank 0 are c..f only
    xs = sorted({float(r.get("x")) for r in squares(root) if float(r.get("y")) == max(
        float(s.get("y")) for s in squares(root))})
    assert len(xs) == 4


def test_pieces_are_figures_from_the_one_drawing_file_not_letters():
    from doublecheck.pictures.figures import drawings
    root = parsed(svg_for("chess"))
    pieces = [g for g in root.iter(f"{NS}g") if g.get("class") == "piece"]
    assert not [t for g in pieces for t in g.iter(f"{NS}text")]      # no lettered discs
    knight = next(g for g in pieces if g.get("data-square") == "g1")
    drawn = [p.get("d") for p in knight.iter(f"{NS}path")]
    assert drawn == [d for _kind, d in drawings()["N"]]
    assert set(drawings()) == set("KQRBNP")


def test_turn_drawn_as_numbered_arrows():
    root = parsed(svg_for("double-move", MATE_FEN, turn="Qg8+,Qh7#"))
    arrows = [e for e in root.iter() if e.get("class") == "arrow"]
    assert len(arrows) == 2
    labels = [t.text for t in root.iter(f"{NS}text") if t.text in ("1", "2")]
    assert "1" in labels and "2" in labels


def test_drop_is_a_circle_and_illegal_coordinates_still_draw():
    root = parsed(svg_for("symmetric-monster", SM_FEN, turn="K@d0,*Ke1"))
    arrows = [e for e in root.iter() if e.get("class") == "arrow"]
    assert [a.tag for a in arrows] == [f"{NS}circle", f"{NS}line"]
    drawn = parsed(svg_for("chess", turn="e2e5"))            # refused by the rules, still drawn
    assert len([e for e in drawn.iter() if e.get("class") == "arrow"]) == 1
    with pytest.raises(RulesError):
        svg_for("chess", turn="Ke5")                          # SAN the rules refuse: no picture


def test_raw_arrows_skip_squares_the_board_lacks():
    rules = variants.get("chess")
    assert raw_arrows(rules, "e2e4,e9e8", "#000") and len(raw_arrows(rules, "e2e4,e9e8", "#000")) == 1


def test_text_is_escaped():
    rules = variants.get("chess")
    text = position_svg(rules, rules.start, title='<b>&"')
    assert "<b>" not in text and parsed(text) is not None


# -------------------------------------------------------------------- HTML

class Buggy:
    """An adapter that forgets castling and invents a rook lift b1b3."""

    def hello(self):
        return {"protocol": api.PROTOCOL_VERSION, "name": "buggy", "variants": list(api.VARIANTS),
                "ops": list(api.OPS)}

    def handle(self, req):
        out = api.handle(req)
        for key in ("moves", "turns"):
            if key in out:
                out[key] = [m for m in out[key] if m not in ("e1g1", "e1c1")] + ["b1b3"]
        return out


def case(slug, variant="chess", request=None, expect=None):
    request = dict(request or {"op": "moves", "fen": "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"})
    request["variant"] = variant
    if expect is None:
        key = request["op"]
        expect = {key: api.handle(request)[key]}
    return Case(id=f"{variant}/demo/{slug}", variant=variant, topic="demo", rules=["FIDE-3.8.2"],
                description=f"demo case {slug}", source="a test", request=request, expect=expect,
                path="demo.json", generated=False)


@pytest.fixture
def results():
    engine = AdapterEngine(Buggy())
    claims = engine.hello()
    cases = [case("castling"),
             case("start", request={"op": "moves"}),
             case("mid-turn", "double-move", {"op": "turns", "fen": MATE_FEN, "moves": ["Qg8+,"]}),
             case("bad-fen", request={"op": "moves", "fen": "8/8 w - - 0 1"},
                  expect={"moves": []}),
             case("<script>alert(1)</script>", request={"op": "status"},
                  expect={"status": {"over": False}})]
    return [run_case(c, engine, claims) for c in cases]


def test_differences_come_from_the_structured_diff_not_the_text(results):
    castling = results[0]
    assert castling.outcome == "failed"
    found = differences(case_view(castling))
    assert (found.missing, found.extra) == (["e1c1", "e1g1"], ["b1b3"])
    assert found.position == {"fen": castling.case.request["fen"]} and found.caption == ""
    # the diff lines alone give no arrows: nothing is read back from text
    text_only = differences(case_view({"lines": castling.lines, "outcome": "failed"}))
    assert (text_only.missing, text_only.extra) == ([], [])
    # a plain dict with the fields of a JSON report's case works like a result
    as_dict = {"id": castling.case.id, "variant": "chess", "outcome": "failed",
               "request": castling.case.request, "diff": castling.diff}
    assert differences(case_view(as_dict)) == found


def test_drill_down_board_is_where_the_move_lists_part():
    from tests.toy_engines.adapters import DropsOneTurn
    start = DropsOneTurn.BLIND_START
    request = {"op": "perft", "fen": start, "depth": 2, "turns": True}
    nodes = api.handle({**request, "variant": "double-move-anul"})["nodes"]
    engine = AdapterEngine(DropsOneTurn())
    result = run_case(case("perft-turns", "double-move-anul", request, {"nodes": nodes}),
                      engine, engine.hello())
    assert result.outcome == "failed"
    found = differences(case_view(result))
    assert found.position == {"fen": start, "moves": ["a1a2,a2b2"]}
    assert (found.missing, found.extra) == (["e8d7,d7c6"], [])
    page = html_report([result])
    assert "the position the perft drill-down reached after a1a2,a2b2 (Ra2,Rb2)" in page
    assert MISSING_COLOUR in page


class ForgetsCastlingMovesOnly(Buggy):
    """Forgets castling and claims only ``moves``: the first divergence of a line is then
    looked for with move lists, and found at the move after which castling is legal."""

    def hello(self):
        return {**super().hello(), "ops": ["moves"]}

    def handle(self, req):
        out = api.handle(req)
        out["moves"] = [m for m in out["moves"] if m not in ("e1g1", "e1c1")]
        return out


def drawn_arrows(svg_text):
    """(from, to, colour) of each arrow of a chess board, read back from its coordinates."""
    def square(x, y):
        return "abcdefgh"[int((float(x) - MARGIN) // SQUARE)] + str(8 - int((float(y) - MARGIN // 2) // SQUARE))
    return [(square(a.get("x1"), a.get("y1")), square(a.get("x2"), a.get("y2")), a.get("stroke"))
            for a in parsed(svg_text).iter(f"{NS}line") if a.get("class") == "arrow"]


def test_the_board_of_a_line_draws_the_missing_moves_where_they_are_missing():
    """A move list that differs after a line: the missing castling is drawn at the position
    after the line, whose last move is shaded, not drawn as missing (it is the first
    divergence the text names)."""
    line = ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6"]
    engine = AdapterEngine(ForgetsCastlingMovesOnly())
    result = run_case(case("line", request={"op": "moves", "moves": line}), engine, engine.hello())
    assert result.outcome == "failed" and result.diff["first_divergence"]["text"] == "g8f6"
    page = html_report([result])
    svg = page.split('<div class="board">', 1)[1].split("</svg>", 1)[0] + "</svg>"
    assert drawn_arrows(svg) == [("e1", "g1", MISSING_COLOUR)]
    shaded = [r.get("data-square") for r in parsed(svg).iter(f"{NS}rect") if r.get("class") == "last-move"]
    assert shaded == ["g8", "f6"]
    assert "board: the position after the request&#x27;s moves (the last, g8f6, shaded)" in page


def test_report_shows_failing_cases_with_coloured_arrows(results):
    page = html_report(results)
    assert page.count('<section class="case') == sum(r.outcome == "failed" for r in results)
    assert 'data-id="chess/demo/castling"' in page
    castling = page.split('data-id="chess/demo/castling"')[1].split("</section>")[0]
    assert MISSING_COLOUR in castling and EXTRA_COLOUR in castling and "<svg" in castling
    assert "no board: the oracle cannot set up this position" in page     # the bad FEN case
    assert "<script>alert(1)</script>" not in page                        # ids are escaped
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "")  # self-contained


def test_report_tolerates_plain_dicts_and_missing_fields(tmp_path):
    items = [{"id": "x/y/z", "outcome": "failed"},
             {"case": {"id": "chess/a/b", "variant": "chess", "request": {"op": "moves"}},
              "outcome": "error", "diff": ["engine crashed"]},
             SimpleNamespace(outcome="skipped", lines=["not claimed"], case=None),
             {"id": "chess/a/c", "outcome": "passed"}]
    path = tmp_path / "r.html"
    write_html_report(items, path)
    page = path.read_text()
    assert "x/y/z" in page and "engine crashed" in page and "not claimed" in page
    assert page.count('<section class="case') == 2


def test_report_of_a_run_object(results, tmp_path):
    run = SimpleNamespace(results=results, engine="buggy")
    path = tmp_path / "run.html"
    old = os.umask(0o022)
    try:
        write_html_report(run, path)
    finally:
        os.umask(old)
    assert "Implementation: buggy" in path.read_text()
    assert path.stat().st_mode & 0o777 == 0o644       # an ordinary file, not a private temp file
    assert [p.name for p in tmp_path.iterdir()] == ["run.html"]


def test_the_board_of_a_refused_play_move_has_a_caption_and_the_move():
    """A play case whose move the engine refused: the board is the position before that
    move, with the move drawn, and the caption says so."""
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


# ------------------------------------------------------------ in Chromium

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def chromium(*args, tmp):
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--no-first-run", f"--user-data-dir={tmp / 'profile'}", "--enable-logging=stderr",
           "--v=0", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


@pytest.mark.skipif(CHROMIUM is None and os.environ.get("CI") != "true",
                    reason="chromium is not installed (Debian package 'chromium'); CI runs this")
def test_report_renders_in_headless_chromium(results, tmp_path):
    assert CHROMIUM, "CI must install chromium for this test"
    page = tmp_path / "report.html"
    write_html_report(results, page)
    url = page.as_uri()
    dom = chromium("--dump-dom", url, tmp=tmp_path)
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert 'data-ready="yes"' in dom.stdout          # the page's script ran to its end
    errors = [line for line in dom.stderr.splitlines()
              if ":CONSOLE" in line and ("Uncaught" in line or "Error" in line)]
    assert not errors, errors
    shot = tmp_path / "shot.png"
    run = chromium(f"--screenshot={shot}", "--window-size=900,700", url, tmp=tmp_path)
    assert run.returncode == 0 and shot.exists(), run.stderr[-2000:]
    width, height, bpp, rows = png_pixels(shot)
    assert (width, height) == (900, 700)
    colours, ink = set(), 0
    for row in rows[::3]:
        for x in range(0, width * bpp, bpp * 3):
            px = row[x:x + 3]
            colours.add(px)
            if px != b"\xff\xff\xff" and px != b"\xfa\xfa\xfa":
                ink += 1
    assert len(colours) > 20, len(colours)                 # text, squares, pieces, arrows
    assert ink > 0.05 * (width // 3) * (height // 3)       # not a blank page
    board_colours = {bytes.fromhex(c[1:]) for c in ("#efe6d2", "#b08a63")}
    assert board_colours <= colours                        # the board squares were painted


def test_a_damaged_install_without_the_figures_is_a_clear_error(tmp_path, monkeypatch):
    from doublecheck.casefiles import DataError
    from doublecheck.pictures import figures

    class Elsewhere:                        # a package folder whose static files lack figures.svg
        @staticmethod
        def files(_package):
            return tmp_path
    (tmp_path / "static").mkdir()
    monkeypatch.setattr(figures, "resources", Elsewhere)
    figures.drawings.cache_clear()
    try:
        with pytest.raises(DataError) as missing:
            svg_for("chess")
        assert missing.value.code == "figures-not-found"
        (tmp_path / "static" / "figures.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg">'
                                                         '<g id="K"><path d="M0 0"/></g></svg>')
        figures.drawings.cache_clear()
        with pytest.raises(DataError, match="no drawing for Q, R, B, N, P"):
            svg_for("chess")
    finally:
        figures.drawings.cache_clear()


def line_view(**divergence):
    """A failing play case of two moves whose first divergence is ``divergence``."""
    d = {"turn": 1, "turns": 2, "move": 1, "moves": 1, "item": 1, "text": "e2e4", "san": "e4",
         "before": [], "position": api.handle({"op": "fen", "variant": "chess"})["fen"],
         "key": "chess:x", "differs": ["fen:turn"], **divergence}
    return {"id": "chess/line/x", "variant": "chess", "outcome": "failed",
            "request": {"op": "play", "variant": "chess", "moves": ["e2e4", "e7e5"]},
            "expect": {"fen": "?"}, "diff": {"fields": {"fen": {"kind": "absent"}}, "first_divergence": d}}


def test_a_divergence_is_drawn_as_what_the_engine_did():
    """A refused move is the missing arrow; a move the engine answered otherwise after is
    shaded on the board it led to (it played it); a starting position has no arrow."""
    refused = differences(case_view(line_view(engine="refused it: illegal-move: no")))
    assert refused.missing == ["e2e4"] and not refused.mark_last
    otherwise = differences(case_view(line_view(engine="answered differently after it: fen")))
    assert otherwise.missing == [] and otherwise.mark_last
    assert otherwise.position["moves"] == ["e2e4"] and "(shaded)" in otherwise.caption
    start = differences(case_view(line_view(at_start=True, text="", engine="answered differently there")))
    assert start.missing == start.extra == [] and "starting position" in start.caption
