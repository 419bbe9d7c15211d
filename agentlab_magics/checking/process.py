"""The judge's handle on one student process: start it, talk with it, keep it to the time a
test has, and kill it.

The judge never runs the student's code: a call goes to the student process as a message
(`protocol`), and the judge answers the student's calls back to its objects until the call's
answer comes (`converse`; how values and objects cross is `bridge`'s). Everything the process
sends is bounded (`protocol.caps`) and validated (`protocol.messages`); a process that breaks
the protocol, dies, or outlives the test's time fails the test with a sentence (`stopped`) and
is killed, and the next test gets a fresh one. Before a process that ran out of time is
killed, the judge asks it (SIGUSR2, sent to the pid it has on this machine, which a sandbox's
process is looked up by when it says hello) which line of the student's file it was running:
its answer, the student's word, only names a line in the sentence (`OutOfTime.line`), and one
that does not answer gets no line; with the line come what the code printed and the lists the
test handed over as they stood, so the report draws the record the run had made. A test's
time is its code's (`clock.Clock`): what a busy machine kept it waiting for a CPU is added to
it. A test may also be given a `Glance`: the process is asked its line every so often
(SIGUSR1), and the test stops once two looks in a row find it on the line an earlier test
spun on with no message from it between (a run that makes progress talks to the judge).
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

import agentlab_magics.checking.student_side as student_side
from agentlab_magics.checking.bridge import (
    NAMED_TWICE,
    Bridge,
    NotATree,
    TooDeep,
    call_lent,
    note,
    read_lent,
)
from agentlab_magics.checking.clock import Clock
from agentlab_magics.checking.process_tree import host_pid
from agentlab_magics.checking.protocol import VERSION, messages
from agentlab_magics.checking.protocol.caps import (
    CALLBACK_CAP,
    CLOSE_LIMIT,
    DEPTH_CAP,
    LINE_LIMIT,
    SEND_LIMIT,
    START_LIMIT,
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
    Hello,
    Loaded,
    Raised,
    Read,
    Spun,
    Tell,
    Value,
)
from agentlab_magics.checking.protocol.printed import Printed
from agentlab_magics.checking.protocol.values import Outbound
from agentlab_magics.checking.stopped import Ended, OutOfTime, RecordCap, Stopped, Unreadable
from agentlab_magics.lab.caps import CapReached, record_too_long

STUDENT_MODULE = "agentlab_magics.checking.student_side"
# A student process's environment beyond its judge's: two malloc arenas, not one a thread
# (each reserves 64 MB of the address space its memory cap counts)
STUDENT_ENV = {"MALLOC_ARENA_MAX": "2"}
RESET_FRAME = frame_of(Outbound().plain_dumps(messages.RESET))


@dataclass
class Glance:
    """Looks at a test's process every `every` seconds (the next at `next`): once two looks in
    a row find it on `line`, with no message from it between, the test is stopped."""

    line: int
    every: float
    next: float
    asked: bool = False  # a look waits for its answer
    seen: bool = False   # the last look found it on `line`, and it has said nothing since


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
        self.bridge = Bridge(self)
        self.alive = True
        self.names: dict[str, bool] = {}
        self.elsewhere: dict[str, str] = {}
        self.clock: Clock | None = None  # the running test's (or start's, or load's)
        self.on_message: Callable[[], None] | None = None
        self.speaker: int | None = None  # the pid, here, of the process that says its line
        self.glance: Glance | None = None
        self.held = b""  # frames that go before the next message: a test's reset
        self.printed = Printed()  # what the code printed during the running test
        self.callbacks = 0  # calls back the running test's code made

    @property
    def deadline(self) -> float | None:
        """When the running test (or start, or load) is out of time, if one runs."""
        return None if self.clock is None else self.clock.deadline

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
        theirs_read, ours_write = os.pipe()
        ours_read, theirs_write = os.pipe()
        sys.stdout.flush(), sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # pragma: no cover (the child never returns)
            try:
                os.setpgid(0, 0)
                os.close(ours_read)
                os.close(ours_write)
                student_side.run(theirs_read, theirs_write, module, filename)
            finally:
                os._exit(0)
        os.close(theirs_read)
        os.close(theirs_write)
        process = cls(pid, ours_read, ours_write,
                      [lambda: os.close(ours_write), lambda: os.close(ours_read)])
        process.hello()
        return process

    def warm(self) -> StudentProcess:
        """This process, once it has imported what a check of a later lab loads while it runs
        (it was made ahead: nothing waits on it yet)."""
        self.clock = Clock(self.pid, START_LIMIT)
        try:
            self.converse(self.bridge.outgoing.plain_dumps(messages.WARM), expect=Value)
        finally:
            self.clock = None
        return self

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
        if self.alive and self.bridge.scopes:
            self.kill()
        self.held = RESET_FRAME  # it goes with the next message (`send`): one wake, not two
        self.bridge.forget_test()
        self.callbacks = 0
        self.clock, self.on_message, self.glance = None, None, None
        return printed

    def load(self, source: str, filename: str, module: str, names: list[str],
             path: list[str], seconds: float) -> dict[str, bool]:
        """Run the student's source there; the names it defines, each with whether it can be
        called. Raises what the code raised while it loaded (`described`), or Stopped."""
        self.clock = Clock(self.pid, seconds, self.speaker)
        try:
            said = self.converse(self.bridge.outgoing.plain_dumps(
                messages.load(source, filename, module, names, path)), expect=Loaded)
        finally:
            self.clock = None
        self.names, self.elsewhere = said.names, said.elsewhere
        return said.names

    def call(self, target: Any, args: tuple, kwargs: dict, method: str | None = None) -> Any:
        """Call the student's function `target` (a name of its module, or the stand-in of one
        of its objects, `bridge.Remote`), or its `method`; what it returned, or what it
        raised, as `described`."""
        try:
            body = self.bridge.handed(messages.call(target, list(args), dict(kwargs), method,
                                                    whole=NAMED_TWICE))
            return self.converse(body, expect=Value).v
        finally:
            self.bridge.returned()

    # -- the conversation -------------------------------------------------------------------

    def converse(self, body: bytes, expect: type) -> Any:
        """Send a message (`body`, its bytes); answer the student's calls back until its answer
        (`expect`) comes. Whatever stops this early leaves the process with the turn: it is
        killed."""
        self.send(body)
        finished = False
        try:
            while True:
                said = self.receive()
                if isinstance(said, expect):
                    finished = True
                    return said
                if isinstance(said, Raised):
                    finished = True
                    raise self.bridge.strangers.exception(said.e)
                self.answer(said)
        finally:
            if not finished:
                self.kill()

    def answer(self, said: Any) -> None:
        """Answer the student process's call of a handle, or its read of one; a call that only
        takes note (`Tell`) is made and not answered."""
        if isinstance(said, Cap) and self.bridge.scopes:  # only a call's lists grow past a cap
            raise RecordCap(record_too_long(said.length), said.length, said.edges)
        if not isinstance(said, (Ask, Tell, Read)):
            raise self.broken(Unreadable(f"The process that runs your code said {said.k!r} "
                                         "where the checker waited for an answer."))
        self.callbacks += 1
        if self.callbacks > CALLBACK_CAP:
            raise CapReached(
                f"Your code called the test's objects (its model, tools, listener) "
                f"{CALLBACK_CAP:,} times in one test, and the check stopped it (a correct run "
                "makes a few dozen calls): look for a loop that never ends.")
        target = self.bridge.lent(said.h)
        if isinstance(said, Tell):  # nothing is answered: the code went on at once
            try:
                return note(target, said.a)
            except TypeError:
                raise self.broken(Unreadable(
                    "The process that runs your code told one of the checker's objects "
                    "something without waiting for its answer, which that object does not "
                    "take.")) from None
        try:
            result = (call_lent(target, said.m, said.a, said.kw) if isinstance(said, Ask)
                      else read_lent(target, said.n))
        except Exception as exc:
            self.send(self.bridge.outgoing.plain_dumps(messages.raised(described(exc))))
            return
        self.send(self.bridge.outgoing.plain_dumps(messages.value(result)))

    def send(self, body: bytes) -> None:
        """Send a message (`body`, its bytes), after the reset an ended test left held
        (`end`)."""
        held, self.held = self.held, b""
        try:
            write_frame(self.write_fd, body, self.deadline or time.monotonic() + SEND_LIMIT,
                        before=held)
        except FrameLate:
            raise self.broken(OutOfTime("time")) from None
        except OSError:
            raise self.ended() from None

    def receive(self) -> Any:
        """The student process's next message, validated; what it writes back into the test's
        lists and dicts written once it is valid, and kept only if every value is still a tree
        (`Bridge.settle`, else the message is refused); its printed output kept and the test's
        look (`on_message`) taken. Past the deadline: OutOfTime."""
        self.bridge.reading()
        try:
            raw = self._frame()
            said = FROM_STUDENT.validate_python(raw)
            self.bridge.settle(raw)
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
        except TooDeep:
            raise self.broken(Unreadable(
                f"Your code handed the checker a value nested more than {DEPTH_CAP} levels "
                "deep: only plain data, at most that deep, crosses.")) from None
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
                raw = self.bridge.incoming.loads(self.reader.frame(until))
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
                self.last_line()  # the record as it stands, before the process goes
                raise self.broken(OutOfTime("spins", line, early=True))
            glance.seen = line == glance.line

    def last_line(self) -> int | None:
        """The line of the student's file a process being stopped says it was running (within
        LINE_LIMIT; other messages it sends meanwhile, a glance's late answer among them, are
        left unread), or None; what it printed is kept, and the lists it synced with it are
        written back as any message's are (`Bridge.settle`: only those handed to a call still
        running, only trees)."""
        if not (self.alive and self._ask_line(signal.SIGUSR2)):
            return None
        until = time.monotonic() + LINE_LIMIT
        while time.monotonic() < until:
            self.bridge.reading()
            try:
                raw = self.bridge.incoming.loads(self.reader.frame(until))
                if type(raw) is dict and raw.get("k") == "spun" and raw.get("final") is True:
                    said = Spun.model_validate(raw)
                    self.printed.keep(said.out)
                    self.bridge.settle(raw)
                    return said.line
            except (WireError, OSError, ValidationError, KeyError, TypeError, NotATree, TooDeep):
                return None
        return None

    def _ask_line(self, which: signal.Signals = signal.SIGUSR1) -> bool:
        """Signal the process to say its line (SIGUSR1 for a look, SIGUSR2 as the test is
        stopped); whether the signal went."""
        if self.speaker is None:
            return False
        try:
            os.kill(self.speaker, which)
        except OSError:
            return False
        return True

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
            self.bridge.forget_lent()
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
