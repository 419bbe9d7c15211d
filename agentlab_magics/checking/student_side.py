"""The student process's own side: `python -P -m agentlab_magics.checking.student_side`.

It runs the student's code and nothing of the judge: no test, expected value, held-back test
or script is ever sent here, and everything in this process is the student's to do with as
they like. It speaks the protocol (`protocol.messages` lists the conversation) on its standard
input and output, taken over at start, so what the code prints or writes to descriptors 0-2
never reaches the pipe. Every message from here carries what the code printed since the last
one, capped (`protocol.printed`), and each list or dict the judge handed to a call still
running ("sync"), so the judge's own lists follow what the code appends to them: {"$r": ref}
when the judge holds it as it is, {"$r": ref, "keep": n, "v": [...]} for a list whose first n
items it holds as they are, else {"$r": ref, "v": ...} (`unchanged`); a call the judge marks
"whole" (it named one list twice) has every sync whole while it runs. An awaitable the code
returns is run to its end here. Before it says hello it sets itself apart (`apart`); a name
the lab asks for is told to the judge when it is not code of the file (`own_code`).
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
from collections.abc import Awaitable, Callable
from typing import Any

from agentlab_magics.checking.apart import die_with_the_judge, set_apart
from agentlab_magics.checking.course_names import course_imports
from agentlab_magics.checking.own_code import looping_line, made_elsewhere, own_frames
from agentlab_magics.checking.protocol import VERSION
from agentlab_magics.checking.protocol.caps import PROBE_EVERY, RECORD_EDGE
from agentlab_magics.checking.protocol.described import described, rebuilt
from agentlab_magics.checking.protocol.frames import Reader, write_frame
from agentlab_magics.checking.protocol.printed import Printed
from agentlab_magics.checking.protocol.values import Inbound, Outbound, type_name
from agentlab_magics.checking.unchanged import Snapshots
from agentlab_magics.lab.caps import RECORD_CAP
from agentlab_magics.lab.drive import drive

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
        self.printed = {self.refs[id(value)][0] for value in self.synced}
        """The references of the synced ones: only theirs are printed (`unchanged`)."""


class Handle:
    """An object of the judge's: calling it, or one of the methods it offers, asks the judge;
    reading one of its attributes asks for a copy. Nothing done to it here changes the
    judge's object."""

    __slots__ = ("__weakref__", "_ident")

    def __init__(self, ident: int) -> None:
        self._ident = ident

    def __repr__(self) -> str:
        return SERVER.ask(self, "__repr__", (), {})


def _method(name: str) -> Callable[..., Any]:
    def method(self: Handle, *args: Any, **kwargs: Any) -> Any:
        return SERVER.ask(self, name, args, kwargs)

    method.__name__ = name
    return method


def _attribute(name: str) -> property:
    return property(lambda self: SERVER.read(self, name))


def _call(self: Handle, *args: Any, **kwargs: Any) -> Any:
    return SERVER.ask(self, "__call__", args, kwargs)


_handle_classes: dict[tuple, type] = {}


def handle_class(name: str, methods: tuple[str, ...], attributes: tuple[str, ...],
                 is_callable: bool) -> type:
    """The class of the handles of one kind of judge object, named as its class is."""
    key = (name, methods, attributes, is_callable)
    if key not in _handle_classes:
        namespace: dict[str, Any] = {"__slots__": (), "__module__": "agentlab.judge"}
        namespace.update({method: _method(method) for method in methods})
        namespace.update({attribute: _attribute(attribute) for attribute in attributes})
        if is_callable:
            namespace["__call__"] = _call
        _handle_classes[key] = type(name, (Handle,), namespace)
    return _handle_classes[key]


