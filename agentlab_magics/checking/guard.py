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

import _signal
import builtins
import gc
import marshal
import os
import pathlib
import posix
import sys
import types
from itertools import repeat
from operator import is_not
from stat import S_ISDIR
from typing import Callable, TypeVar

from agentlab_magics.answers import ANSWER

T = TypeVar("T")

REFUSED_EVENTS = frozenset({
    "gc.get_objects", "gc.get_referrers", "gc.get_referents",
    "sys._getframe", "sys._current_frames", "sys._current_exceptions",
    "sys.settrace", "sys.setprofile", "sys.addaudithook",
    "os.fork", "os.forkpty", "os.system", "os.exec", "os.posix_spawn", "os.spawn",
    "subprocess.Popen", "os.kill", "os.killpg", "signal.pthread_kill",
    "socket.__new__", "socket.connect", "socket.bind", "socket.getaddrinfo",
    "resource.setrlimit", "resource.prlimit", "sys.remote_exec",
    "code.__new__", "marshal.load", "marshal.loads",
})
FRAME_ATTRIBUTES = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame", "f_back"})
DEFAULTS = frozenset({"__defaults__", "__kwdefaults__"})
# Events raised thousands of times a check (copy.deepcopy calls id() for every object) that
# the guard never refuses: the hook returns at once.
HARMLESS = frozenset({"builtins.id"})
COURSE_PACKAGES = ("agentlab_magics.", "agentlab_instructor.")
# Where the tests keep their expected values and cases as module-level data, which Snapshot
# compares by content too (emptying a test's expected list in place rebinds no name).
DATA_PACKAGES = ("agentlab_magics.course.labtests.", "agentlab_instructor.heldback")
# marshal's version 2, the last without back-references: from version 3 on the same contents
# can dump differently once other code holds a reference to one of their strings.
MARSHAL_VERSION = 2
# Standard packages Snapshot leaves alone though the course uses them: those whose own names
# change in ordinary use (tempfile sets tempdir on first use, importlib and warnings as they
# work, sys and builtins are watched in their own way, time below) and those the guard itself
# changes.
UNWATCHED = frozenset({"builtins", "sys", "importlib", "warnings", "tempfile", "threading",
                       "_thread", "signal", "_signal", "gc", "posix", "logging", "random",
                       "time"})  # time.tzset() sets time.tzname
# Modules that read or write raw memory, or start processes, without an audit event; refused
# under any name (an extension module loaded as "x._ctypes" is _ctypes all the same).
REFUSED_IMPORTS = frozenset({"ctypes", "_ctypes", "_cffi_backend", "cffi", "_testcapi",
                             "_testinternalcapi", "_xxsubinterpreters", "_posixsubprocess"})
RAW_MEMORY = "/proc"  # /proc/self/mem, /proc/<pid>/mem: any process's memory, as a file
HELD_BACK_FILES = "<held-back tests"  # how grading.score names the held-back tests' code


class Refused(BaseException):
    """Student code tried something the checker does not allow."""


def refusal_rule() -> Callable[[str, tuple], str | None]:
    """The rule naming what an event tries, if the guard refuses it (else None), with all it
    reads bound now: code that later empties this module's sets, rebinds its names or patches
    os.path changes nothing the rule does. A file is judged by what it is, found with the C
    stat (links followed): on /proc's file system (process memory as files; /dev/fd leads
    there too), or a folder (whose descriptor would open what lies below it unchecked)."""
    stat, fspath, is_dir, path_types = posix.stat, posix.fspath, S_ISDIR, (str, bytes)
    path_objects = (pathlib.PurePosixPath, pathlib.PosixPath, posix.DirEntry)
    type_of, length = type, len  # builtins a student could rebind
    refused_events, frames, imports, defaults = (REFUSED_EVENTS, FRAME_ATTRIBUTES,
                                                 REFUSED_IMPORTS, DEFAULTS)
    function_type, course = types.FunctionType, _course_files()
    code_of = function_type.__dict__["__code__"].__get__
    try:
        proc = stat(RAW_MEMORY).st_dev
    except OSError:  # /proc is not mounted (the grader's scoring sandbox)
        proc = None

    def opened(path: object) -> str | None:
        if type_of(path) is int:
            return None
        if type_of(path) not in path_types and type_of(path) not in path_objects:
            return "opening a file through a path object of your own (give a string)"
        try:
            found = stat(path if type_of(path) in path_types else fspath(path))
        except (TypeError, ValueError):
            return "opening a path that is not a file name"
        except OSError:  # not there, or not ours to look at: opening it fails the same way
            return None
        if found.st_dev == proc:
            return "opening a file under /proc"
        return "opening a folder" if is_dir(found.st_mode) else None

    def ours(function: object) -> bool:
        """Whether a function is the course's (compiled from its files, or held-back tests):
        a student may set their own functions' defaults (collections.namedtuple does)."""
        name = code_of(function).co_filename if type_of(function) is function_type else ""
        return type_of(name) is not str or name.startswith(course)

    def rule(event: str, args: tuple) -> str | None:
        if event in refused_events:
            return event
        if event.startswith("ctypes."):
            return "ctypes"
        if event == "import" and args and type_of(args[0]) is str and \
                not imports.isdisjoint(args[0].split(".")):
            return f"import {args[0]}"
        if event == "open" and args:
            return opened(args[0])
        if event == "object.__getattr__" and length(args) > 1 and args[1] in frames:
            return f"reading {args[1]}"
        if event == "object.__setattr__" and length(args) > 1 and (
                args[1] == "__code__" or args[1] in defaults and ours(args[0])):
            return f"rewriting a function's {args[1]}"
        if event == "object.__setattr__" and length(args) > 1 and args[1] == "__class__":
            return "changing an object's class"
        return None

    return rule


