"""A lab as one folder, read: the folder's name is the lab's id, and its files are

    lab.toml          title, the names the student writes with a purpose each, builds_on,
                      graded groups and points, the time each test may take
    reference.py      the solution; what the student writes sits between nbgrader's
                      `### BEGIN SOLUTION` and `### END SOLUTION` lines
    tests.py          the visible tests: functions `test_*` taking `harness` (and `record`),
                      the first paragraph of each docstring being the sentence a student reads
    heldback.py       optional: the held-back tests, read only by the judge when grading
    questions.toml    optional: diagnosis questions, with the reason for every option
    notebook.md       optional: the assignment's text around the lab's cell
    equivalents.toml  optional: mutants no test can tell apart, each with the reason
    the files lab.toml lists under `files` (a trace, a log): data the tests read beside them,
                      and the notebook beside itself

Invariant: the starter is derived from the reference, as nbgrader releases it (each solution
region becomes the course's stub), so it is never kept twice; a student's copy of a lab
(`ship`) holds that starter as starter.py, the reference's runs of the visible tests as
reference-runs.json, and no reference, held-back tests or equivalents.
Reading a folder checks it whole without running any of it: a missing file, a TOML error, a
test with no docstring, a reference without markers is a LabFolderProblem, one sentence
naming the file and the line.
The tests' modules are imported only when a judge asks (`tests_module`).
"""

from __future__ import annotations

import ast
import importlib.machinery
import importlib.util
import re
import shutil
import sys
import tomllib
import traceback
import types
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

import agentlab_labs  # noqa: F401  (the package a lab's tests are modules of, and its finder)
from agentlab_magics.problems import UsageProblem

LAB_TOML, REFERENCE, TESTS, HELD_BACK = "lab.toml", "reference.py", "tests.py", "heldback.py"
QUESTIONS, NOTEBOOK, EQUIVALENTS = "questions.toml", "notebook.md", "equivalents.toml"
STARTER = "starter.py"  # a student's copy's starter, in place of the reference
REFERENCE_RUNS = "reference-runs.json"  # a student's copy's runs of the reference
HELD_BACK_RUNS = "heldback-runs.json"  # a built-in lab's held-back tests' runs, in its part
SHIPPED = (LAB_TOML, TESTS, QUESTIONS, NOTEBOOK)  # what a student's copy takes as it is
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"  # nbgrader's solution markers
STUB = ("# YOUR CODE HERE", "pass")  # what nbgrader releases in a region's place (the course's)
LAB_ID = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
DATA_FILE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


class LabFolderProblem(UsageProblem):
    """A lab folder that cannot be read as a lab; the message names the file and the line."""


class GroupSpec(BaseModel):
    """One graded cell: the tests whose names match `match`, each worth `per_test` points."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]*$")
    match: str = "."
    per_test: int = Field(default=1, ge=1)


class LabSpec(BaseModel):
    """What lab.toml says."""

    model_config = ConfigDict(extra="forbid")
    title: str = Field(min_length=1)
    lesson: str = ""
    module: str = Field(default="harness", pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    names: dict[str, str] = Field(min_length=1)
    builds_on: list[str] = []
    fresh_per_test: bool = False
    time_limit: float | None = Field(default=None, gt=0, le=600)
    groups: list[GroupSpec] = []
    files: list[str] = []


def read_spec(folder: Path) -> LabSpec:
    """lab.toml of `folder`, checked; a LabFolderProblem naming the file and line if it is not
    what a lab needs."""
    path = folder / LAB_TOML
    text = read_text(path)
    data = load_toml(path, text)
    try:
        spec = LabSpec.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        keys = [part for part in error["loc"] if isinstance(part, str)]
        raise LabFolderProblem(f"{_at(path, _line_of(text, keys[-1] if keys else ''))}: "
                               f"{_field_sentence(error)}") from None
    for name in spec.names:
        if not name.isidentifier():
            raise LabFolderProblem(f"{_at(path, _line_of(text, name))}: {name!r} is not a "
                                   "Python name: list under [names] the functions the "
                                   "student writes.")
    for name in spec.files:
        if not DATA_FILE.fullmatch(name) or name in (*SHIPPED, STARTER, REFERENCE, HELD_BACK,
                                                     EQUIVALENTS, REFERENCE_RUNS):
            raise LabFolderProblem(f"{_at(path, _line_of(text, 'files'))}: {name!r} cannot be a "
                                   "data file of the lab: list under files the names of files "
                                   "in the lab's folder (no folders), other than the lab's "
                                   "own.")
        if not (folder / name).is_file():
            raise LabFolderProblem(f"{_at(path, _line_of(text, 'files'))}: lists {name!r} under "
                                   f"files, but {folder} holds no such file.")
    return spec


def read_text(path: Path) -> str:
    """A file of the folder, as text; a LabFolderProblem when it is missing or unreadable."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise LabFolderProblem(f"{path}: missing: a lab folder holds {LAB_TOML}, {REFERENCE} "
                               f"and {TESTS} (`agentlab lab new ID` writes all three).") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise LabFolderProblem(f"{path}: cannot be read ({exc}).") from None


