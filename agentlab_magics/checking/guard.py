"""What student code may not do inside the process that tests it.

An audit hook (PEP 578, which nothing can remove once added) refuses what a harness never
needs and what would let code reach the checker itself: frames and the garbage collector's
object lists (the checker's private state is reachable only through them), raw memory
(ctypes, /proc, where a process's own memory can be written as a file, and code objects built
from bytes or by hand, whose bytecode Python never verifies), tracing, starting processes or
signalling other processes, sockets, raising its own resource limits, rewriting a function's
code, changing an object's class, and calling the course's own answer to a name the lab asks
for (agentlab_magics.answers). What has no audit event (threads, pidfds) is taken away. A
refused operation raises `Refused`, a BaseException, and the first refusal is kept so the
check can say what was tried.

`Snapshot` is the second line: the course's own modules, the attributes of the classes they
define and the builtins are remembered before the student's code runs, and the checker looks
again after every call of the student's code; any name rebound or removed is named. This is a
speed bump, not a wall: code in one process can still do what Python allows without an audit
event (see docs/security.md); the walls are the child process, the time and memory limits,
and, when grading, the sandbox around it.
"""

from __future__ import annotations

import builtins
import os
import sys
import types
from contextlib import contextmanager
from itertools import repeat
from operator import is_not
from typing import Callable, ContextManager, Iterator

from agentlab_magics.answers import ANSWER

REFUSED_EVENTS = {
    "gc.get_objects", "gc.get_referrers", "gc.get_referents",
    "sys._getframe", "sys._current_frames", "sys._current_exceptions",
    "sys.settrace", "sys.setprofile", "sys.addaudithook",
    "os.fork", "os.forkpty", "os.system", "os.exec", "os.posix_spawn", "os.spawn",
    "subprocess.Popen", "os.kill", "os.killpg", "signal.pthread_kill",
    "socket.__new__", "socket.connect", "socket.bind", "socket.getaddrinfo",
    "resource.setrlimit", "resource.prlimit", "sys.remote_exec",
    "code.__new__", "marshal.load", "marshal.loads",
}
FRAME_ATTRIBUTES = {"tb_frame", "gi_frame", "cr_frame", "ag_frame", "f_back"}
CODE_ATTRIBUTES = {"__code__", "__defaults__", "__kwdefaults__"}
# Events raised thousands of times a check (copy.deepcopy calls id() for every object) that
# the guard never refuses: the hook returns at once.
HARMLESS = frozenset({"builtins.id"})
COURSE_PACKAGES = ("agentlab_magics.", "agentlab_instructor.")
REFUSED_IMPORTS = ("ctypes", "_ctypes", "_testcapi", "_testinternalcapi", "_xxsubinterpreters",
                   "_posixsubprocess")
RAW_MEMORY = "/proc"  # /proc/self/mem, /proc/<pid>/mem: any process's memory, as a file


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
    if event == "open" and args and _under_proc(args[0]):
        return "opening a file under /proc"
    if event == "open" and args and type(args[0]) in (str, bytes) and os.path.isdir(args[0]):
        return "opening a folder"  # a folder's descriptor opens what lies below it unchecked
    if event == "object.__getattr__" and len(args) > 1 and args[1] in FRAME_ATTRIBUTES:
        return f"reading {args[1]}"
    if event == "object.__setattr__" and len(args) > 1 and args[1] in CODE_ATTRIBUTES:
        return f"rewriting a function's {args[1]}"
    if event == "object.__setattr__" and len(args) > 1 and args[1] == "__class__":
        return "changing an object's class"
    return None


def _under_proc(path: object) -> bool:
    """Whether an opened path leads into /proc, links followed (/dev/fd leads there too)."""
    if type(path) is int:
        return False
    try:
        real = os.path.realpath(os.fsdecode(path if type(path) in (str, bytes) else
                                            os.fspath(path)))
    except (TypeError, ValueError, OSError):
        return True
    return real == RAW_MEMORY or real.startswith(RAW_MEMORY + "/")


