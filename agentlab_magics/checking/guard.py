"""What student code may not do inside the process that tests it.

An audit hook (PEP 578, which nothing can remove once added) refuses what a harness never
needs and what would let code reach the checker itself: frames and the garbage collector's
object lists (the checker's private state is reachable only through them), ctypes (raw
memory), tracing, starting processes or signalling other processes, sockets, raising its
own resource limits, and rewriting a function's code. A refused operation raises `Refused`,
a BaseException, and the first refusal is kept so the check can say what was tried.

`Snapshot` is the second line: the course's own modules and the builtins are remembered
before the student's code runs, and any name rebound or removed there afterwards is named.
This is a speed bump, not a wall: code in one process can still do what Python allows
without an audit event (see docs/security.md); the walls are the child process, the time
and memory limits, and, when grading, the sandbox around it.
"""

from __future__ import annotations

import builtins
import sys
import types
from contextlib import contextmanager
from typing import Callable, ContextManager, Iterator

REFUSED_EVENTS = {
    "gc.get_objects", "gc.get_referrers", "gc.get_referents",
    "sys._getframe", "sys._current_frames", "sys._current_exceptions",
    "sys.settrace", "sys.setprofile", "sys.addaudithook",
    "os.fork", "os.forkpty", "os.system", "os.exec", "os.posix_spawn", "os.spawn",
    "subprocess.Popen", "os.kill", "os.killpg", "signal.pthread_kill",
    "socket.__new__", "socket.connect", "socket.bind", "socket.getaddrinfo",
    "resource.setrlimit", "resource.prlimit", "sys.remote_exec",
}
FRAME_ATTRIBUTES = {"tb_frame", "gi_frame", "cr_frame", "ag_frame", "f_back"}
CODE_ATTRIBUTES = {"__code__", "__defaults__", "__kwdefaults__"}
REFUSED_IMPORTS = ("ctypes", "_ctypes", "_testcapi", "_xxsubinterpreters")


class Refused(BaseException):
    """Student code tried something the checker does not allow."""


def _what(event: str, args: tuple) -> str | None:
    """A sentence fragment naming what `event` tries, if the guard refuses it."""
    if event in REFUSED_EVENTS:
        return event
    if event.startswith("ctypes."):
        return "ctypes"
    if event == "import" and args and str(args[0]).split(".")[0] in REFUSED_IMPORTS:
        return f"import {args[0]}"
    if event == "object.__getattr__" and len(args) > 1 and args[1] in FRAME_ATTRIBUTES:
        return f"reading {args[1]}"
    if event == "object.__setattr__" and len(args) > 1 and args[1] in CODE_ATTRIBUTES:
        return f"rewriting a function's {args[1]}"
    return None


def install() -> tuple[Callable[[], list[str]], Callable[[], ContextManager[None]]]:
    """Refuse the operations above from now on in this process. Returns `refusals()`, the
    operations refused so far, and `trusted()`, a context in which the checker's own code may
    read frames (it must call no student code inside). Call only in a throwaway process."""
    refused: list[str] = []
    opened = [0]

    def hook(event: str, args: tuple) -> None:
        if opened[0]:
            return
        what = _what(event, args)
        if what is not None:
            if len(refused) < 100:
                refused.append(what)
            raise Refused(f"The checker does not allow {what}.")

    @contextmanager
    def trusted() -> Iterator[None]:
        opened[0] += 1
        try:
            yield
        finally:
            opened[0] -= 1

    _no_threads()
    sys.addaudithook(hook)
    return (lambda: list(refused)), trusted


def _no_threads() -> None:
    """Starting a thread has no audit event in this Python: take the function away instead."""
    import _thread
    import threading

    def refuse(*args, **kwargs):
        raise Refused("The checker does not allow starting threads.")

    _thread.start_new_thread = refuse
    threading._start_new_thread = refuse


class Snapshot:
    """The names bound in some modules (and the builtins) at one moment, to compare later."""

    def __init__(self, modules: list[types.ModuleType]):
        self._modules = [builtins, *modules]
        self._taken = [dict(vars(module)) for module in self._modules]

    def changed(self) -> str | None:
        """The first name rebound or removed since the snapshot, as `module.name`, or None."""
        for module, before in zip(self._modules, self._taken):
            now = vars(module)
            for name, value in before.items():
                if name not in now or now[name] is not value:
                    return f"{module.__name__}.{name}"
        return None


def course_modules() -> list[types.ModuleType]:
    """The modules a check relies on that student code can import: the runtime and the tests."""
    return [module for name, module in list(sys.modules.items())
            if name.startswith("agentlab_magics.") and isinstance(module, types.ModuleType)
            and not name.startswith(("agentlab_magics.widgets", "agentlab_magics.magics"))]
