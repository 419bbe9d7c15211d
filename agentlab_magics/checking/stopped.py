"""How the judge stops a test whose code did not end it: the student process ran out of time,
ended, or broke the protocol (`Stopped` and its kinds), or a list it was handed grew past the
record's cap (`RecordCap`). Each carries the sentence the student reads, and the runner turns
it into the test's outcome.
"""

from __future__ import annotations

from agentlab_magics.lab.caps import CapReached


class Stopped(BaseException):
    """The student process failed the test in a way no test asked about: it ran out of
    time, ended, or broke the protocol. The argument is the sentence."""


class OutOfTime(Stopped):
    """The test's time ran out while the student process had the turn: `line` is the line of
    the student's file it said it was running (None if it said none), and `early` is true when
    a `Glance` stopped the test, still on the line an earlier test spun on."""

    def __init__(self, sentence: str, line: int | None = None, early: bool = False) -> None:
        super().__init__(sentence)
        self.line, self.early = line, early


class Ended(Stopped):
    """The student process ended (or was ended) while it had the turn."""


class Unreadable(Stopped):
    """The student process sent something the protocol does not allow."""


class RecordCap(CapReached):
    """A list handed over grew past the record's cap in the student process: `length` is how
    long it grew, `edges` its first and last items (RECORD_EDGE of each)."""

    def __init__(self, sentence: str, length: int, edges: list) -> None:
        super().__init__(sentence)
        self.length, self.edges = length, edges
