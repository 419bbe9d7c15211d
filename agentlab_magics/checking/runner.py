"""Check student code against a lab: the lab's pytest functions, in process, one sentence each.

The student's module reaches the tests through the `harness` fixture; a test hands the
record its run left to the `record` fixture. Every test runs under a time limit, and
nothing the student's code does (raise, print, exit, hang, mutate) escapes as a traceback.
"""

from __future__ import annotations

import copy
import importlib.util
import types
from pathlib import Path
from typing import Any

import pytest

from agentlab_magics.checking.deadline import TimedOut, deadline
from agentlab_magics.checking.report import CheckReport, TestOutcome
from agentlab_magics.checking.student import (
    CodeProblem, NotWrittenYet, StudentModule, load_path, student_line, where)
from agentlab_magics.course import Lab, find_lab

INI = Path(__file__).with_name("pytest.ini")
# pytest's plugins that a check has no use for; the last two would collect garbage twice a run.
UNUSED = ("cacheprovider", "terminal", "doctest", "junitxml", "pastebin", "stepwise", "warnings",
          "logging", "faulthandler", "unraisableexception", "threadexception")
QUIET = [flag for name in UNUSED for flag in ("-p", f"no:{name}")]


class Recorder:
    """What a test's run left behind, kept so the report can draw it."""

    def __init__(self) -> None:
        self.messages: list | None = None

    def __call__(self, messages: list) -> list:
        self.messages = messages
        return messages


class LabPlugin:
    """The pytest plugin of one check: fixtures in, outcomes out."""

    def __init__(self, student: StudentModule, source: str, filename: str, timeout: float,
                 only: list[str] | None, held_back: bool):
        self.student, self.source, self.filename = student, source, filename
        self.timeout, self.only, self.held_back = timeout, only, held_back
        self.outcomes: list[TestOutcome] = []
        self.problem: str | None = None

    @pytest.fixture
    def harness(self) -> StudentModule:
        return self.student

    @pytest.fixture
    def record(self) -> Recorder:
        return Recorder()

    def pytest_collection_modifyitems(self, items: list) -> None:
        items[:] = [item for item in items
                    if (self.only is None or item.name in self.only)
                    and (self.held_back or not is_held_back(item.function))]

    def pytest_collectreport(self, report) -> None:
        if report.failed:
            last = str(report.longrepr).strip().splitlines()[-1:]
            self.problem = f"The tests of this lab could not be loaded: {' '.join(last)}"

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item):
        with deadline(self.timeout):
            yield

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        if call.when == "call" or (call.when == "setup" and report.failed):
            self.outcomes.append(self._outcome(item, call, report.duration))

    def _outcome(self, item, call, duration: float) -> TestOutcome:
        kind, message = self._judge(call.excinfo.value if call.excinfo else None)
        recorder = item.funcargs.get("record") if hasattr(item, "funcargs") else None
        return TestOutcome(name=item.name, sentence=sentence(item.function), outcome=kind,
                           message=message, duration=duration,
                           record=_copied(recorder.messages) if recorder else None)

    def _judge(self, exc: BaseException | None) -> tuple[str, str]:
        if exc is None:
            return "passed", ""
        if isinstance(exc, TimedOut):
            return "timeout", (f"This test did not finish within {self.timeout:g} s: your code "
                               "is probably looping forever or waiting for something.")
        if isinstance(exc, NotWrittenYet):
            return "failed", str(exc)
        if isinstance(exc, AssertionError):
            return "failed", str(exc) or "An assertion failed without saying why."
        who = "Your code raised" if student_line(exc, self.filename) else "The run stopped on"
        return "error", f"{who} {where(exc, self.filename, self.source)}"


def is_held_back(test: Any) -> bool:
    """Whether the instructor keeps this test back for grading (kit.held_back marks it)."""
    return getattr(test, "held_back", False)


def sentence(function: Any) -> str:
    """The first paragraph of a test's docstring, on one line: what the student reads."""
    doc = (function.__doc__ or function.__name__).strip().split("\n\n")[0]
    return " ".join(doc.split())


def _copied(messages: list | None) -> list | None:
    if messages is None:
        return None
    try:
        return copy.deepcopy(list(messages))
    except Exception:
        return list(messages)


def run(lab_id: str, harness: types.ModuleType | str | Path, *, timeout: float = 10.0,
        only: list[str] | None = None, held_back: bool = False) -> CheckReport:
    """Check `harness` against the lab's tests (all, or the ones named in `only`); the tests
    the instructor holds back for grading run only when `held_back` is true."""
    lab = find_lab(lab_id)
    try:
        module = harness if isinstance(harness, types.ModuleType) else load_path(harness, lab.module)
    except CodeProblem as exc:
        return CheckReport(lab_id=lab.id, title=lab.title, problem=str(exc))
    filename = getattr(module, "__file__", None) or "<notebook>"
    source = getattr(module, "__source__", None) or _source(filename)
    plugin = LabPlugin(StudentModule(module, lab.purposes), source, filename, timeout, only,
                       held_back)
    tests = tests_file(lab)
    pytest.main([tests, "-c", str(INI), "--rootdir", str(Path(tests).parent), *QUIET,
                 "--noconftest", "--assert=plain", "--capture=sys"], plugins=[plugin])
    return CheckReport(lab_id=lab.id, title=lab.title, outcomes=plugin.outcomes,
                       problem=plugin.problem)


def tests_file(lab: Lab) -> str:
    return importlib.util.find_spec(lab.tests).origin


def _source(filename: str) -> str:
    path = Path(filename)
    return path.read_text(encoding="utf-8") if path.is_file() else ""