def load_toml(path: Path, text: str) -> dict[str, Any]:
    """The TOML `text` of `path`; a LabFolderProblem with TOML's own line on an error."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"\(at line (\d+), column \d+\)", str(exc))
        reason = re.sub(r"\s*\(at line.*\)", "", str(exc))
        line = int(found.group(1)) if found else None
        raise LabFolderProblem(f"{_at(path, line)}: is not valid TOML ({reason}).") from None


def check_reference(folder: Path, names: list[str]) -> str:
    """reference.py, proven to compile, to mark at least one region, every region closed, and
    to define every name the student writes; returns its text (markers kept)."""
    path = folder / REFERENCE
    marked = read_text(path)
    tree = _compiles(path, marked)
    open_at = None
    for number, line in enumerate(marked.splitlines(), 1):
        if line.strip() == BEGIN:
            if open_at is not None:
                raise LabFolderProblem(f"{_at(path, number)}: a solution region begins inside "
                                       f"the one begun on line {open_at}: close it first.")
            open_at = number
        elif line.strip() == END:
            if open_at is None:
                raise LabFolderProblem(f"{_at(path, number)}: `{END}` closes no region.")
            open_at = None
    if open_at is not None:
        raise LabFolderProblem(f"{_at(path, open_at)}: this solution region is never closed: "
                               f"add `{END}` after the student's part.")
    if BEGIN not in marked:
        raise LabFolderProblem(f"{path}: marks nothing for the student to write: put "
                               f"`{BEGIN}` and `{END}` around it, as nbgrader does.")
    defined = {node.name for node in tree.body
               if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    missing = [name for name in names if name not in defined]
    if missing:
        raise LabFolderProblem(f"{path}: defines no {', '.join(missing)}, which lab.toml "
                               "lists under [names]: define each at the top level.")
    return marked


def check_tests(path: Path) -> None:
    """A tests file, proven to compile and to give every test its sentence (a docstring)."""
    text = read_text(path)
    tree = _compiles(path, text)
    for node in tree.body:
        if (isinstance(node, ast.FunctionDef) and node.name.startswith("test_")
                and ast.get_docstring(node) is None):
            raise LabFolderProblem(f"{_at(path, node.lineno)}: {node.name} has no docstring: "
                                   "its first paragraph is the sentence a student reads, so "
                                   "write it.")


def check_files(folder: Path, names: list[str]) -> None:
    """The folder's Python files, checked as the module docstring says: a student's copy's
    starter where it has no reference."""
    if is_students_copy(folder):
        _compiles(folder / STARTER, read_text(folder / STARTER))
    else:
        check_reference(folder, names)
    check_tests(folder / TESTS)
    if (folder / HELD_BACK).exists():
        check_tests(folder / HELD_BACK)


def is_students_copy(folder: Path) -> bool:
    """Whether `folder` is a student's copy of a lab (`ship`): a starter, and no reference."""
    return (folder / STARTER).is_file() and not (folder / REFERENCE).exists()


def marked(folder: Path) -> str:
    """The lab's reference.py, markers kept; a LabFolderProblem in a student's copy."""
    if is_students_copy(folder):
        raise LabFolderProblem(f"{folder}: is a student's copy of the lab, which holds no "
                               "reference: ask for it where the lab was written.")
    return read_text(folder / REFERENCE)


def starter(folder: Path) -> str:
    """The file a student starts from: a student's copy's starter.py, or the reference as
    nbgrader releases it."""
    if is_students_copy(folder):
        return read_text(folder / STARTER)
    return starter_of(marked(folder))