def _course_files() -> tuple[str, ...]:
    """The beginnings of the file names the course's code is compiled under."""
    packages = [sys.modules.get(name.rstrip(".")) for name in COURSE_PACKAGES]
    return (*(os.path.dirname(package.__file__) + os.sep for package in packages
              if package is not None and getattr(package, "__file__", None)),
            HELD_BACK_FILES)


def install(answers: tuple[str, ...], reader: Callable[..., T]
            ) -> tuple[Callable[[], list[str]], Callable[..., T]]:
    """Refuse the operations above from now on in this process, and any call of a course
    function that announces itself as the answer to one of `answers` (agentlab_magics.answers),
    whoever calls it. Returns `refusals()`, the operations refused so far, and `read(...)`,
    which calls `reader(...)` with the guard open (the checker reading a traceback's frames).
    Everything the hook and `read` call is bound here, before any student code runs: no name
    the student's code rebinds later is looked up while the guard is open, so `reader` must
    look up none either. Call only in a throwaway process."""
    refused: list[str] = []
    opened = [0]
    rule, harmless, answer, refusal = refusal_rule(), HARMLESS, ANSWER, Refused
    asked, length, copy_of = frozenset(answers), len, list
    mask, every_signal = _signal.pthread_sigmask, _signal.valid_signals()
    block, set_mask = _signal.SIG_BLOCK, _signal.SIG_SETMASK
    collecting, stop_collecting, collect_again = gc.isenabled, gc.disable, gc.enable

    def hook(event: str, args: tuple) -> None:
        if event in harmless or opened[0]:
            return
        what = rule(event, args)
        if event == answer and asked.intersection(args):
            named = "/".join(name for name in args if name in asked)
            what = f"calling the course's own {named} instead of writing it"
        if what is not None:
            if length(refused) < 100:
                refused.append(what)
            raise refusal(f"The checker does not allow {what}.")

    def read(*args: object) -> T:
        """`reader(*args)` with the guard open, and nothing of the student's able to run
        meanwhile: no signal handler (the signals wait) and no finalizer or gc callback (the
        collector waits)."""
        was_collecting = collecting()
        held = mask(block, every_signal)
        stop_collecting()
        opened[0] += 1
        try:
            return reader(*args)
        finally:
            opened[0] -= 1
            if was_collecting:
                collect_again()
            mask(set_mask, held)

    _take_away_unaudited()
    _no_cached_bytecode()
    sys.addaudithook(hook)
    return (lambda: copy_of(refused)), read


