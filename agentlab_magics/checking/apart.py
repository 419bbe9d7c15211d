"""The student process set apart before any of the student's code runs: it dies with the
judge's thread that started it, its pipe is taken off descriptors 0 and 1 (which, with 2,
then lead nowhere), and its memory is capped (MEMORY_CAP above what it holds at start). Part of the
student process: it needs only the standard library.
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import sys

from agentlab_magics.checking.protocol.caps import MEMORY_CAP

PR_SET_PDEATHSIG = 1


def set_apart(read_fd: int, write_fd: int) -> tuple[int, int]:
    """Take the pipe off descriptors 0 and 1 (which, with 2, now lead nowhere) and cap the
    memory; the pipe's new descriptors."""
    private = os.dup(read_fd), os.dup(write_fd)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    for fd in private:
        os.set_inheritable(fd, False)
    _cap_memory()
    return private


def _cap_memory() -> None:
    try:
        with open("/proc/self/statm") as statm:
            size = os.sysconf("SC_PAGE_SIZE") * int(statm.read().split()[0])
    except OSError:  # no /proc where the sandbox hides it: the peak resident size
        size = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    wanted = size + MEMORY_CAP
    if hard != resource.RLIM_INFINITY:
        wanted = min(wanted, hard)
    try:
        resource.setrlimit(resource.RLIMIT_AS, (wanted, hard))
    except (ValueError, OSError):
        pass


def die_with_the_judge() -> None:
    """Be killed when the thread that started this process ends (the judge's), so no student
    process outlives its judge, even one busy in a loop that never reads its pipe."""
    if not sys.platform.startswith("linux"):
        return
    parent = os.getppid()
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the judge was gone already
        os._exit(0)
