"""The time limit's races, forced deterministically (never by loading the machine): a stop
that comes due while a limit is being left, or while an import runs, is postponed until that
code has returned, so no alarm is left armed and no import lock is left held
(doublecheck.harness.deadline, "Where a stop never lands")."""

import signal
import sys
import threading
import time

import pytest

from doublecheck.harness import deadline
from doublecheck.harness.deadline import TimeLimitExceeded, time_limit

ALARM = pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="no setitimer on this platform")


@ALARM
def test_a_ring_while_the_limit_is_left_does_not_escape_and_leaves_nothing_armed(monkeypatch):
    leave = deadline._despite_own_stops

    def ring_then_leave(clean_up, own):     # the timer rings just as __exit__ starts
        signal.raise_signal(signal.SIGALRM)  # (the handler runs before this returns)
        return leave(clean_up, own)

    before = signal.getsignal(signal.SIGALRM)
    monkeypatch.setattr(deadline, "_despite_own_stops", ring_then_leave)
    with time_limit(100):
        pass
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) == before


@ALARM
def test_every_tiny_budget_disarms(monkeypatch):
    """The CLI's smallest budgets, many times over: each ends with the timer off and the
    handler put back, whether or not the stop landed."""
    before = signal.getsignal(signal.SIGALRM)
    for seconds in (1e-6, 1e-4, 1e-3) * 200:
        try:
            with time_limit(seconds):
                sum(range(200))
        except TimeLimitExceeded:
            pass
        assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
        assert signal.getsignal(signal.SIGALRM) == before


@ALARM
def test_a_ring_inside_an_import_waits_until_the_import_is_done(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "rings_on_import.py").write_text(
        "import signal\nsignal.raise_signal(signal.SIGALRM)\nWHOLE = True\n")
    with pytest.raises(TimeLimitExceeded):
        with time_limit(100):
            import rings_on_import   # noqa: F401 -- the ring lands while this import runs
            assert rings_on_import.WHOLE
            raise_at_next_ring()
    assert sys.modules["rings_on_import"].WHOLE


def raise_at_next_ring():
    """After the import: the postponed stop lands at the timer's next ring."""
    signal.raise_signal(signal.SIGALRM)


def test_a_watchdog_stop_waits_for_an_import_in_another_thread(tmp_path, monkeypatch):
    """A desk worker's import outlasts its limit: the stop lands after the import, and
    the import lock is free for everyone else."""
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "slow_import.py").write_text(
        "import time\nfor _ in range(30):\n    time.sleep(0.01)\nWHOLE = True\n")
    seen = {}

    def worker():
        try:
            with time_limit(0.01):
                import slow_import   # noqa: F401 -- 0.3 s, thirty times the limit
                seen["imported"] = slow_import.WHOLE
                while True:
                    time.sleep(0.01)
        except TimeLimitExceeded:
            seen["stopped"] = True

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join(30)
    assert seen == {"imported": True, "stopped": True}
    import slow_import   # noqa: F401 -- the import lock was not left held
    assert slow_import.WHOLE


def test_interruptible_reads_the_whole_stack():
    def inner():
        return sys._getframe()
    assert deadline._interruptible(inner())
    assert not deadline._interruptible(None)     # a thread that is gone


@ALARM
@pytest.mark.parametrize("budget", [0.001, 0.02])
def test_serve_at_a_tiny_budget_answers_every_line_and_disarms(budget):
    """Each line gets one answer, ok or budget-exceeded, and the alarm is off afterwards;
    the set-up was done before the first line, so it is no request's budget."""
    import io
    import json

    from doublecheck.harness.serve import serve
    lines = [json.dumps({"id": i, "op": "moves", "variant": "chess"}) for i in range(300)]
    out = io.BytesIO()
    assert serve(stdin=io.BytesIO(("\n".join(lines) + "\n").encode()), stdout=out, budget=budget) == 0
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [a["id"] for a in answers] == list(range(300))
    assert all(a["ok"] or a["error"]["code"] == "budget-exceeded" for a in answers)
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
