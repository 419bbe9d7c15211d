"""Text from a submission, shown where a person reads it: any bytes carried as data, escaped.

A file name that is not UTF-8 reaches Python as lone surrogates (os.fsdecode), a kernel's
message may carry any code point, and a log or a terminal would take control characters as
orders. `printable` keeps what reads as text and writes the rest as escapes, so it can be
written to any file or screen, and `file_name` shows a name as the bytes it was.
"""

from __future__ import annotations

import os
import re

# C0 and C1 controls but tab and newline, DEL, and the surrogates (never valid alone)
UNPRINTABLE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def _escape(found: re.Match) -> str:
    code = ord(found[0])
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """`text` with every control character but tab and newline, and every lone surrogate,
    written as an escape (\\x1b, \\udce9)."""
    return UNPRINTABLE.sub(_escape, text)


def file_name(name: str) -> str:
    """A file name as a person reads it: its bytes as UTF-8, those that are not as \\xNN."""
    raw = os.fsencode(name)
    return printable(raw.decode("utf-8", errors="backslashreplace"))


def odd_names(names: list[str]) -> list[str]:
    """Those of `names` that are not plain printable UTF-8, each shown escaped."""
    return [file_name(name) for name in names if printable(name) != name]
