"""The judge's end of a student process: start it, call the student's functions in it, answer
its calls back, and keep to the time a test has.

The judge never runs the student's code. A test calls the student's functions through
`StudentCode` (the `harness` fixture); each call goes to the student process as data and
comes back as data (`protocol`), an exception described as data, or what the code printed.
Whatever the test hands over that is not data (a scripted model, a workspace, a tool's
function, a listener) stays here and crosses as a handle: the student process gets an object
whose methods ask this side, so the judge's objects, and the records they keep, stay the
truth. Lists and dicts handed to a call come back after every message with what they hold,
and go back into the very lists and dicts the test holds. What comes back that is not data
stands here as a named stranger (`Foreign`), or, when it can be called, as a `Remote` whose
calls run in the student process.

Everything the student process sends is bounded (`protocol.caps`: a frame's bytes, a value's
depth, the calls back one test may make) and validated (`protocol.messages`); a process
that breaks the protocol, dies, or outlives the test's time fails the test with a sentence
(`Stopped`) and is killed, and the next test gets a fresh one. Before a process that ran out
of time is killed, the judge asks it (SIGUSR1, sent to the pid it has on this machine, which a
sandbox's process is looked up by when it says hello) which line of the student's file it was
running: its answer, the student's word, only names a line in the sentence (`OutOfTime.line`),
and one that does not answer gets no line. A test's time is its code's (`clock.Clock`): what a
busy machine kept it waiting for a CPU is added to it. A test may also be given a `Glance`:
the process is asked its line every so often, and the test stops once two looks in a row find
it on the line an earlier test spun on with no message from it between (a run that makes
progress talks to the judge).
"""

from __future__ import annotations

import builtins
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from agentlab_magics.checking.clock import Clock
from agentlab_magics.checking.process_tree import host_pid
from agentlab_magics.checking.protocol import VERSION, messages
from agentlab_magics.checking.protocol.caps import (
    CLOSE_LIMIT,
    CROSSING_CAP,
    LINE_LIMIT,
    SEND_LIMIT,
    START_LIMIT,
    STRANGERS_CAP,
)
from agentlab_magics.checking.protocol.described import described
from agentlab_magics.checking.protocol.frames import (
    PeerGone,
    Reader,
    WireError,
    frame_of,
    write_frame,
)
from agentlab_magics.checking.protocol.frames import TimedOut as FrameLate
from agentlab_magics.checking.protocol.messages import (
    FROM_STUDENT,
    Ask,
    Cap,
    Crossed,
    Hello,
    Loaded,
    Raised,
    Read,
    Spun,
    Value,
)
from agentlab_magics.checking.protocol.printed import Printed
from agentlab_magics.checking.protocol.values import Inbound, Outbound, type_name
from agentlab_magics.checking.student import NotWrittenYet
from agentlab_magics.lab.caps import CapReached
from agentlab_magics.lab.crossing import made, parts
from agentlab_magics.lab.steps import Step

STUDENT_MODULE = "agentlab_magics.checking.student_process"
# A student process's environment beyond its judge's: two malloc arenas, not one a thread
# (each reserves 64 MB of the address space its memory cap counts)
STUDENT_ENV = {"MALLOC_ARENA_MAX": "2"}
RESET_FRAME = frame_of(messages.RESET)
SAFE_BUILTINS = frozenset(
    name for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, Exception)
    and not issubclass(value, (StopIteration, StopAsyncIteration)))


class Stopped(BaseException):
    """The student process failed the test in a way no test asked about: it ran out of
    time, ended, or broke the protocol. The argument is the sentence."""


class OutOfTime(Stopped):
    """The test's time ran out while the student process had the turn: `line` is the line of
    the student's file it said it was running (None if it said none), and `early` is true when
    a `Glance` stopped the test, still on the line an earlier test spun on."""

    def __init__(self, sentence: str, line: int | None = None, early: bool = False) -> None:
        super().__init__(sentence)
        self.line, self.early = line, early


class Ended(Stopped):
    """The student process ended (or was ended) while it had the turn."""


class Unreadable(Stopped):
    """The student process sent something the protocol does not allow."""


@dataclass
class Glance:
    """Looks at a test's process every `every` seconds (the next at `next`): once two looks in
    a row find it on `line`, with no message from it between, the test is stopped."""

    line: int
    every: float
    next: float
    asked: bool = False  # a look waits for its answer
    seen: bool = False   # the last look found it on `line`, and it has said nothing since


