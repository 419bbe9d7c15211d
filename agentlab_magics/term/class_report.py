"""The class at a glance, as numbers computed once: what the class gets wrong, how it answered,
where each student stands, and when work came in. The page (class_page.py) only draws them.

Where each number comes from:
- scores, hand-in times, late (nbgrader's own rule: handed in after the due date, with the
  student's extension) and missing (on the roster, nothing handed in): nbgrader's gradebook,
  read through its API (nbgrader.api.Gradebook; hand_ins.py), opened on a database that must
  exist, so nothing is made or written;
- each test's failures and their causes: the reports in the autograded notebooks' graded
  cells (submitted_work.py), a test's failing share being its failures over the submissions
  whose report shows it;
- answers and opened solutions: the views saved in the submitted notebooks;
- a student's row of the course map: per lab, the progress store's own rule
  (progress.store.LabProgress.state) applied to what the notebooks show: its graded cells
  all passing, its questions answered, its solution opened (a solution view in the saved
  notebook counts as help: the notebook cannot say whether a pass came first); an assignment
  not handed in is not started.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from agentlab_magics.course.assignments import find_assignment
from agentlab_magics.course.questions import questions_for
from agentlab_magics.progress.store import Commitment, LabProgress, State, page_state
from agentlab_magics.term.course_folder import CourseFolder, Step, graded_assignments
from agentlab_magics.term.hand_ins import HandIn, hand_ins
from agentlab_magics.term.nbgrader_cli import Nbgrader
from agentlab_magics.term.submitted_work import Work, read_notebook, read_work

# Days before the due date (negative: after it), as ranges [low, high).
TIMING = [("2+ days early", 2, float("inf")), ("1-2 days early", 1, 2),
          ("under a day early", 0, 1), ("under a day late", -1, 0),
          ("1-2 days late", -2, -1), ("2+ days late", float("-inf"), -2)]


class Cause(BaseModel):
    """One cause of a test's failures and the students whose failure it was."""

    sentence: str
    students: list[str]


class TestRow(BaseModel):
    """One test of a graded cell: how many reports showed it, who failed it and why."""

    __test__ = False  # not a pytest test class

    test: str
    cell: str
    shown: int
    failed: list[str]
    causes: list[Cause]

    @property
    def share(self) -> float:
        return len(self.failed) / self.shown if self.shown else 0.0


class OptionRow(BaseModel):
    """One option of a choice question and the students who chose it."""

    letter: str
    text: str
    correct: bool
    students: list[str]


class QuestionRow(BaseModel):
    """How the class answered one question: per option, and each answer in own words."""

    id: str
    prompt: str
    options: list[OptionRow]
    own_words: list[tuple[str, str]]
    unanswered: list[str]


class AssignmentRow(BaseModel):
    """One assignment: its scores, hand-ins, tests (most failed first) and questions."""

    id: str
    max_score: float
    duedate: datetime | None
    scores: dict[str, float]
    handed_in: dict[str, datetime]
    late: list[str]
    missing: list[str]
    tests: list[TestRow]
    questions: list[QuestionRow]

    def score_counts(self) -> list[tuple[str, int]]:
        """How many students scored what: a bar per point up to 20 points, else ten ranges."""
        if self.max_score <= 20 and self.max_score == int(self.max_score):
            edges = [float(n) for n in range(int(self.max_score) + 2)]
            labels = [f"{n:g}" for n in edges[:-1]]
        else:
            edges = [self.max_score * n / 10 for n in range(11)]
            edges[-1] += 1e-9
            labels = [f"{low:g}-{high:g}" for low, high in itertools.pairwise(edges)]
        return [(label, sum(low <= score < high for score in self.scores.values()))
                for label, low, high in zip(labels, edges, edges[1:])]

    def timing_counts(self) -> list[tuple[str, int]]:
        """When work came in: against the due date in days, or by day without one."""
        if self.duedate is None:
            days = sorted({t.date() for t in self.handed_in.values()})
            return [(str(day), sum(t.date() == day for t in self.handed_in.values()))
                    for day in days]
        early = [(self.duedate - t).total_seconds() / 86400 for t in self.handed_in.values()]
        return [(label, sum(low <= days < high for days in early)) for label, low, high in TIMING]


class StudentRow(BaseModel):
    """One student: a name to show, a state per assignment, the first test failed."""

    id: str
    name: str
    states: dict[str, State]
    stuck_on: str | None


class ClassReport(BaseModel):
    """The whole class over the chosen assignments, in the course's order."""

    course_id: str
    assignments: list[AssignmentRow]
    students: list[StudentRow]


def read_class(course: Path, assignments: Sequence[str] = (), *,
               nbgrader: Nbgrader | None = None) -> ClassReport:
    """The report of `assignments` (default: every one the gradebook has) of the nbgrader
    course in `course`, as its configuration lays it out; CourseFolderProblem when `course`
    holds no course or no gradebook yet, or the gradebook nothing to report on."""
    folder = CourseFolder.read(course, nbgrader)
    folder.require_gradebook()
    with folder.gradebook() as gradebook:
        chosen = graded_assignments(gradebook, assignments)
        roster = {s.id: _name(s) for s in sorted(gradebook.students, key=lambda s: s.id)}
        rows, work = [], {}
        for assignment in chosen:
            handed = hand_ins(gradebook, assignment)
            done = _work(folder, assignment, [h.student for h in handed])
            work.update({(assignment, student): w for student, w in done.items()})
            rows.append(_assignment(gradebook.find_assignment(assignment), handed, roster, done))
    return ClassReport(course_id=folder.course_id, assignments=rows,
                       students=[_student(s, name, rows, work) for s, name in roster.items()])


