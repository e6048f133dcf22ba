"""Golden failure reports: one planted fault, a handful of cases, every report format.

The engine is the oracle with its king-safety test looking for enemy pawns on
the wrong side (tests/toy_engines/faults.py, ``pawn-attacks-inverted``). The
cases (written by ``golden_tree``; every expectation is the oracle's answer)
are: a move list where the engine gives an extra king step, three cases
along one line whose first move the engine refuses (a cascade: one cause),
and one the engine passes. Each report format is compared with its file in
tests/data/reports/, made deterministic (no timings; paths inside the tree).

The same tree against the oracle itself is a passing run, whose text,
markdown, JUnit and HTML reports must stay exactly as they were before
failure reasons existed (``passing.*``, written once with the code of that
time: a passing run has nothing to explain).

Rewrite the failing-run files after an intended change of the reports with

    python3 tests/test_failure_reports.py --write

and read the diff before committing it.
"""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from doublecheck.casefiles import load_cases  # noqa: E402
from doublecheck.harness import report as reports  # noqa: E402
from doublecheck.harness.engines import AdapterEngine, OracleEngine  # noqa: E402
from doublecheck.harness.html_report import html_report  # noqa: E402
from doublecheck.harness.runner import Run, RunOptions, run_cases  # noqa: E402
from doublecheck.oracle import api  # noqa: E402
from toy_engines.faults import PawnAttacksInvertedAdapter  # noqa: E402

GOLDEN = ROOT / "tests" / "data" / "reports"
# The white king on f5 may step to e5: the black pawn on d4 attacks c3 and e3, not e5. The
# faulty engine sees that pawn attacking e5 and refuses the step.
WALK_FEN = "4k3/8/8/5K2/3p4/8/8/8 w - - 0 1"
# The white king on e1 may not step to d2: the black pawn on c3 attacks it. The faulty
# engine looks for the pawn on c1 and e1 instead and lets the king go.
GUARD_FEN = "4k3/8/8/8/8/2p5/8/4K3 w - - 0 1"
CATALOGUE = {"rules": [
    {"id": "FIDE-3.8.1", "title": "King step", "statement": "A test rule.",
     "source": "FIDE Laws of Chess, article 3.8", "variants": ["chess"]},
    {"id": "FIDE-3.9.2", "title": "The king may not be left in check", "statement": "A test rule.",
     "source": "FIDE Laws of Chess, article 3.9", "variants": ["chess"]}]}


def oracle(request: dict) -> dict:
    """The expectation of a case: the oracle's answer (less ``ok``)."""
    answer = api.handle({**request, "variant": "chess"})
    return {k: v for k, v in answer.items() if k != "ok"}


def golden_tree(root: Path) -> Path:
    """The case tree of the golden reports, under ``root``."""
    def case(slug, request, keys, description):
        expect = {k: v for k, v in oracle(request).items() if k in keys}
        return {"id": f"chess/golden/{slug}", "rules": ["FIDE-3.9.2", "FIDE-3.8.1"],
                "description": description, "source": "the oracle's answer", "request": request,
                "expect": expect}
    walk = ["f5e5"]
    cases = [
        case("guarded-square", {"op": "moves", "fen": GUARD_FEN}, ["moves"],
             "the pawn on c3 guards d2: the king may not step there"),
        case("walk-play", {"op": "play", "fen": WALK_FEN, "moves": walk}, ["fen", "status"],
             "the king steps to e5, which the pawn on d4 does not attack"),
        case("walk-moves", {"op": "moves", "fen": WALK_FEN, "moves": walk}, ["moves"],
             "Black's moves after the king's step to e5"),
        case("walk-status", {"op": "status", "fen": WALK_FEN, "moves": walk + ["e8d7"]}, ["status"],
             "the game goes on after Ke5 Kd7"),
        case("start-moves", {"op": "moves"}, ["moves"], "the twenty first moves"),
    ]
    (root / "rules").mkdir(parents=True, exist_ok=True)
    (root / "rules" / "fide.json").write_text(json.dumps(CATALOGUE))
    (root / "chess").mkdir(exist_ok=True)
    (root / "chess" / "golden.json").write_text(json.dumps(
        {"variant": "chess", "topic": "golden", "generated": False,
         "description": "The cases of the golden failure reports.", "cases": cases}, indent=1))
    return root