class RecordCap(CapReached):
    """A list handed over grew past the record's cap in the student process."""

    def __init__(self, sentence: str, length: int, edges: list) -> None:
        super().__init__(sentence)
        self.length, self.edges = length, edges


class CrossedError(Exception):
    """An exception of the student's code whose class is not a builtin one: it stands here as
    a class of its name, deriving from the builtin classes it derives from."""


class Foreign:
    """An object of the student's that is not data, as the judge holds it: its class's name
    and the number that brings the very object back; nothing of it runs here."""

    __slots__ = ("ident",)

    def __init__(self, ident: int) -> None:
        self.ident = ident

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object>"


class RemoteStep(Step):
    """A step of the student's own (a lab.steps.Step subclass of theirs): the judge's model
    plays it like any step, and each answer is asked of the student's object, there."""

    def __init__(self, process: StudentProcess, ident: int, name: str) -> None:
        self.process, self.ident, self.name = process, ident, name
        self.rules = (f"answers as the student's {name} does;",)

    def describe(self) -> str:
        return f"{self.name}()"

    def answer(self, request: Any) -> Any:
        return self.process.call({"$c": self.ident}, (request,), {}, method="answer")


class Remote:
    """A function (or other callable) of the student's: calling it runs it in the student
    process, with this test's time."""

    __slots__ = ("ident", "process")

    def __init__(self, process: StudentProcess, ident: int | str) -> None:
        self.process, self.ident = process, ident

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        target = self.ident if type(self.ident) is str else {"$c": self.ident}
        return self.process.call(target, args, kwargs)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of the student's code>"


class Strangers:
    """The classes the student's objects and exceptions stand here as, made for one student
    process (so no check's names cost another's anything), at most STRANGERS_CAP."""

    def __init__(self) -> None:
        self.made: dict[tuple[str, Any], type] = {}

    def cls(self, name: str, base: type) -> type:
        """The class a student's object of class `name` stands here as: `base` (Foreign,
        Remote, or the plain type a subclass of theirs imitated), under their class's name."""
        if len(self.made) >= STRANGERS_CAP - 1 and (name, base) not in self.made:
            name = "object"  # the one class past the cap, for every name
        if (name, base) not in self.made:
            shown = name if name.isidentifier() and len(name) <= 80 else "object"
            namespace = ({"__module__": "student", "__slots__": ()}
                         if base in (Foreign, Remote) else {"__module__": "student"})
            self.made[(name, base)] = type(shown, (base,), namespace)
        return self.made[(name, base)]

    def exception_class(self, name: str, bases: tuple[type, ...]) -> type:
        """The class an exception of the student's class `name` stands here as: CrossedError
        and `bases` (builtin exception classes), under their class's name; CrossedError
        itself when those cannot be combined, or past the cap."""
        key = (name, bases)
        if key not in self.made:
            if len(self.made) >= STRANGERS_CAP - 1:
                return CrossedError
            shown = name if name.isidentifier() and len(name) <= 80 else "Exception"
            try:
                self.made[key] = type(shown, (CrossedError, *bases), {"__module__": "student"})
            except TypeError:  # builtin bases whose layouts conflict
                return CrossedError
        return self.made[key]

    def crossed(self, description: Crossed) -> Exception:
        """The student's exception as an exception here, its description as `.crossed`: the
        builtin class itself when it was exactly one (so a test may ask `type(exc) is
        ValueError`), else a class of its name deriving from the builtin classes it derived
        from (`exception_class`), or from as many of them as take its arguments; never one
        that would stop the judge (SystemExit, KeyboardInterrupt)."""
        args = tuple(description.args)
        if description.module == "builtins" and description.type in SAFE_BUILTINS:
            exc = _made(getattr(builtins, description.type), args)
        else:
            exc = None
        bases = tuple(getattr(builtins, base) for base in description.bases
                      if base in SAFE_BUILTINS and base != "Exception")
        for tried in (bases, bases[:1], ()):
            if exc is None:
                exc = _made(self.exception_class(description.type, tried), args)
        made = exc if exc is not None else CrossedError(*args)
        setattr(made, "crossed", description)  # noqa: B010 (an attribute of ours on theirs)
        return made