class Outgoing(Outbound):
    """This side's values for the judge: a list or dict the judge handed over goes back named
    (with what it holds now), a handle as its number, a lab value by what makes it, and any
    other object as its type and a number that brings the very object back."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.named: set[int] = set()  # the references named this message
        self.strangers = 0  # values sent as strangers so far

    def container(self, value: Any, depth: int, path: set[int]) -> Any:
        """A list or dict the judge handed over goes by its reference: alone when the judge
        holds it as it is (or it was named already in this message), else with what the
        judge lacks of it, the items after those it holds as they are (`unchanged`)."""
        if not self.server.handed or type(value) is tuple:
            return self.contents(value, depth, path)
        ref, printed = self.server.reference(value)
        if ref is None:
            return self.contents(value, depth, path)
        if ref in self.named:
            return {"$r": ref}
        self.named.add(ref)
        if not printed or self.server.whole():  # inside another, or named twice
            return {"$r": ref, "v": self.contents(value, depth, path)}
        snapshots = self.server.snapshots
        same, whole, items = snapshots.kept(ref, value)
        if same < 0:
            return {"$r": ref}
        strangers = self.strangers
        tree = ({"$r": ref, "keep": same, "v": self.contents(value[same:], depth, path)}
                if same else {"$r": ref, "v": self.contents(value, depth, path)})
        snapshots.hold(ref, value, whole if self.strangers == strangers else None, items)
        return tree

    def stranger(self, value: Any) -> Any:
        # imported at the first value that is not data, not at start: the student process
        # starts without lab.remaking (0.6 ms; most checks never send such a value)
        from agentlab_magics.lab.remaking import recipe

        number = handle_number(value)
        if number is not None:
            return {"$h": number}
        self.strangers += 1
        made_of = recipe(value)
        if made_of is not None:
            name, arguments = made_of
            return {"$v": name, "f": self.encode(arguments)}
        base = _plain_base(value)
        if base is not None:
            try:
                return {"$x": type_name(value), "b": base.__name__,
                        "v": self.encode(base(value)), "id": self.server.export(value)}
            except Exception:  # the code's own conversion failed: it is a stranger like any
                pass
        if _is_step(value):  # a step of the student's own: its answers run here
            return {"$s": self.server.export(value), "t": type_name(value)}
        tag = "$c" if callable(value) else "$o"
        return {tag: self.server.export(value), "t": type_name(value)}


def _is_step(value: Any) -> bool:
    """Whether `value` is a lab step (a lab.steps.Step subclass of the student's). Only code
    that imported lab.steps can make one, so a process that never did is not made to."""
    steps = sys.modules.get("agentlab_magics.lab.steps")
    return steps is not None and isinstance(value, steps.Step)


def handle_number(value: Any) -> int | None:
    """The number of the judge's object `value` is a handle of, or None."""
    return object.__getattribute__(value, "_ident") if isinstance(value, Handle) else None


def _plain_base(value: Any) -> type | None:
    """The plain type a subclass of one imitates (a str subclass's str), or None."""
    for base in (dict, list, tuple, str, int, float, bytes):
        if isinstance(value, base) and type(value) is not base:
            return base
    return None


class Incoming(Inbound):
    """The judge's values here: a handle becomes an object of its kind, a number of ours the
    very object we sent, a list or dict the judge names is kept with its name for the call
    that receives it, a lab value is made by its class."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.arriving: list[tuple[int, Any]] = []
        self.plain = True  # the message read holds nothing but plain data and handles

    def tagged(self, tag: str, tree: dict) -> Any:
        if tag != "$r" and tag != "$h":
            self.plain = False
        if tag == "$h":
            return self.server.handle(tree)
        if tag in ("$c", "$o"):
            ident = tree[tag]
            if type(ident) is str:  # one of the module's own functions, by name
                return getattr(self.server.module, ident)
            return self.server.exported[ident]
        if tag == "$r":
            self.arriving.append((tree["$r"], tree["v"]))
            return tree["v"]
        if tag == "$v":
            from agentlab_magics.lab.remaking import made  # not at start: see `stranger`

            return made(tree["$v"], tree["f"])
        raise KeyError(tag)


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
        self.handed: dict[int, tuple[int, Any, bool]] = {}
        """Every list and dict the calls running were handed, by id: (its reference, itself,
        whether it is one its call syncs)."""
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

    def send(self, message: dict, **values: Any) -> None:
        """Send `message` with `values` encoded into it, what was printed, and the lists and
        dicts of the calls still running: each list or dict of the judge's with its contents
        once, named alone wherever else it stands."""
        self.outgoing.named = set()
        for key, value in values.items():
            message[key] = self.outgoing.encode(value)
        message["out"] = self.output.take()
        message["sync"] = [self.outgoing.encode(value) for call in self.calls
                           for value in call.synced]
        with self.writing:
            write_frame(self.write_fd, message)
        self.answer_waiting_stop()

    def receive(self) -> dict:
        self.incoming.arriving, self.incoming.plain = [], True
        return self.reader.frame(hook=self.incoming)

    def whole(self) -> bool:
        """Whether a call running was told to sync whole, or the test is being stopped."""
        return self.stopped or any(call.whole for call in self.calls)

    def reference(self, container: list | dict) -> tuple[int | None, bool]:
        """The judge's reference for `container`, if a call still running handed it over
        (else None), and whether it is one that call syncs."""
        found = self.handed.get(id(container))
        if found is None or found[1] is not container:
            return None, False
        return found[0], found[2]

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
        call = Call(self.incoming.arriving, [*message.get("a", ()),
                                             *message.get("kw", {}).values()],
                    whole=bool(message.get("whole")))
        if call.whole:  # until every call that named one list twice has returned
            self.snapshots.held.clear()
        elif self.incoming.plain:  # what the judge holds of them, printed as it arrived
            for value in call.synced:
                self.snapshots.hold(call.refs[id(value)][0], value, self.snapshots.of(value))
        self.calls.append(call)
        self.handed.update((key, (ref, container, ref in call.printed))
                           for key, (ref, container) in call.refs.items())
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
                    self.snapshots.forget(call.printed)

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
            self.send({"k": "value"}, v=reply["v"])
        except BaseException as exc:
            self.send({"k": "raised", "e": described(exc, self.filename)})

    def ask(self, handle: Handle, method: str, args: tuple, kwargs: dict) -> Any:
        """Call `method` of the judge's object `handle` stands for; serve the judge's own calls
        that come meanwhile."""
        ident = object.__getattribute__(handle, "_ident")
        return self.converse({"k": "call", "h": ident, "m": method}, a=list(args),
                             kw=dict(kwargs))

    def read(self, handle: Handle, name: str) -> Any:
        return self.converse({"k": "get", "h": object.__getattribute__(handle, "_ident"),
                              "n": name})

    def converse(self, message: dict, **values: Any) -> Any:
        with self.talk:
            self.send(message, **values)
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

    def handle(self, tree: dict) -> Handle:
        ident = tree["$h"]
        if ident not in self.handles:
            kind = handle_class(str(tree["t"]), tuple(tree["m"]), tuple(tree["a"]),
                                bool(tree["c"]))
            self.handles[ident] = kind(ident)
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
                    self.outgoing.named = set()
                    write_frame(self.write_fd, {"k": "cap", "length": len(value),
                                                "edges": self.outgoing.encode(edges),
                                                "out": "", "sync": []})
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
            if stopping:
                said["final"] = True
                self.outgoing.named = set()
                try:
                    said["sync"] = [self.outgoing.encode(value) for call in self.calls
                                    for value in call.synced]
                except Exception:  # a value the code made that cannot be sent: the line alone
                    said["sync"] = []
                said["out"] = self.output.take()
            write_frame(self.write_fd, said)
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
    write_frame(write_fd, {"k": "hello", "version": VERSION, "pid": os.getpid(),
                           "out": "", "sync": []})
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
