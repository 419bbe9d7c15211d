"""What crosses the pipe between the judge and the student process: frames of JSON, values of
exact types.

Both sides import this module and nothing else of each other; it needs only the standard
library. A frame is a 4-byte little-endian length and that many bytes of UTF-8 JSON. A value is
carried as a JSON tree in which plain data is itself and everything else is a one-key-first
tagged object, so no type is lost on the way and no object is ever rebuilt from code:

    None, bool, int, str         as JSON (an int too long to print is a stranger)
    float                        as JSON; nan and the infinities as {"$f": "nan"}
    list                         as a JSON array
    dict                         as a JSON object when every key is a str not starting "$",
                                 else {"$d": [[key, value], ...]}
    tuple, bytes                 {"$t": [...]}, {"$b": "<base64>"}

The rest is the side's own (`Outbound.stranger`, `Inbound.tagged`): handles, references to
containers the other side sent, objects named by their type. A tagged object is known by its
first key alone; a dict whose first key starts with "$" is never plain data on the wire.
"""

from __future__ import annotations

import base64
import json
import math
import os
import select
import struct
import time
from collections.abc import Callable
from typing import Any

VERSION = 2
"""The protocol's version: the student process says it first, and the judge refuses another."""
HEADER = struct.Struct("<I")
FRAME_CAP = 32 << 20          # bytes of one frame
DEPTH_CAP = 100               # containers inside containers in one value
INT_BITS_CAP = 12_000         # bits of an int carried as JSON (Python prints about 4,300 digits)
# bytes read from a pipe at a time: one pipe's buffer, so a read allocates no more than it can get
READ_SIZE = 64 << 10
SPECIAL_FLOATS = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


class WireError(Exception):
    """A frame that cannot be read: too big, cut short, or not the protocol's JSON."""


class PeerGone(WireError):
    """The other side closed the pipe."""


class TimedOut(WireError):
    """No frame came before the deadline."""


# made once: json.dumps and json.loads given options make an encoder or decoder every call
_ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def frame_of(message: dict) -> bytes:
    """`message` (a JSON tree) as one frame's bytes."""
    body = _ENCODER.encode(message).encode("utf-8", "surrogatepass")
    return HEADER.pack(len(body)) + body


def write_frame(fd: int, message: dict, deadline: float | None = None,
                before: bytes = b"") -> None:
    """Send `message` (a JSON tree) as one frame, whole, after `before` (frames already made,
    `frame_of`: they go in the same write, so the reader wakes once for all). On a
    descriptor set non-blocking, wait for room no later than `deadline` (TimedOut): a reader
    that stops reading never holds the writer."""
    data = memoryview(before + frame_of(message))
    while data:
        try:
            data = data[os.write(fd, data):]
        except BlockingIOError:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and (left <= 0 or not select.select([], [fd], [], left)[1]):
                raise TimedOut("no room in the pipe before the deadline") from None
            if left is None:
                select.select([], [fd], [])


