"""A test's clock: its time limit counts the time its code could run, not the time a busy
machine kept it waiting for a CPU.

Linux keeps, for every thread, how long it sat ready to run while no CPU was free
(`/proc/<pid>/task/<tid>/schedstat`, its second field, in nanoseconds). A test runs on two
threads that take turns: the judge's (the test) and the student process's (its code). When a
test's deadline passes, the clock adds to it what those two waited since it started: the
judge's own thread's wait, and the most any thread of the student's process tree waited (a
process that starts more threads or processes gets no more than one of them). Code that hangs
or sleeps waits for nothing and gets nothing; however busy the machine, a test gets at most
`EXTRA_CAP` times its limit more. Where the kernel keeps no such numbers, the clock is the wall
clock.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field

from agentlab_magics.checking.process_tree import descendants, threads

EXTRA_CAP = 3.0   # the most a test's limit is stretched by, as a multiple of the limit
NOTICED = 0.05    # seconds of waiting below which a deadline is not moved


def _waited(task: str) -> int:
    """Nanoseconds the thread at `task` (a /proc/<pid>/task/<tid> folder) has waited for a
    CPU, 0 if it is gone or the kernel does not say."""
    try:  # read raw: a test reads a few of these as it starts, and text I/O costs 5x more
        fd = os.open(f"{task}/schedstat", os.O_RDONLY)
        try:
            return int(os.read(fd, 200).split()[1])
        finally:
            os.close(fd)
    except (OSError, IndexError, ValueError):
        return 0


def _tree_threads(pid: int) -> list[str]:
    return [task for process in descendants(pid) for task in threads(process)]


def _own_task() -> str:
    return f"/proc/self/task/{threading.get_native_id()}"


@dataclass
class Clock:
    """The deadline of one test run against the process tree of `pid`, started now. What its
    threads had waited is read now for `runner`'s (the process running the code, `pid` by
    default) and at the deadline for the whole tree's, so a thread of another process of the
    tree counts all it ever waited: at worst more time, never past the cap."""

    pid: int
    seconds: float
    runner: int | None = None
    deadline: float = 0.0
    own: int = 0
    theirs: dict[str, int] = field(default_factory=dict)
    granted: float = 0.0

    def __post_init__(self) -> None:
        self.deadline = time.monotonic() + self.seconds
        self.own = _waited(_own_task())
        self.theirs = {os.path.basename(task): _waited(task)
                       for task in threads(self.runner or self.pid)}

    def stretched(self) -> bool:
        """Whether the deadline moved on by the time waited for a CPU since it was last
        moved (called once it passed)."""
        own = (_waited(_own_task()) - self.own) / 1e9
        theirs = max(((_waited(task) - self.theirs.get(os.path.basename(task), 0)) / 1e9
                      for task in _tree_threads(self.pid)), default=0.0)
        extra = min(own + theirs, EXTRA_CAP * self.seconds) - self.granted
        if extra < NOTICED:
            return False
        self.granted += extra
        self.deadline += extra
        return True


__all__ = ["Clock"]
