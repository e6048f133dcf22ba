"""Time limits for one request: a countdown for waiting on an engine process, and a
limit that stops a request running inside this process.

``Deadline`` is a point in time with the limit it came from: the transport
(``process.LineProcess``) passes one to every wait, so that no write, read or
select outlasts the request's limit, and the timeout message can name it.

``time_limit(seconds)`` stops Python code that runs too long, for the engines
that live inside the harness (the oracle and adapters, ``engines.AdapterEngine``)
and for ``doublecheck serve --budget``; both use it, so both behave alike::

    try:
        with time_limit(5):
            answer = adapter.handle(request)
    except TimeLimitExceeded as e:
        ...  # e.seconds == 5

How the code is stopped:

- In the main thread, where the platform has ``setitimer`` (Linux, macOS and
  other Unix systems): a ``SIGALRM`` timer whose handler raises
  ``TimeLimitExceeded``. It fires between two bytecodes of the running Python
  code, and it also ends a blocking system call such as ``time.sleep``. An
  alarm timer set by the caller is kept: the sooner of the two fires, and the
  caller's is re-armed with what is left of it afterwards (when the caller's
  comes first, this limit is kept by the watchdog below).
- In any other thread (or without ``setitimer``): a watchdog thread raises the
  exception inside the request's thread through CPython's
  ``PyThreadState_SetAsyncExc``. This stops Python code, but not a single long
  call into C (a blocking read, a huge arithmetic operation): the exception is
  raised when that call returns. Where neither is available (an interpreter
  without ``ctypes.pythonapi``), the limit is not enforced.

Once the limit has passed, the exception is raised again every ``AGAIN``
seconds until it ends the ``with`` block. One raise is not always enough:
Python cannot pass an exception out of a finalizer (``__del__``, a weakref
callback), which garbage collection runs at any moment; it reports the
exception as "Exception ignored" and the interrupted code runs on. The next
raise stops it. (A raise that lands in the code's own clean-up on the way out
only replaces one ``TimeLimitExceeded`` by another.)

Where a stop never lands: in the clean-up of a limit (entering and leaving the
``with`` block, where a stop would escape with the timer still set), and in
code that holds a lock a stop would leave held: Python's import machinery
(the import lock; a stopped import blocks every later import in every
thread) and ``threading``'s own lock handling.  A stop that comes due there
is postponed (``_interruptible``): the alarm rings again every ``AGAIN``
seconds and the watchdog asks again, and the stop lands as soon as that code
has returned.

``TimeLimitExceeded`` derives from ``BaseException``, like
``KeyboardInterrupt``, so an engine's own ``except Exception:`` does not
swallow it. A limit of ``None``, zero, a negative or a non-finite number means
no limit; a limit longer than ``LONGEST`` (a case file may expect so many perft
nodes that its scaled limit runs to years) is held as ``LONGEST``, which the
system's timers and waits can express.
"""

from __future__ import annotations

import math
import signal
import sys
import threading
import time
from contextlib import nullcontext


class TimeLimitExceeded(BaseException):
    """A request ran past its time limit; ``seconds`` is the limit."""

    seconds: float = 0.0

    def __init__(self, seconds: float | None = None):
        if seconds is not None:
            self.seconds = seconds
        super().__init__(f"the time limit of {self.seconds:g} s ran out")


LONGEST = 7 * 24 * 3600.0   # one week: longer limits are held as this
AGAIN = 0.05                # seconds between stops once the limit has passed, until one ends the block
WATCH = 0.1                 # seconds between two questions of time_limit_unless_gone's watchdog


def no_limit(seconds) -> bool:
    return seconds is None or not 0 < seconds < math.inf


def held(seconds: float) -> float:
    """A finite positive limit as the timers can hold it."""
    return min(float(seconds), LONGEST)


