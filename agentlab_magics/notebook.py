"""What the magics do, as plain functions: check a cell or the notebook's names, keep progress.

The magics only parse their line and display what these return.
"""

from __future__ import annotations

import contextvars
import threading
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentlab_magics.checking.cell_source import (
    CELL,
    CodeProblem,
    as_in_the_cell,
    course_imports,
    load,
    register,
)
from agentlab_magics.checking.report import CheckReport, TestOutcome
from agentlab_magics.checking.runner import lab_tests, run
from agentlab_magics.checking.spares import local_spares
from agentlab_magics.course import find_lab
from agentlab_magics.course.assignments import assignments
from agentlab_magics.course.questions import Question, find_question, questions_for
from agentlab_magics.course.solutions import NotPublished, Solution, self_paced, solution
from agentlab_magics.grading import autograding
from agentlab_magics.progress import ProgressStore
from agentlab_magics.progress.asked import Asked
from agentlab_magics.progress.store import LabProgress, ProgressError, State, page_state
from agentlab_magics.traces.read import read_run
from agentlab_magics.widgets.run_diff import RunDiff, record_and_request

DRAW_EVERY = 0.2  # seconds between two drawings of the live line, at least


def check_cell(lab_id: str, source: str, namespace: dict, *, timeout: float | None = None,
               store: ProgressStore | None = None,
               on_outcome: Callable[[TestOutcome], None] | None = None) -> CheckReport:
    """Run `source` (a `%%check` cell's body) as the lab's module (importable afterwards, its
    names in `namespace`), check it, and record the outcome in the progress store. Lines are
    counted as the notebook counts them: line 1 is the `%%check` line."""
    lab = find_lab(lab_id)
    source = as_in_the_cell(source)
    try:
        module = load(source, CELL, lab.module)
    except CodeProblem as exc:
        return CheckReport(lab_id=lab.id, title=lab.title, problem=str(exc))
    register(module)
    namespace.update({name: value for name, value in vars(module).items()
                      if not name.startswith("__")})
    if autograding():
        return CheckReport(lab_id=lab.id, title=lab.title, problem=(
            "Checked by the grader, outside this notebook: see the graded cells below."))
    return _checked(lab.id, module, timeout, store, source=source, on_outcome=on_outcome)


def check_names(lab_id: str, namespace: dict, *, timeout: float | None = None,
                store: ProgressStore | None = None,
                on_outcome: Callable[[TestOutcome], None] | None = None) -> CheckReport:
    """Check the names the notebook has already defined, as if they were the lab's module."""
    lab = find_lab(lab_id)
    course_imports()
    module = types.ModuleType(lab.module)
    module.__dict__.update({name: value for name, value in namespace.items()
                            if not name.startswith("_")})
    return _checked(lab.id, module, timeout, store, on_outcome=on_outcome)


def _checked(lab_id: str, module: types.ModuleType, timeout: float | None,
             store: ProgressStore | None, source: str | None = None,
             on_outcome: Callable[[TestOutcome], None] | None = None) -> CheckReport:
    """Run the lab's tests (on `source` loaded afresh in the checker's child process, when
    given, else on `module`) and record which of the lab's own passed (an earlier lesson's
    test that still holds counts in its own lesson, not here); the report is returned even
    when the progress cannot be saved, and then the store's notice says why. Each outcome
    goes to `on_outcome` as it arrives; an interrupt stops the check, and its report says so
    (nothing is recorded)."""
    finished: list[TestOutcome] = []

    def arrived(outcome: TestOutcome) -> None:
        finished.append(outcome)
        if on_outcome is not None:
            on_outcome(outcome)


    spares = local_spares()
    try:
        report = run(lab_id, module, source=source, on_outcome=arrived,
                     timeout=timeout, launch=spares.take)
    except KeyboardInterrupt:
        return _stopped(lab_id, finished)
    finally:
        spares.refill(processes_per_check(lab_id))
    if report.problem is None:
        (store or ProgressStore()).record_check(report)
    return report


def _stopped(lab_id: str, finished: list[TestOutcome]) -> CheckReport:
    """The report of a check stopped by an interrupt: the tests that had finished, as they
    went, and a problem that says the rest did not run (nothing is recorded)."""
    lab, total = find_lab(lab_id), _test_count(lab_id)
    kept = (f"after {len(finished)} of {total} tests had finished: their results are below, "
            "and nothing was recorded" if finished else
            f"before any of its {total} tests had finished: nothing was recorded")
    return CheckReport(lab_id=lab.id, title=lab.title, outcomes=finished, problem=(
        f"You stopped the check (Interrupt) {kept}. Run the cell again to check your code."))


