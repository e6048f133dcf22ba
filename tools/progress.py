"""Progress of a long command on stderr: ``run``, ``generate`` and ``mutants`` share it.

On a terminal it is one live line, redrawn as items start and finish and once
a second. Anywhere else (a CI log, a file) it is a plain line every
``INTERVAL`` seconds, so a log shows the command is alive and what it is doing
without filling up::

    doublecheck run: 412/1308 cases done, 1 failed or errored, 31 s; running chess/perft/start-depth-5 (12 s)

Nothing is printed before the first interval has passed, so quick commands
print no progress at all. ``quiet`` turns it off; the environment variable
``DOUBLECHECK_PROGRESS_INTERVAL`` sets another interval in seconds (0: no
progress lines outside a terminal).

Items are named when they start and when they finish; several may run at
once (``run --jobs``), and the calls may come from any thread. ``total`` may be
set once it is known (perft plans its subtrees first), and ``detail``, a
function giving a few more words (perft's node count and speed), is called for
every line.
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
import time

INTERVAL = 10.0        # seconds between progress lines outside a terminal
LIVE_INTERVAL = 1.0    # seconds between redraws of the live line on a terminal
RUNNING_SHOWN = 2      # items named as running in one line (the longest-running first)


def interval_from_env(default: float = INTERVAL) -> float:
    text = os.environ.get("DOUBLECHECK_PROGRESS_INTERVAL", "")
    try:
        value = float(text)
    except ValueError:
        return default
    return value if value >= 0 else default


class Progress:
    """Progress of ``total`` items of work (use as a context manager around the work)."""

    def __init__(self, command: str, total: int, unit: str = "cases", bad: str | None = "failed",
                 stream=None, quiet: bool = False, interval: float | None = None, clock=time.monotonic):
        """``command`` starts each line (``doublecheck run``); ``unit`` names the items;
        ``bad`` says what a bad finish is (``failed or errored``, ``survived``; None: no count)."""
        self.command, self.total, self.unit, self.bad = command, total, unit, bad
        self.stream = stream if stream is not None else sys.stderr
        self.live = not quiet and _is_terminal(self.stream)
        self.interval = LIVE_INTERVAL if self.live else (interval_from_env() if interval is None
                                                         else interval)
        self.on = not quiet and (self.live or self.interval > 0)
        self.clock = clock
        self.began = clock()
        self.done = 0
        self.failed = 0
        self.running: dict[str, float] = {}
        self.detail = None  # a function giving more words for the line, or None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = None
        self._shown = False  # the live line is on the screen

    # --- the work reports here ---------------------------------------------------

    def start(self, name: str) -> None:
        with self._lock:
            self.running[name] = self.clock()
            if self.live:
                self._draw()

    def finish(self, name: str, bad: bool = False) -> None:
        with self._lock:
            self.running.pop(name, None)
            self.done += 1
            self.failed += bool(bad)
            if self.live:
                self._draw()

    def note(self, text: str) -> None:
        """A line that stays (a finished mutant, a written file), printed above the live line."""
        with self._lock:
            self._clear()
            print(text, file=self.stream, flush=True)
            if self.live:
                self._draw()

    # --- the line ----------------------------------------------------------------

    def line(self) -> str:
        now = self.clock()
        counts = [f"{self.done}/{self.total} {self.unit} done"]
        counts += [f"{self.failed} {self.bad}"] if self.bad else []
        counts += [self.detail()] if self.detail else []
        text = f"{self.command}: " + ", ".join(counts + [f"{now - self.began:.0f} s"])
        longest = sorted(self.running.items(), key=lambda item: item[1])
        if longest:
            shown = [f"{name} ({now - since:.0f} s)" for name, since in longest[:RUNNING_SHOWN]]
            more = f" and {len(longest) - RUNNING_SHOWN} more" if len(longest) > RUNNING_SHOWN else ""
            text += "; running " + ", ".join(shown) + more
        return text

    def fitted(self, width: int) -> str:
        """The line in at most ``width`` characters. The name of what is running is what a
        reader looks for, so the other parts are shortened first and the name last (cut from
        its start: the end of a case id tells cases apart)."""
        forms = [self.line()] + self._short_forms()
        for text in forms:
            if len(text) <= width:
                return text
        return "..." + forms[-1][-(width - 3):]   # ASCII: any terminal encoding shows it

    def _short_forms(self) -> list[str]:
        """Ever shorter lines: the longest-running item only, then bare counts, then the name."""
        now = self.clock()
        done = f"{self.done}/{self.total}"
        bad = f", {self.failed} {self.bad.split()[0]}" if self.bad else ""
        first = min(self.running.items(), key=lambda item: item[1], default=None)
        if first is None:
            return [f"{done}{bad}, {now - self.began:.0f} s"]
        name = f"{first[0]} ({now - first[1]:.0f} s)"
        return [f"{self.command}: {done} {self.unit}{bad}, {now - self.began:.0f} s; running {name}",
                f"{done}{bad}, {now - self.began:.0f} s; {name}", f"{done} {name}", first[0]]

    def tick(self) -> None:
        """Show the line now (the timer thread calls this every interval)."""
        with self._lock:
            if self.live:
                self._draw()
            elif self.on and not self._stop.is_set():
                print(self.line(), file=self.stream, flush=True)

    def _draw(self) -> None:
        if self._stop.is_set():  # closed: work still finishing (an interrupted run) stays quiet
            return
        width = max(shutil.get_terminal_size().columns - 1, 20)
        self.stream.write("\r" + self.fitted(width).ljust(width))
        self.stream.flush()
        self._shown = True

    def _clear(self) -> None:
        if self._shown:
            width = max(shutil.get_terminal_size().columns - 1, 20)
            self.stream.write("\r" + " " * width + "\r")
            self.stream.flush()
            self._shown = False

    # --- the timer -----------------------------------------------------------------

    def __enter__(self):
        if self.on:
            self._thread = threading.Thread(target=self._run, name="progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
        with self._lock:
            self._clear()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.tick()
            except (OSError, ValueError):  # the stream went away: no more progress
                return


def _is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
