"""Perft on many processes: a local Dask cluster and the local process pool give the
plain counts, also when a worker is killed in the middle of a run.

The Dask tests need the ``cluster`` extra (dask.distributed); without it they
are skipped with the reason, except under ``CI=true``, where .ci/run installs
it.  Everything listens on 127.0.0.1 only.
"""

import multiprocessing
import os
import signal

import pytest

from doublecheck.cli import main
from doublecheck.oracle import perft as plain
from doublecheck.oracle import variants
from doublecheck.perft import parallel
from doublecheck.perft.parallel import count
from doublecheck.progress import Progress

try:
    import distributed
except ImportError:
    distributed = None

needs_dask = pytest.mark.skipif(distributed is None and os.environ.get("CI") != "true",
                                reason="dask.distributed is not installed: pip install 'doublecheck-chess[cluster]'")

class KillOnce(Progress):
    """A progress line that, once `after` subtrees are counted, calls `kill` (once)."""

    def __init__(self, after, kill):
        super().__init__("doublecheck perft", 0, "subtrees", None, quiet=True)
        self.after, self.kill, self.killed = after, kill, None

    def finish(self, name, bad=False):
        super().finish(name, bad)
        if self.killed is None and self.done >= self.after:
            self.killed = self.kill()


@pytest.fixture(scope="module")
def cluster():
    assert distributed is not None, "CI must install the cluster extra: pip install -e '.[cluster]'"
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None,
                                  worker_dashboard_address=None) as local:
        yield local


ANUL = variants.get("double-move-anul")


@pytest.fixture(scope="module")
def anul_turns_2():
    """turn-perft 2 of double-move-anul from the start, by the plain walk: 445 first turns."""
    return plain.divide(ANUL, ANUL.start, 2, turns=True)


@needs_dask
def test_a_dask_cluster_gives_the_plain_divide(cluster, anul_turns_2):
    got = count(ANUL, ANUL.start, 2, turns=True, scheduler=cluster.scheduler_address)
    assert got["divide"] == anul_turns_2 and got["nodes"] == sum(anul_turns_2.values())


@needs_dask
def test_killing_a_dask_worker_mid_run_changes_nothing(cluster, anul_turns_2):
    with distributed.Client(cluster.scheduler_address, set_as_default=False) as client:
        before = client.run(os.getpid)          # worker address -> pid

        def kill():
            busy = [w for w, tasks in client.processing().items() if tasks and w in before]
            victim = (busy or list(before))[0]
            os.kill(before[victim], signal.SIGKILL)
            return victim, bool(busy)

        progress = KillOnce(after=8, kill=kill)   # of 32 chunks (TASKS_PER_WORKER x 2 workers)
        got = count(ANUL, ANUL.start, 2, turns=True, scheduler=cluster.scheduler_address,
                    progress=progress)
        assert progress.killed is not None, "the run ended before a worker could be killed"
        victim, was_busy = progress.killed
        assert was_busy, "the killed worker had no task to lose"
        client.wait_for_workers(2, timeout=60)
        assert before[victim] not in client.run(os.getpid).values()   # the nanny started a new one
    assert got["divide"] == anul_turns_2


@needs_dask
def test_perft_command_on_a_cluster(cluster, capsys):
    assert main(["perft", "--variant", "symmetric-monster", "--depth", "3", "--divide", "--json",
                 "--scheduler", cluster.scheduler_address, "--quiet"]) == 0
    out = capsys.readouterr().out
    assert '"nodes": 8902' in out


@needs_dask
def test_no_scheduler_is_a_clear_error(capsys, monkeypatch):
    monkeypatch.setattr(parallel, "CONNECT_TIMEOUT", 2)
    code = main(["perft", "--depth", "2", "--scheduler", "tcp://127.0.0.1:9", "--json"])
    assert code == 2
    err = capsys.readouterr().err
    assert "error: cluster-unavailable:" in err and "127.0.0.1:9" in err


def test_killing_a_local_worker_process_mid_run_changes_nothing():
    rules = variants.get("double-move")

    def kill():
        children = multiprocessing.active_children()
        os.kill(children[0].pid, signal.SIGKILL)
        return children[0].pid

    progress = KillOnce(after=5, kill=kill)
    got = count(rules, rules.start, 3, jobs=2, progress=progress)
    assert progress.killed is not None
    assert got["nodes"] == 44434     # cases/double-move/generated-perft.json, start-perft-3
    assert got["divide"] == count(rules, rules.start, 3)["divide"]
