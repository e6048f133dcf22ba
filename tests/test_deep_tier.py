"""The deep tier of perft vectors: how it is selected, and its counts recounted independently.

Selection (quick, always run): deep-tier files are checked like every case
file but their cases stay out of ``load_cases()`` and of a default
``doublecheck run``; only ``--deep`` brings them in (``--max-nodes`` only leaves cases out).

Recounts (``-m deep``; .ci/run runs a bounded selection): chess counts with
python-chess, the other 8x8 variants with the python-chess adapter (an
implementation that shares no code with the oracle), and for double-chess
and symmetric-monster, which have no second implementation, the smallest deep
case of each with the oracle's plain walk (no transposition table).
"""

import json

import chess
import pytest

from doublecheck.adapters.python_chess_adapter import PythonChessAdapter
from doublecheck.casefiles import CASES_DIR, load_cases, select_tier
from doublecheck.cli import main
from doublecheck.harness.compare import compare
from doublecheck.harness.engines import AdapterEngine
from doublecheck.oracle import api, variants
from doublecheck.oracle.chess import Chess
from doublecheck.oracle import perft as plain
from python_chess_perft import divide as python_chess_divide

ALL, PROBLEMS = load_cases(deep=True)
DEEP = [c for c in ALL if c.tier == "deep"]


def ids(cases):
    return [c.id for c in cases]


# ------------------------------------------------------------------ selection

# Variants whose deep tier is not computed yet: each test below fails for them, shown as
# an expected failure with the reason (strict: computing the counts makes it an error to
# leave the variant here).  Empty: every variant's deep tier is counted.
NOT_YET_COUNTED: dict[str, str] = {}


def each_variant():
    return [pytest.param(v, marks=pytest.mark.xfail(reason=NOT_YET_COUNTED[v], strict=True))
            if v in NOT_YET_COUNTED else v for v in variants.VARIANT_NAMES]


def test_the_deep_tier_files_have_no_problem():
    assert not PROBLEMS
    assert {c.variant for c in DEEP} <= set(variants.VARIANT_NAMES)


@pytest.mark.parametrize("variant", each_variant())
def test_every_variant_has_a_deep_tier(variant):
    mine = [c for c in DEEP if c.variant == variant]
    assert any(c.request.get("turns") for c in mine), variant
    assert any(not c.request.get("turns") for c in mine), variant
    assert all(c.request["op"] == "perft" and c.nodes for c in mine)


def test_a_default_load_leaves_the_deep_tier_out():
    default, _ = load_cases()
    assert not [c for c in default if c.tier == "deep"]
    assert {c.id for c in default} == {c.id for c in ALL if c.tier != "deep"}


def test_select_tier():
    smallest = min(DEEP, key=lambda c: c.nodes)
    assert set(ids(select_tier(ALL, deep=True))) == set(ids(ALL))
    assert not [c for c in select_tier(ALL) if c.tier == "deep"]
    # a node limit only leaves cases out: it never brings in a deep-tier case (issue 24)
    within = select_tier(ALL, max_nodes=smallest.nodes)
    assert smallest.id not in ids(within) and set(ids(within)) == set(ids(select_tier(ALL)))


def deep_tree(tmp_path, nodes):
    """A case tree with one default case and one deep-tier perft case of chess."""
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "general.json").write_text(json.dumps({"rules": [
        {"id": "G7", "title": "Perft", "statement": "A test rule about perft.", "source": "doublecheck ruling G7",
         "variants": ["chess"]}]}))
    (tmp_path / "chess").mkdir()
    for topic, depth, extra in (("small", 2, {}), ("generated-deep-perft", 3, {"tier": "deep"})):
        (tmp_path / "chess" / f"{topic}.json").write_text(json.dumps({
            "variant": "chess", "topic": topic, "generated": True, "generator": "a test", **extra,
            "description": "Written by a test.", "cases": [{
                "id": f"chess/{topic}/start-{depth}", "rules": ["G7"], "description": "perft",
                "source": "the published perft table", "request": {"op": "perft", "depth": depth},
                "expect": {"nodes": nodes[depth]}}]}))
    return tmp_path