def _take_away_unaudited() -> None:
    """What has no audit event in this Python but reaches beyond the test's own thread of
    work or into the checker's state is taken away: starting a thread (under either of its
    names), signalling another process through a pidfd (the caller, say), setting a signal
    handler (Python hands a handler the frame it interrupts, and from a frame every caller's
    locals are in reach: the checker's timers keep theirs, checking.deadline.keep_handlers),
    keeping every unreachable object for the taking (gc's DEBUG_SAVEALL hands over the frames
    of finished calls), and making a fresh copy of a built-in module, which would bring all of
    these back. Every built-in module is imported first, so no later import needs to make one.
    Every module that bound a taken function under a name of its own loses it too."""
    import _imp
    import _thread
    import signal

    for name in sys.builtin_module_names:
        __import__(name)
    taken = {
        "starting threads": (_thread.start_new_thread, _thread.start_new),
        "os.pidfd_open": (getattr(posix, "pidfd_open", None),),
        "signal.pidfd_send_signal": (getattr(_signal, "pidfd_send_signal", None),),
        "setting a signal handler": (signal.signal, _signal.signal),
        "gc.set_debug": (gc.set_debug,),
        "a fresh copy of a built-in module": (_imp.create_builtin, _imp.exec_builtin),
    }
    vars(signal.signal).pop("__wrapped__", None)  # where functools.wraps leaves the built-in
    refusers = {id(function): _refuser(what) for what, functions in taken.items()
                for function in functions if function is not None}
    for module in list(sys.modules.values()):
        if isinstance(module, types.ModuleType):
            namespace = vars(module)
            for name, value in list(namespace.items()):
                if id(value) in refusers:
                    namespace[name] = refusers[id(value)]


def _refuser(what: str) -> Callable:
    """A function that refuses `what`, whatever it is called with."""
    refusal = Refused

    def refuse(*args, **kwargs):
        raise refusal(f"The checker does not allow {what}.")
    return refuse


def _no_cached_bytecode() -> None:
    """Modules imported from now on are compiled from their source, never unmarshalled from a
    cached .pyc, so the guard can refuse marshal (a way to make unverified bytecode)."""
    sys.dont_write_bytecode = True
    sys.pycache_prefix = os.path.join(os.sep, "nonexistent", "agentlab-no-bytecode")


_MISSING = object()


class Snapshot:
    """What some modules (and the builtins) hold at one moment, to compare later: the names
    each binds, its own class, the attributes of every class the course defines in them
    (class attributes raise no audit event when they are set), and, with `data`, the contents
    of the tests' module-level data (DATA_PACKAGES)."""

    def __init__(self, modules: list[types.ModuleType], data: bool = False):
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
        self._data = [(f"{label}.{name}", value, marshal.dumps(value, MARSHAL_VERSION))
                      for label, space in spaces if data and label.startswith(DATA_PACKAGES)
                      for name, value in vars(space).items() if _plain_data(value)]

    def changed(self, any=any, map=map, is_not=is_not, type=type, repeat=repeat,
                missing=_MISSING, dumps=marshal.dumps, version=MARSHAL_VERSION,
                failure=Exception) -> str | None:
        """The first name rebound or removed since the snapshot, as `module.name`, or the
        first of the tests' own data changed in place, or None. Names are compared by
        identity, in one pass a kind at C speed: it runs after every call of the student's
        code. Whether anything changed is found with the builtins bound as its defaults (a
        student may rebind the builtins themselves); take the bound method before any student
        code runs, so a rebound Snapshot.changed is never the one called."""
        if any(map(is_not, map(type, self._spaces), self._kinds)):
            space = next(s for s, k in zip(self._spaces, self._kinds) if type(s) is not k)
            return f"{getattr(space, '__name__', space)}.__class__"
        for get, labels, spaces, names, values in self._columns:
            if any(map(is_not, map(get, spaces, names, repeat(missing)), values)):
                return next(f"{label}.{name}" for label, space, name, value
                            in zip(labels, spaces, names, values)
                            if get(space, name, missing) is not value)
        for label, value, kept in self._data:
            try:
                now = dumps(value, version)
            except failure:  # something that is not plain data put inside it
                now = None
            if now != kept:
                return f"{label} (what it holds)"
        return None


def _plain_data(value: object) -> bool:
    """Whether `value` is a container of plain data (a test's expected values, its cases)."""
    if type(value) not in (dict, list, tuple):
        return False
    try:
        marshal.dumps(value, MARSHAL_VERSION)
    except ValueError:
        return False
    return True


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


def standard_modules(course: list[types.ModuleType]) -> list[types.ModuleType]:
    """The standard library's packages (with their submodules) that the `course` modules
    use: a test that copies or compares with copy or json rests on their names as much as on
    its own."""
    used = {_package(value) for module in course for value in list(vars(module).values())}
    used &= sys.stdlib_module_names - UNWATCHED
    return [module for name, module in list(sys.modules.items())
            if name.partition(".")[0] in used and isinstance(module, types.ModuleType)]


def _package(value: object) -> str:
    """The top-level package `value` is, or comes from ("" for a plain value)."""
    if isinstance(value, types.ModuleType):
        name = value.__name__
    elif isinstance(value, (type, types.FunctionType, types.BuiltinFunctionType)):
        name = getattr(value, "__module__", None) or ""
    else:
        return ""
    return name.partition(".")[0] if type(name) is str else ""
