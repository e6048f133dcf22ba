"""Reports that name root causes (docs/harness.md, "Causes"): engines with planted bugs
(tests/toy_engines/planted.py: the oracle with mutants of the catalogue put in) are run on
the built-in cases, and the causes section of every format is checked to name each bug
and to cover the cases it fails; then the defects of the first divergence and of the
reasons, each on an engine that shows it.
"""

import contextlib
import io
import json
import shlex
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace

import pytest
from jsonschema import Draft202012Validator

from doublecheck.cli import main
from doublecheck.harness.causes import causes_of, general, signature_of

ROOT = Path(__file__).resolve().parents[1]
PLANTED = ROOT / "tests" / "toy_engines" / "planted.py"
SCHEMA = json.loads((ROOT / "schemas" / "report.schema.json").read_text())


def planted(variant, *bugs):
    return " ".join(shlex.quote(a) for a in [sys.executable, str(PLANTED), variant, *bugs])


def run_planted(tmp_path, variant, bugs, *patterns, name="report"):
    """The JSON report (schema-checked), the text report, the markdown and the JUnit XML of
    a run of the planted engine on the built-in cases of ``variant`` (or ``patterns``)."""
    files = {ext: tmp_path / f"{name}.{ext}" for ext in ("json", "xml", "md", "txt")}
    argv = ["run", "--engine", planted(variant, *bugs), "--quick", "-q",
            "--json", str(files["json"]), "--junit", str(files["xml"])]
    argv += list(patterns) or ["--variant", variant]
    code, text = printed(argv)
    report = json.loads(files["json"].read_text())
    Draft202012Validator(SCHEMA).validate(report)
    return code, report, text, ET.parse(files["xml"]).getroot()


def printed(argv) -> tuple[int, str]:
    """(exit status, standard output) of ``doublecheck ARGV`` run in this process."""
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        code = main(argv)
    return code, buffer.getvalue()


def failing(report):
    return {c["id"] for c in report["cases"] if c["outcome"] in ("failed", "error")}


@pytest.fixture(scope="module")
def castling(tmp_path_factory):
    return run_planted(tmp_path_factory.mktemp("castling"), "chess", ["chess/castle-through-attack"])


def test_one_planted_bug_is_one_cause_covering_every_case_it_fails(castling):
    code, report, text, _ = castling
    assert code == 1
    [cause] = report["causes"]
    assert cause["rules"] == ["FIDE-3.8.2.2"]
    assert "the king would pass over" in cause["summary"] and "attacked" in cause["summary"]
    assert set(cause["cases"]) == failing(report) and len(cause["cases"]) >= 10
    assert cause["example"] == cause["cases"][0]
    assert cause["command"].startswith("doublecheck run --engine ") \
        and cause["command"].endswith(cause["example"])
    assert all(c["cause"] == cause["id"] for c in report["cases"] if c["id"] in cause["cases"])


def test_the_text_report_opens_with_the_causes(castling):
    _, report, text, _ = castling
    lines = text.splitlines()
    assert lines[1].startswith(f"Causes of the {len(failing(report))} failing cases (1;")
    assert lines[2].startswith(f"  {len(failing(report))} cases: the engine gives moves the oracle "
                               "refuses: the king would pass over")
    assert "(FIDE-3.8.2.2); see: doublecheck run --engine " in lines[2]
    assert lines[3].startswith("variant")
    assert text.count("  cause:       the engine gives moves the oracle refuses") >= 1


def test_junit_names_each_failing_case_s_cause(castling):
    _, report, _, root = castling
    [cause] = report["causes"]
    named = {c.get("name"): [p.get("value") for p in c.iter("property") if p.get("name") == "cause"]
             for c in root.iter("testcase")}
    assert all(named[cid] == [f"{cause['summary']} ({cause['id']})"] for cid in cause["cases"])
    assert not any(v for cid, v in named.items() if cid not in cause["cases"])