def _made(kind: type, args: tuple) -> Exception | None:
    """`kind(*args)`, or None when `kind` does not take those arguments (a UnicodeDecodeError
    wants five of given types, an ExceptionGroup a list of exceptions)."""
    try:
        made = kind(*args)
        str(made)
    except Exception:
        return None
    return made if isinstance(made, Exception) else None


def crossing_of(exc: BaseException) -> Crossed | None:
    """The description an exception carries when it came from the student's code."""
    found = getattr(exc, "crossed", None)
    return found if isinstance(found, Crossed) else None


_ABSENT = object()  # no contents given with a reference


@dataclass
class Scope:
    """What one call into the student process handed over: the references of its lists and
    dicts (good until it returns), and the ones it was given itself (which must stay trees)."""

    roots: list[Any]
    refs: list[int] = field(default_factory=list)


def _replace(container: Any, contents: Any) -> None:
    if type(container) is list:
        container[:] = contents
    else:
        container.clear()
        container.update(contents)


class NotATree(ValueError):
    """A value from the student process holds itself, or one container in two places."""


CONTAINERS = (list, dict, tuple)


def tree_shaped(tops: list[Any]) -> None:
    """Each of `tops` (the values of one message) is a tree: every list, dict and tuple in it
    is reached once, so none holds itself and no walk of it (a test's, a report's) can loop or
    grow past what is there. Two tops may share a part (a list handed to a call, returned
    whole, and synced back). A dict's keys are not walked: a key that holds a list or dict
    cannot be hashed, and a tuple cannot hold itself."""
    for top in tops:
        if type(top) not in CONTAINERS:
            continue
        seen: set[int] = set()
        stack = [top]
        while stack:
            node = stack.pop()
            if id(node) in seen:
                raise NotATree
            seen.add(id(node))
            stack += [child for child in (node.values() if type(node) is dict else node)
                      if type(child) in CONTAINERS]


def public(value: Any) -> tuple[list[str], list[str]]:
    """(methods, attributes) of a judge object that the student's code may use: what its
    class lists in `__public__`; nothing for any other object (only calling it, if it can)."""
    names = getattr(type(value), "__public__", ())
    methods = [name for name in names if callable(getattr(type(value), name, None))]
    return methods, [name for name in names if name not in methods]


class Outgoing(Outbound):
    """The judge's values for the student process: a list or dict handed to a call goes with
    a reference (only while `naming`), an object of the student's as its number, a lab value
    by what makes it, any other object as a handle."""

    def __init__(self, process: StudentProcess) -> None:
        self.process = process
        self.naming = False

    def container(self, value: Any, depth: int, path: set[int]) -> Any:
        tree = self.contents(value, depth, path)
        if not self.naming or type(value) is tuple:
            return tree
        return {"$r": self.process.remember(value), "v": tree}

    def stranger(self, value: Any) -> Any:
        if isinstance(value, Remote):
            return {"$c": value.ident}
        if isinstance(value, RemoteStep):
            return {"$o": value.ident}
        ident = value.ident if isinstance(value, Foreign) else getattr(value, "student_ident",
                                                                        None)
        if type(ident) is int:
            return {"$o": ident}
        made_of = parts(value)
        if made_of is not None:
            return {"$v": made_of[0], "f": self.encode(made_of[1])}
        methods, attributes = public(value)
        return {"$h": self.process.lend(value), "t": type_name(value), "c": callable(value),
                "m": methods, "a": attributes}


class Incoming(Inbound):
    """The student process's values here: data as it is; a list or dict of ours put back in
    place; a handle as our object; the student's objects as stand-ins (`Foreign`, `Remote`,
    a plain subclass copied into a class of its name)."""

    def __init__(self, process: StudentProcess) -> None:
        self.process = process

    def tagged(self, tag: str, tree: dict) -> Any:
        process = self.process
        if tag == "$r":
            return process.referred(tree["$r"], tree.get("v", _ABSENT), tree.get("keep", 0))
        if tag == "$h":
            return process.lent(tree["$h"])
        if tag == "$c":
            return process.remote(tree["$c"], str(tree.get("t", "function")))
        if tag == "$o":
            return process.foreign(tree["$o"], str(tree.get("t", "object")))
        if tag == "$s":
            return process.remote_step(tree["$s"], str(tree.get("t", "Step")))
        if tag == "$x":
            return _imitation(process.strangers, str(tree["$x"]), str(tree["b"]), tree["v"],
                              tree["id"])
        if tag == "$v":
            return made(str(tree["$v"]), tree["f"])
        raise KeyError(tag)


