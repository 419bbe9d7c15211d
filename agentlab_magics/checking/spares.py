"""Fresh student processes without the wait: one is always starting in the background.

A check needs a fresh student process (nothing of an earlier check may linger in it), and an
interpreter takes a few tens of milliseconds to start, a sandbox a few hundred. `Spares`
makes the next check's processes ahead, so it finds them ready, and warm: each imports,
while it waits, what a check of the later labs would otherwise load while it runs. Every start
happens on the one thread `Spares` keeps for the purpose, which lives until `close`: a
sandboxed process dies with the thread that started it.
"""

from __future__ import annotations

import atexit
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

from agentlab_magics.checking.process import StudentProcess

MOST = 8  # processes made ahead at once (a lab that gives each test a fresh one takes more)


class Spares:
    """Hands out fresh student processes made by `launch`, made ahead by `refill` (at each
    take when `eager`)."""

    def __init__(self, launch: Callable[[], StudentProcess], eager: bool = False) -> None:
        self.launch, self.eager = launch, eager
        self.starter = ThreadPoolExecutor(1, thread_name_prefix="agentlab-student")
        # its thread starts now, outside any check: one started by a check's judge would keep
        # the one CPU the check holds it on (`one_cpu`), and so would what it starts
        self.starter.submit(lambda: None).result()
        self.made: list[Future] = []

    def take(self) -> StudentProcess:
        """A fresh process that has said hello: one made ahead, else one started now."""
        taken = self.made.pop(0) if self.made else self.starter.submit(self.launch)
        if self.eager:
            self.refill()
        return taken.result()

    def refill(self, count: int = 1) -> None:
        """Start making ahead what the next check will take: `count` processes (at most
        MOST). A kernel refills after a check, so no start competes with the check for the
        CPU; the grader, whose sandboxes take longer to start, refills at each take."""
        while len(self.made) < min(count, MOST):
            self.made.append(self.starter.submit(lambda: self.launch().warm()))

    def ready(self, count: int = 1) -> None:
        """Refill, and wait until the processes made ahead have said hello (a bench's warm
        start)."""
        self.refill(count)
        for made in self.made:
            made.exception()

    def close(self) -> None:
        """Kill the processes made ahead, and end the starting thread."""
        made, self.made = self.made, []
        for ahead in made:
            if not ahead.cancel():
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
