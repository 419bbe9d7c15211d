"""The student's source, from a `%%check` cell or a file: read as Python reads source,
compiled and run as a module in the process that asks (the kernel's, for a cell's names), and
`import lab` and `import loops` made to work there as the course pages use them (the student
process does the same). A name a test needs that the code lacks is `NotWrittenYet`'s sentence.

Loading never raises into our internals: a file that cannot be read, a syntax error, or an
exception while the code runs becomes one sentence naming the student's own line (`CodeProblem`).
"""

from __future__ import annotations

import io
import json
import re
import sys
import tokenize
import types
from pathlib import Path

from agentlab_magics.checking.course_names import course_imports

CELL = "<your cell>"
"""The file name a `%%check` cell's code is compiled as, in the kernel and in the student
process: a sentence names it "your cell"."""


class NotWrittenYet(BaseException):
    """A test needed a name the student has not written yet. Not an AssertionError, nor any
    Exception: a test that catches what the student's code raises (a check's failed assert)
    never takes it for the code's own."""


NOT_WRITTEN = re.compile(r"[A-Za-z_]\w* is not written yet(: it .*)?\.", re.DOTALL)


def not_written(message: str) -> bool:
    """Whether a test's failure message is NotWrittenYet's sentence: the test stopped on a name
    the student has not written, so nothing it ran says more than that."""
    return NOT_WRITTEN.fullmatch(message) is not None


class CodeProblem(Exception):
    """The student's code could not be loaded; the message says where and why."""


def as_in_the_cell(body: str) -> str:
    """The body of a `%%check` cell laid out as the cell holds it: the magic's own line is left
    blank above it, so line N of the code that runs is line N the notebook shows."""
    return "\n" + body


def load(source: str, filename: str = "harness.py", name: str = "harness") -> types.ModuleType:
    """Run `source`, in this process, as a fresh module called `name` (importable by that name
    while it runs, as a dataclass or pydantic model of the file expects); a CodeProblem if it
    cannot be run. A leading byte order mark is dropped, as Python drops it from a file."""
    module, code = compiled(source, filename, name)
    before = sys.modules.get(name)
    sys.modules[name] = module
    try:
        exec(code, module.__dict__)
    except BaseException as exc:  # student code may raise anything, SystemExit included
        text = exception_text(exc)
        lineno = student_line(exc, code.co_filename)
        raise CodeProblem(f"Running {Path(code.co_filename).name.strip('<>')} raised "
                          f"{at_line(text, lineno, module.__source__)}") from None
    finally:
        if before is None:
            sys.modules.pop(name, None)
        else:
            sys.modules[name] = before
    return module


def compiled(source: str, filename: str = "harness.py", name: str = "harness"
             ) -> tuple[types.ModuleType, types.CodeType]:
    """A fresh module called `name` and `source` compiled for it; nothing of it runs yet."""
    course_imports()
    source = source.removeprefix("\ufeff")
    module = types.ModuleType(name)
    module.__file__ = filename
    setattr(module, "__source__", source)  # noqa: B010 (the module's own name for it)
    try:
        code = compile(source, filename, "exec", dont_inherit=True)  # not this file's __future__
    except SyntaxError as exc:
        exc.filename = exc.filename or filename
        raise CodeProblem(syntax_sentence(exc, source)) from None
    except (RecursionError, MemoryError):  # how CPython 3.11 reports code nested too deeply
        raise CodeProblem(f"{Path(filename).name} is nested too deeply for Python to compile: "
                          "break the deepest expression into steps.") from None
    return module, code


def load_path(path: str | Path, name: str = "harness") -> types.ModuleType:
    """Run the file at `path` as module `name`. It is decoded as Python decodes a source file
    (UTF-8, a byte order mark allowed, or the encoding its coding line declares); a file that
    is missing, unreadable or not such text is a CodeProblem sentence, never an OSError or a
    UnicodeDecodeError."""
    return load(read_source(path, name), str(path), name)


def read_source(path: str | Path, name: str = "harness") -> str:
    """The text of the student's file at `path`, decoded as `load_path` describes."""
    path = Path(path)
    if path.is_dir():
        raise CodeProblem(f"{path} is a folder. Give the path of your {name}.py inside it.")
    if not path.exists():
        raise CodeProblem(f"There is no file {path}. Give the path of your {name}.py.")
    if not path.is_file():
        raise CodeProblem(f"{path} is not a file to read (a pipe, a device or a socket). Give "
                          f"the path of your {name}.py.")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise CodeProblem(f"{path} could not be read ({exc.strerror or exc}).") from None
    if _is_notebook(path, raw):
        raise CodeProblem(f"{path} is a notebook, not a Python file: check the lab's cell in "
                          f"Jupyter with %%check, or save that cell's code as {name}.py and "
                          "give that file.")
    return source_text(raw, path.name)


