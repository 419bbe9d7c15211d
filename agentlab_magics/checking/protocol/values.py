"""Values: how a message and the values in it cross, as a pickle that holds plain data alone.

Plain data (exact None, bool, int, float, str, bytes, tuple, list and dict) is pickled by
CPython's own pickler, at C speed, with no memo, so what crosses is a tree. Everything else is a
persistent id: a tuple whose first item, one letter, says what it is; the rest is the side's own
(`Outbound.container`, `Outbound.stranger`, `Inbound.tagged`): a list or dict the other side
handed over, a handle, an object of the student's, a lab value by what makes it. No global is
ever pickled: a reader refuses every one (`find_class`), so no bytes, whatever they say, make
a reader import, call or build anything but plain data and what its side makes of an id. Part
of both processes: it needs only the standard library.
"""

from __future__ import annotations

import io
import pickle
from collections.abc import Callable, Iterable
from typing import Any

from agentlab_magics.checking.protocol.caps import INT_BITS_CAP, OBJECTS_CAP

PROTOCOL = 5
ATOMS = frozenset({str, float, bool, type(None), bytes, tuple})
"""The exact types a pickler writes as they are, asked nothing: a tuple's items are asked."""


class Stranger(Exception):
    """A value `PlainOnly` does not write."""


class PlainOnly(pickle.Pickler):
    """Plain data at C speed, asked nothing (a pickler asks `reducer_override` only of what is
    not a builtin container or scalar); anything else stops it."""

    def reducer_override(self, value: Any) -> Any:
        raise Stranger


class Marking(PlainOnly):
    """Plain data at C speed, each list or dict it was told to `mark` met as a memo get of
    `base` plus its place among them (a pickler in fast mode adds nothing to its memo, but
    looks every container up in it): bytes to compare or search, never to read, as every
    reader here refuses a memo get."""

    def __init__(self, base: int = 0) -> None:
        self.buffer = io.BytesIO()
        super().__init__(self.buffer, protocol=PROTOCOL)
        self.fast = True
        self.base = base
        self.marks: dict[int, tuple[int, Any]] = {}

    def mark(self, containers: Iterable[Any]) -> None:
        """Meet each of `containers` as its mark from now on."""
        self.marks = {id(container): (self.base + place, container)
                      for place, container in enumerate(containers)}
        self.memo = self.marks

    def pickled(self, value: Any) -> bytes | None:
        """`value`'s pickle, or None when it is not plain data (or holds itself, or is nested
        past the interpreter's depth); the marks stay either way."""
        try:
            return dumped(self, self.buffer, value)
        except Exception:
            self.memo = self.marks  # the pickler was made afresh
            return None


def dumped(pickler: pickle.Pickler, buffer: io.BytesIO, message: Any) -> bytes:
    """`message` as bytes, by `pickler` (no memo) into `buffer`."""
    buffer.seek(0)
    buffer.truncate()
    try:
        pickler.dump(message)
    except BaseException:
        # a dump cut short leaves behind its count of what it was inside: start afresh
        pickle.Pickler.__init__(pickler, buffer, protocol=PROTOCOL)
        pickler.fast = True
        raise
    return buffer.getvalue()


class Outbound(pickle.Pickler):
    """Writes one side's messages: plain data as itself, a list or dict the side names through
    `container`, an int too long to be data and any other object through `stranger`."""

    def __init__(self) -> None:
        self.buffer = io.BytesIO()
        super().__init__(self.buffer, protocol=PROTOCOL)
        self.fast = True  # no memo: a value shared or inside itself is never said as one
        self.plain = PlainOnly(self.buffer, protocol=PROTOCOL)
        self.plain.fast = True

    def dumps(self, message: Any) -> bytes:
        """`message` as bytes."""
        return dumped(self, self.buffer, message)

    def plain_dumps(self, message: Any) -> bytes:
        """`message` as bytes, at C speed when it is plain data (its ints written whatever
        their length: for the judge's messages, which name no list or dict)."""
        try:
            return dumped(self.plain, self.buffer, message)
        except Stranger:
            return self.dumps(message)

    def persistent_id(self, value: Any) -> Any:
        kind = type(value)
        if kind in ATOMS:
            return None
        if kind is int:
            return None if value.bit_length() <= INT_BITS_CAP else self.stranger(value)
        if kind is list or kind is dict:
            return self.container(value)
        return self.stranger(value)

    def container(self, value: list | dict) -> Any:
        """The id of a list or dict the side names, or None to write it as data."""
        return None

    def stranger(self, value: Any) -> Any:
        """The id of a value that is not plain data."""
        raise NotImplementedError