def test_markdown_and_html_open_with_the_causes_linked_to_their_cases(castling):
    _, report, _, _ = castling
    from doublecheck.harness.html_report import html_report
    from doublecheck.harness.report_shared import anchor
    page = html_report(report)
    [cause] = report["causes"]
    assert page.index('<h2 class="causes">Causes</h2>') < page.index('class="counts"')
    assert f'href="#{anchor(cause["example"])}"' in page and f'id="{anchor(cause["example"])}"' in page
    _, text = printed(["run", "--engine", planted("chess", "chess/castle-through-attack"), "-q",
                       "--format", "markdown", "chess/castling"])
    assert text.index("### Causes of the") < text.index("| variant |")
    first = next(line for line in text.splitlines() if line.startswith("- "))
    assert "(FIDE-3.8.2.2): e.g. [" in first and "](#case-chess-castling-" in first
    assert '<a id="case-chess-castling-' in text


def test_two_planted_bugs_are_two_causes(tmp_path):
    _, report, text, _ = run_planted(tmp_path, "chess", ["chess/castle-through-attack",
                                                         "chess/en-passant-lingers"])
    causes = report["causes"]
    assert len(causes) == 2, [c["summary"] for c in causes]
    assert causes[0]["rules"] == ["FIDE-3.8.2.2"]
    assert "en passant" in causes[1]["summary"]
    assert set(causes[0]["cases"]) | set(causes[1]["cases"]) == failing(report)


def test_a_series_that_does_not_end_at_check_is_one_cause(tmp_path):
    _, report, _, _ = run_planted(tmp_path, "progressive-scottish",
                                  ["progressive-scottish/check-does-not-end-series"])
    [cause] = report["causes"]
    assert cause["summary"].startswith("the engine's turn goes on where the oracle's ends: the check")
    assert "ended the series" in cause["summary"] and cause["rules"] == ["PS1"]
    assert set(cause["cases"]) == failing(report)


def test_a_check_that_does_not_end_a_marseillais_turn_is_one_cause(tmp_path):
    """Wherever it shows (a line the engine plays on, a turn list, a perft walk, a move list
    of the wrong side, a comma after the checking move), it is the one cause."""
    _, report, _, _ = run_planted(tmp_path, "marseillais", ["marseillais/check-no-brake"])
    [cause] = report["causes"]
    assert cause["summary"].startswith("the engine's turn goes on where the oracle's ends: move one ")
    assert cause["summary"].endswith("gives check") and cause["rules"] == ["M3"]
    assert set(cause["cases"]) == failing(report) and len(cause["cases"]) > 100


def test_inverted_pawn_attacks_are_named_first(tmp_path):
    _, report, _, _ = run_planted(tmp_path, "marseillais", ["pawn-hits-inverted"])
    first = report["causes"][0]
    assert "is attacked by the pawn on" in first["summary"] and first["rules"] == ["M3"]
    assert len(first["cases"]) * 3 >= len(failing(report))
    # every failure is a consequence of the bug: the king-safety rule, a pawn's move or attack
    assert all(set(c["rules"]) & {"M3", "FIDE-3.7.1", "FIDE-3.8.2.2", "G8.1"} or not c["rules"]
               for c in report["causes"])


def test_no_second_en_passant_is_named_by_its_rule(tmp_path):
    _, report, _, _ = run_planted(tmp_path, "marseillais", ["marseillais/no-alekhine"])
    cited = [c for c in report["causes"] if "M4" in c["rules"]]
    assert report["causes"][0] in cited
    assert all("en passant" in c["summary"] or c["summary"].startswith("the engine lists no moves")
               for c in report["causes"])


def test_an_undeclared_convention_is_one_cause_that_says_what_to_declare(tmp_path):
    _, report, text, _ = run_planted(tmp_path, "monster", ["play:king-safety=king-capture"])
    [cause] = report["causes"]
    assert cause["summary"].startswith("the engine plays king-safety=king-capture without declaring it")
    assert "--option king-safety=king-capture" in cause["summary"] and cause["rules"] == ["OPT-king-safety"]
    assert set(cause["cases"]) == failing(report) and len(cause["cases"]) > 100
    assert all(c["diff"]["convention"] == {"option": "king-safety", "value": "king-capture"}
               for c in report["cases"] if c["id"] in cause["cases"])
    assert "    the engine's answer is the oracle's under king-safety=king-capture: it plays" in text