def ship(folder: Path, target: Path, runs: str | None = None) -> Path:
    """Write a student's copy of the lab in `folder` into `target`/<its id>, readable by
    every user, with the reference's runs of its visible tests (`runs`, REFERENCE_RUNS's
    text) when given; returns the copy's folder."""
    copy = target / folder.resolve().name
    copy.mkdir(parents=True, exist_ok=True)
    copy.chmod(0o755)
    files = {name: read_text(folder / name) for name in SHIPPED if (folder / name).is_file()}
    if runs is not None:
        files[REFERENCE_RUNS] = runs
    for name, text in {**files, STARTER: starter(folder)}.items():
        (copy / name).write_text(text, encoding="utf-8")
        (copy / name).chmod(0o644)
    for name in read_spec(folder).files:
        shutil.copyfile(folder / name, copy / name)
        (copy / name).chmod(0o644)
    return copy


def starter_of(marked: str) -> str:
    """The file a student starts from: each solution region replaced by the stub, at the
    region's indentation, as nbgrader's release writes it."""
    out, inside = [], False
    for line in marked.splitlines():
        if line.strip() == BEGIN:
            indent = line[:len(line) - len(line.lstrip())]
            out += [indent + part for part in STUB]
            inside = True
        elif line.strip() == END:
            inside = False
        elif not inside:
            out.append(line)
    return "\n".join(out) + "\n"


def reference_of(marked: str) -> str:
    """The solution's code: the reference without its marker lines."""
    kept = [line for line in marked.splitlines() if line.strip() not in (BEGIN, END)]
    return "\n".join(kept) + "\n"


class _Stamped(importlib.machinery.SourceFileLoader):
    """Loads a lab's module of tests, noting the file's time as it was read."""

    def exec_module(self, module: types.ModuleType) -> None:
        module.__agentlab_stamp__ = Path(self.path).stat().st_mtime_ns  # type: ignore[attr-defined]
        super().exec_module(module)


def module_spec(path: Path, name: str) -> importlib.machinery.ModuleSpec:
    """How the module of tests at `path` is imported as `name` (agentlab_labs finds it so)."""
    spec = importlib.util.spec_from_file_location(name, path, loader=_Stamped(name, str(path)))
    assert spec is not None
    return spec


def tests_module(path: Path, name: str) -> types.ModuleType:
    """The module of tests at `path`, imported as `name` (again when the file changed since it
    was, however it was): an error while importing it is a LabFolderProblem naming the file and
    line."""
    stamp = path.stat().st_mtime_ns
    held = sys.modules.get(name)
    if held is not None and getattr(held, "__agentlab_stamp__", None) == stamp:
        return held
    spec = module_spec(path, name)
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        sys.modules.pop(name, None)
        line = next((frame.lineno for frame in reversed(traceback.extract_tb(exc.__traceback__))
                     if frame.filename == str(path)), None)
        raise LabFolderProblem(f"{_at(path, line)}: importing it raised "
                               f"{type(exc).__name__}: {exc}") from None
    return module


def _compiles(path: Path, text: str) -> ast.Module:
    try:
        return ast.parse(text, filename=str(path))
    except SyntaxError as exc:
        raise LabFolderProblem(f"{_at(path, exc.lineno)}: is not valid Python ({exc.msg})."
                               ) from None


def _at(path: Path, line: int | None) -> str:
    return f"{path}, line {line}" if line else str(path)


def at_line(path: Path, text: str, value: str) -> str:
    """`path` and the line of its `text` where the string `value` is written, as a sentence
    about it opens."""
    quoted = (f'"{value}"', f"'{value}'")
    return _at(path, next((number for number, line in enumerate(text.splitlines(), 1)
                           if any(mark in line for mark in quoted)), None))


def _line_of(text: str, key: str) -> int | None:
    """The line of `text` where `key` is set, or its table begins; None when it is absent."""
    if not key:
        return None
    pattern = re.compile(rf"^\s*(?:\[\[?\s*{re.escape(key)}\s*\]\]?|\"?{re.escape(key)}\"?\s*=)")
    return next((number for number, line in enumerate(text.splitlines(), 1)
                 if pattern.match(line)), None)


def _field_sentence(error: Any) -> str:
    """A setting's error in a sentence: `where` is the setting's dotted path."""
    where = ".".join(str(part) for part in error["loc"])
    model = GroupSpec if len(error["loc"]) > 1 and error["loc"][0] == "groups" else LabSpec
    if error["type"] == "missing":
        return f"sets no `{where}`, which every lab needs."
    if error["type"] == "extra_forbidden":
        return (f"`{where}` is not a setting here (they are: "
                f"{', '.join(model.model_fields)}).")
    return f"`{where}`: {error['msg']}."