def _test_count(lab_id: str) -> int:
    """How many tests a %%check of the lab runs."""
    return len(lab_tests(find_lab(lab_id)))


def processes_per_check(lab_id: str) -> int:
    """How many fresh student processes a %%check of the lab takes when its code behaves: one
    for each test where the lab gives each test its own, else one."""
    return _test_count(lab_id) if find_lab(lab_id).fresh_per_test else 1


class LiveMarks:
    """The line a running %%check shows: the lab's title, each finished test's mark in order
    (an earlier lesson's tests that still hold after their group's heading, as the report
    has them), and how many of how many are done.

    It is handed to `show` at most once every `every` seconds (drawing costs more than a fast
    test): an outcome that comes sooner is drawn by a timer when the time comes, in the
    context the check runs in (where the kernel knows which cell it draws in), so the line
    never lags behind a slow test. `close` stops the timer; nothing is drawn after it."""

    def __init__(self, lab_id: str, show: Callable[[str], None], every: float = DRAW_EVERY
                 ) -> None:
        self.title = find_lab(lab_id).title
        self.total = _test_count(lab_id)
        self.marks: list[str] = []
        self.done = 0
        self.group = ""
        self.show, self.every = show, every
        self.lock = threading.Lock()  # the marks and the drawing, between here and the timer
        self.timer: threading.Timer | None = None
        self.closed = False
        self.next = 0.0  # when the line may next be drawn (set by each drawing)
        self._draw()

    def __call__(self, outcome: TestOutcome) -> None:
        with self.lock:
            if outcome.group != self.group:
                self.group = outcome.group
                self.marks.append(f"| {self.group}:" if self.group else "|")
            self.marks.append(outcome.mark)
            self.done += 1
            wait = self.next - time.monotonic()
            if wait > 0:
                if self.timer is None:
                    context = contextvars.copy_context()
                    self.timer = threading.Timer(wait, context.run, [self._drawn_late])
                    self.timer.daemon = True
                    self.timer.start()
                return
        self._draw()

    def close(self) -> None:
        """No more drawing: a pending one is dropped, one under way finishes first."""
        with self.lock:
            self.closed = True
            if self.timer is not None:
                self.timer.cancel()

    def _drawn_late(self) -> None:
        with self.lock:
            self.timer = None
        self._draw()

    def _draw(self) -> None:
        with self.lock:
            if self.closed:
                return
            self.next = time.monotonic() + self.every
            self.show(self.line())

    def line(self) -> str:
        done = " ".join([*self.marks, "…"])
        return f"{self.title}: {done} {self.done} of {self.total} done"


def open_solution(lab_id: str, store: ProgressStore | None = None) -> Solution | str:
    """What %solution shows: the lab's solution where it may be seen (course/solutions.py),
    from self-paced solutions once the lab was checked, and the map says "built with help"
    from then on; else the sentence saying why not.
    The help is recorded before the solution is returned: ProgressError (and no solution)
    if it cannot be."""
    lab = find_lab(lab_id)
    store = store or ProgressStore()
    try:
        shown = solution(lab.id)
    except NotPublished as exc:
        return str(exc)
    if self_paced() and not store.lab(lab.id).checked:
        return (f"Try {lab.id} first: check it once (its `%%check {lab.id}` cell, or "
                f"`agentlab check {lab.id} --harness FILE`), then `%solution {lab.id}` (or "
                f"`agentlab solution {lab.id}`) shows its solution (and the map says \"built "
                "with help\").")
    store.solution_opened(lab.id)
    return Solution(lab.id, lab.title, shown)


class Unreadable(str):
    """What `%transcript` says instead of drawing: a source it could not evaluate or read."""


def drawable(written: str, namespace: dict) -> Any:
    """What `%transcript` draws for `written`: the Python expression's value, or, for a file
    (named as it is, or by an expression giving its path), the run `lab.read_run` reads from
    it; an Unreadable sentence where neither can be had."""
    try:
        value = eval(written, namespace)
    except Exception as exc:
        if not Path(written).expanduser().is_file():
            return Unreadable(f"%transcript could not evaluate {written!r}: "
                              f"{type(exc).__name__}: {exc}")
        value = Path(written).expanduser()
    if isinstance(value, (str, Path)) and Path(value).is_file():
        try:
            return read_run(value)
        except ValueError as exc:  # a TraceProblem, or a conversation it has not
            return Unreadable(f"%transcript {written}: {exc}")
    return value


