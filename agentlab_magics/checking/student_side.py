"""The student process's own side: `python -P -m agentlab_magics.checking.student_side`.

It runs the student's code and nothing of the judge: no test, expected value, held-back test
or script is ever sent here, and everything in this process is the student's to do with as
they like. It speaks the protocol (`protocol.messages` lists the conversation) on its standard
input and output, taken over at start, so what the code prints or writes to descriptors 0-2
never reaches the pipe. Every message from here carries what the code printed since the last
one, capped (`protocol.printed`), and each list or dict the judge handed to a call still
running ("sync"), so the judge's own lists follow what the code appends to them: the id
("$r", ref) when the judge holds it as it is, ("$r", ref, n, [...], []) for a list whose first
n items it holds as they are (`unchanged`), n 0 for one sent whole (`student_values`); a call
the judge marks "whole" (it named one list twice) has every sync whole while it runs. An
awaitable the code returns is run to its end here. Before it says hello it sets itself apart
(`apart`); a name the lab asks for is told to the judge when it is not code of the file
(`own_code`).
"""

from __future__ import annotations

import atexit
import io
import os
import signal
import sys
import threading
import time
import types
from collections.abc import Awaitable
from typing import Any

from agentlab_magics.checking.apart import die_with_the_judge, set_apart
from agentlab_magics.checking.course_names import course_imports
from agentlab_magics.checking.own_code import looping_line, made_elsewhere, own_frames
from agentlab_magics.checking.protocol import VERSION
from agentlab_magics.checking.protocol.caps import PROBE_EVERY, RECORD_EDGE
from agentlab_magics.checking.protocol.described import described, rebuilt
from agentlab_magics.checking.protocol.frames import Reader, frame_of, write_frame
from agentlab_magics.checking.protocol.printed import Printed
from agentlab_magics.checking.student_values import (
    Handle,
    Incoming,
    Notes,
    Outgoing,
    handle_class,
    handle_number,
)
from agentlab_magics.checking.unchanged import Snapshots
from agentlab_magics.lab.caps import RECORD_CAP
from agentlab_magics.lab.drive import drive

TOLD_CAP = 64 << 10  # bytes of calls told (`Server.tell`) that wait for the next message, at most
LOOK_GAP = 0.005  # seconds of CPU time a look must be after the last to be a look of its own


class CappedText(io.TextIOBase):
    """sys.stdout and sys.stderr while the code runs: what it printed since the last message,
    capped (`protocol.printed`)."""

    encoding = "utf-8"

    def __init__(self) -> None:
        super().__init__()
        self.printed = Printed()

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self.printed.keep(text)
        return len(text)

    def take(self) -> str:
        return self.printed.take()


class Call:
    """One call of the judge's that is running here: the lists and dicts it handed over, by
    the judge's reference, and those of its arguments to send back with every message."""

    def __init__(self, arriving: list[tuple[int, Any]], arguments: list[Any],
                 whole: bool = False) -> None:
        self.refs = {id(container): (ref, container) for ref, container in arriving}
        self.synced = [value for value in arguments if id(value) in self.refs]
        self.whole = whole
        """The judge named one of its lists or dicts twice (to this call or one running): every
        sync goes whole while this call runs, as each name's last sync decides what it holds."""


