"""Ctrl-C while `agentlab course autograde` grades in its own process: noted wherever it lands,
and never printed as a traceback."""

from __future__ import annotations

import gc
import signal
import sys
import threading
import weakref

from agentlab_magics.grading.batch import _noting_interrupts


def test_ctrl_c_in_a_finalizer_while_grading_in_this_process_is_noted_not_printed(monkeypatch):
    """Ctrl-C lands wherever the batch's process is: inside a weakref's callback (nbgrader's
    and SQLAlchemy's caches have many) Python would print it as a traceback and go on; the
    batch notes it and stops after the submission, with nothing printed."""
    class Cached:
        pass

    def in_a_callback(_):
        # To this very thread: os.kill lets the kernel hand the signal to any thread of the
        # process (xdist's among them), which a busy machine may run only after the block ends.
        signal.pthread_kill(threading.get_ident(), signal.SIGINT)
        for _ in range(1000):  # Python's loop, which runs a pending signal's handler on its
            pass               # next turn, however busy the machine (a C call like sum would not)

    printed = []  # what Python would print, "Exception ignored in ...", and its traceback
    monkeypatch.setattr(sys, "unraisablehook", printed.append)
    # Ctrl-C as a command started from a terminal has it: a kernel app started in this worker
    # by an earlier test (ipykernel's init_signal) leaves it ignored, and the batch leaves an
    # ignored Ctrl-C alone.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with _noting_interrupts() as interrupted:
            cached = Cached()
            kept = weakref.ref(cached, in_a_callback)
            del cached
            gc.collect()
    finally:
        signal.signal(signal.SIGINT, previous)
    assert kept() is None and interrupted == [signal.SIGINT]
    assert printed == []
