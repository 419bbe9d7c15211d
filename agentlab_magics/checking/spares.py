"""Fresh student processes without the wait: one is always starting in the background.

A check needs a fresh student process (nothing of an earlier check may linger in it), and an
interpreter takes a few tens of milliseconds to start, a sandbox a few hundred. `Spares`
starts the next one while the current check runs, so the next check finds it ready. Every
start happens on the one thread `Spares` keeps for the purpose, which lives until `close`: a
sandboxed process dies with the thread that started it.
"""

from __future__ import annotations

import atexit
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

from agentlab_magics.checking.judge import StudentProcess


class Spares:
    """Hands out fresh student processes made by `launch`, one always made ahead."""

    def __init__(self, launch: Callable[[], StudentProcess]) -> None:
        self.launch = launch
        self.starter = ThreadPoolExecutor(1, thread_name_prefix="agentlab-student")
        self.ahead: Future | None = None

    def take(self) -> StudentProcess:
        """A fresh process that has said hello; the next one starts at once."""
        taken = self.ahead or self.starter.submit(self.launch)
        self.ahead = self.starter.submit(self.launch)
        return taken.result()

    def ready(self) -> None:
        """Wait until the process made ahead has said hello (a bench's warm start)."""
        if self.ahead is None:
            self.ahead = self.starter.submit(self.launch)
        self.ahead.exception()

    def close(self) -> None:
        """Kill the process made ahead, and end the starting thread."""
        ahead, self.ahead = self.ahead, None
        if ahead is not None and not ahead.cancel():
            try:
                ahead.result().kill()
            except BaseException:  # it never started: nothing to kill
                pass
        self.starter.shutdown(wait=True)


_local: Spares | None = None


def local_spares() -> Spares:
    """The spares of this process's local checks (a notebook's kernel makes many): fresh
    interpreters on this machine, made once and closed at exit."""
    global _local
    if _local is None:
        _local = Spares(StudentProcess.local)
        atexit.register(_local.close)
    return _local