def _is_notebook(path: Path, raw: bytes) -> bool:
    """Whether the file is a Jupyter notebook: named .ipynb, or a JSON object with the
    "nbformat" key every notebook has (as Python, its first `null` is a NameError)."""
    if path.suffix.lower() == ".ipynb":
        return True
    if raw.lstrip()[:1] != b"{":
        return False
    try:
        return "nbformat" in json.loads(raw)
    except (ValueError, TypeError, RecursionError):
        return False


def source_text(raw: bytes, name: str) -> str:
    """`raw` (the file `name`) decoded as Python decodes source, or a CodeProblem saying
    which byte is not text and how to save the file."""
    try:
        encoding = tokenize.detect_encoding(io.BytesIO(raw).readline)[0]
    except SyntaxError as exc:  # a first line that is not UTF-8, or a coding line gone wrong
        _decoded(raw, "utf-8", name)  # the byte that is not UTF-8, if that is what it is
        raise CodeProblem(f"The coding line at the top of {name} is wrong ({exc.msg}): "
                          "delete it and save the file as UTF-8.") from None
    return _decoded(raw, encoding, name)


def _decoded(raw: bytes, encoding: str, name: str) -> str:
    """`raw` decoded with `encoding`; a CodeProblem naming the first byte that is not."""
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as exc:
        position = len(raw) - len(exc.object) + exc.start  # a BOM codec skips the BOM first
        raise CodeProblem(undecodable(raw, position, encoding, name)) from None


def undecodable(raw: bytes, position: int, encoding: str, name: str) -> str:
    """Why `raw` is not source text, with the first bad byte, its position and its line."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return (f"{name} is saved as UTF-16, which Python does not read as source: save it "
                "as UTF-8.")
    text = ("UTF-8 text" if encoding.startswith("utf-8")
            else f"{encoding} text as its coding line says")
    byte, lineno = raw[position], raw.count(b"\n", 0, position) + 1
    if b"\0" in raw:
        return (f"{name} is not a text file: it holds NUL bytes, and byte 0x{byte:02x} at "
                f"position {position} (line {lineno}) is not {text}. Give the path of your "
                "Python file.")
    return (f"{name} is not {text} (byte 0x{byte:02x} at position {position}, on line "
            f"{lineno}): save it as UTF-8.")


def syntax_sentence(exc: SyntaxError, source: str) -> str:
    """A syntax error as a sentence: which line, what Python said, and the line itself with a
    caret under the place Python names (on the line's last character when Python names the
    end of the line or beyond, so the caret never points past what is shown).
    An error Python gives no line for (a NUL byte) still names the file and, where it can be
    found, the line."""
    name = Path(exc.filename or "your code").name.strip("<>")
    if exc.lineno is None:
        return _lineless_sentence(exc, source, name)
    line = (exc.text or source_line(source, exc.lineno)).rstrip("\n")
    shown = line.strip()
    column = (exc.offset or 1) - 1 - (len(line) - len(line.lstrip()))
    pointer = " " * min(max(column, 0), max(len(shown) - 1, 0)) + "^"
    return (f"Line {exc.lineno} of {name} is not valid Python "
            f"({exc.msg}):\n    {shown}\n    {pointer}")


def _lineless_sentence(exc: SyntaxError, source: str, name: str) -> str:
    """A syntax error without a line number as a sentence: a NUL byte is found and its line
    named; anything else is Python's message."""
    nul = source.find("\0")
    if nul < 0:
        return f"{name} is not valid Python ({exc.msg})."
    lineno = source.count("\n", 0, nul) + 1
    return (f"Line {lineno} of {name} holds a NUL byte (\\0), which Python does not allow "
            "in source: delete it. (Files saved as UTF-16, or with binary data pasted in, "
            "hold them.)")


def student_line(exc: BaseException, filename: str) -> int | None:
    """The deepest line of the student's file in the traceback of `exc`, if it went through it."""
    lineno, tb = None, exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            lineno = tb.tb_lineno
        tb = tb.tb_next
    return lineno


def exception_text(exc: BaseException) -> str:
    """'<Error>: <message>', or the bare name when the message is empty."""
    message = str(exc)
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def at_line(text: str, lineno: int | None, source: str) -> str:
    """`text`, followed by the student's line `lineno` when there is one."""
    if lineno is None:
        return text
    return f"{text}, at line {lineno}: {source_line(source, lineno).strip()}"


def source_line(source: str, lineno: int | None) -> str:
    """Line `lineno` of `source`, "" when it has none."""
    lines = source.splitlines()
    return lines[lineno - 1] if lineno and 0 < lineno <= len(lines) else ""


def register(module: types.ModuleType) -> None:
    """Make `import <module name>` give this module, as a notebook's later cells expect."""
    sys.modules[module.__name__] = module
