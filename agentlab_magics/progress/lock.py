"""An exclusive lock between processes, held on a small file beside the file it guards.

The lock file is never removed: removing it while another process waits on it would let two
processes each hold "the" lock, on two different files.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]
    import msvcrt


def lock_path(guarded: Path) -> Path:
    """The lock file for `guarded`: a hidden sibling, `.NAME.lock`."""
    return guarded.with_name(f".{guarded.name}.lock")


@contextmanager
def held(guarded: Path) -> Iterator[None]:
    """While the block runs, no other process is inside `held` for the same `guarded` path.

    The lock is released when the block ends, however it ends, and when the process dies.
    Raises OSError if the lock file cannot be created (a folder that cannot be written).
    """
    path = lock_path(guarded)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        _acquire(handle)
        try:
            yield
        finally:
            _release(handle)
    finally:
        os.close(handle)


def _acquire(handle: int) -> None:
    """Block until this process holds the exclusive lock on the open file `handle`."""
    if fcntl is not None:
        fcntl.flock(handle, fcntl.LOCK_EX)
        return
    while True:  # pragma: no cover - Windows: LK_LOCK gives up after about 10 s; keep waiting
        try:
            msvcrt.locking(handle, msvcrt.LK_LOCK, 1)
            return
        except OSError:
            continue


def _release(handle: int) -> None:
    """Give up the lock taken by `_acquire` on `handle`."""
    if fcntl is not None:
        fcntl.flock(handle, fcntl.LOCK_UN)
    else:  # pragma: no cover - Windows
        os.lseek(handle, 0, os.SEEK_SET)
        msvcrt.locking(handle, msvcrt.LK_UNLCK, 1)
