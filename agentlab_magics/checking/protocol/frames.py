"""Frames: how one message crosses the pipe between the judge and the student process.

A frame is a 4-byte little-endian length and that many bytes of a message (`values`), at most
FRAME_CAP. A writer sends each frame whole, and on a pipe set non-blocking waits for room no
later than its deadline; a reader gives each frame's bytes whole, and waits for one asleep,
never spinning. Part of both processes: it needs only the standard library.
"""

from __future__ import annotations

import os
import select
import struct
import time

from agentlab_magics.checking.protocol.caps import FRAME_CAP

HEADER = struct.Struct("<I")
# bytes read from a pipe at a time: one pipe's buffer, so a read allocates no more than it can get
READ_SIZE = 64 << 10


class WireError(Exception):
    """A frame that cannot be read: too big, cut short, or not the protocol's message."""


class PeerGone(WireError):
    """The other side closed the pipe."""


class TimedOut(WireError):
    """No frame came before the deadline."""


def frame_of(body: bytes) -> bytes:
    """A message's bytes as one frame."""
    return HEADER.pack(len(body)) + body


def write_frame(fd: int, body: bytes, deadline: float | None = None,
                before: bytes = b"") -> None:
    """Send a message's bytes as one frame, whole, after `before` (frames already made,
    `frame_of`: they go in the same write, so the reader wakes once for all). On a
    descriptor set non-blocking, wait for room no later than `deadline` (TimedOut): a reader
    that stops reading never holds the writer."""
    data = memoryview(before + frame_of(body))
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

    def frame(self, deadline: float | None = None) -> bytes:
        """The next frame's bytes; wait no later than `deadline` (time.monotonic()), None for
        as long as it takes."""
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
                    return body
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