def test_a_real_bug_stands_apart_from_an_undeclared_convention(tmp_path):
    """King capture, which also means no dead position, is one line; the en passant bug the
    engine has besides is the other."""
    _, report, _, _ = run_planted(tmp_path, "chess", ["play:king-safety=king-capture",
                                                      "chess/en-passant-lingers"])
    convention, bug = report["causes"]
    assert convention["rules"] == ["OPT-king-safety"] and len(convention["cases"]) > 150
    assert "en passant" in bug["summary"] and "convention" not in json.dumps(
        [c["diff"] for c in report["cases"] if c["id"] in bug["cases"]])


def test_a_bug_that_looks_like_a_convention_in_a_few_cases_is_not_called_one(castling):
    """Castling tested on its end squares only answers six cases as king capture would, and
    passes the king-capture cases of everything else: no convention is named."""
    _, report, text, _ = castling
    assert not any((c["diff"] or {}).get("convention") for c in report["cases"])
    assert "without declaring it" not in text


def test_a_draw_convention_and_a_bug_are_two_causes(tmp_path):
    _, report, _, _ = run_planted(tmp_path, "chess", ["play:draws=none", "chess/castle-through-attack"])
    convention, bug = report["causes"]
    assert convention["rules"] == ["OPT-draws"] and "draws=none" in convention["summary"]
    assert bug["rules"] == ["FIDE-3.8.2.2"]
    assert set(convention["cases"]) | set(bug["cases"]) == failing(report)


# --- signatures ------------------------------------------------------------------

def test_signatures_leave_out_squares_pieces_and_numbers():
    assert general("b4 is attacked by the pawn on c5") == general("f1 is attacked by the rook on e2")
    assert general("d6 is attacked by the pawn on c5 and the pawn on e5") == \
        general("e3 is attacked by the pawn on d4")
    assert general("a king step to h5") != general("a pawn's double step")


def reason_diff(side, text, rule):
    return {"fields": {"moves": {"kind": "set", "expected_count": 3, "got_count": 4, "missing": [],
                                 "missing_count": 0, "extra": ["e1d2"], "extra_count": 1,
                                 "repeated": []}},
            "reasons": {"items": [{"side": side, "token": "e1d2", "text": text, "rule": rule,
                                   "rules": [rule]}], "more": 0}}


def test_the_engine_s_own_words_never_enter_a_signature():
    one = {"fields": {"error": {"kind": "error", "expected": None, "got": "illegal-move",
                                "message": "Traceback: line 3"}}}
    two = {"fields": {"error": {"kind": "error", "expected": None, "got": "illegal-move",
                                "message": "no such move, sorry"}}}
    assert signature_of("failed", one, None).id == signature_of("failed", two, None).id
    crash = signature_of("error", None, {"kind": "crash", "message": "segfault at 0x1"})
    assert crash.words == "the engine crashed"


def test_causes_are_ordered_by_size_and_an_unexpected_pass_has_none():
    a = reason_diff("extra", "d2 is attacked by the pawn on c3 (FIDE-3.9.2)", "FIDE-3.9.2")
    b = reason_diff("missing", "legal here: castling, O-O (FIDE-3.8.2)", "FIDE-3.8.2")
    found = causes_of([("x/t/1", "failed", b, None), ("x/t/2", "failed", a, None),
                       ("x/t/3", "failed", a, None), ("x/t/4", "xpassed", a, None),
                       ("x/t/5", "passed", None, None)])
    assert [c.cases for c in found] == [["x/t/2", "x/t/3"], ["x/t/1"]]
    assert found[0].summary == "the engine gives moves the oracle refuses: d2 is attacked by the pawn on c3"
    assert found[0].rules == ["FIDE-3.9.2"] and found[1].summary == \
        "the engine leaves out legal moves: castling, O-O"


