"""Check student code against a lab: the lab's test functions, one sentence each.

`run` is the one entry point. The student's code is loaded and tested in a child process
(`isolated.py`) that the caller kills on time, so nothing the code does (raise, print, exit,
hang, loop, eat memory, patch what it can reach) stalls the caller or escapes as a traceback.
The tests are plain functions taking the fixtures `harness` (the student's module; a missing
name fails with a sentence) and `record` (keeps the messages a run left, for the report).

A lab's own tests come first; then, for a lab that builds on earlier ones, the visible tests
of those labs that read only names its file still holds, each under its group's heading
("Still holds from lesson 3"): what a later lesson must not break.
"""

from __future__ import annotations

import importlib
import inspect
import math
import types
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

from agentlab_magics.checking.report import CheckReport, TestOutcome
from agentlab_magics.checking.student import (
    CodeProblem, compiled, course_imports, read_source, run_module)
from agentlab_magics.course import Lab, find_lab
from agentlab_magics.course.catalog import file_names
from agentlab_magics.course.heldback import held_back_module, is_held_back
from agentlab_magics.course.labtests import reads

CELL = "<your cell>"
# The longest time limit a test may be given: a day. Anything longer is a typo.
MAX_TIMEOUT = 86_400.0


class BadTimeout(ValueError):
    """A time limit that is not a finite number of seconds above zero."""


def checked_timeout(value: Any) -> float:
    """`value` as a time limit in seconds, or BadTimeout with a sentence saying what to give."""
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        seconds = math.nan
    if not (math.isfinite(seconds) and 0 < seconds <= MAX_TIMEOUT):
        raise BadTimeout(f"The time limit must be a number of seconds above 0 and at most "
                         f"{MAX_TIMEOUT:g} (a day), such as 10; {value!r} is not.")
    return seconds


@dataclass(frozen=True)
class LabTest:
    """One test of a lab: its function, the sentence the student reads, the fixtures it takes."""

    name: str
    function: Callable
    sentence: str
    wants_record: bool
    held_back: bool
    group: str = ""
    """The heading of an earlier lab's test that still holds here; "" for the lab's own."""


def sentence(function: Any) -> str:
    """The first paragraph of a test's docstring, on one line: what the student reads."""
    doc = (function.__doc__ or function.__name__).strip().split("\n\n")[0]
    return " ".join(doc.split())


def lab_tests(lab: Lab, *, held_back: bool = False, only: list[str] | None = None,
              still_holds: bool = True) -> list[LabTest]:
    """The lab's tests in file order: the visible ones, then, when asked, the held-back ones
    of the instructor's module (none where the instructor package is not installed), then,
    unless `still_holds` is false, the earlier labs' tests that still hold (`still_holding`)."""
    modules = [importlib.import_module(lab.tests)]
    hidden = held_back_module(lab) if held_back else None
    if hidden is not None:
        modules.append(hidden)
    tests = [test for module in modules for test in _tests_of(module)]
    if still_holds:
        tests += still_holding(lab, {test.name for test in tests})
    return [test for test in tests if only is None or test.name in only]


def still_holding(lab: Lab, own: set[str]) -> list[LabTest]:
    """The visible tests of the labs `lab` builds on that read only names its file holds,
    lab by lab, each marked with its lab's heading; a test named like one in `own` (checkpoint
    A takes lessons 3 to 5's as its own) runs once, as the lab's own."""
    carried: list[LabTest] = []
    holds = file_names(lab.id)
    for earlier in map(find_lab, lab.builds_on):
        heading = f"Still holds from lesson {earlier.lesson}"
        carried += [replace(test, group=heading)
                    for test in _tests_of(importlib.import_module(earlier.tests))
                    if test.name not in own and reads(test.function) <= holds]
        own = own | {test.name for test in carried}
    return carried


def _tests_of(module: types.ModuleType) -> list[LabTest]:
    return [LabTest(name, function, sentence(function),
                    "record" in inspect.signature(function).parameters, is_held_back(function))
            for name, function in vars(module).items()
            if name.startswith("test_") and inspect.isfunction(function)]


def run(lab_id: str, harness: types.ModuleType | str | Path, *, timeout: float = 10.0,
        only: list[str] | None = None, held_back: bool = False,
        source: str | None = None, on_outcome: Callable[[TestOutcome], None] | None = None
        ) -> CheckReport:
    """Check `harness` against the lab's tests (all, or the ones named in `only`); the tests
    the instructor holds back run only when `held_back` is true. `on_outcome` is handed each
    test's outcome, in order, as soon as it is known (for a live display).

    `harness` is a path of a .py file, or a module already made (the notebook's names);
    with `source`, `harness` is ignored and the source is loaded as the lab's module.
    The loading, like every test, happens in the child process under the time limit.
    """
    from agentlab_magics.checking.isolated import check_in_child

    lab = find_lab(lab_id)
    seconds = checked_timeout(timeout)
    course_imports()
    tests = lab_tests(lab, held_back=held_back, only=only)
    return check_in_child(lab, tests, _loader(lab, harness, source), seconds, on_outcome)


def _loader(lab: Lab, harness: types.ModuleType | str | Path, source: str | None
            ) -> Callable[[Callable], types.ModuleType]:
    """What the child calls, with the guard's `read` (student_line with the guard open), to get
    the student's module; a CodeProblem says why it cannot. Only the running of the student's
    code happens there.
    Its `home` is the file name the student's code is compiled under, if it is compiled here."""
    if isinstance(harness, types.ModuleType) and source is None:
        return lambda read: harness

    def made(read: Callable) -> types.ModuleType:
        text = source if source is not None else read_source(harness, lab.module)
        module, code = compiled(text, made.home, lab.module)
        run_module(module, code, read)
        return module

    made.home = CELL if source is not None else str(harness)  # the file the code is compiled as
    return made


__all__ = ["BadTimeout", "CodeProblem", "LabTest", "checked_timeout", "lab_tests", "run",
           "sentence", "still_holding"]
