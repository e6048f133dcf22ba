"""The conventions real implementations play, as declared options (docs/options.md, "The
conventions of real implementations"): an engine playing one fails the default run and passes
once it declares it; kings that may be captured agree with an independent walk; a case only a
combination of values changes is judged under the combination; clockless FENs; honest counts;
values no claimed variant takes are refused before the run."""

import shlex
import subprocess
import sys

import chess
import pytest

from doublecheck.casefiles import load_cases
from doublecheck.harness.declared import Declared, with_expected_clocks, without_clocks
from doublecheck.harness.engines import OracleEngine
from doublecheck.harness.runner import RunOptions, run_cases
from doublecheck.oracle import api, variants
from doublecheck.oracle.errors import UNKNOWN_OPTION, RulesError


@pytest.fixture(scope="module")
def cases():
    loaded, problems = load_cases()
    assert problems == []
    return loaded


# --- kings that may be captured, against python-chess --------------------------------

def pseudo_legal_walk(board, depth):
    """python-chess's pseudo-legal moves, stopping where a king has been taken: the moves of
    king-safety=king-capture wherever no castling right is left (python-chess still tests
    castling for attacks)."""
    if depth == 0:
        return 1
    if board.king(board.turn) is None:
        return 0
    total = 0
    for move in board.generate_pseudo_legal_moves():
        board.push(move)
        total += pseudo_legal_walk(board, depth - 1)
        board.pop()
    return total


@pytest.mark.parametrize("fen", [
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w - - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "4k3/8/8/3q4/8/8/8/R3K2R w - - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
])
def test_king_capture_chess_counts_what_an_independent_pseudo_legal_walk_counts(fen):
    rules = variants.get("chess", {"king-safety": "king-capture"})
    for depth in (1, 2, 3):
        assert api.perft(rules, rules.parse_fen(fen), depth) == pseudo_legal_walk(chess.Board(fen), depth)


def test_a_taken_king_ends_the_turn_of_every_multi_move_variant():
    """The move taking a king ends the turn at once (OPT-king-safety), whatever its place."""
    for variant, fen in (("marseillais", "3k4/8/8/8/8/8/8/3RK3 w - - 0 9 -"),
                         ("double-move", "3k4/8/8/8/8/8/8/3RK3 w - - 0 9 WB"),
                         ("progressive-scottish", "3k4/8/8/8/8/8/8/3RK3 w - - 0 9 17 0 0"),
                         ("monster", "3k4/8/8/8/8/8/8/3RK3 w - - 0 9 -")):
        rules = variants.get(variant, {"king-safety": "king-capture"})
        after = rules.play(rules.parse_fen(fen), rules.parse_move(rules.parse_fen(fen), "d1d8"))
        assert after.turn == "b" and not rules.mid_turn(after), variant
        assert rules.status(after)["reason"] == "no-king" and rules.legal_moves(after) == [], variant


# --- an engine that plays a convention -----------------------------------------------

ENGINE_VALUES = [("monster", "king-safety", "king-capture"), ("monster", "black-check", "one-move"),
                 ("progressive-scottish", "series-en-passant", "none"),
                 ("progressive-italian", "no-move-two", "pass"), ("chess", "draws", "none"),
                 ("double-move", "draws", "claims-only"), ("double-chess", "move-count", "none"),
                 ("marseillais", "dead-position", "at-once"), ("double-move-anul", "dead-position", "none"),
                 ("marseillais-classic", "no-move-two", "illegal"), ("double-move-anul", "no-move-two", "illegal"),
                 ("progressive-italian", "king-safety", "king-capture")]


def run_counts(engine_options, declared, variant, cases):
    """(failed, passed, skipped by the declared options) of the oracle playing under
    ``engine_options`` while the run judges under ``declared``, on the variant's cheap cases."""
    mine = [c for c in cases if c.variant == variant and (c.nodes or 0) <= 20_000]
    engine = OracleEngine(options=engine_options)
    results = run_cases(mine, engine, RunOptions(declared=declared, max_nodes=20_000))
    outcomes = [r.outcome for r in results]
    return outcomes.count("failed"), outcomes.count("passed"), sum(r.by_options for r in results)


