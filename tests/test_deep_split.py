"""`run --deep` against the oracle splits a large perft case over --jobs processes (the split of
`doublecheck perft --jobs`), with the same counts as the plain walk; other engines, and runs of
one job, keep the case whole."""

import io

import pytest

from doublecheck.harness import deepsplit
from doublecheck.harness.engines import engine_spec
from doublecheck.harness.runner import RunOptions, run_command
from doublecheck.oracle import api

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


@pytest.mark.parametrize("request_", [
    {"op": "perft", "variant": "chess", "fen": KIWIPETE, "depth": 3, "divide": True},
    {"op": "perft", "variant": "double-move", "depth": 3},
    {"op": "perft", "variant": "marseillais", "depth": 2, "turns": True, "divide": True},
    {"op": "perft", "variant": "chess", "depth": 0},
])
def test_the_split_oracle_counts_what_the_plain_walk_counts(request_):
    assert deepsplit.SplitOracle(2, None).handle(dict(request_)) == api.handle(dict(request_))


def options(**more):
    return RunOptions(**{"quiet": True, "deep": True, "jobs": 2, **more})


def test_only_large_oracle_perft_cases_of_a_wide_deep_run_are_split(monkeypatch):
    from doublecheck.casefiles import load_cases
    from doublecheck.harness.runner import select_cases
    monkeypatch.setattr(deepsplit, "split_nodes", lambda: 100_000)
    cases, _ = load_cases()
    chosen = select_cases(cases, patterns=["chess/perft"])
    split = deepsplit.cases_to_split(chosen, options(), engine_spec(), None)
    assert split and all(c.request["op"] == "perft" and c.nodes >= 100_000 for c in split)
    assert len(split) == sum(1 for c in chosen if (c.nodes or 0) >= 100_000)
    assert deepsplit.cases_to_split(chosen, options(jobs=1), engine_spec(), None) == []
    assert deepsplit.cases_to_split(chosen, RunOptions(jobs=2), engine_spec(), None) == []
    assert deepsplit.cases_to_split(chosen, options(), engine_spec("./engine"), None) == []


def test_a_run_counts_the_split_cases_over_the_jobs_and_passes(monkeypatch, tmp_path):
    monkeypatch.setattr(deepsplit, "split_nodes", lambda: 1_000_000)
    seen = []
    divide = deepsplit.SplitCounter.divide

    def spy(self, pos, depth, turns=False):
        seen.append((self.jobs, depth))
        return divide(self, pos, depth, turns)
    monkeypatch.setattr(deepsplit.SplitCounter, "divide", spy)
    out = io.StringIO()
    code = run_command(options(patterns=("chess/perft/start-*",), max_nodes=5_000_000), out=out,
                       err=io.StringIO())
    assert code == 0, out.getvalue()
    assert "0 failed, 0 errors" in out.getvalue()
    assert seen and all(jobs == 2 for jobs, _ in seen)   # start-depth-5: 4,865,609 nodes, split