class Deadline:
    """The moment a wait must end, and the limit in seconds it was set from (None: never)."""

    def __init__(self, seconds: float | None):
        self.seconds = None if no_limit(seconds) else held(seconds)
        self.end = None if self.seconds is None else time.monotonic() + self.seconds

    def left(self) -> float | None:
        """Seconds left (0 when passed), or None without a limit."""
        return None if self.end is None else max(self.end - time.monotonic(), 0.0)

    def passed(self) -> bool:
        return self.end is not None and time.monotonic() >= self.end


def time_limit(seconds: float | None):
    """A context manager raising TimeLimitExceeded inside its ``with`` block once the block
    has run for ``seconds``.

    The timer is armed as the last step of entering the block, inside a ``try`` that
    disarms it again: a limit so short that it fires while the block is being entered
    ends there with everything put back, instead of leaving the handler installed and
    the timer ringing after the block (a plain generator-based context manager has a gap
    between its ``yield`` and the block where a stop escapes its clean-up)."""
    if no_limit(seconds):
        return nullcontext()
    seconds = held(seconds)
    if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
        return _Alarm(seconds)
    return _Watchdog(seconds)


def time_limit_unless_gone(seconds: float | None, gone):
    """``time_limit``, which also stops the block as soon as ``gone()`` turns true (the
    request's client has gone away, say): the watchdog thread asks it every ``WATCH``
    seconds.  The block gets the same TimeLimitExceeded either way; ask ``gone()`` to
    tell which.  Always the watchdog, even in the main thread (a signal cannot ask)."""
    return _Watchdog(LONGEST if no_limit(seconds) else held(seconds), gone)


def _stop_class(seconds: float):
    """The exception class one limit raises: CPython's thread API raises classes, so the class
    carries the limit, and the clean-up tells its own limit's stops from an outer limit's."""
    return type("TimeLimitExceeded", (TimeLimitExceeded,), {"seconds": seconds})


def _despite_own_stops(clean_up, own) -> None:
    """Run ``clean_up`` to its end, again from its start when a stop of this limit (class
    ``own``) lands in it before it has disarmed the limit."""
    while True:
        try:
            clean_up()
            return
        except own:
            continue


class _Limit:
    """Enter: ``_arm`` (whose last step starts the countdown); leave, or a stop while
    entering: ``_clean_up``, repeated until a stop of this limit no longer interrupts it."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.own = _stop_class(seconds)

    due = False   # a stop came due while the limit was being armed (and was postponed)

    def __enter__(self):
        try:
            self._arm()
            if self.due:   # the limit ran out while entering: the block does not start
                raise self.own()
            return self
        except BaseException:
            _despite_own_stops(self._clean_up, self.own)
            raise

    def __exit__(self, *exc) -> None:
        _despite_own_stops(self._clean_up, self.own)


class _Alarm(_Limit):
    """A SIGALRM timer whose handler raises the stop (the main thread)."""

    def _arm(self) -> None:
        self.armed = False
        self.inner = None
        self.start = time.monotonic()
        self.outer = signal.getitimer(signal.ITIMER_REAL)
        if self.outer[0] and self.outer[0] <= self.seconds:  # the caller's alarm comes first:
            self.inner = _Watchdog(self.seconds)                # leave it alone, keep this limit
            self.inner.__enter__()
            return
        self.previous = signal.signal(signal.SIGALRM, self._ring)
        self.armed = True
        # (below a microsecond it would not fire)
        signal.setitimer(signal.ITIMER_REAL, max(self.seconds, 1e-6), AGAIN)

    def _ring(self, signum, frame):
        # (it stays armed: the timer rings AGAIN until the block is left, so a stop
        # postponed here lands at a later ring)
        if self.armed and _interruptible(frame):
            raise self.own()
        self.due = self.armed

    def _clean_up(self) -> None:
        if self.inner is not None:
            inner, self.inner = self.inner, None
            inner.__exit__(None, None, None)
            return
        if not self.armed:
            return
        self.armed = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL if self.previous is None else self.previous)
        delay, interval = self.outer
        if delay:
            left = delay - (time.monotonic() - self.start)
            signal.setitimer(signal.ITIMER_REAL, max(left, 1e-6), interval)


def _async_raiser():
    """A function raising an exception class in another thread, or None where CPython's API is missing."""
    try:
        import ctypes
        set_async_exc = ctypes.pythonapi.PyThreadState_SetAsyncExc
    except (ImportError, AttributeError):
        return None
    set_async_exc.argtypes = (ctypes.c_ulong, ctypes.py_object)
    set_async_exc.restype = ctypes.c_int

    def raise_in(thread_id: int, exc_class):
        set_async_exc(thread_id, ctypes.py_object(exc_class) if exc_class else ctypes.py_object())
    return raise_in