@pytest.mark.parametrize("variant, name, value", ENGINE_VALUES)
def test_an_engine_playing_a_value_fails_by_default_and_passes_once_it_declares_it(cases, variant, name, value):
    default = {name: variants.get(variant).options[name]}   # declared as the default: nothing declared
    failed, _, _ = run_counts({name: value}, default, variant, cases)
    assert failed > 0
    failed, passed, skipped = run_counts({name: value}, {name: value}, variant, cases)
    assert (failed, passed > 0) == (0, True)


def test_the_command_line_judges_a_king_capture_engine_as_its_author_would(tmp_path):
    """``doublecheck run --engine "doublecheck serve --option ..."``: failures with the value
    put back to the default, none with it declared (the served hello declares it)."""
    serve = shlex.join([sys.executable, "-m", "doublecheck", "serve", "--option", "king-safety=king-capture"])

    def run(*more):
        return subprocess.run([sys.executable, "-m", "doublecheck", "run", "--variant", "monster", "--quiet",
                               "--max-nodes", "20000", "--engine", serve, *more],
                              capture_output=True, text=True, timeout=600)
    plain = run("--option", "king-safety=check")
    assert plain.returncode == 1 and "FAILED:" in plain.stdout
    declared = run()
    assert declared.returncode == 0, declared.stdout[-2000:]
    assert "king-safety=king-capture (hello)" in declared.stdout


# --- a case only a combination changes -----------------------------------------------

def test_a_case_no_value_alone_changes_is_judged_under_the_combination():
    """White's double step on move one passes e3 beside Black's d4 pawn.  Alone, neither value
    lets Black take on e3: by default (MO6) move one leaves no target; under
    ep-after-white-move-one=target the capture opens the d-file to White's rook, within reach
    of two moves (MO4); under black-check=one-move there is no target.  Together the capture
    is legal, so the case's answer (illegal-move) is the oracle's only under the combination."""
    from doublecheck.casefiles import Case
    request = {"op": "play", "fen": "3k4/2p5/8/8/3p4/8/4P3/2R1K3 w - - 0 10 -",
               "moves": ["e2e4,e1f1", "d4e3"]}
    case = Case(id="monster/combination/probe", variant="monster", topic="combination", rules=["MO6", "MO4"],
                description="", source="", request={"variant": "monster", **request},
                expect={"error": {"code": "illegal-move"}}, path="probe.json", generated=False)
    one, target = {"black-check": "one-move"}, {"ep-after-white-move-one": "target"}
    for alone in (one, target):
        assert Declared(alone).plan(case).case.expect == case.expect
    plan = Declared({**one, **target}).plan(case)
    assert plan.case.expect["fen"] == "3k4/2p5/8/8/8/4p3/8/2R2K2 w - - 0 11 -"
    assert plan.options == {**one, **target} and "under black-check=one-move, ep-after-white-move-one=target" in plan.note


# --- FENs without clocks ----------------------------------------------------------------

class ClocklessOracle(OracleEngine):
    """The oracle writing its FENs as a site does that keeps no clocks: fields 5 and 6 left out."""

    def request(self, req, timeout=None):
        answer = super().request(req, timeout)
        if isinstance(answer.get("fen"), str):
            fields = answer["fen"].split(" ")
            answer = {**answer, "fen": " ".join(fields[:4] + fields[6:])}
        return answer


