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
             "probe": "chess/dead-position-before-stalemate", "search": ["--clock"]}
    scratch(tmp_path, [entry], [WHITE_CASE, OTHER_CASE])
    assert main(["rules", "--pairs", "--cases-dir", str(tmp_path / "cases")]) == 0
    out = capsys.readouterr().out
    assert "a + b: covered by R1, 2 case(s), 2 independent, black/white" in out
    # the hint is a command that finds the probe out: with the search options the entry names
    assert "probe: chess/dead-position-before-stalemate (doublecheck witness " \
           "chess/dead-position-before-stalemate --clock)" in out
    assert main(["rules", "--pairs", "--json", "--cases-dir", str(tmp_path / "cases")]) == 0
    (table,) = json.loads(capsys.readouterr().out)["pairs"]
    assert table["pairs"][0]["probe"] == "chess/dead-position-before-stalemate"
    assert table["pairs"][0]["search"] == ["--clock"]
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


def test_cli_witness_pool_help_says_the_search_defaults(capsys):
    """--pool and --extra leave the search's own defaults in place; their help names them, and
    every letter of the default pool is one --pool accepts."""
    import inspect
    from doublecheck import cli
    defaults = inspect.signature(witness.search).parameters
    assert defaults["pool"].default == witness.POOL and set(witness.POOL) <= set(cli.WITNESS_PIECES)
    with pytest.raises(SystemExit):
        cli.main(["witness", "--help"])
    helps = " ".join(capsys.readouterr().out.split())
    assert f"default {witness.POOL};" in helps and f"default {defaults['extra'].default}," in helps


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


# ------------------------------------------------------------ the search with repetitions

REPEAT_PROBES = ["chess/fivefold-before-seventy-five", "monster/fivefold-before-seventy-five",
                 "double-move-anul/fivefold-before-seventy-five"]


def occurrences(rules, request):
    """How often the request's FEN position stands at a turn boundary along its moves (the FEN's
    own counted), and the draw clock at the end."""
    pos = rules.parse_fen(request["fen"])
    start, seen = rules.identity(pos), 1
    for text in request["moves"]:
        pos = rules.play(pos, rules.parse_move(pos, text))
        seen += not rules.mid_turn(pos) and rules.identity(pos) == start
    return seen, rules.draw_clock(pos)


@pytest.mark.parametrize("probe", REPEAT_PROBES)
def test_the_repeat_search_is_deterministic_and_meets_the_fifth_occurrence_at_the_clock_mark(probe):
    """G3.2: the search with ``repeat`` walks each constructed position back to its fifth
    occurrence, reaching the automatic move-count mark on the same move; there the oracle
    names the clock and the probe the repetition, and the case made catches the probe only."""
    m = CATALOGUE[probe]
    args = dict(budget=20, games=0, want=1, repeat=True)
    first = witness.search(m.variant, m.rules(), 1, **args)
    again = witness.search(m.variant, m.rules(), 1, **args)
    assert first.witnesses and first.independent_pair() is not None
    assert [w.request for w in first.witnesses] == [w.request for w in again.witnesses]
    oracle = witness.variants.get(m.variant)
    for w in first.witnesses:
        assert w.request["op"] == "status"
        assert occurrences(oracle, w.request) == (5, witness.automatic_clock_limit(oracle))
        assert (w.oracle["status"]["reason"], w.probe["status"]["reason"]) == ("seventy-five-moves",
                                                                               "fivefold-repetition")
        made = witness.as_case(m.variant, f"{m.variant}/end-pairs/x", ["G3.2"], "d", "s", w.request, w.colour)
        assert witness.killed_by(made, m.variant, m.rules())
        assert not witness.killed_by(made, m.variant, oracle)
    plain = witness.search(m.variant, m.rules(), 1, **{**args, "repeat": False})
    assert plain.witnesses == []            # without the history the two draws never meet


@pytest.mark.parametrize("variant, fen, turns", [
    ("chess", "7r/8/8/k7/8/8/K7/7R w - - 0 20", 4),                  # one-move turns: out, out, back, back
    ("double-move-anul", "7r/8/8/k7/8/8/K7/7R w - - 0 20 -", 2),     # two-move turns: each king out and back
    ("monster", "7r/8/8/k7/8/8/K7/8 w - - 0 20 -", 4),               # White two moves, Black one
])
def test_a_return_cycle_brings_the_position_back_with_king_moves_only(variant, fen, turns):
    rules = witness.variants.get(variant)
    pos = rules.parse_fen(fen)
    cycle = witness.return_cycle(rules, pos)
    assert cycle is not None
    boundaries, after = 0, pos
    for text in cycle:
        before = after
        after = rules.play(after, rules.parse_move(after, text))
        assert before.board[rules.parse_move(before, text).frm] in ("K", "k")
        boundaries += not rules.mid_turn(after)
    assert boundaries == turns and rules.identity(after) == rules.identity(pos)
    assert witness.return_cycle(rules, rules.parse_fen(fen)) == cycle    # deterministic


def test_a_position_whose_kings_cannot_walk_back_gives_no_repetition_request():
    rules = witness.variants.get("chess")
    stuck = "k7/8/1Q6/8/8/8/8/7K b - - 0 30"          # Black's king has no move at all (stalemate)
    assert witness.return_cycle(rules, rules.parse_fen(stuck)) is None
    assert witness.repetition_request(rules, stuck) is None