def test_write_xfail_groups_the_cases_by_cause(tmp_path):
    out = tmp_path / "xfail.txt"
    main(["run", "--engine", planted("chess", "chess/castle-through-attack", "chess/en-passant-lingers"),
          "-q", "--quick", "--variant", "chess", "--write-xfail", str(out)])
    text = out.read_text()
    heads = [line for line in text.splitlines() if line.startswith("# cause-")]
    assert len(heads) == 2 and "(FIDE-3.8.2.2)" in heads[0]
    first_block = text.split(heads[0])[1].split("\n\n")[0].strip().splitlines()
    assert first_block and all(line.split()[1] == "failed:" and line.endswith(")") for line in first_block)
    assert main(["run", "--engine", planted("chess", "chess/castle-through-attack",
                                            "chess/en-passant-lingers"),
                 "-q", "--quick", "--variant", "chess", "--xfail", str(out)]) == 0


# --- the defects of the first divergence and the reasons ----------------------------

NO_PLAY = "ops:moves,status,perft,fen,turns"   # an engine that does not claim play


def test_without_play_a_turn_the_engine_did_not_end_is_found_at_its_own_move(tmp_path):
    """Asked with status alone, the search named the next move (item 47, e3e2) as the first
    divergence: the status cannot see whose turn it is. With the move lists asked too, it
    is item 46 (h6g4), whose check ends Black's turn for the oracle (M3)."""
    _, report, _, _ = run_planted(tmp_path, "marseillais", ["marseillais/check-no-brake", NO_PLAY],
                                  "marseillais/generated-playouts/game-1-turn-count-after-60")
    [case] = report["cases"]
    d = case["diff"]["first_divergence"]
    assert (d["item"], d["text"], d["san"]) == (46, "h6g4", "Ng4+")
    assert d["why"]["side"] == "turn-end" and d["why"]["rule"] == "M3"


def test_a_fivefold_missed_is_not_filed_under_a_threefold_claim_missed():
    """Two failures whose lines part from the oracle at the same move (a threefold claim
    the engine does not list) are described once only when that parting is the cause of
    both: the fivefold case, whose own failure is the automatic end it misses, stands alone."""
    from doublecheck.harness.causes import same_cause
    parting = {"turn": 9, "turns": 20, "move": 1, "moves": 1, "text": "g1f3", "before": [],
               "key": "monster:same", "engine": "answered differently after it",
               "differs": ["status:claimable"], "why": {"side": "missing", "text": "legal here: x",
                                                        "rule": None, "rules": []}}

    def status(*differing):
        return {"fields": {"status": {"kind": "status", "differing": [
            {"key": k, "expected": e, "got": g} for k, e, g in differing]}},
            "first_divergence": parting}
    three = status(("claimable", ["threefold-repetition"], []))
    three_again = status(("claimable", ["threefold-repetition"], []))
    five = status(("over", True, False), ("reason", "fivefold-repetition", None))
    follows = same_cause([("m/i/three", "failed", three), ("m/i/three-black", "failed", three_again),
                          ("m/i/five", "failed", five)])
    assert follows == {"m/i/three-black": "m/i/three"}
    assert signature_of("failed", five, None).words == "status over: expected True, got False"


def start_tree(root: Path) -> Path:
    """A case whose starting position already allows a claim (the halfmove clock is at 100)."""
    from doublecheck.oracle import api
    request = {"op": "status", "variant": "chess", "fen": "4k3/8/8/8/8/8/8/4K2R w - - 100 80",
               "moves": ["h1h2", "e8e7"]}
    expect = api.handle(dict(request))
    case = {"id": "chess/start/clock-at-the-mark", "description": "a claim from the start",
            "rules": ["FIDE-9.3"], "request": {k: v for k, v in request.items() if k != "variant"},
            "expect": expect, "source": "the oracle's answer (FIDE-9.3: fifty moves)"}
    (root / "chess").mkdir(parents=True)
    (root / "chess" / "start.json").write_text(json.dumps(
        {"variant": "chess", "topic": "start", "generated": False, "description": "start",
         "cases": [case]}))
    return root


