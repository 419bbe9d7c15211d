"""Frames: how one message crosses the pipe between the judge and the student process.

A frame is a 4-byte little-endian length and that many bytes of UTF-8 JSON, at most FRAME_CAP.
A writer sends each frame whole, and on a pipe set non-blocking waits for room no later than
its deadline; a reader decodes each JSON object with the side's hook (`values.Inbound`), bottom
up, and waits for a frame asleep, never spinning. Part of both processes: it needs only the
standard library.
"""

from __future__ import annotations

import json
import os
import select
import struct
import time
from collections.abc import Callable
from typing import Any

from agentlab_magics.checking.protocol.caps import FRAME_CAP

HEADER = struct.Struct("<I")
# bytes read from a pipe at a time: one pipe's buffer, so a read allocates no more than it can get
READ_SIZE = 64 << 10


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