class Server:
    """This process's side of the conversation with the judge."""

    def __init__(self, read_fd: int, write_fd: int) -> None:
        self.reader, self.write_fd = Reader(read_fd), write_fd
        self.talk = threading.RLock()      # one conversation at a time, nested ones included
        self.writing = threading.Lock()    # one frame at a time (the probe's signal included)
        self.output = CappedText()
        self.outgoing, self.incoming = Outgoing(self), Incoming(self)
        self.snapshots = Snapshots(handle_number)
        self.calls: list[Call] = []
        self.handed: dict[int, tuple[int, Any]] = {}
        """Every list and dict the calls running were handed, by id: (its reference, itself)."""
        self.handed_version = 0  # counts the changes to `handed`
        self.told = b""  # the frames of calls told (`tell`), not sent yet
        self.exported: dict[int, Any] = {}
        self.export_ids: dict[int, int] = {}
        self.handles: dict[int, Handle] = {}
        self.module: types.ModuleType | None = None
        self.filename = ""
        self.stopped = False  # the judge is stopping the test (SIGUSR2): every sync whole
        self.stop_waiting = False  # a stop asked while a frame was being written
        self.said: tuple[float, int | None] = (-LOOK_GAP, None)  # CPU time and line of the
        #                                                            last answer
        self.looked: list[types.FrameType] = []
        """The frames of the student's file at the last look (`probe`, `spinning`), held until
        the next, so a frame that is still there then is known by its id."""

    # -- the conversation ------------------------------------------------------------------

    def send(self, message: dict) -> None:
        """Send `message` with what was printed and the lists and dicts of the calls still
        running: each list or dict of the judge's with its contents once, named alone wherever
        else it stands."""
        body = self.encoded(message)
        with self.writing:
            self.write(body)
        self.answer_waiting_stop()

    def encoded(self, message: dict) -> bytes:
        """`message` as bytes, with what was printed and the lists and dicts of the calls
        still running."""
        message["out"] = out = self.output.take()
        message["sync"] = [value for call in self.calls for value in call.synced]
        try:
            return self.outgoing.encode(message)
        except BaseException:
            self.output.printed.keep(out)  # said with the message that goes instead
            raise

    def write(self, body: bytes) -> None:
        """Send a message's bytes, after the calls told and not sent yet (`tell`), in one
        write (the caller holds `writing`)."""
        told, self.told = self.told, b""
        write_frame(self.write_fd, body, before=told)

    def receive(self) -> dict:
        self.incoming.arriving, self.incoming.plain = [], True
        return self.incoming.loads(self.reader.frame())

    def whole(self) -> bool:
        """Whether a call running was told to sync whole, or the test is being stopped."""
        return self.stopped or any(call.whole for call in self.calls)

    def reference(self, container: list | dict) -> int | None:
        """The judge's reference for `container`, if a call still running handed it over."""
        found = self.handed.get(id(container))
        return found[0] if found is not None and found[1] is container else None

    def serve(self) -> None:
        """Answer the judge until it closes the pipe."""
        while True:
            with self.talk:
                message = self.receive()
            self.answer(message)

    def answer(self, message: dict) -> None:
        """Do what one message of the judge's asks, and answer it (a reset needs no answer)."""
        kind = message["k"]
        if kind == "reset":  # the handles stay: code may keep an object from an earlier test
            self.exported.clear()
            self.export_ids.clear()
            self.looked = []
            return
        if kind == "warm":
            warm()
            with self.talk:
                self.send({"k": "value", "v": None})
            return
        call = Call(self.incoming.arriving, [*message.get("a", ()),
                                             *message.get("kw", {}).values()],
                    whole=bool(message.get("whole")))
        if call.whole:  # until every call that named one list twice has returned
            self.snapshots.held.clear()
        elif self.incoming.plain:  # what the judge holds of them, printed as it arrived
            for value in call.synced:
                self.snapshots.hold(call.refs[id(value)][0], value, self.snapshots.of(value))
        self.calls.append(call)
        self.handed.update(call.refs)
        self.handed_version += 1
        try:
            reply = self.loaded(message) if kind == "load" else self.called(message)
        finally:
            with self.talk:
                try:
                    self.reply(reply)
                finally:
                    self.calls.remove(call)
                    for key in call.refs:  # alive while the call ran, so no other's id
                        self.handed.pop(key, None)
                    self.handed_version += 1
                    self.snapshots.forget(ref for ref, _ in call.refs.values())

    def loaded(self, message: dict) -> dict:
        self.filename = message["filename"]
        try:
            module = load(message["source"], self.filename, message["module"],
                          message.get("path", []))
        except BaseException as exc:
            return {"k": "raised", "e": described(exc, self.filename)}
        self.module = module
        names = vars(module)
        found = [name for name in message["names"] if name in names]
        return {"k": "loaded", "names": {name: callable(names[name]) for name in found},
                "elsewhere": {name: where for name in found
                              if (where := made_elsewhere(names[name], module)) is not None}}

    def called(self, message: dict) -> dict:
        try:
            target = message["f"]
            function = (getattr(self.module, target) if type(target) is str else target)
            if message.get("m"):  # a method of one of the objects this process sent
                function = getattr(function, message["m"])
            return {"k": "value", "v": settled(function(*message["a"], **message["kw"]))}
        except BaseException as exc:
            return {"k": "raised", "e": described(exc, self.filename)}

    def reply(self, reply: dict) -> None:
        """Send the answer to a load or a call; a value that cannot be encoded is answered by
        what encoding it raised."""
        if reply["k"] != "value":
            return self.send(reply)
        try:
            self.send(reply)
        except BaseException as exc:
            self.send({"k": "raised", "e": described(exc, self.filename)})

    def ask(self, handle: Handle, method: str, args: tuple, kwargs: dict) -> Any:
        """Call `method` of the judge's object `handle` stands for; serve the judge's own calls
        that come meanwhile."""
        ident = object.__getattribute__(handle, "_ident")
        return self.converse({"k": "call", "h": ident, "m": method, "a": list(args),
                              "kw": dict(kwargs)})

    def tell(self, handle: Handle, args: tuple) -> None:
        """Call the judge's function `handle` stands for, which only takes note, with `args`
        (bound to its parameters already): nothing is answered, so nothing is waited for, and
        the message goes with the next one this process sends (the judge reads them in
        order, each with the lists as they were when it was made), or now when TOLD_CAP bytes
        would wait."""
        with self.talk:
            body = self.encoded({"k": "tell", "h": object.__getattribute__(handle, "_ident"),
                                 "a": list(args)})
            with self.writing:
                if len(self.told) + len(body) > TOLD_CAP:
                    self.write(body)
                else:
                    self.told += frame_of(body)
        self.answer_waiting_stop()

    def read(self, handle: Handle, name: str) -> Any:
        return self.converse({"k": "get", "h": object.__getattribute__(handle, "_ident"),
                              "n": name})

    def converse(self, message: dict) -> Any:
        with self.talk:
            self.send(message)
            while True:
                reply = self.receive()
                if reply["k"] == "value":
                    return reply["v"]
                if reply["k"] == "raised":
                    raise rebuilt(reply["e"])
                self.answer(reply)

    # -- objects ---------------------------------------------------------------------------

    def export(self, value: Any) -> int:
        """The number the judge calls `value` by: the same number for the same object."""
        ident = self.export_ids.get(id(value))
        if ident is None or self.exported.get(ident) is not value:
            ident = len(self.exported) + 1
            self.exported[ident] = value
            self.export_ids[id(value)] = ident
        return ident

    def handle(self, ident: int, name: str = "", is_callable: bool = False,
               methods: tuple[str, ...] = (), attributes: tuple[str, ...] = (),
               notes: Notes | None = None) -> Handle:
        """The handle of the judge's object `ident`: its kind told the first time it crosses."""
        if ident not in self.handles:
            kind = handle_class(name, methods, attributes, is_callable, notes)
            self.handles[ident] = kind(ident, self)
        return self.handles[ident]

    # -- the record's cap ------------------------------------------------------------------

    def probe(self, _signal: int, frame: types.FrameType | None) -> None:
        """Every PROBE_EVERY seconds of CPU time: a look at the frames of the student's file
        (for `spinning`); a list handed over that grew past RECORD_CAP is told to the judge
        (its length and its ends), and this process exits. Never while a frame is being
        written."""
        self.looked = self._frames(frame)
        for call in list(self.calls):
            for value in call.synced:
                if type(value) is list and len(value) > RECORD_CAP:
                    if not self.writing.acquire(blocking=False):
                        return
                    edges = value[:RECORD_EDGE] + value[-RECORD_EDGE:]
                    self.write(self.outgoing.encode(
                        {"k": "cap", "length": len(value), "edges": edges, "out": "",
                         "sync": []}))
                    os._exit(3)

    def spinning(self, _signal: int, frame: types.FrameType | None) -> None:
        """On SIGUSR1 (a look while a test runs): tell the judge the line of the student's
        file a stuck run keeps running (`looping_line`: the frame that was there at the last
        look too, else the innermost; this thread's first), or nothing when no frame is in
        it. Never while a frame is being written."""
        self._say_line(frame, stopping=False)

    def stopping(self, _signal: int, frame: types.FrameType | None) -> None:
        """On SIGUSR2 (the judge stops the test, out of time, and this process next): the line
        as `spinning` says it, with what the code printed and every list and dict the calls
        running were handed, whole, as they stand, so the report draws the record the run had
        made. What encoding them here changes of this process's state matters no more."""
        self.stopped = True
        self._say_line(frame, stopping=True)

    def _say_line(self, frame: types.FrameType | None, stopping: bool) -> None:
        """Answer the judge's question: a stop asked while a frame is being written (this
        thread's, as when it comes during a look's answer) is answered once it is out, and
        a question that comes at once after an answer gets the same line (a look needs time
        between it and the last to tell the frame that loops)."""
        now = time.process_time()
        if now - self.said[0] < LOOK_GAP:
            line = self.said[1]
        else:
            before, self.looked = self.looked, self._frames(frame)
            line = looping_line(self.looked, before)
            self.said = (now, line)
        if line is None:
            return
        if not self.writing.acquire(blocking=False):
            self.stop_waiting = self.stop_waiting or stopping
            return
        try:
            said: dict[str, Any] = {"k": "spun", "line": line, "out": "", "sync": []}
            body = None
            if stopping:
                said["final"] = True
                said["out"] = self.output.take()
                try:
                    body = self.outgoing.encode({**said, "sync": [
                        value for call in self.calls for value in call.synced]})
                except Exception:  # a value the code made that cannot be sent: the line alone
                    body = None
            self.write(body or self.outgoing.encode(said))
        finally:
            self.writing.release()
        self.answer_waiting_stop()

    def answer_waiting_stop(self) -> None:
        """Answer a stop that came while a frame was being written, now that it is out."""
        if self.stop_waiting:
            self.stop_waiting = False
            self._say_line(None, stopping=True)

    def _frames(self, frame: types.FrameType | None) -> list[types.FrameType]:
        """The frames of the student's file: this thread's (from `frame`), else another's."""
        return own_frames([frame, *sys._current_frames().values()], self.filename)


