"""A per-test time limit that turns a hang in student code into an exception we can report.

The exception is a BaseException, so a student's `except Exception` cannot swallow it,
and it is raised again every quarter second until the test gives up.
"""

from __future__ import annotations

import ctypes
import signal
import threading
from contextlib import contextmanager
from typing import Callable, Iterator

REPEAT = 0.25


class TimedOut(BaseException):
    """The test ran past its time limit."""


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Raise TimedOut in this thread once `seconds` have passed inside the block."""
    if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
        with _alarm(seconds):
            yield
    else:
        with _watchdog(seconds):
            yield


@contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    def expire(signum, frame):
        raise TimedOut()

    with interval_timer(signal.SIGALRM, signal.ITIMER_REAL, seconds, REPEAT, expire):
        yield


@contextmanager
def interval_timer(signum: int, which: int, first: float, repeat: float,
                   handler: Callable) -> Iterator[None]:
    """Inside the block `handler` runs on `signum`, first after `first` seconds of timer
    `which`, then every `repeat`; the timer is off and the old handler back afterwards."""
    previous = signal.signal(signum, handler)
    signal.setitimer(which, first, repeat)
    try:
        yield
    finally:
        signal.setitimer(which, 0)
        signal.signal(signum, previous)


@contextmanager
def _watchdog(seconds: float) -> Iterator[None]:
    """Off the main thread there are no signals: inject the exception into this thread."""
    target = threading.get_ident()
    done = threading.Event()

    def watch() -> None:
        if done.wait(seconds):
            return
        while not done.is_set():
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(target),
                                                       ctypes.py_object(TimedOut))
            done.wait(REPEAT)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()
        watcher.join()
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(target), None)