_RAISE_IN = _async_raiser()


def _waited_out(disarmed: threading.Event, seconds: float, gone=None) -> bool:
    """Wait until ``seconds`` pass or ``gone()`` turns true (False), or the block is left (True)."""
    if gone is None:
        return disarmed.wait(seconds)
    end = time.monotonic() + seconds
    while not disarmed.wait(min(WATCH, max(end - time.monotonic(), 0.0))):
        if time.monotonic() >= end or _asks_yes(gone):
            return False
    return True


def _asks_yes(question) -> bool:
    """``question()``, where a question that fails counts as no (the time limit still holds)."""
    try:
        return bool(question())
    except Exception:  # noqa: BLE001
        return False


class _Watchdog(_Limit):
    """A thread that raises the stop in the limited thread (any thread), at the limit or
    as soon as ``gone()`` (when given) turns true."""

    def __init__(self, seconds: float, gone=None):
        super().__init__(seconds)
        self.gone = gone

    def _arm(self) -> None:
        self.target = threading.get_ident()
        self.lock = threading.Lock()
        self.armed, self.fired = _RAISE_IN is not None, False
        self.disarmed = threading.Event()
        if self.armed:
            threading.Thread(target=self._fire, name="time-limit", daemon=True).start()

    def _fire(self) -> None:
        if _waited_out(self.disarmed, self.seconds, self.gone):
            return
        while True:  # AGAIN until the block is left
            with self.lock:
                if not self.armed:
                    return
                if _interruptible(sys._current_frames().get(self.target)):
                    self.fired = True
                    _RAISE_IN(self.target, self.own)
            if self.disarmed.wait(AGAIN):
                return

    def _clean_up(self) -> None:
        with self.lock:
            self.armed = False
            self.disarmed.set()
            if self.fired:
                self.fired = False
                _RAISE_IN(self.target, None)  # withdraw a stop not raised yet


# Code a stop must not interrupt (module docstring, "Where a stop never lands"): the limits'
# own entering and leaving, by code object, and the import machinery, anywhere on the stack
# (the import lock is held from the outermost import frame on); threading's lock handling
# only as the running frame (every thread's stack starts in threading's own frames).
_QUIET_CODES = frozenset(f.__code__ for f in (
    _Limit.__enter__, _Limit.__exit__, _despite_own_stops, _Alarm._arm, _Alarm._clean_up,
    _Watchdog._arm, _Watchdog._clean_up))
_QUIET_MODULES = frozenset({"importlib._bootstrap", "importlib._bootstrap_external"})
_QUIET_WHEN_RUNNING = frozenset({"threading"})
DEEPEST = 1000   # frames looked at; a stack deeper than this is taken as interruptible


def _interruptible(frame) -> bool:
    """Whether a stop may land in the code running ``frame`` (None: the thread is gone)."""
    if frame is None or frame.f_globals.get("__name__") in _QUIET_WHEN_RUNNING:
        return False
    for _ in range(DEEPEST):
        if frame is None:
            return True
        if frame.f_code in _QUIET_CODES or frame.f_globals.get("__name__") in _QUIET_MODULES:
            return False
        frame = frame.f_back
    return True