def test_the_starting_position_is_checked_before_the_line(tmp_path):
    tree = start_tree(tmp_path / "cases")
    out = tmp_path / "r.json"
    code, text = printed(["run", "--cases-dir", str(tree), "--engine", planted("chess", "play:draws=none"),
                          "-q", "--json", str(out)])
    [case] = json.loads(out.read_text())["cases"]
    d = case["diff"]["first_divergence"]
    assert d["at_start"] is True and d["item"] == 0 and "status:claimable" in d["differs"]
    assert "first divergence in the line: the case's starting position, before any move" in text
    assert "turn 2 of" not in text


def test_the_divergence_counts_the_game_s_turns_not_the_line_s_entries(tmp_path):
    """A progressive line holds one entry per move; its divergence is numbered by series,
    not as "turn 90 of 260"."""
    _, report, text, _ = run_planted(tmp_path, "progressive-scottish",
                                     ["progressive-scottish/check-does-not-end-series"])
    found = [(c["request"]["moves"], c["diff"]["first_divergence"]) for c in report["cases"]
             if (c["diff"] or {}).get("first_divergence", {}).get("item")]
    long = [(moves, d) for moves, d in found if len(moves) > 3]
    assert long
    for moves, d in found:
        assert d["turn"] <= d["turns"] <= len(moves) and d["move"] <= d["moves"]
    for moves, d in long:
        assert d["turns"] < len(moves) and d["item"] <= len(moves)
    moves, d = long[0]
    assert f"first divergence in the line: turn {d['turn']} of {d['turns']}" in text


def test_a_list_of_the_other_side_s_moves_says_why(tmp_path):
    _, report, text, _ = run_planted(tmp_path, "progressive-scottish",
                                     ["progressive-scottish/check-does-not-end-series"])
    notes = [c["diff"].get("other_side") or (c["diff"].get("drill_down") or {}).get("other_side")
             for c in report["cases"] if c["diff"]]
    notes = [n for n in notes if n]
    assert notes and all(n["side"] == "turn-end" and n["rule"] == "PS1" for n in notes)
    assert "again here, but the oracle's turn ended with" in text


def test_an_empty_move_list_is_said_once():
    from doublecheck.harness.compare import diff_lines, difference
    from doublecheck.harness.runner import explain_diff
    from doublecheck.oracle import api
    request = {"op": "moves", "variant": "chess"}
    expect = {"moves": api.handle(dict(request))["moves"]}
    diff = difference("chess", expect, {"ok": True, "moves": []}, request)
    explain_diff(SimpleNamespace(variant="chess", request=request), diff)
    assert diff["none_listed"] == {"expected": 20} and "reasons" not in diff
    lines = diff_lines(diff)
    assert sum("lists no moves at all here, where the oracle has 20" in line for line in lines) == 1
    assert not any("legal here" in line for line in lines)
    assert signature_of("failed", diff, None).words.startswith("the engine lists no moves")


def test_an_error_answer_of_several_lines_is_shown_as_lines_and_summed_up_by_its_first():
    from doublecheck.harness.compare import diff_lines, difference, short_diff
    from doublecheck.harness.divergence import engine_words
    trace = "illegal move e2e5\n    at Board.play (board.js:3:1)\n    at main (index.js:9:2)"
    diff = difference("chess", {"fen": "x"}, {"ok": False, "error": {"code": "illegal-move",
                                                                     "message": trace}})
    assert diff_lines(diff) == ["expected a result, got error illegal-move: illegal move e2e5",
                                "  | at Board.play (board.js:3:1)", "  | at main (index.js:9:2)"]
    assert short_diff(diff) == "expected a result, got error illegal-move: illegal move e2e5"
    assert engine_words({"ok": False, "error": {"code": "illegal-move", "message": trace}}) == \
        "refused it: illegal-move: illegal move e2e5 ..."
