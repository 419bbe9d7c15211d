"""The student's code as the tests see it: a module, where a missing name says it is not written.

Loading never raises into our internals: a syntax error or an exception while the file
runs becomes one sentence naming the student's own line.
"""

from __future__ import annotations

import sys
import traceback
import types
from pathlib import Path


class NotWrittenYet(AssertionError):
    """A test needed a name the student has not written yet."""


class CodeProblem(Exception):
    """The student's code could not be loaded; the message says where and why."""


class StudentModule:
    """Attribute access to the student's module; a missing name fails the test with a sentence."""

    def __init__(self, module: types.ModuleType, purposes: dict[str, str]):
        self._module = module
        self._purposes = purposes

    def __getattr__(self, name: str):
        try:
            return getattr(self._module, name)
        except AttributeError:
            purpose = self._purposes.get(name)
            detail = f": it {purpose}" if purpose else ""
            raise NotWrittenYet(f"{name} is not written yet{detail}.") from None

    def missing(self, names: list[str]) -> list[str]:
        return [name for name in names if not hasattr(self._module, name)]


def course_imports() -> None:
    """Let student code say `import lab` and `import loops`, as the course pages do."""
    from agentlab_magics import lab
    from agentlab_magics.reference import loops

    sys.modules.setdefault("lab", lab)
    sys.modules.setdefault("loops", loops)


def load(source: str, filename: str = "harness.py", name: str = "harness") -> types.ModuleType:
    """Run `source` as a fresh module called `name`; a CodeProblem if it cannot be run."""
    course_imports()
    module = types.ModuleType(name)
    module.__file__ = filename
    module.__source__ = source
    try:
        code = compile(source, filename, "exec")
    except SyntaxError as exc:
        raise CodeProblem(syntax_sentence(exc, source)) from None
    try:
        exec(code, module.__dict__)
    except BaseException as exc:  # student code may raise anything, SystemExit included
        raise CodeProblem(f"Running {Path(filename).name} raised "
                          f"{where(exc, filename, source)}") from None
    return module


def load_path(path: str | Path, name: str = "harness") -> types.ModuleType:
    path = Path(path)
    if not path.is_file():
        raise CodeProblem(f"There is no file {path}. Give the path of your {name}.py.")
    return load(path.read_text(encoding="utf-8"), str(path), name)


def syntax_sentence(exc: SyntaxError, source: str) -> str:
    """A syntax error as a sentence: which line, what Python said, and the line itself."""
    line = (exc.text or _line(source, exc.lineno)).rstrip("\n")
    pointer = " " * max((exc.offset or 1) - 1 - (len(line) - len(line.lstrip())), 0) + "^"
    name = Path(exc.filename or "your code").name.strip("<>")
    return (f"Line {exc.lineno} of {name} is not valid Python "
            f"({exc.msg}):\n    {line.strip()}\n    {pointer}")


def student_line(exc: BaseException, filename: str) -> int | None:
    """The deepest line of the student's file in the traceback of `exc`, if it went through it."""
    frames = [frame for frame in traceback.extract_tb(exc.__traceback__)
              if frame.filename == filename]
    return frames[-1].lineno if frames else None


def where(exc: BaseException, filename: str, source: str) -> str:
    """'<Error>: <message>, at line N: <code>' with N the deepest line of the student's file."""
    text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    lineno = student_line(exc, filename)
    if lineno is None:
        return text
    return f"{text}, at line {lineno}: {_line(source, lineno).strip()}"


def _line(source: str, lineno: int | None) -> str:
    lines = source.splitlines()
    return lines[lineno - 1] if lineno and 0 < lineno <= len(lines) else ""


def register(module: types.ModuleType) -> None:
    """Make `import <module name>` give this module, as a notebook's later cells expect."""
    sys.modules[module.__name__] = module