def test_run_takes_the_deep_tier_only_when_asked(tmp_path, capsys):
    tree = str(deep_tree(tmp_path, {2: 400, 3: 8902}))
    assert main(["run", "--cases-dir", tree]) == 0
    assert "1 passed" in capsys.readouterr().out
    assert main(["run", "--cases-dir", tree, "--deep"]) == 0
    assert "2 passed" in capsys.readouterr().out
    assert main(["run", "--cases-dir", tree, "--max-nodes", "9000"]) == 0
    assert "1 passed" in capsys.readouterr().out   # a limit never adds the deep tier
    assert main(["run", "--cases-dir", tree, "--deep", "--max-nodes", "8000"]) == 0
    assert "1 passed, 0 failed, 0 errors, 1 skipped" in capsys.readouterr().out
    assert main(["run", "--cases-dir", tree, "chess/generated-deep-perft"]) == 2
    assert "add --deep" in capsys.readouterr().err


def test_a_wrong_deep_count_fails_the_deep_run(tmp_path, capsys):
    tree = str(deep_tree(tmp_path, {2: 400, 3: 8903}))
    assert main(["run", "--cases-dir", tree]) == 0
    capsys.readouterr()
    assert main(["run", "--cases-dir", tree, "--deep"]) == 1
    assert "8903" in capsys.readouterr().out


def test_generate_check_leaves_the_deep_tier_alone(capsys):
    """The default check neither recounts the deep files nor calls them stray."""
    assert main(["generate", "--check"]) == 0
    assert "generated-deep-perft" not in capsys.readouterr().out


# ------------------------------------------------------------------ recounts

PUBLISHED = {  # Chess Programming Wiki, "Perft Results" (the positions of cases/chess/perft.json)
    "chess/generated-deep-perft/start-perft-6": 119_060_324,
    "chess/generated-deep-perft/start-perft-7": 3_195_901_860,
    "chess/generated-deep-perft/position3-perft-6": 11_030_083,
    "chess/generated-deep-perft/position3-turn-perft-6": 11_030_083,
    "chess/generated-deep-perft/position4-perft-5": 15_833_292,
    "chess/generated-deep-perft/position5-perft-5": 89_941_194,
}


def test_chess_deep_counts_are_the_published_ones():
    chess_deep = {c.id: c.nodes for c in DEEP if c.variant == "chess"}
    assert chess_deep == PUBLISHED


# Counts of 100 million nodes and more are checked by a second walk when they are generated
# (recorded in the case's computed.check), or are published chess values; a test run recounts
# the smaller ones.
SECOND_WALK_FROM = 10**8
RECORDED = {case["id"]: case.get("computed", {}) for path in sorted(CASES_DIR.glob("*/generated-deep-perft.json"))
            for case in json.loads(path.read_text(encoding="utf-8"))["cases"]}
CHESS = [c for c in DEEP if c.variant == "chess" and c.nodes < 2 * SECOND_WALK_FROM]
ADAPTED = [c for c in DEEP if c.variant in ("double-move", "double-move-anul", "marseillais",
                                            "marseillais-classic", "monster", "progressive-scottish",
                                            "progressive-italian") and c.nodes < SECOND_WALK_FROM]
NO_SECOND = [min((c for c in DEEP if c.variant == v), key=lambda c: c.nodes)
             for v in ("double-chess", "symmetric-monster")]


@pytest.mark.parametrize("variant", each_variant())
def test_every_variant_has_a_count_of_100_million_or_more_by_moves_and_by_turns(variant):
    """A publish-grade count for every variant: by moves, and by turns where a turn can be
    more than one move (the variant overrides ``mid_turn``), each recorded with how it was
    counted (through the transposition cache) and how long that took."""
    big = [c for c in DEEP if c.variant == variant and c.nodes >= SECOND_WALK_FROM]
    kinds = {bool(c.request.get("turns")) for c in big}
    multi_move = type(variants.get(variant)).mid_turn is not Chess.mid_turn
    assert kinds >= ({False, True} if multi_move else {False}), variant
    for case in big:
        made = RECORDED[case.id]
        assert "transposition cache" in made.get("how", "") and made.get("seconds", 0) > 0, case.id


