"""What the magics do, as plain functions: check a cell or the notebook's names, keep progress.

The magics only parse their line and display what these return.
"""

from __future__ import annotations

import os
import types
from dataclasses import dataclass
from typing import Any

from agentlab_magics.checking import CheckReport, run
from agentlab_magics.checking.student import CodeProblem, course_imports, load, register
from agentlab_magics.course import find_lab
from agentlab_magics.course.questions import Question, find_question, questions_for
from agentlab_magics.grading import autograding
from agentlab_magics.progress import ProgressStore
from agentlab_magics.progress.store import Commitment, ProgressError

CELL = "<your cell>"


def check_cell(lab_id: str, source: str, namespace: dict, *, timeout: float | None = None,
               store: ProgressStore | None = None) -> CheckReport:
    """Run `source` as the lab's module (importable afterwards, its names in `namespace`),
    check it, and record the outcome in the progress store."""
    lab = find_lab(lab_id)
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
    return _checked(lab.id, module, timeout, store, source=source)


def check_names(lab_id: str, namespace: dict, *, timeout: float | None = None,
                store: ProgressStore | None = None) -> CheckReport:
    """Check the names the notebook has already defined, as if they were the lab's module."""
    lab = find_lab(lab_id)
    course_imports()
    module = types.ModuleType(lab.module)
    module.__dict__.update({name: value for name, value in namespace.items()
                            if not name.startswith("_")})
    return _checked(lab.id, module, timeout, store)


def time_limit() -> float:
    """A test's time limit when none is asked for: 10 s for a student; while nbgrader grades,
    the grading limit, so code that hangs costs seconds a test, not minutes."""
    from agentlab_magics.grading import TIMEOUT

    return TIMEOUT if os.environ.get("NBGRADER_EXECUTION") else 10.0


def _checked(lab_id: str, module: types.ModuleType, timeout: float | None,
             store: ProgressStore | None, source: str | None = None) -> CheckReport:
    """Run the lab's tests (on `source` loaded afresh in the checker's child process, when
    given, else on `module`) and record what passed; the report is returned even when the
    progress cannot be saved, and then the store's notice says why."""
    report = run(lab_id, module, source=source,
                 timeout=time_limit() if timeout is None else timeout)
    if report.problem is None:
        store = store or ProgressStore()
        try:
            store.checked(lab_id, [o.name for o in report.outcomes if o.passed],
                          report.all_passed)
        except ProgressError as exc:
            store.tell(str(exc))
    return report


def open_solution(lab_id: str, store: ProgressStore | None = None) -> str:
    """What %solution shows: the lab's solution where it may be seen (course/solutions.py),
    and the map says "built with help" from then on; else the sentence saying why not.
    The help is recorded before the solution is returned: ProgressError (and no solution)
    if it cannot be."""
    from agentlab_magics.course.solutions import NotPublished, solution

    lab = find_lab(lab_id)
    try:
        shown = solution(lab.id)
    except NotPublished as exc:
        return str(exc)
    (store or ProgressStore()).solution_opened(lab.id)
    return shown


@dataclass
class Asked:
    """A question as the student sees it now: its commitment, if any, and a sentence to show."""

    question: Question
    commitment: Commitment | None
    notice: str | None = None


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
    """One row per lab: questions committed, tests passed, and the state word."""
    from agentlab_magics.course import labs

    store = store or ProgressStore()
    rows = []
    for lab in labs().values():
        record = store.lab(lab.id)
        question_ids = [q.id for q in questions_for(lab.id)]
        rows.append({"lab": lab.id, "title": lab.title,
                     "questions": f"{sum(q in record.questions for q in question_ids)} of "
                                  f"{len(question_ids)}",
                     "tests": len(record.tests_passed), "passed": record.passed,
                     "state": record.state(question_ids)})
    return rows
