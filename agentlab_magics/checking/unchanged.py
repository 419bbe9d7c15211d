"""What the judge holds of each list or dict it handed to a call, as the student process last
told it: so a list or dict its code left as it was crosses as its name alone, and a list it
appended to crosses as the items after those the judge has.

A snapshot is a pickle of plain data and handles made by a pickler that refuses every other
object before any method of it runs: the same bytes mean the same values of the very same
types (1, 1.0 and True differ, a list is not a tuple, a str subclass is refused) and the same
handles, so "unchanged" is exact. Only what was sent, or handed over, as plain data and
handles is snapshotted; anything else is sent whole every time. Part of the student process: it
imports only the standard library.
"""

from __future__ import annotations

import io
import pickle
from collections.abc import Callable, Iterable
from typing import Any


class _NotPlain(Exception):
    pass


def _handle(ident: int) -> None:
    """What a handle stands as in a snapshot: this function and the handle's number."""


class _PlainOnly(pickle.Pickler):
    """Pickles exact dict, list, tuple, str, bytes, int, float, bool and None (and sets, which
    a snapshot never holds: only what crossed as plain data is snapshotted), and each handle as its
    number (`handle_number`); refuses the rest."""

    def __init__(self, file: io.BytesIO, handle_number: Callable[[Any], int | None]) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.fast = True  # no memo: the bytes say nothing of what is shared
        self.handle_number = handle_number

    def reducer_override(self, obj: Any) -> Any:
        if obj is _handle:  # saved by its name
            return NotImplemented
        number = self.handle_number(obj)
        if number is None:
            raise _NotPlain
        return _handle, (number,)


class Snapshots:
    """The snapshots of what the judge holds under each reference: the whole container's, and,
    for a list, each item's."""

    def __init__(self, handle_number: Callable[[Any], int | None]) -> None:
        """`handle_number`: the number of a handle (an object of the judge's), None for any
        other object."""
        self._buffer = io.BytesIO()
        self._handle_number = handle_number
        self._pickler = _PlainOnly(self._buffer, handle_number)
        self.held: dict[int, tuple[bytes, list[bytes | None] | None]] = {}

    def of(self, value: Any) -> bytes | None:
        """The snapshot of `value`, or None when it is not plain data (or holds itself)."""
        buffer = self._buffer
        buffer.seek(0)
        buffer.truncate()
        try:
            self._pickler.dump(value)
        except Exception:  # not plain, holds itself, too deep
            # a dump cut short may leave the pickler's count of what it is inside behind
            self._pickler = _PlainOnly(buffer, self._handle_number)
            return None
        return buffer.getvalue()

    def hold(self, ref: int, container: list | dict, whole: bytes | None,
             items: list[bytes | None] | None = None) -> None:
        """The judge now holds `container` as it is under `ref`: `whole` is its snapshot (None:
        it is not plain data, and is sent whole next time), `items` its items' if made."""
        if whole is None:
            self.held.pop(ref, None)
        elif type(container) is list:
            self.held[ref] = (whole, items if items is not None
                              else [self.of(item) for item in container])
        else:
            self.held[ref] = (whole, None)

    def kept(self, ref: int, container: list | dict
             ) -> tuple[int, bytes | None, list[bytes | None] | None]:
        """How much of `container` the judge holds as it is now: -1 all of it, else how many of
        the list's first items (0 for none); then the container's snapshot (None if it is not
        plain data) and, for a list that changed, its items' snapshots."""
        whole = self.of(container)
        held = self.held.get(ref)
        if whole is None or held is None:
            return 0, whole, None
        if held[0] == whole:
            return -1, whole, None
        before = held[1]
        if before is None:  # a dict's: it goes whole
            return 0, whole, None
        if len(container) > len(before) and self.of(container[:len(before)]) == held[0]:
            # appended to, nothing before changed (a pickle says each item in turn, so the
            # same bytes are the same items): only the new items are read
            return len(before), whole, before + [self.of(item)
                                                 for item in container[len(before):]]
        items = [self.of(item) for item in container]
        same = 0
        for now, then in zip(items, before):
            if now != then:
                break
            same += 1
        return same, whole, items

    def forget(self, refs: Iterable[int]) -> None:
        """The call that handed these over has returned."""
        for ref in refs:
            self.held.pop(ref, None)
