"""A one-line text progress bar: how many steps are done, of how many, and the last one.

On a terminal the line is redrawn in place; elsewhere (a log, a pipe) each step is a line.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

WIDTH = 30


class ProgressBar:
    """Counts finished steps out of `total` and draws the bar after each one."""

    def __init__(self, total: int, out: TextIO | None = None):
        self.total, self.done = total, 0
        self.out = out or sys.stderr
        self.started = time.monotonic()

    def line(self, label: str) -> str:
        filled = WIDTH * self.done // max(self.total, 1)
        seconds = time.monotonic() - self.started
        return (f"[{'#' * filled}{'.' * (WIDTH - filled)}] {self.done}/{self.total} "
                f"{seconds:4.0f}s  {label}")

    def redraw(self, label: str) -> None:
        """Draw the bar again with a new label (on a terminal; a log gets a line per step)."""
        if self.out.isatty():
            self.out.write(f"\r\x1b[K{self.line(label)}")
            self.out.flush()

    def step(self, label: str) -> None:
        """One more step done, `label` naming it."""
        self.done += 1
        if self.out.isatty():
            self.out.write(f"\r\x1b[K{self.line(label)}")
            if self.done == self.total:
                self.out.write("\n")
        else:
            self.out.write(self.line(label) + "\n")
        self.out.flush()