def run_diff(sources: list, names: tuple[str, str], *, static: bool = False) -> Any:
    """What `%transcript A --diff B` shows: the two runs side by side; with one source, the
    record beside the request context_for_model computes from it. A source that is not a list
    of messages (or a bounded LoopResult) gets a sentence back instead."""
    left, *right = sources
    if not right:
        right, names = [record_and_request(left)], (names[0], "its request")
    try:
        return RunDiff(left, right[0], names, static=static)
    except TypeError as exc:
        return f"%transcript --diff: {exc}"


def ask(question_id: str, answer: str | None = None,
        store: ProgressStore | None = None) -> Asked:
    """The question, with `answer` committed when none is yet; a first commitment is never
    replaced, so re-running a notebook shows the answer given the first time."""
    question = find_question(question_id)
    store = store or ProgressStore()
    asked = _asked(question, answer, store)
    notices = [notice for notice in (store.take_notice(), asked.notice) if notice]
    asked.notice = " ".join(notices) or None
    return asked


def _asked(question: Question, answer: str | None, store: ProgressStore) -> Asked:
    """`ask` without the store's notice. The reveal (a commitment) is returned only once the
    answer is saved; an answer committed elsewhere meanwhile is the one that stands."""
    kept = store.lab(question.lab).questions.get(question.id)
    if answer is None:
        return Asked(question, kept)
    try:
        given = question.answer_for(answer)
    except ValueError as exc:
        return Asked(question, kept, str(exc))
    if kept is None:
        try:
            kept = store.commit(question.lab, question.id, given)
        except ProgressError as exc:
            return Asked(question, None, f"{exc} Your answer was not committed.")
    if kept.answer != given:
        return Asked(question, kept, f"You committed {kept.answer!r} on {kept.at[:10]}; an answer "
                                     "is committed once, so that one stands.")
    return Asked(question, kept)


def syllabus(store: ProgressStore | None = None) -> list[dict[str, Any]]:
    """The map's stops, in course order (lessons 1-6, checkpoint A, lesson 7, the bounded
    unit), one per assignment: its title, its labs, its questions (how many, answered,
    answered right) and its state (`page_state`). Each lab has its state, its own tests passed
    of how many (`tests_passed`, `tests`), how many tests its `%%check` runs (`checked`: its
    own and the earlier lessons' that still hold), whether one check passed them all
    (`one_check`), and its questions still to answer and those answered wrong."""
    store = store or ProgressStore()
    stops = []
    for assignment in assignments():
        labs: list[dict[str, Any]] = []
        states: list[State] = []
        asked = answered = right = 0
        for assigned in assignment.labs:
            lab, record = find_lab(assigned.lab), store.lab(assigned.lab)
            key = {question.id: right_answer(question) for question in questions_for(lab.id)}
            asked += len(key)
            answered += sum(question in record.questions for question in key)
            right += len(record.right(key))
            tests = {test.name for test in lab_tests(lab, still_holds=False)}
            states.append(record.state(key))
            labs.append({"lab": lab.id, "title": lab.title, "state": states[-1],
                         "tests_passed": len(tests.intersection(record.tests_passed)),
                         "tests": len(tests), "checked": _test_count(lab.id),
                         "one_check": record.passed,
                         "unanswered": [question for question in key
                                        if question not in record.questions],
                         "wrong": _wrong(record, key)})
        stops.append({"id": assignment.id, "title": assignment.title, "labs": labs,
                      "questions": {"asked": asked, "answered": answered, "right": right},
                      "state": page_state(states)})
    return stops


def _wrong(record: LabProgress, key: dict[str, str | None]) -> list[dict[str, str | None]]:
    """The questions of `key` answered, but not right: each id, the answer committed and the
    right letter."""
    right = record.right(key)
    return [{"id": question, "answer": record.questions[question].answer, "right": letter}
            for question, letter in key.items()
            if question in record.questions and question not in right]


def right_answer(question: Question) -> str | None:
    """The letter of a choice question's right option; None for an open question, which has
    no one right answer."""
    return next((letter for letter, option in zip(question.letters, question.options)
                 if option.correct), None)
