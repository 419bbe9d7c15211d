"""Where the student's code is, as the student process sees it: whether a name the lab asks
for is code of the student's own file (`made_elsewhere`: a function of the course's, or a
builtin, bound to the name is refused by the judge in a sentence), and which line of that file
a stuck run keeps running (`looping_line`, the judge's question when a test runs out of time). Part
of the student process: it needs only the standard library.
"""

from __future__ import annotations

import types
from typing import Any

from agentlab_magics.checking.protocol.values import type_name


def made_elsewhere(value: Any, module: types.ModuleType) -> str | None:
    """Where `value` was written, when that is not `module`'s own source (a function of the
    course's, a builtin); None for code of the module's file: a function, a method, a class,
    or one of those wrapped (functools.wraps, partial, lru_cache)."""
    filename = module.__file__
    for _ in range(20):
        if isinstance(value, type):
            return None if value.__module__ == module.__name__ else _where(value)
        code = getattr(value, "__code__", None)
        if isinstance(code, types.CodeType):
            return None if code.co_filename == filename else _where(value)
        inner = (getattr(value, "__wrapped__", None) or getattr(value, "__func__", None)
                 or getattr(value, "func", None) or _own_call(value))
        if inner is None:
            return _where(value)
        value = inner
    return _where(value)


def _own_call(value: Any) -> Any:
    """The __call__ a callable object's class defines, if its class was written in Python."""
    for klass in type(value).__mro__:
        found = vars(klass).get("__call__")
        if isinstance(getattr(found, "__code__", None), types.CodeType):
            return found
    return None


def _where(value: Any) -> str:
    """Where `value` comes from, for a sentence: its module and name, or the file its code
    was compiled from."""
    name = str(getattr(value, "__qualname__", None) or type_name(value))
    module = getattr(value, "__module__", None)
    code = getattr(value, "__code__", None)
    if isinstance(module, str) and module not in ("builtins", "__main__"):
        return f"{module}.{name}"[:160]
    if isinstance(code, types.CodeType):
        return f"{name}, from {code.co_filename}"[:160]
    return name[:160]


def own_frames(stacks: list[types.FrameType | None], filename: str) -> list[types.FrameType]:
    """The frames of `filename` in the first of these stacks (each given by its innermost
    frame) that holds one, innermost first."""
    for frame in stacks:
        found = []
        while frame is not None:
            if frame.f_code.co_filename == filename:
                found.append(frame)
            frame = frame.f_back
        if found:
            return found
    return []


def looping_line(now: list[types.FrameType], before: list[types.FrameType]) -> int | None:
    """The line of the frame that loops: of `now` (frames of the student's file, innermost
    first), the innermost that `before` (the same at an earlier look, held alive since, so no
    frame made later has one's id) holds too, as it kept running while the calls it makes came
    and went; else the innermost. None for no frame."""
    earlier = {id(frame) for frame in before}
    for frame in now:
        if id(frame) in earlier:
            return frame.f_lineno
    return now[0].f_lineno if now else None
