"""Rule options in the oracle (doublecheck.oracle.options): the table, the rules objects built
under them, each value's behaviour, the curated cases of each value in process and over the
protocol (``doublecheck serve --option``), and the generated record of what each value changes."""

import json
import shlex
import sys

import pytest

from doublecheck.authoring.options_record import answer
from doublecheck.casefiles import (CASES_DIR, DataError, load_cases, load_rules, option_changes,
                                   option_problems)
from doublecheck.harness.compare import compare, judged_as
from doublecheck.harness.engines import SubprocessEngine
from doublecheck.oracle.chess import Chess
from doublecheck.oracle import api, options, variants
from doublecheck.oracle.errors import INVALID_RECORD, UNKNOWN_OPTION, RulesError
from doublecheck.perft.cache import Counter, Table

NON_DEFAULT = [(name, value) for name, o in options.rule_options().items() for value in o.alternatives()]


def non_default(variant):
    """The values other than its own default of every option ``variant`` takes."""
    cls = variants.descriptor(variant).rules_class()
    return [(n, x) for n in options.taken_by(cls) for x in options.values_of(cls, n)
            if x != options.default_of(cls, n)]


@pytest.fixture(scope="module")
def cases():
    found, problems = load_cases()
    assert not problems
    return found


def play(variant, opts, **request):
    return api.handle({**request, "variant": variant}, rules=variants.get(variant, opts))


# --- the table ------------------------------------------------------------------

def test_every_value_says_where_it_comes_from_and_every_default_cites_a_ruling():
    for o in options.OPTIONS.values():
        assert o.kind in (options.RULE, options.CAPABILITY)
        assert o.default in o.values and len(o.values) >= 2, o.name
        for value in o.values.values():
            assert value.summary and value.sources and all(s.strip() for s in value.sources)
        assert "doublecheck ruling" in o.values[o.default].sources[0], o.name
        assert (o.rule == f"OPT-{o.name}") == (o.kind == options.RULE)


def test_each_rule_option_has_its_catalogue_entry_for_exactly_the_variants_that_take_it():
    catalogue, problems = load_rules()
    assert not problems
    for name, o in options.rule_options().items():
        takers = [v for v in variants.registered()
                  if name in options.taken_by(variants.descriptor(v).rules_class())]
        assert takers, name
        assert sorted(catalogue[o.rule]["variants"]) == sorted(takers), name


def test_rules_classes_take_only_rule_options_and_every_variant_takes_draws():
    for v in variants.registered():
        taken = options.taken_by(variants.descriptor(v).rules_class())
        assert "draws" in taken, v
        assert all(options.OPTIONS[n].kind == options.RULE for n in taken), v
    anul = variants.get("double-move-anul")        # A1 is "pass": its own default
    assert options.default_of(anul, "no-move-two") == "pass" != options.OPTIONS["no-move-two"].default
    assert options.values_of(anul, "no-move-two") == ("pass", "illegal")


@pytest.mark.parametrize("declared, words", [
    ({"draw": "automatic"}, "unknown option 'draw' (known: draws, move-count"),
    ({"draws": "auto"}, "unknown value 'auto' of option draws (known: claims, automatic, claims-only, none)"),
    ({"san": "maybe"}, "(known: yes, no)"),
])
def test_unknown_names_and_values_are_refused_with_the_known_ones(declared, words):
    with pytest.raises(RulesError) as e:
        options.check(declared)
    assert e.value.code == UNKNOWN_OPTION and words in e.value.message
    with pytest.raises(RulesError):
        variants.get("chess", declared)


def test_parse_reads_name_equals_value():
    assert options.parse(" draws = automatic ") == ("draws", "automatic")
    for bad in ("draws", "draws=", "=x", None):
        with pytest.raises(RulesError) as e:
            options.parse(bad)
        assert e.value.code == UNKNOWN_OPTION


def test_applicable_keeps_the_non_default_rule_options_the_variant_takes():
    declared = {"draws": "automatic", "fullmove": "per-move", "no-move-two": "stalemate", "san": "no",
                "fen-validation": "lenient"}
    assert options.applicable(variants.get("chess"), declared) == {"draws": "automatic"}
    for variant in ("double-move-anul", "marseillais"):
        assert options.applicable(variants.get(variant), declared) == {"draws": "automatic", "fullmove": "per-move"}
    assert options.applicable(variants.get("marseillais"), {"no-move-two": "pass"}) == {"no-move-two": "pass"}
    assert options.applicable(variants.get("chess"), None) == {}


