"""The student process's values for the judge and the judge's here: how a message is written
(`Outgoing`) and read (`Incoming`) on this side, and the handles that stand here for the judge's
objects (`Handle`). Part of the student process: it needs only the standard library and the
protocol.
"""

from __future__ import annotations

import keyword
import pickle
import re
import sys
import types
from collections.abc import Callable
from typing import Any, Protocol

from agentlab_magics.checking.protocol.caps import DEPTH_CAP
from agentlab_magics.checking.protocol.values import (
    PROTOCOL,
    Inbound,
    Marking,
    Outbound,
    type_name,
)
from agentlab_magics.checking.unchanged import Snapshots

MARK_BASE = 0x7F000000
"""A list or dict the judge handed over is met by the plain pickler as a memo get of MARK_BASE
plus its place among them, which it writes LONG_BINGET with a last byte of 0x7f: `MARKED`
finds one at C speed (text that happens to hold the same five bytes only costs a slower way)."""
MARKS_CAP = 1 << 24
MARKED = re.compile(rb"j[\x00-\xff]{3}\x7f")
NOT_DATA = re.compile(b"[" + re.escape(pickle.LONG4 + pickle.EMPTY_SET + pickle.FROZENSET
                                        + pickle.BYTEARRAY8) + b"]")
"""The opcodes of what CPython's pickler writes without asking, but the judge refuses: an int
longer than it reads (any LONG4), a set, a frozenset, a bytearray. Searched for in the bytes
(text or a length that holds one of them only costs a slower way)."""
SCALARS = frozenset({str, int, float, bool, type(None), bytes})
PIECE_CAP = 60 << 10
"""Bytes of one value's pickle, at most, to be joined into a message: a pickle framed in one
frame (CPython frames every 64 KiB), whose frame header comes off with its protocol (a message
written whole as one pickle may be longer)."""
OPENING = pickle.PROTO + bytes([PROTOCOL])
CARRIED = frozenset({"a", "kw", "v", "edges"})
"""The keys of a message whose values the student's code made: they may name what the judge
handed over, and hold what is not plain data."""


class _Whole(Exception):
    """A message that goes the whole way by the naming pickler, not a value at a time."""


class Side(Protocol):
    """What the student process's server offers the values it writes and reads."""

    handed: dict[int, tuple[int, Any]]
    handed_version: int
    snapshots: Snapshots
    module: types.ModuleType | None
    exported: dict[int, Any]

    def reference(self, container: list | dict) -> int | None:
        ...

    def whole(self) -> bool:
        ...

    def export(self, value: Any) -> int:
        ...

    def handle(self, ident: int, name: str = "", is_callable: bool = False,
               methods: tuple[str, ...] = (), attributes: tuple[str, ...] = (),
               notes: Notes | None = None) -> Handle:
        ...


class Asker(Protocol):
    """What a handle asks the judge through: the student process's server."""

    def ask(self, handle: Handle, method: str, args: tuple, kwargs: dict) -> Any:
        ...

    def tell(self, handle: Handle, args: tuple) -> None:
        ...

    def read(self, handle: Handle, name: str) -> Any:
        ...


class Handle:
    """An object of the judge's: calling it, or one of the methods it offers, asks the judge;
    reading one of its attributes asks for a copy. Nothing done to it here changes the
    judge's object."""

    __slots__ = ("__weakref__", "_asker", "_ident")

    def __init__(self, ident: int, asker: Asker) -> None:
        self._ident, self._asker = ident, asker

    def __repr__(self) -> str:
        return _ask(self, "__repr__", (), {})


def _ask(handle: Handle, method: str, args: tuple, kwargs: dict) -> Any:
    return object.__getattribute__(handle, "_asker").ask(handle, method, args, kwargs)


def _method(name: str) -> Callable[..., Any]:
    def method(self: Handle, *args: Any, **kwargs: Any) -> Any:
        return _ask(self, name, args, kwargs)

    method.__name__ = name
    return method


