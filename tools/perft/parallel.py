"""Counting a split perft tree: in this process, over local processes, or on a Dask cluster.

One driver serves all three (``count``): the tree is split into subtree
tasks (``doublecheck.perft.split``), the tasks go to a ``concurrent.futures``
executor, their counts come back in any order and are added up, divide
included.  The executors:

- none (``--jobs 1``): the tasks are counted here, one after another, with one
  transposition table for the whole run; the split is at the first steps,
  which is what the progress line counts.
- local processes (``--jobs N``): a ``ProcessPoolExecutor`` of N processes.
  This needs nothing beyond the standard library, starts in milliseconds and
  opens no network port, which is why it is used even when dask.distributed
  is installed (a local Dask cluster would give the same counts, only later).
- a Dask cluster (``--scheduler ADDRESS``): ``Client(ADDRESS).submit``, each
  Dask future settling a ``concurrent.futures`` future, so the driver is the same.

Each worker process keeps one transposition table (``--hash`` MB) for all the
tasks it counts in a run, so transpositions between the subtrees it is given
are found too.  For the pools the split goes down to ``LEAF_PLIES`` above the
leaves, and the tasks travel in chunks that keep the positions which transpose
into each other together (``doublecheck.perft.split``, "Keeping transpositions
together"): so two processes do about the work of one, each half of it.  A worker that dies does not change the answer: Dask runs its
tasks again on another worker by itself; a broken local pool is replaced and
the tasks without a count are submitted again (at most ``RETRIES`` times).
"""

from __future__ import annotations

import concurrent.futures as cf
import re
import signal
import time
from concurrent.futures.process import BrokenProcessPool

from doublecheck.oracle import variants
from doublecheck.perft.cache import DEFAULT_HASH_MB, Counter, Table
from doublecheck.perft.split import plan
from doublecheck.progress import Progress
from doublecheck.oracle.errors import CLUSTER_UNAVAILABLE, INVALID_REQUEST, WORKERS_LOST

TASKS_PER_WORKER = 16   # the split goes deep enough for this many distinct subtrees (and chunks) per worker
LEAF_PLIES = 2          # the pools' split leaves this many plies to each task (when the frontier allows)
RETRIES = 3             # times a run starts over the unfinished tasks after losing workers
CONNECT_TIMEOUT = 20    # seconds to reach a Dask scheduler


class PerftError(Exception):
    """A parallel count cannot go on: no cluster to run on, or workers lost too often."""

    def __init__(self, code: str, message: str):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


# --------------------------------------------------------------- in a worker

_table = None   # this process's transposition table, kept from task to task


def count_task(task, hash_mb: int) -> int:
    """Count one subtree (``hash_mb`` 0: the plain walk of oracle/perft.py)."""
    global _table
    if hash_mb and (_table is None or _table.megabytes != hash_mb):
        _table = Table(hash_mb)
    counter = Counter(variants.get(task.variant, dict(task.options)), _table if hash_mb else None)
    return counter.count(task.pos, task.depth, task.turns)


def count_chunk(tasks, hash_mb: int) -> list:
    """Count the subtrees of one chunk, in order, with this process's table."""
    return [count_task(task, hash_mb) for task in tasks]


def release_table() -> None:
    """Give this process's table back (run on every Dask worker when a count ends)."""
    global _table
    _table = None


# ---------------------------------------------------------------- executors

class LocalProcesses:
    """N processes on this machine (they leave Ctrl-C to this one, which stops them)."""

    def __init__(self, jobs: int):
        self.jobs = jobs
        self.pool = self.start()

    def start(self):
        return cf.ProcessPoolExecutor(max_workers=self.jobs, initializer=signal.signal,
                                      initargs=(signal.SIGINT, signal.SIG_IGN))

    def workers(self) -> int:
        return self.jobs

    def submit(self, fn, *args):
        return self.pool.submit(fn, *args)

    def restart(self) -> None:
        self.close(abort=True)
        self.pool = self.start()

    def close(self, abort: bool = False) -> None:
        """Wait for the pool to finish, or with ``abort`` stop its processes now."""
        if abort:  # the pool has no public way to stop a running task
            for process in list(getattr(self.pool, "_processes", {}).values()):
                process.terminate()
        self.pool.shutdown(wait=not abort, cancel_futures=True)


