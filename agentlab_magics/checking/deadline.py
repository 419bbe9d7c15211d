"""A per-test time limit that turns a hang in student code into an exception we can report.

The exception is a BaseException, so a student's `except Exception` cannot swallow it,
and it is raised again every quarter second until the test gives up.
"""

from __future__ import annotations

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
    def expire() -> None:
        raise TimedOut()

    with interval_timer(signal.SIGALRM, signal.ITIMER_REAL, seconds, REPEAT, expire):
        yield


TIMER_SIGNALS = (signal.SIGALRM, signal.SIGPROF)
_CALLS: dict[int, Callable[[], None]] = {}  # per signal: what its running timer calls


def _dispatch(signum: int, frame: object) -> None:
    """The Python handler of the timers' signals: it calls what the running timer set, and
    never hands on the frame Python gives a handler (from a frame every caller's locals are
    in reach, the checker's among them)."""
    call = _CALLS.get(signum)
    if call is not None:
        call()


def keep_handlers() -> None:
    """Make _dispatch the handler of the timers' signals for good, before a process that tests
    student code takes `signal.signal` away (checking.guard): from then on interval_timer
    only sets timers."""
    for signum in TIMER_SIGNALS:
        signal.signal(signum, _dispatch)


@contextmanager
def interval_timer(signum: int, which: int, first: float, repeat: float,
                   handler: Callable[[], None]) -> Iterator[None]:
    """Inside the block `handler()` runs on `signum`, first after `first` seconds of timer
    `which`, then every `repeat`; afterwards the timer is off and what ran before is back.
    The handler Python calls is _dispatch, installed for the block unless keep_handlers made
    it the handler for good."""
    kept = signal.getsignal(signum) is _dispatch
    previous = None if kept else signal.signal(signum, _dispatch)
    before = _CALLS.get(signum)
    _CALLS[signum] = handler
    signal.setitimer(which, first, repeat)
    try:
        yield
    finally:
        signal.setitimer(which, 0)
        if before is None:
            _CALLS.pop(signum, None)
        else:
            _CALLS[signum] = before
        if not kept:
            signal.signal(signum, previous)


@contextmanager
def _watchdog(seconds: float) -> Iterator[None]:
    """Off the main thread there are no signals: inject the exception into this thread.
    ctypes is imported here, never at the top: a process that tests student code must not
    hold it (its classes read and write raw memory without an audit event)."""
    import ctypes

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