def _attribute(name: str) -> property:
    return property(lambda self: object.__getattribute__(self, "_asker").read(self, name))


def _call(self: Handle, *args: Any, **kwargs: Any) -> Any:
    return _ask(self, "__call__", args, kwargs)


Notes = tuple[str, tuple[str, ...]]
"""A judge function that only takes note: its name and its parameters (`bridge.notes_only`)."""


def _noting(notes: Notes) -> Callable[..., None]:
    """The __call__ of a handle whose judge function only takes note: the call's arguments
    bound here to its parameters, as its own would bind them (a call they do not take raises
    the same TypeError, here), and told to the judge without waiting; None, as it returns."""
    name, parameters = notes
    if not all(word.isidentifier() and not keyword.iskeyword(word)
               for word in (name, *parameters)):
        return _call
    scope: dict[str, Any] = {}
    exec(f"def {name}({', '.join(parameters)}):\n"  # identifiers alone (checked above)
         f"    return ({''.join(f'{word}, ' for word in parameters)})\n", scope)
    bound = scope[name]

    def tell(self: Handle, *args: Any, **kwargs: Any) -> None:
        object.__getattribute__(self, "_asker").tell(self, bound(*args, **kwargs))

    return tell


_handle_classes: dict[tuple, type] = {}


def handle_class(name: str, methods: tuple[str, ...], attributes: tuple[str, ...],
                 is_callable: bool, notes: Notes | None = None) -> type:
    """The class of the handles of one kind of judge object, named as its class is."""
    key = (name, methods, attributes, is_callable, notes)
    if key not in _handle_classes:
        namespace: dict[str, Any] = {"__slots__": (), "__module__": "agentlab.judge"}
        namespace.update({method: _method(method) for method in methods})
        namespace.update({attribute: _attribute(attribute) for attribute in attributes})
        if is_callable:
            namespace["__call__"] = _call if notes is None else _noting(notes)
        _handle_classes[key] = type(name, (Handle,), namespace)
    return _handle_classes[key]