def install(answers: tuple[str, ...] = ()
            ) -> tuple[Callable[[], list[str]], Callable[[], ContextManager[None]]]:
    """Refuse the operations above from now on in this process, and any call of a course
    function that announces itself as the answer to one of `answers` (agentlab_magics.answers),
    whoever calls it. Returns `refusals()`, the operations refused so far, and `trusted()`, a
    context in which the checker's own code may read frames (it must call no student code
    inside). Call only in a throwaway process."""
    refused: list[str] = []
    opened = [0]

    def hook(event: str, args: tuple) -> None:
        if event in HARMLESS or opened[0]:
            return
        what = _what(event, args)
        if event == ANSWER and set(args) & set(answers):
            named = "/".join(name for name in args if name in answers)
            what = f"calling the course's own {named} instead of writing it"
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

    _take_away_unaudited()
    _no_cached_bytecode()
    sys.addaudithook(hook)
    return (lambda: list(refused)), trusted


def _take_away_unaudited() -> None:
    """What has no audit event in this Python but reaches beyond the test's own thread of
    work: starting a thread, and signalling another process through a pidfd (the caller, say).
    Take those functions away instead."""
    import _signal
    import _thread
    import posix
    import signal
    import threading

    def refuser(what: str) -> Callable:
        def refuse(*args, **kwargs):
            raise Refused(f"The checker does not allow {what}.")
        return refuse

    _thread.start_new_thread = threading._start_new_thread = refuser("starting threads")
    for module in (os, posix):
        module.pidfd_open = refuser("os.pidfd_open")
    for module in (signal, _signal):
        module.pidfd_send_signal = refuser("signal.pidfd_send_signal")


def _no_cached_bytecode() -> None:
    """Modules imported from now on are compiled from their source, never unmarshalled from a
    cached .pyc, so the guard can refuse marshal (a way to make unverified bytecode)."""
    sys.dont_write_bytecode = True
    sys.pycache_prefix = os.path.join(os.sep, "nonexistent", "agentlab-no-bytecode")


_MISSING = object()


class Snapshot:
    """What some modules (and the builtins) hold at one moment, to compare later: the names
    each binds, its own class, and the attributes of every class the course defines in them
    (class attributes raise no audit event when they are set)."""

    def __init__(self, modules: list[types.ModuleType]):
        spaces = [(module.__name__, module) for module in [builtins, *modules]]
        spaces += [(f"{cls.__module__}.{cls.__qualname__}", cls) for cls in _classes(modules)]
        self._spaces = [space for _, space in spaces]
        self._kinds = [type(space) for space in self._spaces]
        self._columns = []  # per kind of namespace (dict, mappingproxy): its get, the entries
        for kind in (dict, types.MappingProxyType):
            entries = [(label, vars(space), name, value) for label, space in spaces
                       if type(vars(space)) is kind for name, value in vars(space).items()]
            if entries:
                self._columns.append((kind.get, *(tuple(column) for column in zip(*entries))))

    def changed(self) -> str | None:
        """The first name rebound or removed since the snapshot, as `module.name`, or None.
        Compared by identity, in one pass a kind at C speed: it runs after every call of the
        student's code."""
        if any(map(is_not, map(type, self._spaces), self._kinds)):
            space = next(s for s, k in zip(self._spaces, self._kinds) if type(s) is not k)
            return f"{getattr(space, '__name__', space)}.__class__"
        for get, labels, spaces, names, values in self._columns:
            if any(map(is_not, map(get, spaces, names, repeat(_MISSING)), values)):
                return next(f"{label}.{name}" for label, space, name, value
                            in zip(labels, spaces, names, values)
                            if get(space, name, _MISSING) is not value)
        return None


def _classes(modules: list[types.ModuleType]) -> list[type]:
    """The classes the course defines, as the modules bind them, each once."""
    found: dict[int, type] = {}
    for module in modules:
        for value in list(vars(module).values()):
            if isinstance(value, type) and str(value.__module__).startswith(COURSE_PACKAGES):
                found.setdefault(id(value), value)
    return list(found.values())


def course_modules() -> list[types.ModuleType]:
    """The modules a check relies on that student code can import: the runtime and the
    tests, the held-back ones included."""
    return [module for name, module in list(sys.modules.items())
            if name.startswith(COURSE_PACKAGES) and isinstance(module, types.ModuleType)
            and not name.startswith(("agentlab_magics.widgets", "agentlab_magics.magics"))]
