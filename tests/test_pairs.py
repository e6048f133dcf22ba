"""The pair table (``doublecheck rules --matrix``, doublecheck.lookups.pairs) and the witness search.

The real tree: every variant that declares a pair catalogue has every pair of
conditions of one moment covered (two cases that are not colour mirrors of
each other, both colours) or impossible with a reason.  Scratch trees: a
missing, a thin and a mirrored pair are found.  The search: the same seed gives
the same witnesses, and a case written from a witness passes the oracle and
the second opinion and kills the probe it was searched with.
"""

import json

import pytest

from doublecheck.authoring import witness
from doublecheck.authoring.mirrors import independent, mirror_key, mirror_text
from doublecheck.authoring.mutants import CATALOGUE
from doublecheck.casefiles import load_cases, load_rules
from doublecheck.lookups import pairs
from doublecheck.lookups.matrix import variant_order


# ------------------------------------------------------------ the real tree

@pytest.fixture(scope="module")
def real():
    catalogue, _ = load_rules()
    cases, _ = load_cases()
    return catalogue, cases


def test_every_declared_pair_is_covered_or_impossible(real):
    catalogue, cases = real
    tables = [pairs.build(v, cases, catalogue) for v in variant_order(catalogue)]
    assert any(t.declared for t in tables)
    for t in tables:
        assert t.problems == [], t.problems
        assert [(r.conditions, r.why) for r in t.failing()] == []
        for r in t.rows:
            assert r.state in ("covered", "impossible")


# ------------------------------------------------------------ scratch trees

RULES = [{"id": "R1", "title": "t", "statement": "s", "source": "x", "variants": ["chess"]},
         {"id": "R2", "title": "t", "statement": "s", "source": "x", "variants": ["chess"]}]


def scratch(tmp_path, pair_entries, cases, conditions=None):
    root = tmp_path / "cases"
    (root / "rules" / "pairs").mkdir(parents=True)
    (root / "rules" / "all.json").write_text(json.dumps({"rules": RULES}))
    (root / "chess").mkdir()
    (root / "chess" / "topic.json").write_text(json.dumps(
        {"variant": "chess", "topic": "topic", "generated": False, "description": "d", "cases": cases}))
    conditions = conditions or {"a": {"rule": "R1", "what": "w", "moment": "m"},
                                "b": {"rule": "R2", "what": "w", "moment": "m"},
                                "c": {"rule": "R2", "what": "w", "moment": "elsewhere"}}
    (root / "rules" / "pairs" / "chess.json").write_text(json.dumps(
        {"variant": "chess", "conditions": conditions, "pairs": pair_entries}))
    catalogue, _ = load_rules(root)
    loaded, _ = load_cases(root)
    return pairs.build("chess", loaded, catalogue, root)


def case(slug, fen, colour):
    return {"id": f"chess/topic/{slug}", "rules": ["R1"], "covers": [f"colour:{colour}"], "description": "d",
            "source": "s", "request": {"op": "status", "fen": fen},
            "expect": {"status": {"over": False, "result": None, "reason": None, "claimable": []}}}


WHITE_CASE = case("w", "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", "white")
MIRROR_CASE = case("w-black", "4k3/4p3/8/8/8/8/8/4K3 b - - 0 1", "black")
OTHER_CASE = case("b", "4k3/3p4/8/8/8/8/8/4K3 b - - 0 1", "black")


def test_a_pair_without_an_entry_is_missing(tmp_path):
    t = scratch(tmp_path, [], [WHITE_CASE])
    assert [(r.conditions, r.state) for r in t.rows] == [(("a", "b"), "missing")]   # c is of another moment


def test_a_pair_on_one_case_and_its_mirror_is_thin(tmp_path):
    entry = {"conditions": ["a", "b"], "ruling": "R1", "cases": ["chess/topic/w", "chess/topic/w-black"]}
    t = scratch(tmp_path, [entry], [WHITE_CASE, MIRROR_CASE])
    (row,) = t.rows
    assert (row.state, row.cases, row.independent) == ("thin", 2, 1)


def test_a_pair_on_two_independent_cases_of_both_colours_is_covered(tmp_path):
    entry = {"conditions": ["a", "b"], "ruling": "R1", "cases": ["chess/topic/w", "chess/topic/b"]}
    t = scratch(tmp_path, [entry], [WHITE_CASE, OTHER_CASE])
    assert [(r.state, r.independent, r.colours) for r in t.rows] == [("covered", 2, ("black", "white"))]
    assert t.problems == []