def test_get_builds_one_rules_object_per_variant_and_options():
    plain = variants.get("marseillais")
    assert variants.get("marseillais", {}) is plain
    assert variants.get("marseillais", {"draws": "claims", "san": "no", "fen-validation": "lenient"}) is plain
    passing = variants.get("marseillais", {"no-move-two": "pass"})
    assert passing is not plain and passing is variants.get("marseillais", {"no-move-two": "pass"})
    assert plain.options == {"draws": "claims", "fullmove": "per-turn", "ep-after-move-one": "target",
                             "second-en-passant": "allowed", "no-move-two": "stalemate",
                             "move-count": "counted", "dead-position": "turn-end", "king-safety": "check"}
    assert passing.options["no-move-two"] == "pass"
    assert variants.get("chess", {"fullmove": "per-move"}) is variants.get("chess")   # not taken: ignored
    assert variants.get("chess").options == {"draws": "claims", "move-count": "counted", "dead-position": "turn-end",
                                             "king-safety": "check"}


# --- each value -----------------------------------------------------------------

AUTO = {"draws": "automatic"}


# The variants whose move-count draws count the halfmove clock (progressive chess counts
# quiet series, P5: its option cases, progressive-*/options, test the same thresholds).
HALFMOVE_CLOCKED = [v for v in variants.REGISTRY
                    if type(variants.get(v)).draw_clock is Chess.draw_clock]


@pytest.mark.parametrize("variant", HALFMOVE_CLOCKED)
def test_automatic_draws_end_the_game_at_the_claim_thresholds(variant):
    rules = variants.get(variant, AUTO)
    start = rules.parse_fen(rules.start_fen)
    at_100 = rules.fen(start.replace(halfmove=100))
    assert play(variant, AUTO, op="status", fen=at_100)["status"] == \
        {"over": True, "result": "1/2-1/2", "reason": "fifty-moves", "claimable": []}
    assert play(variant, {}, op="status", fen=at_100)["status"]["claimable"] == ["fifty-moves"]
    at_99 = rules.fen(start.replace(halfmove=99))
    assert play(variant, AUTO, op="status", fen=at_99)["status"]["over"] is False


def test_automatic_draws_are_judged_only_at_turn_boundaries():
    # G3: between the two moves of a turn nothing is judged, whatever the clock says
    fen = "4k3/8/8/8/8/8/R7/4K3 w - - 100 9 m"
    for variant in ("double-move-anul", "marseillais", "marseillais-classic"):
        assert play(variant, AUTO, op="status", fen=fen)["status"]["over"] is False
        after = play(variant, AUTO, op="play", fen=fen, moves=["a2a3"])["status"]
        assert after["reason"] == "fifty-moves"


def test_a_mate_on_the_fiftieth_move_is_a_mate_under_automatic_draws():
    got = play("chess", AUTO, op="play", fen="k7/8/1K6/8/8/8/8/7R w - - 99 80", moves=["h1h8"])
    assert got["status"]["reason"] == "checkmate"


PER_MOVE = {"fullmove": "per-move"}


@pytest.mark.parametrize("variant, moves, per_turn, per_move", [
    ("double-move", ["e2e4", "g8f6,", "f6g4"], 2, 3),
    ("double-move", ["g1f3,", "f3g5", "e7e5"], 2, 2),
    ("double-move-anul", ["e2e3,d2d3", "e7e6,d7d6"], 2, 3),
    ("marseillais", ["e2e4", "e7e5,d7d5"], 2, 3),
    ("marseillais-classic", ["e2e3,d2d3", "e7e6,d7d6", "b1c3,g1f3"], 2, 3),
])
def test_per_move_fullmove_counts_each_black_move_and_no_white_one(variant, moves, per_turn, per_move):
    for opts, want in (({}, per_turn), (PER_MOVE, per_move)):
        fen = play(variant, opts, op="fen", moves=moves)["fen"]
        assert int(fen.split()[5]) == want, (opts, fen)