SERVER: Server  # the one server of this process


def warm() -> None:
    """Import what a check of the later labs loads while it runs, the lab's values as they
    cross (`lab.remaking`: its model, steps and rules, json, inspect, dataclasses), some 10 ms
    a check then does not spend."""
    import agentlab_magics.lab.remaking  # noqa: F401


def settled(value: Any) -> Any:
    """`value`, or its result when it is awaitable, even inside an event loop that runs."""
    if not isinstance(value, Awaitable):
        return value
    # imported only for code that returns an awaitable: asyncio takes about 20 ms to
    # import, a third of the student process's start
    import asyncio
    import concurrent.futures

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(drive(value))
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, drive(value)).result()


def load(source: str, filename: str, name: str, path: list[str]) -> types.ModuleType:
    """Run `source` as the module `name`, importable as that name while it runs (a dataclass
    or a pydantic model of the file looks its module up) and after."""
    for folder in path:
        if folder not in sys.path:
            sys.path.append(folder)
    module = types.ModuleType(name)
    module.__file__ = filename
    sys.modules[name] = module
    code = compile(source, filename, "exec", dont_inherit=True)
    exec(code, module.__dict__)
    return module


def run(read_fd: int, write_fd: int, module: types.ModuleType | None = None,
        filename: str = "") -> None:
    """Be the student process on the pipe (`read_fd`, `write_fd`): say hello, then serve the
    judge until it goes; with `module`, that module is the code checked (no load)."""
    global SERVER
    die_with_the_judge()
    read_fd, write_fd = set_apart(read_fd, write_fd)
    course_imports()
    SERVER = Server(read_fd, write_fd)
    SERVER.module, SERVER.filename = module, filename
    sys.stdout = sys.stderr = SERVER.output
    if hasattr(signal, "setitimer"):
        signal.signal(signal.SIGPROF, SERVER.probe)
        signal.setitimer(signal.ITIMER_PROF, PROBE_EVERY, PROBE_EVERY)
    signal.signal(signal.SIGUSR1, SERVER.spinning)
    signal.signal(signal.SIGUSR2, SERVER.stopping)
    write_frame(write_fd, SERVER.outgoing.encode({"k": "hello", "version": VERSION,
                                                  "pid": os.getpid(), "out": "", "sync": []}))
    try:
        SERVER.serve()
    except BaseException:  # the judge closed the pipe (the check is over), or it broke
        pass
    finally:
        _end(atexit_too=module is None)


def _end(atexit_too: bool) -> None:
    """End, at once whatever its threads still do; a fresh process first runs the code's
    atexit functions and finalizers (a temporary folder removed). A fork of the judge's
    process (`module` given) never does: they are its judge's."""
    try:
        if atexit_too:
            atexit._run_exitfuncs()
    finally:
        os._exit(0)


if __name__ == "__main__":
    run(0, 1)