class _Reader(pickle.Unpickler):
    """CPython's unpickler, refusing every global; each id made by `tagged`."""

    def __init__(self, body: bytes, tagged: Callable[[Any], Any]) -> None:
        super().__init__(io.BytesIO(body))
        self.tagged = tagged

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"a global ({module[:40]}.{name[:40]}) is not data")

    def persistent_load(self, pid: Any) -> Any:
        return self.tagged(pid)


class Inbound:
    """Reads the other side's messages: plain data as itself, each id as `tagged` makes it."""

    def loads(self, body: bytes) -> Any:
        """The message `body` holds."""
        return _Reader(body, self.tagged).load()

    def tagged(self, pid: Any) -> Any:
        """What an id of the other side's stands for here."""
        raise pickle.UnpicklingError("an id this side never hands out")


class NotPlain(ValueError):
    """Bytes that say more than plain data and ids: what `plain_pickle` refuses."""


def _opcodes() -> list[int | None]:
    """What follows each opcode a plain pickle may hold, by its byte: that many bytes
    (>= 0), a length of -n bytes and that many bytes (< 0); None for an opcode it may not."""
    table: list[int | None] = [None] * 256
    sizes = {"PROTO": 1, "FRAME": 8, "STOP": 0, "MARK": 0, "NONE": 0, "NEWTRUE": 0,
             "NEWFALSE": 0, "BININT1": 1, "BININT2": 2, "BININT": 4, "BINFLOAT": 8,
             "LONG1": -1, "LONG4": -4, "SHORT_BINUNICODE": -1, "BINUNICODE": -4,
             "BINUNICODE8": -8, "SHORT_BINBYTES": -1, "BINBYTES": -4, "BINBYTES8": -8,
             "EMPTY_LIST": 0, "APPEND": 0, "APPENDS": 0, "EMPTY_DICT": 0, "SETITEM": 0,
             "SETITEMS": 0, "EMPTY_TUPLE": 0, "TUPLE": 0, "TUPLE1": 0, "TUPLE2": 0,
             "TUPLE3": 0, "BINPERSID": 0}
    for name, size in sizes.items():
        table[getattr(pickle, name)[0]] = size
    return table


OPCODES = _opcodes()
LONG4, SHORT_BINUNICODE = pickle.LONG4[0], pickle.SHORT_BINUNICODE[0]
ID_WEIGHT = 1 << 32
WEIGHTS = [0] * 256
"""What each opcode adds to a frame's count of what it makes: one for a list, dict or tuple,
ID_WEIGHT for an id (`plain_pickle` says both)."""
for _name in ("EMPTY_LIST", "EMPTY_DICT", "EMPTY_TUPLE", "TUPLE1", "TUPLE2", "TUPLE3", "TUPLE"):
    WEIGHTS[getattr(pickle, _name)[0]] = 1
WEIGHTS[pickle.BINPERSID[0]] = ID_WEIGHT


def plain_pickle(body: bytes) -> tuple[int, int]:
    """Refuse (NotPlain) bytes that hold any opcode but those that build plain data and ids,
    an int longer than INT_BITS_CAP bits, or more than OBJECTS_CAP opcodes: so no global is
    looked up, nothing is called, built or shared (no memo, no copy on the stack: what is read
    is a tree), and no few bytes make the reader allocate much more than they are. Whether
    what they build may hold an id, or be nested deeper than DEPTH_CAP (it holds more than
    DEPTH_CAP lists, dicts and tuples): only then need it be walked."""
    at, end, table, weights, count, made = 0, len(body), OPCODES, WEIGHTS, 0, 0
    while at < end:
        opcode = body[at]
        count += 1
        if opcode == SHORT_BINUNICODE:  # most of what crosses: a short text
            at += body[at + 1] + 2
            continue
        size = table[opcode]
        if size == 0:
            at += 1
            made += weights[opcode]
        elif size == -1:
            at += body[at + 1] + 2
        elif size is None:
            raise NotPlain(f"opcode {opcode:#04x} at byte {at}")
        elif size > 0:
            at += size + 1
        else:
            length = int.from_bytes(body[at + 1:at + 1 - size], "little")
            if opcode == LONG4 and length * 8 > INT_BITS_CAP:
                raise NotPlain("an int too long to be data")
            at += length + 1 - size
    if count > OBJECTS_CAP:  # each opcode is a byte at least: the scan itself is bounded
        raise NotPlain(f"more than {OBJECTS_CAP:,} objects")
    return made % ID_WEIGHT, made // ID_WEIGHT


def type_name(value: Any) -> str:
    """The name of `value`'s class, read without running any method of it."""
    return type.__dict__["__name__"].__get__(type(value))
