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
import threading
import time
from contextlib import contextmanager


class TimeLimitExceeded(BaseException):
    """A request ran past its time limit; ``seconds`` is the limit."""

    seconds: float = 0.0

    def __init__(self, seconds: float | None = None):
        if seconds is not None:
            self.seconds = seconds
        super().__init__(f"the time limit of {self.seconds:g} s ran out")


LONGEST = 7 * 24 * 3600.0   # one week: longer limits are held as this
AGAIN = 0.05                # seconds between stops once the limit has passed, until one ends the block


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


@contextmanager
def time_limit(seconds: float | None):
    """Raise TimeLimitExceeded inside the ``with`` block once it has run for ``seconds``."""
    if no_limit(seconds):
        yield
        return
    seconds = held(seconds)
    if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
        with _alarm(seconds):
            yield
    else:
        with _watchdog(seconds):
            yield


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


@contextmanager
def _alarm(seconds: float):
    state = {"armed": True}
    own = _stop_class(seconds)

    def ring(signum, frame):
        if state["armed"]:  # (it stays armed: the timer rings AGAIN until the block is left)
            raise own()

    start = time.monotonic()
    outer_delay, outer_interval = signal.getitimer(signal.ITIMER_REAL)
    if outer_delay and outer_delay <= seconds:  # the caller's alarm comes first: leave it alone
        with _watchdog(seconds):               # (and keep this limit all the same)
            yield
        return
    previous = signal.signal(signal.SIGALRM, ring)
    # (below a microsecond it would not fire)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 1e-6), AGAIN)

    def clean_up():
        state["armed"] = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL if previous is None else previous)
        if outer_delay:
            left = outer_delay - (time.monotonic() - start)
            signal.setitimer(signal.ITIMER_REAL, max(left, 1e-6), outer_interval)

    try:
        yield
    finally:
        _despite_own_stops(clean_up, own)


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


@contextmanager
def _watchdog(seconds: float):
    if _RAISE_IN is None:
        yield
        return
    own = _stop_class(seconds)
    target = threading.get_ident()
    lock = threading.Lock()
    state = {"armed": True, "fired": False}
    disarmed = threading.Event()

    def fire():
        if disarmed.wait(seconds):
            return
        while True:  # AGAIN until the block is left
            with lock:
                if not state["armed"]:
                    return
                state["fired"] = True
                _RAISE_IN(target, own)
            if disarmed.wait(AGAIN):
                return

    def clean_up():
        with lock:
            state["armed"] = False
            disarmed.set()
            if state["fired"]:
                _RAISE_IN(target, None)  # withdraw a stop not raised yet

    threading.Thread(target=fire, name="time-limit", daemon=True).start()
    try:
        yield
    finally:
        _despite_own_stops(clean_up, own)