class Reader:
    """Frames from one pipe, read in as few reads as the pipe allows (what a read brings past
    the end of one frame is kept for the next)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.nonblocking = not os.get_blocking(fd)
        self.buffer = bytearray()
        self.decoders: dict[Any, json.JSONDecoder] = {}  # by hook

    def frame(self, deadline: float | None = None,
              hook: Callable[[dict], Any] | None = None) -> Any:
        """The next frame, decoded with `hook` for each JSON object (bottom up); wait no later
        than `deadline` (time.monotonic()), None for as long as it takes."""
        while True:
            if len(self.buffer) >= HEADER.size:
                (size,) = HEADER.unpack_from(self.buffer)
                if size > FRAME_CAP:
                    raise WireError(f"a frame of {size:,} bytes, over the {FRAME_CAP >> 20} MB "
                                    "a frame may hold")
                end = HEADER.size + size
                if len(self.buffer) >= end:
                    body = bytes(self.buffer[HEADER.size:end])
                    del self.buffer[:end]
                    decoder = self.decoders.get(hook)
                    if decoder is None:
                        decoder = self.decoders[hook] = json.JSONDecoder(
                            object_hook=hook, parse_constant=_no_constant)
                    return _decoded(body, decoder)
            self._fill(deadline)

    def _fill(self, deadline: float | None) -> None:
        """Read what the pipe holds into the buffer, once some came. A descriptor set
        non-blocking is read first (the answer is often there already: on one CPU the writer
        ran while this side wrote), and waited for in a select only when it is empty; a
        blocking one sleeps in the read itself when there is no deadline, else in a select
        first. A select ends at the deadline (TimedOut). A reader never spins: on a machine
        whose CPUs are shared, a spinning reader takes the CPU its writer needs (bench_check
        measured a crossing at 70-110 us asleep under load, against 300-1,000 us spinning
        300 us first)."""
        chunk = None
        if self.nonblocking:
            try:
                chunk = os.read(self.fd, READ_SIZE)
            except BlockingIOError:
                pass
        if chunk is None:
            if deadline is not None or self.nonblocking:
                left = None if deadline is None else deadline - time.monotonic()
                if (left is not None and left <= 0) \
                        or not select.select([self.fd], [], [], left)[0]:
                    raise TimedOut("no frame before the deadline")
            chunk = os.read(self.fd, READ_SIZE)
        if not chunk:
            raise PeerGone("the pipe was closed")
        self.buffer += chunk


def _decoded(body: bytes, decoder: json.JSONDecoder) -> Any:
    try:
        return decoder.decode(body.decode("utf-8", "surrogatepass"))
    except (ValueError, RecursionError, TypeError, KeyError) as exc:
        raise WireError(f"a frame that is not the protocol's JSON ({type(exc).__name__})") \
            from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


class Outbound:
    """Turns one side's values into JSON trees. Plain data is handled here; a list or dict the
    side wants to name goes through `container`, anything else through `stranger`."""

    def encode(self, value: Any) -> Any:
        return self._encode(value, 0, set())

    def _encode(self, value: Any, depth: int, path: set[int]) -> Any:
        kind = type(value)
        if kind is str or kind is bool or value is None:
            return value
        if kind is int:
            return value if value.bit_length() <= INT_BITS_CAP else self.stranger(value)
        if kind is float:
            return value if math.isfinite(value) else {"$f": repr(value)}
        if kind is list or kind is dict or kind is tuple:
            if depth >= DEPTH_CAP or id(value) in path:
                return self.stranger(value)
            path.add(id(value))  # left there if this raises: the whole encode stops then
            tree = self.container(value, depth + 1, path)
            path.discard(id(value))
            return tree
        if kind is bytes:
            return {"$b": base64.b64encode(value).decode("ascii")}
        return self.stranger(value)

    def container(self, value: Any, depth: int, path: set[int]) -> Any:
        """The tree of a list, dict or tuple: its contents (`contents`), or, on a side that
        names the containers it shares, a tagged object naming it."""
        return self.contents(value, depth, path)

    def contents(self, value: Any, depth: int, path: set[int]) -> Any:
        """A list's, dict's or tuple's tree (a str inside is itself, asked of no method: most
        of what crosses is text)."""
        encode = self._encode
        kind = type(value)
        if kind is tuple:
            return {"$t": [item if type(item) is str else encode(item, depth, path)
                           for item in value]}
        if kind is list:
            return [item if type(item) is str else encode(item, depth, path) for item in value]
        if _plain_keys(value):
            return {key: item if type(item) is str else encode(item, depth, path)
                    for key, item in value.items()}
        return {"$d": [[encode(key, depth, path), encode(item, depth, path)]
                       for key, item in value.items()]}

    def stranger(self, value: Any) -> Any:
        """The tree of a value that is not plain data (or too deep, or holds itself)."""
        raise NotImplementedError


def _plain_keys(value: dict) -> bool:
    """Whether every key of `value` is a str that does not start "$" (so it is a JSON object
    as it is)."""
    for key in value:  # noqa: SIM110 (a loop: all() of a generator takes twice as long)
        if type(key) is not str or key[:1] == "$":
            return False
    return True


class Inbound:
    """Turns JSON trees from the other side back into values: the plain tags here, the side's
    own in `tagged`. Used as `Reader.frame`'s hook, so objects are made bottom up."""

    def __call__(self, tree: dict) -> Any:
        for key in tree:
            if key[:1] == "$":
                return self.plain_tag(key, tree)
            return tree
        return tree

    def plain_tag(self, tag: str, tree: dict) -> Any:
        body = tree[tag]
        if tag == "$t":
            return tuple(_list(body))
        if tag == "$d":
            return dict(map(_pair, _list(body)))
        if tag == "$f":
            return SPECIAL_FLOATS[body]
        if tag == "$b":
            return base64.b64decode(body if type(body) is str else "", validate=True)
        return self.tagged(tag, tree)

    def tagged(self, tag: str, tree: dict) -> Any:
        raise KeyError(tag)


def _list(body: Any) -> list:
    if type(body) is not list:
        raise TypeError("a tag's body is not a list")
    return body


def _pair(item: Any) -> tuple[Any, Any]:
    if type(item) is not list or len(item) != 2:
        raise TypeError("a dict's item is not a [key, value] pair")
    return item[0], item[1]


def type_name(value: Any) -> str:
    """The name of `value`'s class, read without running any method of it."""
    return type.__dict__["__name__"].__get__(type(value))