def test_an_impossible_pair_needs_a_reason_and_bad_entries_are_problems(tmp_path):
    t = scratch(tmp_path, [{"conditions": ["a", "b"], "impossible": "never at once"}], [WHITE_CASE])
    assert [(r.state, r.why) for r in t.rows] == [("impossible", "never at once")]
    entry = {"conditions": ["a", "b"], "ruling": "R2", "cases": ["chess/topic/w", "chess/topic/none"]}
    t = scratch(tmp_path / "2", [entry], [WHITE_CASE])
    assert any("no case chess/topic/none" in p for p in t.problems)
    assert any("does not cite the ruling R2" in p for p in t.problems)
    t = scratch(tmp_path / "3", [{"conditions": ["a", "b"]}], [WHITE_CASE])   # neither ruling nor reason
    assert t.problems and "pairs" not in t.as_json()["problems"][0][:5]


def test_cli_prints_the_pair_table_and_exits_1_on_a_missing_pair(tmp_path, capsys, monkeypatch):
    from doublecheck.cli import main
    from doublecheck.lookups import matrix
    monkeypatch.setattr(matrix, "mutant_kills", lambda cases, variants: {})
    scratch(tmp_path, [], [WHITE_CASE])
    code = main(["rules", "--matrix", "--cases-dir", str(tmp_path / "cases")])
    out = capsys.readouterr().out
    assert code == 1 and "a + b: MISSING" in out


# ------------------------------------------------------------ mirrors

def test_mirror_key_joins_a_request_and_its_colour_mirror_only():
    a = {"op": "play", "fen": "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", "moves": ["e2e4"]}
    b = {"op": "play", "fen": "4k3/4p3/8/8/8/8/8/4K3 b - - 0 1", "moves": ["e7e5"]}
    assert mirror_text("e2e4") == "e7e5" and mirror_text("K@e0") == "K@e9"
    assert mirror_key(a) == mirror_key(b)
    assert mirror_key(a) != mirror_key({**a, "op": "moves"})
    assert mirror_key(a) != mirror_key({**a, "moves": ["e2e3"]})
    assert independent([a, b, dict(a)]) == 1


# ------------------------------------------------------------ the search

PROBE = "double-move/completable-with-turn-start-target"


def test_the_search_is_deterministic_and_its_witnesses_are_curated_grade():
    m = CATALOGUE[PROBE]
    args = dict(budget=150, games=0, pool="qrbnQRBN", extra=4, ops=("moves",), motif="en-passant", want=1)
    first = witness.search(m.variant, m.rules(), 18, **args)     # a seed that finds one within the budget
    again = witness.search(m.variant, m.rules(), 18, **args)
    assert first.witnesses
    assert [w.request for w in first.witnesses] == [w.request for w in again.witnesses]
    assert first.positions == again.positions and first.requests == again.requests
    for w in first.witnesses:
        assert w.checked        # the python-chess adapter gave the oracle's answer
        made = witness.as_case(m.variant, "double-move/pairs/x", ["D2"], "d", "s", w.request, w.colour)
        assert witness.killed_by(made, m.variant, m.rules())
        assert not witness.killed_by(made, m.variant, witness.variants.get(m.variant))


# ------------------------------------------------------------ probes and the commands

def test_each_probe_is_caught_by_a_case_of_its_pair(real):
    """A pair's probe applies its two rules in the wrong order: at least one case of the pair
    answers otherwise under it, and the probe is a catalogued mutant of the variant."""
    catalogue, cases = real
    by_id = {c.id: c for c in cases}
    probed = 0
    for v in variant_order(catalogue):
        data = pairs.load(v)
        for entry in (data or {}).get("pairs", []):
            if "probe" not in entry:
                continue
            probed += 1
            mutant = CATALOGUE[entry["probe"]]
            assert mutant.variant == v, entry["probe"]
            caught = [i for i in entry["cases"]
                      if witness.killed_by({"request": by_id[i].request, "expect": by_id[i].expect}, v,
                                           mutant.rules())]
            assert caught, (v, entry["conditions"], entry["probe"])
    assert probed >= 10


def test_a_probe_that_is_no_mutant_of_the_variant_is_a_problem(tmp_path):
    entry = {"conditions": ["a", "b"], "ruling": "R1", "cases": ["chess/topic/w", "chess/topic/b"],
             "probe": "double-move/mate-after-first-half"}
    t = scratch(tmp_path, [entry], [WHITE_CASE, OTHER_CASE])
    assert t.problems == ["pair a + b: probe double-move/mate-after-first-half is not a catalogued "
                          "mutant of chess (doublecheck mutants --list)"]


def test_cli_pairs_lists_each_pair_with_its_state_and_probe(tmp_path, capsys):
    from doublecheck.cli import main
    entry = {"conditions": ["a", "b"], "ruling": "R1", "cases": ["chess/topic/w", "chess/topic/b"],
             "probe": "chess/dead-position-before-stalemate"}
    scratch(tmp_path, [entry], [WHITE_CASE, OTHER_CASE])
    assert main(["rules", "--pairs", "--cases-dir", str(tmp_path / "cases")]) == 0
    out = capsys.readouterr().out
    assert "a + b: covered by R1, 2 case(s), 2 independent, black/white" in out
    assert "probe: chess/dead-position-before-stalemate (doublecheck witness " in out
    assert main(["rules", "--pairs", "--json", "--cases-dir", str(tmp_path / "cases")]) == 0
    (table,) = json.loads(capsys.readouterr().out)["pairs"]
    assert table["pairs"][0]["probe"] == "chess/dead-position-before-stalemate"
    scratch(tmp_path / "2", [], [WHITE_CASE])
    assert main(["rules", "--pairs", "--cases-dir", str(tmp_path / "2" / "cases")]) == 1
    assert "a + b: MISSING" in capsys.readouterr().out