def golden_reports(engine, tmp: Path) -> dict[str, str]:
    """Every report format of the golden tree's run on ``engine``, deterministic: run in
    ``tmp`` (paths read cases/chess/golden.json), with no timings."""
    tree = golden_tree(tmp / "cases")
    here = os.getcwd()
    os.chdir(tmp)
    try:
        cases, problems = load_cases(tree)
        assert not problems, problems
        claims = engine.hello()
        results = run_cases(cases, engine, RunOptions())
        for r in results:
            r.seconds, r.span = 0.0, None
        run = Run(results, [], engine.name, engine.name, claims=claims, selected=len(results),
                  started="2026-01-01T00:00:00+0000")
        out = {}
        for name, write in (("txt", reports.text), ("md", reports.markdown)):
            buffer = io.StringIO()
            write(run, buffer)
            out[name] = buffer.getvalue()
        out["json"] = json.dumps(reports.as_json(run), indent=1) + "\n"
        out["xml"] = reports.junit(run)
        out["html"] = html_report(run)
        return out
    finally:
        os.chdir(here)


def faulty():
    return AdapterEngine(PawnAttacksInvertedAdapter(), "pawn-attacks-inverted")


@pytest.fixture(scope="module")
def failing(tmp_path_factory):
    return golden_reports(faulty(), tmp_path_factory.mktemp("golden"))


@pytest.mark.parametrize("fmt", ["txt", "md", "json", "xml", "html"])
def test_failing_report_matches_its_golden_file(failing, fmt):
    want = (GOLDEN / f"pawn-attacks-inverted.{fmt}").read_text()
    assert failing[fmt] == want, f"rewrite with: python3 tests/test_failure_reports.py --write"


@pytest.mark.parametrize("fmt", ["txt", "md", "json", "xml", "html"])
def test_every_format_gives_the_reason_and_the_rule(failing, fmt):
    reason = "d2 is attacked by the pawn on c3 (FIDE-3.9.2)"
    body = failing[fmt].replace("&#x27;", "'").replace("&quot;", '"')
    assert reason in body
    if fmt == "json":   # the rules as data, the reason with its rule
        case = json.loads(body)["cases"][0]
        assert case["rules"] == ["FIDE-3.9.2", "FIDE-3.8.1"]
        assert case["diff"]["reasons"]["items"][0]["rule"] == "FIDE-3.9.2"
    else:
        assert "doublecheck rules FIDE-3.9.2" in body


def test_a_cascade_is_one_group_described_once(failing):
    text = failing["txt"]
    assert text.count("first divergence in the line: turn 1 of 1: f5e5 (Ke5)") == 1
    for slug, turns in (("walk-moves", 1), ("walk-status", 2)):
        assert (f"FAILED chess/golden/{slug}: same cause as chess/golden/walk-play (first "
                f"divergence: turn 1 of {turns}: f5e5 (Ke5))") in text
    assert "3 failing cases share 1 first divergence" in text
    cases = {c["id"]: c for c in json.loads(failing["json"])["cases"]}
    assert cases["chess/golden/walk-moves"]["same_cause_as"] == "chess/golden/walk-play"
    assert "same_cause_as" not in cases["chess/golden/walk-play"]
    found = cases["chess/golden/walk-play"]["diff"]["first_divergence"]
    assert (found["turn"], found["text"], found["position"]) == (1, "f5e5", WALK_FEN)
    assert found["why"]["rule"] == "FIDE-3.9.2"


def test_junit_carries_the_rules_as_properties(failing):
    import xml.etree.ElementTree as ET
    root = ET.fromstring(failing["xml"])
    case = next(c for c in root.iter("testcase") if c.get("name") == "chess/golden/guarded-square")
    assert [p.get("value") for p in case.iter("property") if p.get("name") == "rule"] == \
        ["FIDE-3.9.2", "FIDE-3.8.1"]
    [cause] = [p.get("value") for p in case.iter("property") if p.get("name") == "cause"]
    assert cause.startswith("the engine gives moves the oracle refuses: d2 is attacked by the pawn")
    assert case.get("classname") == "chess.golden" and case.get("file") == "chess/golden.json"
    passed = next(c for c in root.iter("testcase") if c.get("name") == "chess/golden/start-moves")
    assert list(passed.iter("property")) == []


@pytest.mark.parametrize("fmt", ["txt", "md", "xml", "html"])
def test_a_passing_run_reports_as_before(tmp_path, fmt):
    got = golden_reports(OracleEngine(), tmp_path)[fmt]
    assert got == (GOLDEN / f"passing.{fmt}").read_text()


