"""``run --deep`` with the oracle: one large perft case counted over every job, not on one.

A run hands each case to one engine process, so a deep case of billions of
nodes (chess perft 7) is counted on one core while the others wait. When the
implementation is the built-in oracle, the runner gives the perft cases that
expect at least ``SPLIT_NODES`` nodes, after all the others, to one engine
more: the oracle whose perft counter is the split of ``doublecheck perft
--jobs`` (``doublecheck.perft.parallel.count``: the tree cut into subtrees,
counted by ``--jobs`` local processes, or on the Dask cluster of
``--scheduler``). The counts are the same (the split is tested against the
plain walk); only the time differs. Any other engine gets every case as
before: splitting a tree needs the oracle's moves for its top plies, and an
engine's own top plies are part of what a case checks.
"""

from __future__ import annotations

from doublecheck.casefiles import expected_nodes
from doublecheck.defaults import HASH_MB, SPLIT_NODES
from doublecheck.harness.engines import ENGINE_KINDS, AdapterEngine
from doublecheck.resource_limits import JOBS_AUTO, auto_jobs
from doublecheck.oracle import api


def split_jobs(jobs: int) -> int:
    """The counting processes: --jobs N, or for auto the usable cores (up to the cap)."""
    return auto_jobs() if jobs == JOBS_AUTO else jobs


def cases_to_split(chosen, options, spec, engine) -> list:
    """The perft cases of an oracle run that are counted over every job (none when there is
    one job and no cluster, when the run is not --deep, or for any other engine)."""
    oracle = engine is None and spec.kind is ENGINE_KINDS["oracle"]
    wide = options.scheduler is not None or split_jobs(options.jobs) > 1
    if not (oracle and options.deep and wide):
        return []
    return [c for c in chosen if c.request.get("op") == "perft" and expected_nodes(c) >= split_nodes()]


def split_nodes() -> int:
    """The size from which a case is split (defaults.SPLIT_NODES; a test may set it lower)."""
    return SPLIT_NODES


class SplitCounter:
    """The counter interface of ``api.handle`` (count, divide) over the perft split."""

    def __init__(self, rules, jobs: int, scheduler: str | None, hash_mb: int = HASH_MB):
        self.rules, self.jobs, self.scheduler, self.hash_mb = rules, jobs, scheduler, hash_mb

    def divide(self, pos, depth: int, turns: bool = False) -> dict:
        from doublecheck.perft.parallel import count
        return count(self.rules, pos, depth, turns, hash_mb=self.hash_mb, jobs=self.jobs,
                     scheduler=self.scheduler)["divide"]

    def count(self, pos, depth: int, turns: bool = False) -> int:
        return 1 if depth == 0 else sum(self.divide(pos, depth, turns).values())


class SplitOracle:
    """The oracle, answering perft through ``SplitCounter`` (every other request as usual)."""

    def __init__(self, jobs: int, scheduler: str | None):
        self.jobs, self.scheduler = jobs, scheduler

    def hello(self) -> dict:
        return api.hello()

    def handle(self, request: dict) -> dict:
        return api.handle(request, counter=lambda rules: SplitCounter(rules, self.jobs, self.scheduler))


def split_engine(options, spec) -> AdapterEngine:
    """The engine the split cases go to; it reports as the oracle does."""
    engine = AdapterEngine(SplitOracle(split_jobs(options.jobs), options.scheduler), "oracle",
                           spec.timeout)
    engine.hello()
    engine.name = "oracle"
    return engine