SCHEDULER_ADDRESS = re.compile(r"^(tcp://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9]([A-Za-z0-9.-]{0,252}))"
                               r":([1-9][0-9]{0,4})$")


def scheduler_problem(address) -> str | None:
    """Why ``address`` is no Dask scheduler address this tool can use (None: it is one).

    Only plain TCP (``tcp://HOST:PORT`` or ``HOST:PORT``): a scheme of another transport
    (``tls://`` needs certificates, ``inproc://`` is another process's memory, ``http://`` is
    the dashboard) is refused at once, before Dask is imported or anything connects; Dask
    would otherwise try it for its whole connect timeout."""
    if not isinstance(address, str) or len(address) > 300:
        return "a scheduler address is tcp://HOST:PORT"
    match = SCHEDULER_ADDRESS.match(address)
    if match is None or not 1 <= int(match.group(4)) <= 65535:
        scheme = address.split("://", 1)[0] if "://" in address else None
        why = (f"the scheme {scheme!r} is not one this tool speaks" if scheme and scheme != "tcp"
               else "it is not HOST:PORT with a port from 1 to 65535")
        return f"{address!r} is no scheduler address: {why}; give tcp://HOST:PORT (e.g. tcp://127.0.0.1:8786)"
    return None


class DaskCluster:
    """The workers of a running Dask scheduler (``pip install 'doublecheck-chess[cluster]'``)."""

    def __init__(self, address: str, timeout: float | None = None):
        timeout = CONNECT_TIMEOUT if timeout is None else timeout
        problem = scheduler_problem(address)
        if problem:
            raise PerftError(INVALID_REQUEST, problem)
        try:
            from distributed import Client
        except ImportError:
            raise PerftError(CLUSTER_UNAVAILABLE, "--scheduler needs dask.distributed; install it "
                                                    "with: pip install 'doublecheck-chess[cluster]'") from None
        try:
            self.client = Client(address, timeout=timeout, set_as_default=False)
        except Exception as e:  # OSError, TimeoutError, a bad address: all mean "no cluster there"
            raise PerftError(CLUSTER_UNAVAILABLE,
                             f"cannot reach a Dask scheduler at {address!r}: {e}") from None
        if not self.client.nthreads():
            self.client.close()
            raise PerftError(CLUSTER_UNAVAILABLE, f"the Dask scheduler at {address!r} has no workers")
        self.pending = {}   # Dask future -> the concurrent.futures future it settles

    def workers(self) -> int:
        return max(1, sum(self.client.nthreads().values()))

    def submit(self, fn, *args):
        """A ``concurrent.futures`` future for ``fn(*args)`` on the cluster.

        (Not ``Client.get_executor()``: its futures fail with a TypeError of its own
        when a worker dies just as a result arrives and the scheduler computes that
        task again. Here the result is waited for, recomputed or not.)"""
        settled = cf.Future()
        settled.set_running_or_notify_cancel()
        task = self.client.submit(fn, *args, pure=False)
        self.pending[task] = settled   # (a Dask future nobody holds is cancelled)

        def settle(done):
            try:
                settled.set_result(done.result())
            except BaseException as e:
                settled.set_exception(e)
            finally:
                self.pending.pop(done, None)

        task.add_done_callback(settle)
        return settled

    def restart(self) -> None:
        pass  # the scheduler reschedules the tasks of a lost worker by itself

    def close(self, abort: bool = False) -> None:
        try:
            self.client.run(release_table)
        finally:
            self.client.close()   # the scheduler forgets the tasks that are left


def lost_worker_errors() -> tuple:
    errors = [BrokenProcessPool]
    try:
        from distributed.scheduler import KilledWorker
        errors.append(KilledWorker)
    except ImportError:
        pass
    return tuple(errors)


# ------------------------------------------------------------------ progress

def rate(per_second: float) -> str:
    return f"{per_second / 1e6:.2f}M" if per_second >= 1e6 else f"{per_second:,.0f}"


# -------------------------------------------------------------------- driver

