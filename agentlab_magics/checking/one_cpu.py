"""The judge and its student process on one CPU while a check runs.

The two take turns: one waits on the pipe while the other works, so they never need two CPUs
at once. When they sit on two, every crossing wakes a process on the other CPU, which on a
virtual machine costs tens of microseconds each way (bench_check: a bare round trip of about
120 us on two CPUs, 40 us on one). So while a check runs, the judge's thread stays on the CPU
it was on (`judge_here`), and each student process it talks to joins it (`join`). Only the
judge's thread is held, and only for the check: the rest of its process, and the CPU set it
had, come back as they were. Where Linux's affinity calls are missing or refused, nothing is
held and the check runs as it would anyway.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator


def current_cpu() -> int | None:
    """The CPU this thread is running on (the 39th field of its /proc stat), or None."""
    try:
        with open("/proc/thread-self/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
        return int(fields[36])
    except (OSError, IndexError, ValueError):
        return None


@contextlib.contextmanager
def judge_here() -> Iterator[None]:
    """Hold the calling thread on its current CPU while the block runs (when it may run on
    more than one); its own CPU set again after."""
    allowed = _hold()
    try:
        yield
    finally:
        if allowed is not None:
            with contextlib.suppress(OSError):
                os.sched_setaffinity(0, allowed)


def _hold() -> set[int] | None:
    """Hold the calling thread on its current CPU; the CPU set it had, or None when it was not
    held (it may use one CPU only, or the calls are missing or refused)."""
    try:
        allowed = os.sched_getaffinity(0)
        cpu = current_cpu()
        if cpu is None or cpu not in allowed or len(allowed) < 2:
            return None
        os.sched_setaffinity(0, {cpu})
    except (AttributeError, OSError):
        return None
    return allowed


def join(pid: int | None) -> None:
    """Put process `pid` on the CPUs the calling thread may use now (its own, while
    `judge_here` holds it); a process that is gone, or not ours to move, stays as it is."""
    if pid is None:
        return
    with contextlib.suppress(AttributeError, OSError):
        os.sched_setaffinity(pid, os.sched_getaffinity(0))