def test_per_move_fullmove_grows_between_black_moves_in_symmetric_monster():
    fen = "4/4k3/8/3*q4/8/8/3*Q4/8/4K3/4 b - - 0 7 Kk -"
    mid = play("symmetric-monster", PER_MOVE, op="fen", fen=fen, moves=["d6c6,"])["fen"]
    assert mid.split()[5] == "8"
    done = play("symmetric-monster", PER_MOVE, op="fen", fen=fen, moves=["d6c6,c6c7"])["fen"]
    assert done.split()[5] == "9"


EP_NONE = {"ep-after-move-one": "none"}
FORMS = ("marseillais", "marseillais-classic")


@pytest.mark.parametrize("variant", FORMS)
def test_no_target_after_move_one_but_after_a_move_that_ends_the_turn(variant):
    fen = "4k3/8/8/8/3p4/8/4P3/4K1N1 w - - 0 3 -"
    assert play(variant, EP_NONE, op="fen", fen=fen, moves=["e2e4,g1f3"])["fen"].split()[3] == "-"
    assert play(variant, {}, op="fen", fen=fen, moves=["e2e4,g1f3"])["fen"].split()[3] == "e3"
    assert play(variant, EP_NONE, op="fen", fen=fen, moves=["g1f3,e2e4"])["fen"].split()[3] == "e3"
    between = play(variant, EP_NONE, op="fen", fen=fen, moves=["e2e4,"])["fen"]
    assert between.split()[3] == "-" and between.split()[6] == "m"
    with pytest.raises(RulesError) as e:
        play(variant, EP_NONE, op="fen", fen="4k3/8/8/8/3pP3/8/8/4K1N1 w - e3 0 3 m")
    assert "OPT-ep-after-move-one" in e.value.message


SECOND_NONE = {"second-en-passant": "none"}


@pytest.mark.parametrize("variant", FORMS)
def test_move_two_never_takes_en_passant_when_the_second_capture_is_off(variant):
    fen = "4k3/8/8/8/1pP1Pp2/8/8/4K3 b - c3,e3 0 5 -"
    assert "f4e3" in play(variant, {}, op="moves", fen=fen, moves=["b4c3"])["moves"]
    assert "f4e3" not in play(variant, SECOND_NONE, op="moves", fen=fen, moves=["b4c3"])["moves"]
    first = play(variant, SECOND_NONE, op="moves", fen=fen)["moves"]
    assert {"b4c3", "f4e3"} <= set(first)
    turns = play(variant, SECOND_NONE, op="turns", fen=fen)["turns"]
    assert "b4c3,f4e3" not in turns and "b4c3,f4f3" in turns
    with pytest.raises(RulesError) as e:
        play(variant, SECOND_NONE, op="fen", fen="4k3/8/8/8/4Pp2/2p5/8/4K3 b - e3 0 5 m")
    assert "OPT-second-en-passant" in e.value.message


PASS = {"no-move-two": "pass"}
STUCK = "7k/7p/8/7P/8/1q6/8/K7 w - - 0 2 -"     # h6 is White's only move, and leaves none


@pytest.mark.parametrize("variant", FORMS)
def test_a_move_one_without_move_two_passes_the_turn(variant):
    got = play(variant, PASS, op="play", fen=STUCK, moves=["h5h6"])
    assert got["fen"] == "7k/7p/7P/8/8/1q6/8/K7 b - - 0 2 -" and got["status"]["over"] is False
    assert play(variant, {}, op="play", fen=STUCK, moves=["h5h6"])["status"]["reason"] == "stalemate"
    assert play(variant, PASS, op="turns", fen=STUCK)["turns"] == ["h5h6"]
    # the game goes on: Black's replies are counted below the passed turn (none under M5)
    assert play(variant, PASS, op="perft", fen=STUCK, depth=2)["nodes"] > 1
    assert play(variant, {}, op="perft", fen=STUCK, depth=2)["nodes"] == 0
    with pytest.raises(RulesError) as e:
        play(variant, PASS, op="fen", fen="7k/7p/7P/8/8/1q6/8/K7 w - - 0 2 m")
    assert "OPT-no-move-two" in e.value.message
    with pytest.raises(RulesError) as e:
        play(variant, PASS, op="play", fen=STUCK, moves=["h5h6,"])
    assert "ends the turn" in e.value.message