def count(rules, pos, depth: int, turns: bool = False, hash_mb: int = DEFAULT_HASH_MB,
          jobs: int = 1, scheduler: str | None = None, progress: Progress | None = None) -> dict:
    """``{"nodes": N, "divide": {first step: count}}`` for perft (or with ``turns``
    turn-perft) of ``pos`` at ``depth`` >= 1.  ``hash_mb`` 0 counts with the
    plain walk; ``jobs`` > 1 uses local processes, ``scheduler`` a Dask cluster."""
    progress = progress or Progress("doublecheck perft", 0, "subtrees", None, quiet=True)
    if scheduler:
        executor = DaskCluster(scheduler)
    elif jobs > 1:
        executor = LocalProcesses(jobs)
    else:
        executor = None
    finished = False
    try:
        workers = executor.workers() if executor else 1
        if executor is None:   # one table for everything: the first steps are enough
            split = plan(rules, pos, depth, turns)
            chunks = [[i] for i in range(len(split.tasks))]
        else:
            split = plan(rules, pos, depth, turns, min_tasks=TASKS_PER_WORKER * workers, below=LEAF_PLIES)
            chunks = split.chunks(TASKS_PER_WORKER * workers)
        weights = [0] * len(split.tasks)
        for share in split.shares.values():
            for i, n in share.items():
                weights[i] += n
        tally = Tally(len(chunks), weights, progress, "subtrees" if executor is None else "chunks of subtrees")
        if executor is None:
            counts = _here(rules, split.tasks, hash_mb, tally)
        else:
            counts = _elsewhere(executor, split.tasks, chunks, hash_mb, tally)
        finished = True
    finally:
        if executor is not None:
            executor.close(abort=not finished)
    table = split.divide(counts)
    return {"nodes": sum(table.values()), "divide": table}


class Tally:
    """The counts as they arrive, for the progress line (subtrees done of total, and the
    nodes counted so far with their rate)."""

    def __init__(self, total, weights, progress, unit="subtrees"):
        self.weights, self.progress = weights, progress
        self.nodes = 0
        self.began = time.perf_counter()
        progress.total, progress.unit = total, unit
        progress.detail = self.detail

    def detail(self) -> str:
        elapsed = time.perf_counter() - self.began
        return f"{self.nodes:,} nodes, {rate(self.nodes / elapsed if elapsed > 0 else 0)} nodes/s"

    def add(self, chunk: list, counts: list) -> None:
        """The counts of one chunk of subtrees (task indices ``chunk``) have arrived."""
        self.nodes += sum(self.weights[i] * n for i, n in zip(chunk, counts))
        self.progress.finish(f"subtree {chunk[0] + 1}" if len(chunk) == 1 else f"a chunk of {len(chunk)} subtrees")


def _here(rules, tasks, hash_mb, tally) -> list:
    counter = Counter(rules, Table(hash_mb) if hash_mb else None)
    counts = []
    for i, task in enumerate(tasks):
        n = counter.count(task.pos, task.depth, task.turns)
        counts.append(n)
        tally.add([i], [n])
    return counts


def _elsewhere(executor, tasks, chunks, hash_mb, tally) -> list:
    counts = [None] * len(tasks)
    lost = lost_worker_errors()
    for attempt in range(RETRIES + 1):
        todo = [chunk for chunk in chunks if counts[chunk[0]] is None]
        if not todo:
            break
        futures = {executor.submit(count_chunk, [tasks[i] for i in chunk], hash_mb): chunk for chunk in todo}
        try:
            for future in cf.as_completed(futures):
                _settle(futures[future], future.result(), counts, tally)
        except lost as e:
            for future, chunk in futures.items():  # keep every count that did arrive
                if counts[chunk[0]] is None and future.done() and not future.cancelled() \
                        and future.exception() is None:
                    _settle(chunk, future.result(), counts, tally)
            missing = sum(n is None for n in counts)
            if attempt == RETRIES:
                raise PerftError(WORKERS_LOST, f"workers were lost {RETRIES + 1} times; "
                                                 f"{missing} subtrees have no count") from None
            tally.progress.note(f"a worker was lost ({type(e).__name__}); "
                                f"counting its {missing} unfinished subtrees again")
            executor.restart()
    return counts


def _settle(chunk: list, results: list, counts: list, tally) -> None:
    for i, n in zip(chunk, results):
        counts[i] = n
    tally.add(chunk, results)