@pytest.mark.parametrize("variant, value", [("chess", 141), ("progressive-italian", 7)])
def test_with_draw_clock_sets_what_draw_clock_reads(variant, value):
    rules = witness.variants.get(variant)
    pos = rules.with_draw_clock(rules.parse_fen(rules.start_fen), value)
    assert rules.draw_clock(rules.parse_fen(rules.fen(pos))) == value


def test_cli_witness_repeat_option_reaches_the_search(capsys):
    from doublecheck.cli import main
    probe = REPEAT_PROBES[0]
    code = main(["witness", probe, "--repeat", "--budget", "20", "--games", "0", "--want", "1", "--json"])
    found = json.loads(capsys.readouterr().out)
    assert code == 0 and found["witnesses"]
    assert all(len(w["request"]["moves"]) >= 16 for w in found["witnesses"])
    assert main(["witness", probe, "--budget", "20", "--games", "0", "--want", "1", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["witnesses"] == []


# ------------------------------------------------------------ the end pairs' cases

def end_pair_cases():
    from pathlib import Path
    from doublecheck.packaged import CASES_DIR
    for path in sorted(Path(CASES_DIR).glob("*/end-pairs.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for c in data["cases"]:
            yield pytest.param(data["variant"], c, id=c["id"])


ENDINGS = {                       # a case's slug: the reason named, and what must hold at the end
    "fifth-occurrence": "seventy-five-moves",
    "dead-position-at": "dead-position",
    "stalemate-in-a-dead-position": "stalemate",
    "checkmate-at": "checkmate",
    "stalemate-at": "stalemate",
    "no-legal-turn-at": "no-legal-turn",
}


@pytest.mark.parametrize("variant, case", list(end_pair_cases()))
def test_each_end_pair_case_holds_both_of_its_conditions(variant, case):
    """The premise of every case of cases/<variant>/end-pairs.json, recounted with the rules'
    own predicates (not their order in ``status``): the two conditions of its pair hold at
    the end of its moves, and the expected reason is the one its ruling names."""
    from doublecheck.oracle import api
    rules = witness.variants.get(variant)
    slug = case["id"].split("/")[-1]
    kind = next(k for k in ENDINGS if slug.startswith(k))
    line = api.replay(rules, case["request"]["fen"], case["request"].get("moves"))
    final = line.final
    assert not rules.mid_turn(final)
    assert case["expect"]["status"]["reason"] == ENDINGS[kind]
    at_mark = rules.draw_clock(final) >= witness.automatic_clock_limit(rules)
    no_move = not rules.legal_moves(final)
    if kind == "fifth-occurrence":
        key = rules.identity(final)
        assert key == rules.identity(line.start) and 1 + list(line.history).count(key) == 5 and at_mark
    elif kind == "dead-position-at":
        assert rules.dead_position(final) and at_mark and not no_move
    elif kind == "stalemate-in-a-dead-position":
        assert rules.dead_position(final) and no_move and not rules.in_check(final)
    else:
        assert at_mark and no_move and rules.in_check(final) == (kind == "checkmate-at")


def test_cli_witness_pool_and_extra_reach_the_search_and_bad_ones_are_refused(capsys):
    """--pool and --extra choose what a constructed position holds besides the kings: with
    BNbn and one piece every position is a dead one, where a stalemate meets G4 (G5.1)."""
    from doublecheck.cli import main
    probe = "chess/dead-position-before-stalemate"
    code = main(["witness", probe, "--pool", "BNbn", "--extra", "1", "--budget", "3000", "--games", "0",
                 "--want", "1", "--json"])
    found = json.loads(capsys.readouterr().out)
    assert code == 0 and found["witnesses"]
    for w in found["witnesses"]:
        placement = w["request"]["fen"].split()[0]
        others = [ch for ch in placement if ch.isalpha() and ch not in "Kk"]
        assert len(others) == 1 and others[0] in "BNbn"
    for bad in (["--pool", "KQ"], ["--pool", ""], ["--extra", "9"], ["--extra", "0"]):
        assert main(["witness", probe, *bad]) == 2
        assert "witness" in capsys.readouterr().err


def test_before_turn_end_is_where_only_the_turns_end_moves_the_draw_clock():
    """Progressive chess counts quiet series (P5), which only a series' last move completes,
    so the clock search puts positions there; in chess a turn is one move and there is no
    such place."""
    chess = witness.variants.get("chess")
    assert chess.before_turn_end(chess.parse_fen(chess.start_fen)) is None
    rules = witness.variants.get("progressive-scottish")
    pos = rules.parse_fen("4k3/8/8/8/8/8/8/R3K3 w - - 0 5")        # White's series of 9 (P6.2)
    later = rules.before_turn_end(pos)
    assert (later.state.length, later.state.played, later.halfmove) == (9, 8, 8)
    assert rules.parse_fen(rules.fen(later)).state.played == 8      # a FEN the variant reads back


def test_constructed_positions_fill_their_budget():
    """The search looks at as many constructed positions as its budget says: the bound on
    random draws is set once, so the last positions are not cut off (it once shrank as
    positions were made, and a budget of 300 gave 291)."""
    import random
    rules = witness.variants.get("chess")
    assert len(list(witness.constructed_fens(rules, random.Random(1), 300))) == 300