@pytest.mark.parametrize("variant", FORMS)
@pytest.mark.parametrize("opts", [EP_NONE, SECOND_NONE, PASS, PER_MOVE])
@pytest.mark.parametrize("fen", [
    STUCK, "4k3/8/8/8/1pP1Pp2/8/8/4K3 b - c3,e3 0 5 -", "4k3/8/8/8/1p3p2/8/2P1P3/4K3 w - - 0 5 -",
    "r3k2r/p1pp1pb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 2 -",
])
def test_turns_agree_with_playing_move_by_move(variant, opts, fen):
    """The fast ``turns`` and the move-by-move ``play`` machine agree under every option."""
    rules = variants.get(variant, opts)
    pos = rules.parse_fen(fen)
    walked = []

    def walk(p, line):
        for m in rules.legal_moves(p):
            q = rules.play(p, m)
            if rules.mid_turn(q):
                walk(q, line + [m])
            else:
                walked.append(repr((line + [m], rules.fen(q))))

    walk(pos, [])
    fast = [repr((list(ms), rules.fen(q))) for ms, q in rules.turns(pos)]
    assert sorted(fast) == sorted(walked)


def test_the_perft_cache_keeps_counts_under_other_options_apart():
    table = Table(8)
    plain, passing = variants.get("marseillais"), variants.get("marseillais", PASS)
    first = Counter(plain, table).count(plain.parse_fen(STUCK), 2)
    second = Counter(passing, table).count(passing.parse_fen(STUCK), 2)
    assert (first, second) == (0, play("marseillais", PASS, op="perft", fen=STUCK, depth=2)["nodes"])


# --- cases ----------------------------------------------------------------------

def test_every_non_default_value_has_curated_cases_of_both_colours(cases):
    for v in variants.REGISTRY:
        for name, value in non_default(v):
            mine = [c for c in cases if c.variant == v and c.options.get(name) == value]
            assert len(mine) >= 4, (v, name)
            sides = {c.request["fen"].split()[1] if "fen" in c.request else "w" for c in mine}
            assert sides == {"w", "b"}, (v, name)
            assert all(f"OPT-{name}" in c.rules and f"option {name}" in c.source for c in mine)


def test_every_curated_option_case_passes_under_its_options_and_the_changed_ones_fail_without(cases):
    for c in (c for c in cases if c.options):
        assert not compare(judged_as(c.variant, c.options), c.expect,
                           answer(variants.get(c.variant, c.options), c.request)), c.id
    # the cases of a value that differs from the default rules: without the option they fail
    differs = [c for c in cases if c.options and c.id.endswith(("fifty-moves-white", "pass-white"))]
    assert differs
    for c in differs:
        assert compare(c.variant, c.expect, answer(variants.get(c.variant), c.request)), c.id


@pytest.mark.parametrize("opts, words", [
    ({"draws": "sometimes"}, "unknown value 'sometimes'"),
    ({"no-move-two": "pass"}, "chess does not take the option no-move-two"),
    ({"draws": "claims"}, "claims is the default"),
])
def test_a_case_naming_a_wrong_option_is_a_problem(opts, words):
    assert any(words in p for p in option_problems("chess", opts))
    assert option_problems("marseillais", {"no-move-two": "pass"}) == []


def serve_command(opts):
    extra = [a for name, value in opts.items() for a in ("--option", f"{name}={value}")]
    return " ".join(shlex.quote(a) for a in [sys.executable, "-m", "doublecheck", "serve", *extra])


@pytest.mark.parametrize("name, value", NON_DEFAULT)
def test_the_served_oracle_under_each_value_answers_its_cases(cases, name, value):
    """``doublecheck serve --option NAME=VALUE`` over the protocol: every curated case of that
    value passes, and a case the value changes fails against the plain ``serve``."""
    mine = [c for c in cases if c.options == {name: value}]
    assert mine
    engine = SubprocessEngine(serve_command({name: value}), timeout=60)
    plain = SubprocessEngine(serve_command({}), timeout=60)
    try:
        assert engine.hello()["options"] == {name: value}
        failures = [c.id for c in mine if compare(judged_as(c.variant, c.options), c.expect, engine.request(c.request))]
        assert failures == []
        assert any(compare(c.variant, c.expect, plain.request(c.request)) for c in mine)
    finally:
        engine.close()
        plain.close()


