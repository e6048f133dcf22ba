"""A first report soon, and the run's report as a new user first reads it: cheap cases first,
a hint naming --quick when perft cases time out, turn perft's own time allowance, --quick
never adding cases, the given-up cases in one line, JUnit paths within the case tree."""

import xml.etree.ElementTree as ET
from types import SimpleNamespace

from test_harness import TRIGGER_FEN, case, legal, run, run_json, toy, write_tree

from doublecheck.casefiles import CASES_DIR, load_cases, select_tier
from doublecheck.harness import report
from doublecheck.harness.runner import (
    QUICK_MAX_NODES, SLOW_RATE, SLOW_TURN_RATE, Result, cheap_first, speed_hints, time_limit)

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


def fake_case(case_id, request, expect):
    return SimpleNamespace(id=case_id, variant="chess", request=request, expect=expect)


def test_cheap_cases_run_first_and_perft_last_by_size():
    cases = [fake_case("big", {"op": "perft"}, {"nodes": 9000}),
             fake_case("moves", {"op": "moves"}, {"moves": []}),
             fake_case("small", {"op": "perft"}, {"divide": {"e2e4": 20, "d2d4": 20}}),
             fake_case("fen", {"op": "fen"}, {"fen": "x"})]
    assert [c.id for c in cheap_first(cases)] == ["moves", "fen", "small", "big"]


def test_the_run_goes_cheap_first_and_reports_in_case_order(capsys, tmp_path):
    """The hanging engine hangs on its trigger position: as a perft case it comes last, so the
    moves cases before it in the file have all been answered already."""
    cases = [case("trigger-perft", {"op": "perft", "fen": TRIGGER_FEN, "depth": 1}, {"nodes": 15}),
             case("start-moves", {"op": "moves"}, {"moves": legal()}),
             case("perft-2", {"op": "perft", "depth": 2}, {"nodes": 400})]
    tree = write_tree(tmp_path / "cases", cases)
    code, out, _, rep, outcomes = run_json(capsys, tmp_path, tree, "--engine", toy("hang"),
                                           "--timeout", "1")
    assert [c["id"] for c in rep["cases"]] == [c["id"] for c in cases]   # case order kept
    spans = {c["id"]: c["seconds"] for c in rep["cases"]}
    assert outcomes["chess/toy/trigger-perft"] == "error" and spans["chess/toy/trigger-perft"] >= 1
    assert outcomes["chess/toy/start-moves"] == outcomes["chess/toy/perft-2"] == "passed"
    assert "hint: 1 perft case timed out" in out and "--quick" in out and "--max-nodes N" in out
    assert out.index("hint:") < out.index("FAILED: ")


def results_of(kinds, seconds):
    cases = [fake_case(f"chess/t/{i}", {"op": "perft", "depth": 1}, {"nodes": 5})
             for i in range(len(kinds))]
    results = [Result(c, "error" if k else "passed", problem={"kind": k, "message": ""} if k else None)
               for c, k in zip(cases, kinds)]
    return SimpleNamespace(results=results, seconds=seconds)


def test_the_hint_comes_when_perft_times_out_or_the_run_is_slow_and_not_with_quick():
    assert speed_hints(results_of([None, "timeout"], 5), None)[0].startswith("hint: 1 perft case")
    assert speed_hints(results_of([None], 300), None)[0].startswith("hint: this run took 300 s")
    assert speed_hints(results_of([None, "crash"], 5), None) == []
    assert speed_hints(results_of(["timeout"], 300), QUICK_MAX_NODES) == []


def test_turn_perft_gets_its_own_pace():
    moves = fake_case("m", {"op": "perft", "depth": 4}, {"nodes": 196646})
    turns = fake_case("t", {"op": "perft", "depth": 2, "turns": True}, {"nodes": 196646})
    assert time_limit(moves, 10) == 10 + 196646 / SLOW_RATE
    assert time_limit(turns, 10) == 10 + 196646 / SLOW_TURN_RATE
    assert SLOW_TURN_RATE * 10 == SLOW_RATE