PLAIN_BASES = {kind.__name__: kind for kind in (dict, list, tuple, str, int, float, bytes)}


def _imitation(strangers: Strangers, name: str, base: str, value: Any, ident: Any) -> Any:
    """A copy of a student's subclass of a plain type: its data, in a class of its name, with
    the number that brings the student's very object back."""
    kind = PLAIN_BASES[base]
    if type(value) is not kind or type(ident) is not int:
        raise TypeError(f"a {name} imitating {base} sent as {type(value).__name__}")
    copy = strangers.cls(name, kind)(value)
    copy.student_ident = ident
    return copy


class StudentProcess:
    """One student process and the judge's conversation with it."""

    def __init__(self, pid: int, read_fd: int, write_fd: int,
                 closers: list[Callable[[], None]]) -> None:
        """`closers` end what the judge holds of the process, the end it writes to first."""
        self.pid, self.write_fd = pid, write_fd
        self.closers = [_once(close) for close in closers]
        os.set_blocking(write_fd, False)  # a student process that stops reading holds nothing
        os.set_blocking(read_fd, False)  # an answer there already is read in one call
        self.reader = Reader(read_fd)
        self.outgoing, self.incoming = Outgoing(self), Incoming(self)
        self.alive = True
        self.strangers = Strangers()
        self.handles: dict[int, Any] = {}
        self.handle_ids: dict[int, int] = {}
        self.next_number = 1
        self.names: dict[str, bool] = {}
        self.elsewhere: dict[str, str] = {}
        self.clock: Clock | None = None  # the running test's (or start's, or load's)
        self.on_message: Callable[[], None] | None = None
        self.speaker: int | None = None  # the pid, here, of the process that says its line
        self.glance: Glance | None = None
        self.held = b""  # frames that go before the next message: a test's reset
        self._reset_tables()

    @property
    def deadline(self) -> float | None:
        """When the running test (or start, or load) is out of time, if one runs."""
        return None if self.clock is None else self.clock.deadline

    def _reset_tables(self) -> None:
        """Forget what one test handed over; the handles lent stay (and numbers are never
        used twice in a process), as an object code kept from an earlier test stays itself."""
        self.refs: dict[int, Any] = {}
        self.remotes: dict[int, Remote] = {}
        self.foreigns: dict[int, Foreign] = {}
        self.scopes: list[Scope] = []  # per call running there, what it handed over
        self.coming: dict[int, Any] = {}  # what the message being read writes back, by ref
        self.named = 0  # the references the message being read made
        self.printed = Printed()
        self.crossings = 0

    # -- starting ---------------------------------------------------------------------------

    @classmethod
    def start(cls, argv: list[str], *, cwd: str | None = None, env: dict | None = None,
              cleanup: Callable[[], None] | None = None) -> StudentProcess:
        """A new process running `argv` (which ends in the student process's module), once
        it said hello."""
        popen = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, cwd=cwd, env=env,
                                 start_new_session=True)
        assert popen.stdin is not None and popen.stdout is not None
        closers = [popen.stdin.close, popen.stdout.close, lambda: _reaped(popen),
                   *([cleanup] if cleanup else [])]
        process = cls(popen.pid, popen.stdout.fileno(), popen.stdin.fileno(), closers)
        process.hello()
        return process

    @classmethod
    def local(cls) -> StudentProcess:
        """A student process on this machine: a fresh interpreter, in this folder, whose
        sys.path has neither the working folder nor a script's (the load adds what it needs)."""
        return cls.start([sys.executable, "-P", "-m", STUDENT_MODULE], cwd=os.getcwd(),
                         env={**os.environ, **STUDENT_ENV})

    @classmethod
    def forked(cls, module: Any, filename: str) -> StudentProcess:
        """A fork of this process serving `module` (the names a notebook already has): for a
        check of code that exists only in this process."""
        from agentlab_magics.checking import student_process

        theirs_read, ours_write = os.pipe()
        ours_read, theirs_write = os.pipe()
        sys.stdout.flush(), sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # pragma: no cover (the child never returns)
            try:
                os.setpgid(0, 0)
                os.close(ours_read)
                os.close(ours_write)
                student_process.run(theirs_read, theirs_write, module, filename)
            finally:
                os._exit(0)
        os.close(theirs_read)
        os.close(theirs_write)
        process = cls(pid, ours_read, ours_write,
                      [lambda: os.close(ours_write), lambda: os.close(ours_read)])
        process.hello()
        return process

    def hello(self) -> None:
        self.clock = Clock(self.pid, START_LIMIT)
        said = self.receive()
        if not isinstance(said, Hello) or said.version != VERSION:
            raise self.broken(Unreadable("The process that runs your code did not start as "
                                         "the checker expects: reinstall agentlab_magics."))
        # a sandbox runs it in a process under the one started, known there by a pid of its own
        self.speaker = self.pid if said.pid == self.pid else host_pid(self.pid, said.pid)
        self.clock = None

    # -- a test -----------------------------------------------------------------------------

    def begin(self, seconds: float, on_message: Callable[[], None] | None = None,
              glance: tuple[float, int] | None = None) -> None:
        """A test starts: it has `seconds` in all; `on_message` runs after every message. With
        `glance` (every, line), a `Glance` looks at the process every `every` seconds and stops
        the test (OutOfTime, early) once it stays on `line`."""
        self.clock = Clock(self.pid, seconds, self.speaker)
        self.on_message = on_message
        self.glance = (Glance(glance[1], glance[0], time.monotonic() + glance[0])
                       if glance and self.speaker is not None else None)

    def end(self) -> str:
        """The test is over: what the code printed during it; the student process forgets the
        test's objects, told so with the next message (a process that still had the turn is
        killed)."""
        printed = self.printed.take()
        if self.alive and self.scopes:
            self.kill()
        self.held = RESET_FRAME  # it goes with the next message (`send`): one wake, not two
        self._reset_tables()
        self.clock, self.on_message, self.glance = None, None, None
        return printed

    def load(self, source: str, filename: str, module: str, names: list[str],
             path: list[str], seconds: float) -> dict[str, bool]:
        """Run the student's source there; the names it defines, each with whether it can be
        called. Raises what the code raised while it loaded (`crossed`), or Stopped."""
        self.clock = Clock(self.pid, seconds, self.speaker)
        try:
            said = self.converse(messages.load(source, filename, module, names, path),
                                 expect=Loaded)
        finally:
            self.clock = None
        self.names, self.elsewhere = said.names, said.elsewhere
        return said.names

    def call(self, target: Any, args: tuple, kwargs: dict, method: str | None = None) -> Any:
        """Call the student's function `target` (a name of its module or {"$c": number}), or
        its `method`; what it returned, or what it raised, as `crossed`."""
        self.scopes.append(Scope([value for value in (*args, *kwargs.values())
                                  if type(value) in (list, dict)]))
        try:
            self.outgoing.naming = True
            try:
                encoded = ([self.outgoing.encode(arg) for arg in args],
                           {str(key): self.outgoing.encode(item) for key, item in kwargs.items()})
            finally:
                self.outgoing.naming = False
            named_twice = len({id(container) for container in self.refs.values()}) < len(self.refs)
            message = messages.call(target, *encoded, method, whole=named_twice)
            return self.converse(message, expect=Value).v
        finally:
            for ref in self.scopes.pop().refs:
                self.refs.pop(ref, None)

    # -- the conversation -------------------------------------------------------------------

    def converse(self, message: dict, expect: type) -> Any:
        """Send `message`; answer the student's calls back until its answer (`expect`) comes.
        Whatever stops this early leaves the process with the turn: it is killed."""
        self.send(message)
        finished = False
        try:
            while True:
                said = self.receive()
                if isinstance(said, expect):
                    finished = True
                    return said
                if isinstance(said, Raised):
                    finished = True
                    raise self.strangers.crossed(said.e)
                self.answer(said)
        finally:
            if not finished:
                self.kill()

    def answer(self, said: Any) -> None:
        """Answer the student process's call of a handle, or its read of one."""
        if isinstance(said, Cap) and self.scopes:  # only a call's lists can grow past a cap
            from agentlab_magics.lab.caps import record_too_long

            raise RecordCap(record_too_long(said.length), said.length, said.edges)
        if not isinstance(said, (Ask, Read)):
            raise self.broken(Unreadable(f"The process that runs your code said {said.k!r} "
                                         "where the checker waited for an answer."))
        self.crossings += 1
        if self.crossings > CROSSING_CAP:
            raise CapReached(
                f"Your code called the test's objects (its model, tools, listener) "
                f"{CROSSING_CAP:,} times in one test, and the check stopped it (a correct run "
                "makes a few dozen calls): look for a loop that never ends.")
        target = self.lent(said.h)
        try:
            result = (self._ask(target, said) if isinstance(said, Ask)
                      else self._read(target, said.n))
        except Exception as exc:
            self.send(messages.raised(described(exc)))
            return
        self.send(messages.value(self.outgoing.encode(result)))

    @staticmethod
    def _ask(target: Any, said: Ask) -> Any:
        if said.m == "__repr__":  # its kind only: a judge object's own repr may name a test
            return f"<{type_name(target)}>"
        if said.m == "__call__" and callable(target):
            return target(*said.a, **said.kw)
        if said.m in public(target)[0]:
            return getattr(target, said.m)(*said.a, **said.kw)
        raise AttributeError(f"{type_name(target)} has no method {said.m!r} that your code "
                             "may call")

    @staticmethod
    def _read(target: Any, name: str) -> Any:
        if name in public(target)[1]:
            return getattr(target, name)
        raise AttributeError(f"{type_name(target)} has no attribute {name!r} that your code "
                             "may read")

    def send(self, message: dict) -> None:
        """Send `message`, after the reset an ended test left held (`end`)."""
        held, self.held = self.held, b""
        try:
            write_frame(self.write_fd, message, self.deadline or time.monotonic() + SEND_LIMIT,
                        before=held)
        except FrameLate:
            raise self.broken(OutOfTime("time")) from None
        except OSError:
            raise self.ended() from None

    def receive(self) -> Any:
        """The student process's next message, validated; its printed output kept and the
        test's look (`on_message`) taken. Past the deadline: OutOfTime. What the message writes
        back into the test's lists and dicts is written only once it is valid, and kept only if
        every value of it, and every list and dict the running calls were handed, is still a
        tree (`tree_shaped`); else the message is refused and nothing it wrote stays. A message
        that names no list or dict but one in each entry of its sync is not walked: the rest of
        it is fresh from the frame, and what it writes is fresh too, or kept from the list it
        is written into."""
        self.coming.clear()
        self.named = 0
        try:
            raw = self._frame()
            said = FROM_STUDENT.validate_python(raw)
            self.synced(raw["sync"])
            written = self.write_back()
            if self.named > len(raw["sync"]):
                try:
                    tree_shaped([raw.get(key) for key in ("v", "a", "kw", "edges")]
                                + [root for scope in self.scopes for root in scope.roots])
                except NotATree:
                    self.put_back(written)
                    raise
        except FrameLate:
            raise self.broken(OutOfTime("time", self.last_line())) from None
        except PeerGone:
            raise self.ended() from None
        except (WireError, OSError) as exc:
            if self.exited():
                raise self.ended() from None
            raise self.broken(Unreadable(
                f"The process that runs your code sent something the checker cannot read "
                f"({exc}).")) from None
        except (ValidationError, KeyError, TypeError):
            raise self.broken(Unreadable(
                "The process that runs your code sent a message the checker does not "
                "know.")) from None
        except NotATree:
            raise self.broken(Unreadable(
                "The process that runs your code sent a value that holds itself, or one list "
                "or dict in two places: only plain data crosses.")) from None
        self.printed.keep(said.out)
        if self.on_message is not None:
            self.on_message()
        return said

    def _frame(self) -> Any:
        """The next frame but a line said. At each of the glance's times the process is asked
        its line; the test stops when two answers in a row are the glance's line with no other
        message between. A line said unasked (late, for an earlier look) is passed over; one
        said with no deadline running breaks the protocol (saying lines costs only the test's
        own time)."""
        while True:
            deadline, glance = self.deadline, self.glance
            if deadline is not None and time.monotonic() >= deadline:
                assert self.clock is not None
                if self.clock.stretched():
                    continue
                raise FrameLate("the deadline passed")
            until = deadline if glance is None or deadline is None else min(deadline, glance.next)
            try:
                raw = self.reader.frame(until, hook=self.incoming)
            except FrameLate:
                if glance is None or deadline is None:
                    continue  # the deadline passed: the loop's first lines say what follows
                glance.next, glance.asked = time.monotonic() + glance.every, True
                self._ask_line()
                continue
            if type(raw) is not dict or raw.get("k") != "spun":
                if glance is not None:
                    glance.seen = False
                return raw
            line = Spun.model_validate(raw).line
            if deadline is None:
                raise KeyError("spun")
            if glance is None or not glance.asked:
                continue
            glance.asked = False
            if line == glance.line and glance.seen:
                raise self.broken(OutOfTime("spins", line, early=True))
            glance.seen = line == glance.line

    def last_line(self) -> int | None:
        """The line of the student's file a process out of time says it was running (within
        LINE_LIMIT; other messages it sends meanwhile are left unread), or None."""
        if not (self.alive and self._ask_line()):
            return None
        until = time.monotonic() + LINE_LIMIT
        while time.monotonic() < until:
            try:
                raw = self.reader.frame(until)
                if type(raw) is dict and raw.get("k") == "spun":
                    return Spun.model_validate(raw).line
            except (WireError, OSError, ValidationError):
                return None
        return None

    def _ask_line(self) -> bool:
        """Signal the process to say its line; whether the signal went."""
        if self.speaker is None:
            return False
        try:
            os.kill(self.speaker, signal.SIGUSR1)
        except OSError:
            return False
        return True

    # -- the tables of what crossed ---------------------------------------------------------

    def remember(self, container: list | dict) -> int:
        """The reference a list or dict handed to the current call goes by."""
        ref = self.next_number
        self.next_number += 1
        self.refs[ref] = container
        self.scopes[-1].refs.append(ref)
        return ref

    def referred(self, ref: Any, contents: Any, keep: Any = 0) -> Any:
        """The list or dict `ref` names, to be given `contents` (`_ABSENT`: kept as it is) once
        the message is read; a list may keep its first `keep` items and take `contents` after
        them (the judge never changes what it handed over while the call runs, so what it
        holds is what the student process last said). Only one handed to a call still running
        may be named (the lists of an earlier call are the test's alone), and given contents
        once a message."""
        container = self.refs[ref]
        self.named += 1
        if contents is _ABSENT and not keep:
            return container
        if ref in self.coming or type(contents) is not type(container):
            raise TypeError("a reference given contents twice, or of another kind")
        if keep:
            if type(keep) is not int or type(container) is not list \
                    or not 0 < keep <= len(container):
                raise TypeError("a list told to keep items it does not have")
            contents = container[:keep] + contents
        self.coming[ref] = contents
        return container

    def write_back(self) -> list[tuple[Any, Any]]:
        """Give each list or dict named in the message read its new contents; what each held
        before (for `put_back`)."""
        before = []
        for ref, contents in self.coming.items():
            container = self.refs[ref]
            before.append((container, list(container) if type(container) is list
                           else dict(container)))
            _replace(container, contents)
        self.coming.clear()
        return before

    @staticmethod
    def put_back(written: list[tuple[Any, Any]]) -> None:
        """Undo `write_back`."""
        for container, contents in reversed(written):
            _replace(container, contents)

    def synced(self, sync: list) -> None:
        """Each list or dict a message synced must be one handed to a call still running
        (else KeyError)."""
        if not sync:
            return
        handed = {id(container) for container in self.refs.values()}
        if any(id(value) not in handed for value in sync):
            raise KeyError("sync")

    def lend(self, value: Any) -> int:
        """The number of the handle `value` crosses as, good until the test ends (a tool the
        code builds may keep the workspace it was handed)."""
        ident = self.handle_ids.get(id(value))
        if ident is None or self.handles.get(ident) is not value:
            ident = self.next_number
            self.next_number += 1
            self.handles[ident], self.handle_ids[id(value)] = value, ident
        return ident

    def lent(self, ident: Any) -> Any:
        if type(ident) is not int or ident not in self.handles:
            raise self.broken(Unreadable("The process that runs your code named an object the "
                                         "checker never handed it."))
        return self.handles[ident]

    def remote(self, ident: Any, name: str) -> Remote:
        if type(ident) is not int:
            raise TypeError("an object's number is not an int")
        if ident not in self.remotes:
            self.remotes[ident] = self.strangers.cls(name, Remote)(self, ident)
        return self.remotes[ident]

    def remote_step(self, ident: Any, name: str) -> RemoteStep:
        if type(ident) is not int:
            raise TypeError("an object's number is not an int")
        return RemoteStep(self, ident, name[:80])

    def foreign(self, ident: Any, name: str) -> Foreign:
        if type(ident) is not int:
            raise TypeError("an object's number is not an int")
        if ident not in self.foreigns:
            self.foreigns[ident] = self.strangers.cls(name, Foreign)(ident)
        return self.foreigns[ident]

    # -- ending -----------------------------------------------------------------------------

    def exited(self) -> bool:
        """Whether the process has ended (it is reaped, and killed first if it had not)."""
        try:
            pid, _ = os.waitpid(self.pid, os.WNOHANG)
        except ChildProcessError:
            return True
        return pid != 0

    def broken(self, stop: Stopped) -> Stopped:
        """`stop`, once the process is killed."""
        self.kill()
        return stop

    def ended(self) -> Ended:
        ending = self.kill()
        return Ended(ending)

    def close(self) -> None:
        """End the process as a check ends: its pipe closed, it runs its own atexit and ends
        (within CLOSE_LIMIT, else it is killed like any)."""
        if self.alive:
            try:
                self.closers[0]()  # the judge's end of the pipe it reads: it reads no more
            except OSError:
                pass
            self._await_end(CLOSE_LIMIT)
        self.kill()

    def _await_end(self, seconds: float) -> None:
        """Wait for the process to end, no longer than `seconds`, woken the moment it does
        (its pidfd turns readable then); not at all where it is gone already."""
        try:
            handle = os.pidfd_open(self.pid)
        except OSError:
            return
        try:
            select.select([handle], [], [], seconds)
        finally:
            os.close(handle)

    def kill(self) -> str:
        """Kill the process and everything it started; how it had ended, if it had."""
        ending = "killed"
        if self.alive:
            self.alive = False
            status = None
            try:
                pid, found = os.waitpid(self.pid, os.WNOHANG)
                status = found if pid else None
            except ChildProcessError:
                pass
            for kill in (lambda: os.killpg(self.pid, signal.SIGKILL),
                         lambda: os.kill(self.pid, signal.SIGKILL)):
                try:
                    kill()
                except OSError:
                    pass
            if status is None:
                try:
                    status = os.waitpid(self.pid, 0)[1]
                except ChildProcessError:
                    status = None
            ending = _ending(status) if status is not None else ending
            for close in self.closers:
                try:
                    close()
                except (OSError, ValueError):  # one closed already
                    pass
            # what it was lent goes now, not at the next collection of the cycle it is in
            self.handles.clear()
            self.handle_ids.clear()
        return ending


