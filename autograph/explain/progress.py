"""A one-line progress indicator for long captures and compiles, on a terminal only.

Nothing is shown for work that finishes within ``delay`` seconds (about two),
nothing when the stream is not a TTY (pipes, files, CI logs), and nothing ever
goes through ``logging``: the line is written to the terminal and erased when
the work ends, so it never pollutes captured output.

    with progress("capturing toy_example"):
        ...
"""
from __future__ import annotations

import sys
import threading
import time
from typing import Any, TextIO

_FRAMES = "|/-\\"


def _is_tty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except Exception:  # noqa: BLE001 - closed or odd streams are not terminals
        return False


class progress:
    """Context manager showing ``autograph: <what> ... 3.1s`` after ``delay`` seconds on a TTY."""

    def __init__(self, what: str, *, stream: TextIO | None = None, delay: float = 2.0, interval: float = 0.25):
        self.what = what
        self.stream = stream
        self.delay = delay
        self.interval = interval
        self.shown = False          # True once the line was written at least once
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._t0 = 0.0

    def __enter__(self) -> "progress":
        stream = self.stream if self.stream is not None else sys.stderr
        self.stream = stream
        if stream is None or not _is_tty(stream):
            return self
        self._t0 = time.perf_counter()
        self._thread = threading.Thread(target=self._run, name="autograph-progress", daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        if self._stop.wait(self.delay):
            return
        i = 0
        while not self._stop.is_set():
            elapsed = time.perf_counter() - self._t0
            self._write(f"\r{_FRAMES[i % len(_FRAMES)]} autograph: {self.what} ... {elapsed:.1f}s")
            self.shown = True
            i += 1
            self._stop.wait(self.interval)

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except Exception:  # noqa: BLE001 - a broken terminal must not break the program
            pass

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            if self.shown:
                self._write("\r\x1b[K")  # erase the line: the terminal looks as before