def test_cli_witness_refuses_an_unknown_mutant(capsys):
    from doublecheck.cli import main
    assert main(["witness", "chess/no-such-mistake"]) == 2
    assert "unknown-mutant" in capsys.readouterr().err


def test_cli_witness_motifs_are_the_search_motifs():
    from doublecheck import cli
    assert set(cli.WITNESS_MOTIFS) == set(witness.MOTIFS)


def test_cli_witness_writes_candidates_that_catch_the_probe(tmp_path, capsys):
    """A small seeded search finds one witness per colour; the candidate file holds them with
    the oracle's answer as expected value, each catching the probe and not the oracle."""
    from doublecheck.cli import main
    out = tmp_path / "found.json"
    args = ["witness", "chess/queen-only-promotion", "--budget", "60", "--games", "0", "--out", str(out)]
    assert main(args) == 0
    assert "not found within the budget" not in capsys.readouterr().out
    data = json.loads(out.read_text())
    assert data["topic"] == witness.CANDIDATE_TOPIC and len(data["cases"]) >= 2
    probe = CATALOGUE["chess/queen-only-promotion"].rules()
    for made in data["cases"]:
        assert witness.killed_by(made, "chess", probe)
        assert not witness.killed_by(made, "chess", witness.variants.get("chess"))
    assert main([*args[:-2], "--budget", "1", "--json"]) == 1     # one position: not found within the budget
    assert json.loads(capsys.readouterr().out)["independent_pair"] is False


# ------------------------------------------------------------ the search with a clock

CLOCK_PROBE = "monster/seventy-five-beats-mate"


@pytest.mark.parametrize("variant, limit", [("monster", 150), ("progressive-scottish", 15)])
def test_constructed_positions_with_clock_stand_at_or_just_below_the_automatic_draw(variant, limit):
    """G3's 150 halfmoves, P5's 15 quiet series: the drawn clock is the limit less 0 to
    CLOCK_BELOW; without ``clock`` the positions start it at 0."""
    import random
    rules = witness.variants.get(variant)
    assert witness.automatic_clock_limit(rules) == limit
    clocks = [rules.draw_clock(rules.parse_fen(f))
              for f in witness.constructed_fens(rules, random.Random(5), 40, clock=True)]
    assert len(clocks) >= 30 and set(clocks) == set(range(limit - witness.CLOCK_BELOW, limit + 1))
    plain = [rules.draw_clock(rules.parse_fen(f)) for f in witness.constructed_fens(rules, random.Random(5), 10)]
    assert plain and set(plain) == {0}


def test_the_search_with_a_clock_is_deterministic_and_finds_a_mate_at_the_limit():
    """The Monster probe that judges the seventy-five-move draw before a mate is found out
    by a small search with clocks, and the witness makes a case that catches it."""
    m = CATALOGUE[CLOCK_PROBE]
    args = dict(budget=60, games=0, want=1, clock=True, ops=("status", "play"))
    first = witness.search(m.variant, m.rules(), 1, **args)
    again = witness.search(m.variant, m.rules(), 1, **args)
    assert first.witnesses
    assert [w.request for w in first.witnesses] == [w.request for w in again.witnesses]
    assert first.positions == again.positions and first.requests == again.requests
    for w in first.witnesses:
        assert w.checked and w.probe["status"]["reason"] == "seventy-five-moves"
        assert w.oracle["status"]["reason"] in ("checkmate", "stalemate")
        made = witness.as_case(m.variant, "monster/pairs/x", ["G3"], "d", "s", w.request, w.colour)
        assert witness.killed_by(made, m.variant, m.rules())
        assert not witness.killed_by(made, m.variant, witness.variants.get(m.variant))
    plain = witness.search(m.variant, m.rules(), 1, **{**args, "clock": False})
    assert plain.witnesses == []            # with the clocks at 0 the two orders never differ


def test_cli_witness_clock_option_reaches_the_search(capsys):
    from doublecheck.cli import main
    code = main(["witness", CLOCK_PROBE, "--clock", "--budget", "60", "--games", "0", "--want", "1", "--json"])
    found = json.loads(capsys.readouterr().out)
    assert code in (0, 1) and found["witnesses"]
    assert all(int(w["request"]["fen"].split()[4]) >= 148 for w in found["witnesses"])
    assert main(["witness", CLOCK_PROBE, "--budget", "60", "--games", "0", "--want", "1", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["witnesses"] == []