def test_every_big_variant_count_records_a_second_walk_that_agrees():
    for case in DEEP:
        if case.nodes >= SECOND_WALK_FROM and case.variant != "chess":
            check = RECORDED[case.id].get("check", "")
            assert "gave the same count" in check, case.id


@pytest.mark.deep
@pytest.mark.parametrize("case", CHESS, ids=ids(CHESS))
def test_chess_deep_case_agrees_with_python_chess(case):
    board = chess.Board(case.request.get("fen", chess.STARTING_FEN))
    counts = python_chess_divide(board, case.request["depth"])
    assert sum(counts.values()) == case.expect["nodes"]
    if "divide" in case.expect:
        assert counts == case.expect["divide"]


@pytest.mark.deep
@pytest.mark.parametrize("case", ADAPTED, ids=ids(ADAPTED))
def test_deep_case_agrees_with_the_python_chess_adapter(case):
    answer = AdapterEngine(PythonChessAdapter()).request(dict(case.request))
    assert compare(case.variant, case.expect, answer, case.request) == []


@pytest.mark.deep
@pytest.mark.parametrize("case", NO_SECOND, ids=ids(NO_SECOND))
def test_deep_case_agrees_with_the_plain_walk(case):
    rules = variants.get(case.variant)
    pos = api.replay(rules, case.request.get("fen"), case.request.get("moves")).final
    counts = plain.divide(rules, pos, case.request["depth"], turns=bool(case.request.get("turns")))
    assert sum(counts.values()) == case.expect["nodes"]
    if "divide" in case.expect:
        assert counts == case.expect["divide"]


def test_the_perft_doc_lists_every_deep_count_as_the_files_say():
    """docs/perft.md's deep-tier table is written from the deep files (`doublecheck generate`;
    a stale table fails `doublecheck generate --check`), so it lists every variant's counts."""
    from doublecheck.authoring import deep, derived
    path = CASES_DIR.parent / "docs" / "perft.md"
    if not path.exists():
        pytest.skip("an installed package has no docs")
    assert derived.expected_texts()[path] == path.read_text(encoding="utf-8")
    rows = "\n".join(deep.deep_rows(CASES_DIR))
    for case in DEEP:
        assert f"| `{case.variant}` | `{case.id.rsplit('/', 1)[1]}` | {case.nodes:,} |" in rows


# ------------------------------------------------------------------ the second walks

def test_every_deep_spec_names_a_second_walk_there_is():
    from doublecheck.authoring import deep
    from doublecheck.authoring.generate import discover
    for module in discover():
        for spec in getattr(module, "DEEP_PERFT", ()):
            assert spec.second in deep.SECOND_WALKS, (module.VARIANT, spec)


@pytest.mark.parametrize("variant,turns", [("progressive-italian", False), ("monster", True),
                                           ("double-move", False)])
def test_the_adapter_walk_agrees_and_catches_a_wrong_count_or_divide(variant, turns):
    """The python-chess adapter's walk gives the oracle's count and divide (keys included),
    and a count or a divide off by one first step is refused."""
    import io
    from doublecheck.authoring import deep
    rules = variants.get(variant)
    spec = deep.DeepPerft("start", 3, turns=turns, check=True, second="adapter")
    counted, _ = deep.measure(rules, spec, 1, 16, io.StringIO())
    assert "gave the same count and divide" in deep.cross_check(rules, spec, counted, 1, io.StringIO())
    first = next(iter(counted["divide"]))
    wrong_count = {"nodes": counted["nodes"] + 1, "divide": counted["divide"]}
    wrong_divide = {"nodes": counted["nodes"], "divide": {**counted["divide"], first: counted["divide"][first] + 1}}
    for wrong in (wrong_count, wrong_divide):
        with pytest.raises(deep.DeepError, match="python-chess adapter"):
            deep.cross_check(rules, spec, wrong, 1, io.StringIO())