def test_the_json_report_of_the_golden_runs_follows_its_schema(failing, tmp_path):
    from jsonschema import Draft202012Validator
    schema = json.loads((ROOT / "schemas" / "report.schema.json").read_text())
    Draft202012Validator(schema).validate(json.loads(failing["json"]))
    passing = golden_reports(OracleEngine(), tmp_path)["json"]
    Draft202012Validator(schema).validate(json.loads(passing))


def write(kind: str) -> None:
    """Write the golden files of ``kind`` (``failing``, or ``passing``: only with the code
    from before failure reasons existed)."""
    import tempfile
    GOLDEN.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        engine = faulty() if kind == "failing" else OracleEngine()
        name = "pawn-attacks-inverted" if kind == "failing" else "passing"
        for fmt, text in golden_reports(engine, Path(tmp)).items():
            if kind == "passing" and fmt == "json":
                continue   # the JSON report carries each case's rules now, passing or not
            (GOLDEN / f"{name}.{fmt}").write_text(text)
            print(f"wrote {GOLDEN / f'{name}.{fmt}'}")


if __name__ == "__main__":
    if sys.argv[1:] not in (["--write"], ["--write-passing"]):
        sys.exit("usage: python3 tests/test_failure_reports.py --write")
    write("failing" if sys.argv[1] == "--write" else "passing")


def test_reasons_are_capped_per_case_and_the_rest_counted():
    from doublecheck.harness.reasons import REASON_ITEMS, reasons
    extra = [f"a{r}b{r}" for r in range(1, 9)]   # eight moves of no piece (a1 to a8 are empty)
    found = reasons("chess", {"fen": GUARD_FEN}, False, extra, ["e1f1"])
    assert len(found["items"]) == REASON_ITEMS and found["more"] == 9 - REASON_ITEMS
    assert found["items"][0]["text"] == "no piece on a1: the square is empty (G8.1)"


def test_a_move_two_the_engine_plays_differently_is_found_inside_its_turn():
    """No second en passant (marseillais, M4): the engine takes bxc3 e.p. as move one, but
    its position after it has lost the other target, so the line parts there, not at the
    refused dxe3 of move two."""
    from doublecheck.casefiles import CASES_DIR, load_cases
    from doublecheck.harness.runner import run_case
    from toy_engines.faults import NoSecondEnPassantAdapter
    wanted = "marseillais/en-passant/alekhine-both-taken"
    cases, _ = load_cases(CASES_DIR, wanted=lambda variant, raw: raw["id"] == wanted)
    engine = AdapterEngine(NoSecondEnPassantAdapter(), "no-second-en-passant")
    result = run_case(next(c for c in cases if c.id == wanted), engine, engine.hello())
    found = result.diff["first_divergence"]
    assert (found["turn"], found["turns"], found["move"], found["moves"]) == (2, 2, 1, 2)
    assert (found["text"], found["san"], found["before"]) == ("b4c3", "bxc3", ["c2c4,e2e4"])
    assert found["engine"].startswith("answered differently after it: fen en passant: expected")
    assert found["why"]["rule"] == "M4"
    assert ("first divergence in the line: turn 2 of 2, move 1 of 2: b4c3 (bxc3); the engine "
            "answered differently after it") in "\n".join(result.lines)


def test_a_search_that_breaks_is_reported_and_leaves_the_outcome_alone(tmp_path):
    """An engine that fails while the line is searched: the failure stands as judged."""
    from doublecheck.casefiles import load_cases as load
    from doublecheck.harness.runner import run_case

    class BreaksOnPlay(PawnAttacksInvertedAdapter):
        def handle(self, request):
            if request["op"] == "play" and len(request.get("moves", [])) < 2:
                raise RuntimeError("no play today")
            return super().handle(request)
    tree = golden_tree(tmp_path / "cases")
    cases, _ = load(tree)
    case = next(c for c in cases if c.id == "chess/golden/walk-status")
    engine = AdapterEngine(BreaksOnPlay(), "breaks")
    result = run_case(case, engine, engine.hello())
    assert result.outcome == "failed"
    assert list(result.diff["first_divergence"]) == ["stopped"]
    assert result.diff["first_divergence"]["stopped"].startswith(
        "the engine answered internal-error: RuntimeError: no play today")
    assert "first divergence in the line: not found (the engine answered internal-error" \
        in "\n".join(result.lines)
