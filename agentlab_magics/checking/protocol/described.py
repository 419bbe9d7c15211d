"""An exception as data, described the one way whichever side raised it: the student's for
the judge (which checks it against `messages.Described` and makes it an exception there,
`bridge.Strangers`), and a judge object's for the student process, which makes it an exception
again (`rebuilt`). Part of both processes: it needs only the standard library.
"""

from __future__ import annotations

import builtins
import math
import sys
from typing import Any

from agentlab_magics.checking.protocol.caps import EXCEPTION_TEXT_CAP
from agentlab_magics.checking.protocol.values import type_name

BUILTIN_NAMES = frozenset(name for name, value in vars(builtins).items()
                          if isinstance(value, type))


def described(exc: BaseException, filename: str | None = None) -> dict:
    """`exc` as data: its class, the builtin classes it is one of, its arguments (plain data as
    they are, the rest by type), its text, and the lines of the student's file `filename` it
    went through (the deepest last; none for the judge's own exceptions, which have no such
    file)."""
    kind = type(exc)
    try:
        text = str(exc)
    except BaseException:
        text = ""
    return {"type": type_name(exc), "module": str(getattr(kind, "__module__", "")),
            "bases": [base.__name__ for base in kind.__mro__
                      if base.__module__ == "builtins" and base.__name__ in BUILTIN_NAMES],
            "args": [arg if _scalar(arg) else f"<{type_name(arg)}>" for arg in _args(exc)],
            "text": text[:EXCEPTION_TEXT_CAP],
            "lines": [] if filename is None else student_lines(exc, filename)}


def _scalar(value: Any) -> bool:
    """Whether `value` goes into a frame as it is: a str, bool, None, finite float, short int."""
    kind = type(value)
    return (kind is str or kind is bool or value is None
            or (kind is int and value.bit_length() < 64)
            or (kind is float and math.isfinite(value)))


def _args(exc: BaseException) -> tuple:
    args = BaseException.__dict__["args"].__get__(exc)
    return args if type(args) is tuple else ()


def student_lines(exc: BaseException, filename: str) -> list[int]:
    """The line numbers of `filename` the traceback of `exc` went through, outermost first."""
    lines, tb = [], exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            lines.append(tb.tb_lineno)
        tb = tb.tb_next
    return lines[-20:]


def rebuilt(description: dict) -> BaseException:
    """The judge's exception, as an exception in the student process: the builtin class of
    that name, a class of the lab's runtime, or else an Exception subclass named as it is, with
    its arguments."""
    name, args = str(description.get("type", "Exception")), tuple(description.get("args", ()))
    module = str(description.get("module", ""))
    kind: Any = None
    if module == "builtins" and name in BUILTIN_NAMES:
        kind = getattr(builtins, name)
    elif module.startswith(("agentlab_magics.lab", "agentlab_magics.bounded")):
        kind = getattr(sys.modules.get(module), name, None)
    if not (isinstance(kind, type) and issubclass(kind, Exception)):
        kind = type(name, (Exception,), {"__module__": module or "agentlab.judge"})
    try:
        return kind(*args)
    except Exception:
        return type(name, (Exception,), {})(*args)
