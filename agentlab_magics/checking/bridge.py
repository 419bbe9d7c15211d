"""The bridge between the judge's objects and the student's: how a value crosses either way,
and what each side holds of the other's while a test runs.

Plain data crosses as itself (`protocol.values`). Whatever the test hands over that is not data
(a scripted model, a workspace, a tool's function, a listener) stays here and crosses as a
handle: the student process gets an object whose methods ask this side (`call_lent`,
`read_lent`: only what its class lists in `__public__`), so the judge's objects, and the
records they keep, stay the truth. Lists and dicts handed to a call cross with a reference,
come back after every message with what they hold, and go back into the very lists and dicts
the test holds, while that call runs and only if every value is still a tree (`tree_shaped`).
A lab value crosses by what makes it (`lab.remaking`). What comes back that is not data stands
here as a stranger of its class's name (`Foreign`), or, when it can be called, as a `Remote`
whose calls run in the student process; a student's exception as the builtin class it was or a
`ForeignError` of its name (`Strangers.exception`). `Bridge` keeps the tables of one student
process: nothing of one test's crosses into the next but the handles lent.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass, field
from typing import Any, Protocol

from agentlab_magics.checking.protocol.caps import STRANGERS_CAP
from agentlab_magics.checking.protocol.messages import Described
from agentlab_magics.checking.protocol.values import Inbound, Outbound, type_name
from agentlab_magics.checking.stopped import Stopped, Unreadable
from agentlab_magics.lab.remaking import made, recipe
from agentlab_magics.lab.steps import Step

SAFE_BUILTINS = frozenset(
    name for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, Exception)
    and not issubclass(value, (StopIteration, StopAsyncIteration)))


class Peer(Protocol):
    """What the bridge asks of the student process it serves: to run a call there, and to be
    killed, with the sentence that says why, when it breaks the protocol."""

    def call(self, target: Any, args: tuple, kwargs: dict, method: str | None = None) -> Any:
        ...

    def broken(self, stop: Stopped) -> Stopped:
        ...


class ForeignError(Exception):
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

    def __init__(self, process: Peer, ident: int, name: str) -> None:
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

    def __init__(self, process: Peer, ident: int | str) -> None:
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
        """The class an exception of the student's class `name` stands here as: ForeignError
        and `bases` (builtin exception classes), under their class's name; ForeignError
        itself when those cannot be combined, or past the cap."""
        key = (name, bases)
        if key not in self.made:
            if len(self.made) >= STRANGERS_CAP - 1:
                return ForeignError
            shown = name if name.isidentifier() and len(name) <= 80 else "Exception"
            try:
                self.made[key] = type(shown, (ForeignError, *bases), {"__module__": "student"})
            except TypeError:  # builtin bases whose layouts conflict
                return ForeignError
        return self.made[key]

    def exception(self, description: Described) -> Exception:
        """The student's exception as an exception here, its description as `.described`: the
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
        made = exc if exc is not None else ForeignError(*args)
        setattr(made, "described", description)  # noqa: B010 (an attribute of ours on theirs)
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


def description_of(exc: BaseException) -> Described | None:
    """The description an exception carries when it came from the student's code."""
    found = getattr(exc, "described", None)
    return found if isinstance(found, Described) else None


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

    def __init__(self, bridge: Bridge) -> None:
        self.bridge = bridge
        self.naming = False

    def container(self, value: Any, depth: int, path: set[int]) -> Any:
        tree = self.contents(value, depth, path)
        if not self.naming or type(value) is tuple:
            return tree
        return {"$r": self.bridge.remember(value), "v": tree}

    def stranger(self, value: Any) -> Any:
        if isinstance(value, Remote):
            return {"$c": value.ident}
        if isinstance(value, RemoteStep):
            return {"$o": value.ident}
        ident = value.ident if isinstance(value, Foreign) else getattr(value, "student_ident",
                                                                        None)
        if type(ident) is int:
            return {"$o": ident}
        made_of = recipe(value)
        if made_of is not None:
            return {"$v": made_of[0], "f": self.encode(made_of[1])}
        methods, attributes = public(value)
        return {"$h": self.bridge.lend(value), "t": type_name(value), "c": callable(value),
                "m": methods, "a": attributes}