class Outgoing(Outbound):
    """This side's messages for the judge: a list or dict the judge handed over goes back named
    (with what it holds now), a handle as its number, a lab value by what makes it, and any
    other object as its type and a number that brings the very object back.

    A message is written a value at a time (`_spliced`): each value that is plain data and
    names nothing the judge handed over by CPython's pickler asked nothing, at C speed; the
    others by this naming pickler, which asks about every object; the pieces joined make the
    one pickle either way would. The naming pickler, with no memo, stops at a container inside
    itself (ValueError) or nested past the interpreter's depth (RecursionError); the message is
    then written again whole and `exact`: each container named as it goes, so one inside
    itself, or nested DEPTH_CAP deep, goes as a stranger."""

    def __init__(self, server: Side) -> None:
        super().__init__()
        self.server = server
        self.quick, self.unmarked = Marking(MARK_BASE), Marking()
        self.marks_of: int | None = None  # the `handed_version` the quick pickler's marks are of
        self.key_pieces: dict[str, bytes] = {}
        self.named: set[int] = set()  # the references named this message
        self.strangers = 0  # values sent as strangers so far
        self.exact = False
        self.inside: list[int] = []  # the ids of the containers being written, outermost first
        self.leaving: dict[int, tuple[Any, ...]] = {}
        """By the id of the empty list that closes a container's id: what to do once it is
        written (its id left `inside`; the judge's snapshot of it kept)."""
        self.fresh: Any = None  # the copy an id just returned carries: written as data
        self.held: list[tuple[int, list | dict, bytes | None, list | None]] = []
        """What the judge will hold of each list it is sent, once the message is written."""

    def encode(self, message: dict) -> bytes:
        """`message` as bytes; the snapshots of what the judge then holds kept."""
        try:
            body = self._spliced(message)
        except _Whole:
            body = self._whole(message)
        for held in self.held:
            self.server.snapshots.hold(*held)
        return body

    def _whole(self, message: dict) -> bytes:
        """`message` written in one go by the naming pickler, `exact` if it must be."""
        try:
            return self._written(message)
        except (ValueError, RecursionError):
            self.exact = True
            try:
                return self._written(message)
            finally:
                self.exact = False

    def _begin(self) -> None:
        """A message is about to be written: nothing of it is named or held yet."""
        self.named, self.held, self.fresh = set(), [], None
        self.inside.clear()
        self.leaving.clear()

    def _written(self, message: dict) -> bytes:
        self._begin()
        return self.dumps(message)

    def _spliced(self, message: dict) -> bytes:
        """`message` as one pickle made of pieces: at C speed whole when the judge handed
        nothing over to name and it is plain data; else its protocol's own fields so, then
        each value the code made (`CARRIED`, in the message's order, so what one names is
        named before the next; a call's arguments one at a time), and last its sync, which
        names what the judge handed over, by the naming pickler."""
        self._begin()
        if not self.server.handed:
            whole = self._quick(message)
            if whole is not None:
                return whole
        fixed = self._quick({key: value for key, value in message.items()
                             if key not in CARRIED and key != "sync"})
        if fixed is None:
            raise _Whole
        body = [OPENING, _opcodes(fixed)]
        for key, value in message.items():
            if key in CARRIED:
                body += (self._key(key), self._piece(value, split=key == "a"), pickle.SETITEM)
        if "sync" in message:
            body += (self._key("sync"), self._named(message["sync"]), pickle.SETITEM)
        body.append(pickle.STOP)
        return b"".join(body)

    def _key(self, key: str) -> bytes:
        """The opcodes of one of the protocol's keys, made once."""
        piece = self.key_pieces.get(key)
        if piece is None:
            piece = self.key_pieces[key] = self._piece(key)
        return piece

    def _piece(self, value: Any, split: bool = False) -> bytes:
        """The opcodes of `value`: plain data's at C speed when it names nothing the judge
        handed over (`_quick`), else the naming pickler's; with `split` (a list made for the
        message), those of each of its items so (at once while the judge has handed anything
        over: an argument of the code's own is most often plain, one of the judge's never)."""
        items = split and type(value) is list and value
        if items and self.server.handed:
            return self._items(value)
        quick = self._quick(value, marked=type(value) not in SCALARS)
        if quick is not None and len(quick) <= PIECE_CAP:
            return _opcodes(quick)
        return self._items(value) if items else self._named(value)

    def _items(self, values: list) -> bytes:
        """The opcodes of a list made for the message, its items' pieces one by one."""
        return (pickle.EMPTY_LIST + pickle.MARK + b"".join(self._piece(item) for item in values)
                + pickle.APPENDS)

    def _named(self, value: Any) -> bytes:
        """The opcodes of `value` by the naming pickler."""
        try:
            return _opcodes(self.dumps(value))
        except (ValueError, RecursionError):
            raise _Whole from None

    def _quick(self, value: Any, marked: bool = False) -> bytes | None:
        """`value`'s pickle when it is plain data (exact types) holding no int the judge would
        refuse; with `marked`, and no list or dict the judge handed over either (each met as a
        mark, `MARK_BASE`); else None. Nothing of the student's runs: its first object that is
        not plain data stops the pickler before any method of it is asked (the few it writes
        unasked, NOT_DATA, are looked for after)."""
        handed = self.server.handed
        pickler = self.unmarked
        if marked and handed:
            pickler = self.quick
            if self.marks_of != self.server.handed_version:
                if len(handed) >= MARKS_CAP:
                    return None
                pickler.mark(container for _, container in handed.values())
                self.marks_of = self.server.handed_version
        body = pickler.pickled(value)
        if body is None or NOT_DATA.search(body) is not None \
                or (pickler is self.quick and MARKED.search(body) is not None):
            return None
        return body

    def container(self, value: list | dict) -> Any:
        """A list or dict the judge handed over goes by its reference: alone when the judge
        holds it as it is (or it was named already in this message), else with what the
        judge lacks of it, the items after those it holds as they are (`unchanged`: what this
        process last sent of it, or, for an argument of the call, what arrived)."""
        if value is self.fresh:
            self.fresh = None
            return None
        if self.leaving:
            left = self.leaving.pop(id(value), None)
            if left is not None:
                return self._left(*left)
        server = self.server
        ref = server.reference(value) if server.handed else None
        if id(value) in self.inside or (self.exact and len(self.inside) >= DEPTH_CAP):
            return self.stranger(value)
        if ref is None:
            return self._entering(("$=",), value, None) if self.exact else None
        if ref in self.named:
            return ("$r", ref)
        self.named.add(ref)
        if server.whole():  # named twice among the calls running, or the test is stopping
            return self._entering(("$r", ref, 0), value, None)
        snapshots = server.snapshots
        same, whole, items = snapshots.kept(ref, value)
        if same < 0:
            return ("$r", ref)
        return self._entering(("$r", ref, same), value, (ref, whole, items, self.strangers),
                              same)

    def _entering(self, tag: tuple, value: list | dict, held: tuple | None,
                  keep: int = 0) -> tuple:
        """The id of a container written with its contents (its items after the first `keep`),
        closed by an empty list whose own id, met, says it is written (`_left`)."""
        closing: list = []
        self.leaving[id(closing)] = (id(value), value, held)
        self.inside.append(id(value))
        self.fresh = (value[keep:] if keep else list(value)) if type(value) is list \
            else dict(value)
        return (*tag, self.fresh, closing)

    def _left(self, ident: int, value: list | dict, held: tuple | None) -> None:
        """A container is written: out of `inside`; the judge now holds what was sent of it
        (unless a stranger went with it, which the snapshot cannot tell apart)."""
        self.inside.remove(ident)
        if held is not None:
            ref, whole, items, strangers = held
            self.held.append((ref, value, whole if self.strangers == strangers else None,
                              items))

    def stranger(self, value: Any) -> Any:
        number = handle_number(value)
        if number is not None:
            return ("$h", number)
        # imported at the first value that is neither data nor a handle, not at start:
        # lab.remaking brings the lab's model and steps (milliseconds), and most checks never
        # send such a value
        from agentlab_magics.lab.remaking import recipe

        self.strangers += 1
        made_of = recipe(value)
        if made_of is not None:
            return ("$v", *made_of)
        base = _plain_base(value)
        if base is not None:
            try:
                return ("$x", type_name(value), base.__name__, base(value),
                        self.server.export(value))
            except Exception:  # the code's own conversion failed: it is a stranger like any
                pass
        if _is_step(value):  # a step of the student's own: its answers run here
            return ("$s", self.server.export(value), type_name(value))
        return ("$c" if callable(value) else "$o", self.server.export(value), type_name(value))


def _opcodes(pickled: bytes) -> bytes:
    """A pickle's opcodes without its protocol, its one frame's header and its stop, to join
    with others (a pickle longer than PIECE_CAP may hold frames inside: `_Whole`)."""
    if len(pickled) > PIECE_CAP:
        raise _Whole
    return pickled[11 if pickled[2] == pickle.FRAME[0] else 2:-1]


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

    def __init__(self, server: Side) -> None:
        self.server = server
        self.arriving: list[tuple[int, Any]] = []
        self.plain = True  # the message read holds nothing but plain data and handles

    def tagged(self, pid: Any) -> Any:
        tag = pid[0]
        if tag == "$r":
            self.arriving.append((pid[1], pid[2]))
            return pid[2]
        if tag == "$h":
            return self.server.handle(*pid[1:])
        if tag == "$w":  # whether the call's arguments named one list twice
            return pid[1]
        self.plain = False
        if tag in ("$c", "$o"):
            ident = pid[1]
            if type(ident) is str:  # one of the module's own functions, by name
                return getattr(self.server.module, ident)
            return self.server.exported[ident]
        if tag == "$v":
            from agentlab_magics.lab.remaking import made  # not at start: see `stranger`

            return made(pid[1], pid[2])
        raise KeyError(tag)