@pytest.mark.parametrize("variant", ["chess", "marseillais", "progressive-scottish"])
def test_an_engine_without_clocks_passes_once_it_declares_fen_clocks_no(cases, variant):
    mine = [c for c in cases if c.variant == variant and (c.nodes or 0) <= 20_000]
    plain = run_cases(mine, ClocklessOracle(), RunOptions(max_nodes=20_000))
    assert any(r.outcome == "failed" for r in plain)
    judged = run_cases(mine, ClocklessOracle(), RunOptions(declared={"fen-clocks": "no"}, max_nodes=20_000))
    assert [r.case.id for r in judged if r.outcome == "failed"] == []
    skipped = [r for r in judged if r.by_options]
    assert skipped and all("fen-clocks=no" in r.lines[0] for r in skipped)
    assert sum(r.outcome == "passed" for r in judged) > len(mine) // 2


def test_clock_fields_are_put_back_only_where_they_alone_are_missing():
    expect = {"fen": "4k3/8/8/8/8/8/8/R3K3 b - - 3 7 -"}
    assert with_expected_clocks({"fen": "4k3/8/8/8/8/8/8/R3K3 b - - -"}, expect)["fen"] == expect["fen"]
    assert with_expected_clocks({"fen": "4k3/8/8/8/8/8/8/R3K3 b - - 0 1 -"}, expect)["fen"] == expect["fen"]
    assert with_expected_clocks({"fen": "4k3/8/8/8/8/8/8/R3K3 b -"}, expect)["fen"] == "4k3/8/8/8/8/8/8/R3K3 b -"
    assert without_clocks("4k3/8/8/8/8/8/8/R3K3 b - - 3 7 -") == "4k3/8/8/8/8/8/8/R3K3 b - - 0 17 -"


# --- honest counts and refusals ---------------------------------------------------------

def test_only_a_declared_value_counts_as_skipping_a_case(cases):
    mine = [c for c in cases if c.variant == "chess" and (c.nodes or 0) <= 20_000]
    written_for_others = [c for c in mine if c.options]
    results = run_cases(mine, OracleEngine(), RunOptions(max_nodes=20_000))
    skipped = [r for r in results if r.outcome == "skipped"]
    assert len(skipped) >= len(written_for_others) > 0
    assert not any(r.by_options for r in results)   # nothing declared: nothing skipped by it
    declared = run_cases(mine, OracleEngine(options={"draws": "none"}), RunOptions(declared={"draws": "none"},
                                                                                     max_nodes=20_000))
    by = [r for r in declared if r.by_options]
    assert by and all("the engine plays none" in r.lines[0] for r in by)


@pytest.mark.parametrize("claims, declared, words", [
    (["chess"], {"series-en-passant": "none"}, "taken by none of the variants the engine claims"),
    (["chess", "double-move"], {"no-move-two": "illegal"}, "taken by none"),
    (["monster"], {"king-safety": "king-capture", "black-check": "one-move"}, "cannot be played together"),
])
def test_a_value_no_claimed_variant_can_play_is_refused_before_the_run(claims, declared, words):
    with pytest.raises(RulesError) as e:
        Declared.of(declared).check_playable(claims)
    assert e.value.code == UNKNOWN_OPTION and words in e.value.message


def test_a_variant_named_on_its_own_refuses_what_it_does_not_take():
    from doublecheck.oracle import options
    for variant, declared in (("chess", {"dead-position": "at-once"}), ("double-move-anul", {"no-move-two": "stalemate"}),
                              ("symmetric-monster", {"king-safety": "king-capture"})):
        with pytest.raises(RulesError) as e:
            options.checked_for(variants.get(variant), declared)
        assert e.value.code == UNKNOWN_OPTION and "does not take" in e.value.message


def test_serve_refuses_values_that_cannot_be_played_together():
    done = subprocess.run([sys.executable, "-m", "doublecheck", "serve", "--option", "king-safety=king-capture",
                           "--option", "black-check=one-move"], input='{"id": 1, "op": "hello"}\n',
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert "error: unknown-option: monster: king-safety=king-capture and black-check=one-move" in done.stderr