def test_quick_never_adds_a_case_the_default_run_does_not_run():
    cases, _ = load_cases(CASES_DIR, deep=True)
    default = {c.id for c in select_tier(cases)}
    smallest_deep = min(c.nodes for c in cases if c.tier == "deep")
    for limit in (QUICK_MAX_NODES, smallest_deep, 10**12):   # a limit that a deep case fits in too
        assert {c.id for c in select_tier(cases, max_nodes=limit)} <= default


def test_given_up_cases_are_one_line_per_variant_and_reason(capsys, tmp_path):
    crashing = [case(f"trigger-{i}", {"op": "moves", "fen": TRIGGER_FEN}, {"moves": legal(TRIGGER_FEN)})
                for i in range(12)]
    others = [case(f"start-{i}", {"op": "moves"}, {"moves": ["e2e4"]}, variant="double-move")
              for i in range(3)]
    tree = write_tree(tmp_path / "cases", crashing + others)
    code, out, _ = run(capsys, tree, "--engine", toy("crash"), "--give-up", "2", "--quiet")
    assert code == 1
    assert out.count("ERROR chess/toy/trigger-") == 2   # the two real crashes, described
    assert "never sent" not in out.split("Not run:")[0]
    not_run = [line.strip() for line in out.split("Not run:")[1].split("\n\n")[0].strip().splitlines()]
    why = ("never sent, because the run stopped sending cases to this engine after 2 crashes or "
           "timeouts in a row (--give-up 2); neither passed nor failed")
    assert not_run == [f"chess: 10 cases {why} (first: chess/toy/trigger-2)",
                       f"double-move: 3 cases {why} (first: double-move/toy/start-0)"]
    capsys.readouterr()
    code, out, _ = run(capsys, tree, "--engine", toy("crash"), "--give-up", "2", "--quiet",
                       "--format", "markdown")
    assert "### Not run" in out and out.count("<details><summary>ERROR") == 2


def test_junit_file_names_the_case_file_within_its_tree(capsys, tmp_path):
    tree = write_tree(tmp_path / "somewhere" / "deep" / "cases")
    path = tmp_path / "junit.xml"
    run(capsys, tree, "--junit", str(path), "--quiet")
    files = {c.get("file") for c in ET.parse(path).getroot().iter("testcase")}
    assert files == {"chess/toy.json"}


def test_junit_of_the_installed_tree_never_points_into_the_environment():
    r = Result(SimpleNamespace(id="chess/castling/x", variant="chess", topic="castling",
                               path=CASES_DIR / "chess" / "castling.json", description="",
                               request={"op": "moves"}, rules=["FIDE-3.8.2"]), "passed")
    run_ = SimpleNamespace(results=[r], seconds=0.0, interrupted=False, selected=1)
    [testcase] = ET.fromstring(report.junit(run_).split("\n", 1)[1]).iter("testcase")
    assert testcase.get("file") == "chess/castling.json"


def test_the_cases_a_node_limit_leaves_out_share_one_line():
    skipped = [Result(fake_case(f"chess/p/{n}", {"op": "perft"}, {"nodes": n}), "skipped",
                      [f"expects {n} nodes, more than --max-nodes 20000"]) for n in (30000, 40000, 50000, 60000)]
    assert report._skips(skipped) == [
        "4 cases: expects more nodes than --max-nodes 20000 (first: chess/p/30000)"]
    assert report._skips(skipped[:1]) == ["chess/p/30000: expects 30000 nodes, more than --max-nodes 20000"]


def test_quick_keeps_the_mutant_checks_bound_and_a_case_of_every_rule_in_every_variant():
    """docs/harness.md promises that --quick leaves out depth, not coverage: it is the bound
    under which `doublecheck mutants` kills every mutant, and every rule keeps a case."""
    from doublecheck.authoring.mutants.kill import DEFAULT_MAX_NODES
    from doublecheck.harness.runner import expected_nodes
    assert QUICK_MAX_NODES == DEFAULT_MAX_NODES
    cases = select_tier(load_cases(CASES_DIR)[0])
    everywhere = {(rule, c.variant) for c in cases for rule in c.rules}
    quick = {(rule, c.variant) for c in cases if expected_nodes(c) <= QUICK_MAX_NODES for rule in c.rules}
    assert quick == everywhere