def _name(student: Any) -> str:
    """A student as the page names them: their names from the roster, else their id."""
    names = " ".join(n for n in (student.first_name, student.last_name) if n)
    return f"{names} ({student.id})" if names else student.id


def _work(folder: CourseFolder, assignment: str, students: Sequence[str]) -> dict[str, Work]:
    """What each student's autograded and submitted notebooks of `assignment` show."""
    def notebooks(step: Step) -> dict[str, list[dict[str, Any]]]:
        # one glob an assignment: nbgrader's format_path is slow to call per student
        pattern = folder.folder(step, "*", assignment)
        found: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for path in sorted(pattern.parent.parent.glob(f"*/{pattern.name}/*.ipynb")):
            found[path.parent.parent.name].append(read_notebook(path))
        return found

    autograded, submitted = notebooks("autograded"), notebooks("submitted")
    return {s: read_work(autograded.get(s, []), submitted.get(s, [])) for s in students}


def _assignment(record: Any, handed: list[HandIn], roster: dict[str, str],
                work: dict[str, Work]) -> AssignmentRow:
    """One assignment's row, from its gradebook `record`, its hand-ins and their notebooks."""
    return AssignmentRow(
        id=record.name, max_score=record.max_score, duedate=record.duedate,
        scores={h.student: h.score for h in handed},
        handed_in={h.student: h.timestamp for h in handed if h.timestamp is not None},
        late=[h.student for h in handed if h.late],
        missing=[s for s in roster if s not in work],
        tests=_tests(work), questions=_questions(record.name, work))


def _tests(work: dict[str, Work]) -> list[TestRow]:
    """Every test any report showed, most failed first, then in the notebook's order; under
    each its causes, most common first."""
    shown: dict[tuple[str, str], int] = defaultdict(int)
    causes: dict[tuple[str, str], dict[str, list[str]]] = defaultdict(dict)
    for student, done in sorted(work.items()):
        for cell, outcomes in done.cells.items():
            for outcome in outcomes:
                shown[cell, outcome.test] += 1
                if outcome.cause is not None:
                    causes[cell, outcome.test].setdefault(outcome.cause, []).append(student)
    rows = [TestRow(test=test, cell=cell, shown=count,
                    failed=sorted(s for who in causes[cell, test].values() for s in who),
                    causes=[Cause(sentence=sentence, students=who) for sentence, who in sorted(
                        causes[cell, test].items(), key=lambda item: -len(item[1]))])
            for (cell, test), count in shown.items()]
    return sorted(rows, key=lambda row: -row.share)


def _questions(assignment: str, work: dict[str, Work]) -> list[QuestionRow]:
    """Each question of the assignment's labs, with every student's committed answer."""
    try:
        labs = [assigned.lab for assigned in find_assignment(assignment).labs]
    except LookupError:
        return []
    rows = []
    for question in [q for lab in labs for q in questions_for(lab)]:
        given = {s: w.answers[question.id] for s, w in sorted(work.items())
                 if question.id in w.answers}
        options = [OptionRow(letter=letter, text=option.text, correct=option.correct,
                             students=[s for s, a in given.items() if a == letter])
                   for letter, option in zip(question.letters, question.options)]
        rows.append(QuestionRow(
            id=question.id, prompt=question.prompt, options=options,
            own_words=[(s, a) for s, a in given.items() if a not in question.letters],
            unanswered=[s for s in sorted(work) if s not in given]))
    return rows


def _student(student: str, name: str, rows: list[AssignmentRow],
             work: dict[tuple[str, str], Work]) -> StudentRow:
    """A student's row of the map and the first test they fail, in the course's order."""
    states: dict[str, State] = {}
    stuck = None
    for row in rows:
        done = work.get((row.id, student))
        states[row.id] = "not started" if done is None else _state(row.id, done)
        if stuck is None and done is not None:
            stuck = next((f"{row.id}: {o.test}" for outcomes in done.cells.values()
                          for o in outcomes if not o.passed), None)
    return StudentRow(id=student, name=name, states=states, stuck_on=stuck)


def _state(assignment: str, done: Work) -> State:
    """The assignment's state on the map from its labs' (the module docstring says how)."""
    try:
        labs = {assigned.lab: [f"tests-{assigned.lab}-{group.id}" for group in assigned.groups]
                for assigned in find_assignment(assignment).labs}
    except LookupError:  # an assignment of the instructor's own: one lab, every graded cell
        labs = {assignment: list(done.cells)}
    states: list[State] = []
    for lab, cells in labs.items():
        key: dict[str, str | None] = {q.id: None for q in questions_for(lab)}
        outcomes = [o for cell in cells for o in done.cells.get(cell, [])]
        passed = all(cell in done.cells and done.cells[cell] for cell in cells) and all(
            o.passed for o in outcomes)
        helped = lab in done.solutions
        record = LabProgress(
            questions={q: Commitment(answer=done.answers[q]) for q in key if q in done.answers},
            tests_passed=[o.test for o in outcomes if o.passed], passed=passed,
            passed_unaided=passed and not helped, solution_opened=helped)
        states.append(record.state(key))
    return page_state(states)