# --- the record -----------------------------------------------------------------

def test_the_record_names_every_non_default_value_of_the_options_a_variant_takes():
    ids = {c.id for c in load_cases(deep=True)[0]}      # the deep tier is in the record too
    for v in variants.REGISTRY:
        record = option_changes(v)
        taken = options.taken_by(variants.get(v))
        assert set(record) == {f"{n}={x}" for n, x in non_default(v)}, v
        for key, entry in record.items():
            assert entry["changed"] <= ids and set(entry["not_recomputed"]) <= ids
            assert not entry["changed"] & set(entry["not_recomputed"])
    # a few changes that follow from the rules, not from the record itself
    assert "chess/fifty-moves/clock-100-claimable" in option_changes("chess")["draws=automatic"]["changed"]
    assert "marseillais/no-second-move/stalemate-after-move-one" in \
        option_changes("marseillais")["no-move-two=pass"]["changed"]


def test_the_record_is_right_about_a_sample_of_cases(cases):
    """Spot check: a case the record lists as changed fails under the value, one it does not
    list passes (played here again, without the generator)."""
    by_id = {c.id: c for c in cases}
    record = option_changes("marseillais-classic")
    for key, entry in record.items():
        name, value = key.split("=")
        mine = sorted(c.id for c in cases if c.variant == "marseillais-classic" and not c.options
                      and c.id not in entry["not_recomputed"] and (c.expect.get("nodes") or 0) < 5000)
        for cid in mine[::25] + sorted(entry["changed"])[:5]:
            c = by_id[cid]
            got = answer(variants.get(c.variant, {name: value}), c.request)
            assert bool(compare(c.variant, c.expect, got)) == (cid in entry["changed"]), (key, cid)


def test_the_loader_takes_options_for_no_variant_folder(tmp_path):
    tree = tmp_path / "cases"
    (tree / "options").mkdir(parents=True)
    (tree / "chess").mkdir()
    (tree / "chess" / "fen.json").write_text((CASES_DIR / "chess" / "fen.json").read_text())
    (tree / "options" / "chess.json").write_text((CASES_DIR / "options" / "chess.json").read_text())
    found, problems = load_cases(tree, warn=lambda m: None)
    assert found and not [p for p in problems if "options" in p]
    assert set(option_changes("chess", tree)) == {f"{n}={x}" for n, x in non_default("chess")}


def test_a_broken_record_is_a_clear_error(tmp_path):
    (tmp_path / "options").mkdir()
    (tmp_path / "options" / "chess.json").write_text(json.dumps({"generated": True, "variant": "chess"}))
    with pytest.raises(DataError) as e:
        option_changes("chess", tmp_path)
    assert e.value.code == INVALID_RECORD and "options/chess.json" in e.value.message
    (tmp_path / "options" / "chess.json").write_text("{not json")
    with pytest.raises(DataError) as e:
        option_changes("chess", tmp_path)
    assert e.value.code == INVALID_RECORD
    assert option_changes("chess", tmp_path / "nowhere") == {}



def test_explanations_cite_the_option_that_decides():
    from doublecheck.oracle import explain
    passing = variants.get("marseillais", PASS)
    pos = passing.parse_fen(STUCK)
    h6 = passing.parse_move(pos, "h5h6")
    assert passing.turn_end_reason(pos, h6, passing.play(pos, h6)).rule == "OPT-no-move-two"
    assert passing.why_turn_over(pos, h6, 1).rule == "OPT-no-move-two"
    second = variants.get("marseillais", SECOND_NONE)
    line = api.replay(second, "4k3/8/8/8/1pP1Pp2/8/8/4K3 b - c3,e3 0 5 -", ["b4c3"])
    assert explain.why(second, line.final, "f4e3", explain.Asked(index=1, steps=line.steps)).rule \
        == "OPT-second-en-passant"
    first = variants.get("marseillais", EP_NONE)
    line = api.replay(first, "4k3/8/8/8/3p4/8/4P3/4K1N1 w - - 0 3 -", ["e2e4,g1f3"])
    assert explain.why(first, line.final, "d4e3", explain.Asked(steps=line.steps)).rule \
        == "OPT-ep-after-move-one"