def _once(close: Callable[[], None]) -> Callable[[], None]:
    """`close`, done the first time only (a descriptor's number may be another's by the
    second)."""
    done: list[bool] = []

    def closing() -> None:
        if not done:
            done.append(True)
            close()

    return closing


def _reaped(popen: subprocess.Popen) -> None:
    """Tell `popen` its process was reaped here, so it never waits for it again."""
    if popen.returncode is None:
        popen.returncode = -9


def _ending(status: int) -> str:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            return f"it was stopped by {signal.Signals(number).name}"
        except ValueError:
            return f"it was stopped by signal {number}"
    return f"it exited with code {os.waitstatus_to_exitcode(status)}"


class StudentCode:
    """The student's module as the tests see it (the `harness` fixture): each name it defines
    is a function that runs there; a name it lacks fails the test with a sentence."""

    def __init__(self, process: StudentProcess, purposes: dict[str, str]) -> None:
        self._process, self._purposes = process, purposes

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        names = self._process.names
        if name not in names:
            purpose = self._purposes.get(name)
            detail = f": it {purpose}" if purpose else ""
            raise NotWrittenYet(f"{name} is not written yet{detail}.")
        if not names[name]:
            raise NotWrittenYet(f"{name} is not a function in your code: write it with def.")
        return self._process.strangers.cls("function", Remote)(self._process, name)

    def missing(self, names: list[str]) -> list[str]:
        return [name for name in names if name not in self._process.names]