class Incoming(Inbound):
    """The student process's values here: data as it is; a list or dict of ours put back in
    place; a handle as our object; the student's objects as stand-ins (`Foreign`, `Remote`,
    a plain subclass copied into a class of its name)."""

    def __init__(self, bridge: Bridge) -> None:
        self.bridge = bridge

    def tagged(self, tag: str, tree: dict) -> Any:
        bridge = self.bridge
        if tag == "$r":
            return bridge.referred(tree["$r"], tree.get("v", _ABSENT), tree.get("keep", 0))
        if tag == "$h":
            return bridge.lent(tree["$h"])
        if tag == "$c":
            return bridge.remote(tree["$c"], str(tree.get("t", "function")))
        if tag == "$o":
            return bridge.foreign(tree["$o"], str(tree.get("t", "object")))
        if tag == "$s":
            return bridge.remote_step(tree["$s"], str(tree.get("t", "Step")))
        if tag == "$x":
            return _imitation(bridge.strangers, str(tree["$x"]), str(tree["b"]), tree["v"],
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


class Bridge:
    """What the judge and one student process hold of each other's values: the lists and dicts
    handed to the calls running, by reference (good until the call returns); the judge's
    objects lent as handles (good as long as the process: code may keep an object from an
    earlier test); the student's objects standing here. A number is never used twice in a
    process."""

    def __init__(self, process: Peer) -> None:
        self.process = process
        self.outgoing, self.incoming = Outgoing(self), Incoming(self)
        self.strangers = Strangers()
        self.handles: dict[int, Any] = {}
        self.handle_ids: dict[int, int] = {}
        self.next_number = 1
        self.forget_test()

    def forget_test(self) -> None:
        """Forget what one test handed over; the handles lent stay."""
        self.refs: dict[int, Any] = {}
        self.remotes: dict[int, Remote] = {}
        self.foreigns: dict[int, Foreign] = {}
        self.scopes: list[Scope] = []  # per call running there, what it handed over
        self.coming: dict[int, Any] = {}  # what the message being read writes back, by ref
        self.named = 0  # the references the message being read made

    def forget_lent(self) -> None:
        """The process is gone: what it was lent goes now, not at the next collection of the
        cycle it is in."""
        self.handles.clear()
        self.handle_ids.clear()

    # -- a call's lists and dicts -----------------------------------------------------------

    def handed(self, args: tuple, kwargs: dict) -> tuple[list, dict, bool]:
        """A call's arguments as they cross, each list and dict with the reference it comes
        back by while the call runs (until `returned`); and whether one list or dict is now
        named twice among the calls running."""
        self.scopes.append(Scope([value for value in (*args, *kwargs.values())
                                  if type(value) in (list, dict)]))
        self.outgoing.naming = True
        try:
            encoded = ([self.outgoing.encode(arg) for arg in args],
                       {str(key): self.outgoing.encode(item) for key, item in kwargs.items()})
        finally:
            self.outgoing.naming = False
        named_twice = len({id(container) for container in self.refs.values()}) < len(self.refs)
        return encoded[0], encoded[1], named_twice

    def returned(self) -> None:
        """The last call handed over has returned (or failed): its references name nothing."""
        for ref in self.scopes.pop().refs:
            self.refs.pop(ref, None)

    def remember(self, container: list | dict) -> int:
        """The reference a list or dict handed to the current call goes by."""
        ref = self.next_number
        self.next_number += 1
        self.refs[ref] = container
        self.scopes[-1].refs.append(ref)
        return ref

    def reading(self) -> None:
        """A message is about to be read: nothing it names is counted or written yet."""
        self.coming.clear()
        self.named = 0

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

    def settle(self, raw: dict) -> None:
        """Write back what the message just read (`raw`, valid) named: each list or dict it
        synced must be one handed to a call still running (else KeyError), and what it wrote
        is kept only if every value of it, and every list and dict the running calls were
        handed, is still a tree (else NotATree, and nothing it wrote stays). A message that
        names no list or dict but one in each entry of its sync is not walked: the rest of it
        is fresh from the frame, and what it writes is fresh too, or kept from the list it is
        written into."""
        self.synced(raw["sync"])
        written = self.write_back()
        if self.named > len(raw["sync"]):
            try:
                tree_shaped([raw.get(key) for key in ("v", "a", "kw", "edges")]
                            + [root for scope in self.scopes for root in scope.roots])
            except NotATree:
                self.put_back(written)
                raise

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
        """The judge's object lent as handle `ident`; a process that names another is killed."""
        if type(ident) is not int or ident not in self.handles:
            raise self.process.broken(Unreadable(
                "The process that runs your code named an object the checker never handed it."))
        return self.handles[ident]

    def remote(self, ident: Any, name: str) -> Remote:
        if type(ident) is not int:
            raise TypeError("an object's number is not an int")
        if ident not in self.remotes:
            self.remotes[ident] = self.strangers.cls(name, Remote)(self.process, ident)
        return self.remotes[ident]

    def remote_step(self, ident: Any, name: str) -> RemoteStep:
        if type(ident) is not int:
            raise TypeError("an object's number is not an int")
        return RemoteStep(self.process, ident, name[:80])

    def foreign(self, ident: Any, name: str) -> Foreign:
        if type(ident) is not int:
            raise TypeError("an object's number is not an int")
        if ident not in self.foreigns:
            self.foreigns[ident] = self.strangers.cls(name, Foreign)(ident)
        return self.foreigns[ident]


def call_lent(target: Any, method: str, args: list, kwargs: dict) -> Any:
    """What the judge's object `target` answers when the student's code calls `method` of its
    handle: only its kind for a repr (a judge object's own may name a test), the object itself
    when it can be called, or a method its class lists as public."""
    if method == "__repr__":
        return f"<{type_name(target)}>"
    if method == "__call__" and callable(target):
        return target(*args, **kwargs)
    if method in public(target)[0]:
        return getattr(target, method)(*args, **kwargs)
    raise AttributeError(f"{type_name(target)} has no method {method!r} that your code "
                         "may call")


def read_lent(target: Any, name: str) -> Any:
    """The attribute `name` of the judge's object `target`, when its class lists it as public."""
    if name in public(target)[1]:
        return getattr(target, name)
    raise AttributeError(f"{type_name(target)} has no attribute {name!r} that your code "
                         "may read")
