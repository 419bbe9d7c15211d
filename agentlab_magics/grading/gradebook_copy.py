"""What one submission's grading needs of the course's gradebook, and what it gives back.

A submission is graded in a scratch course of its own, whose gradebook holds only the
assignment's structure (`Shape`: notebooks and their grade, solution, task and source cells)
and this student's entry in the course's gradebook (`StudentEntry`: their record, their
extension, the manual scores a grader already gave). nbgrader's autograde then computes there
exactly what it would compute in the course's gradebook; `Scores` reads it back, and `merge`
writes it into the course's gradebook (in the batch writer's transaction, gradebook_writer.py):
nbgrader's Gradebook API on both sides, so SQLite and a database server (a `db_url` for
Postgres) work alike.
"""

from __future__ import annotations

import datetime as dt
import warnings
from collections.abc import Iterable, Sequence

from agentlab_magics.term.nbgrader_cli import without_slow_imports

without_slow_imports()

from nbgrader.api import (  # noqa: E402 (after the line above)
    Assignment,
    Base,
    Gradebook,
    MissingEntry,
    Student,
    SubmittedAssignment,
)
from nbgrader.utils import parse_utc  # noqa: E402
from pydantic import BaseModel  # noqa: E402
from sqlalchemy import create_engine  # noqa: E402
from sqlalchemy.exc import SAWarning  # noqa: E402


class CellShape(BaseModel):
    """One cell the gradebook knows, with what nbgrader stored about it."""

    kind: str  # "grade", "solution", "task" or "source"
    name: str
    fields: dict


class NotebookShape(BaseModel):
    name: str
    kernelspec: str | None = None
    cells: list[CellShape]


class Shape(BaseModel):
    """An assignment as `nbgrader generate_assignment` recorded it, without any submission."""

    course_id: str
    assignment: str
    duedate: dt.datetime | None = None
    notebooks: list[NotebookShape]


class StudentEntry(BaseModel):
    """A student's record and what graders already did to their submission of the assignment."""

    student: str
    fields: dict = {}
    extension: dt.timedelta | None = None
    manual_scores: dict[str, dict[str, float]] = {}  # notebook -> cell -> manual score


class NotebookScores(BaseModel):
    name: str
    late_submission_penalty: float | None = None
    grades: dict[str, tuple[float | None, bool]]  # cell -> (auto score, needs manual grade)
    comments: dict[str, str | None]  # cell -> auto comment


class Scores(BaseModel):
    """What autograde recorded for one submission."""

    timestamp: dt.datetime | None = None
    notebooks: list[NotebookScores]


def read_shape(db_url: str, course_id: str, assignment: str) -> Shape:
    """The assignment's structure in the course's gradebook (MissingEntry if it has none)."""
    with Gradebook(db_url, course_id) as gb:
        found = gb.find_assignment(assignment)
        notebooks = [NotebookShape(name=nb.name, kernelspec=nb.kernelspec, cells=[
            *(CellShape(kind="grade", name=c.name,
                        fields={"max_score": c.max_score, "cell_type": c.cell_type})
              for c in nb.grade_cells),
            *(CellShape(kind="solution", name=c.name, fields={}) for c in nb.solution_cells),
            *(CellShape(kind="task", name=c.name,
                        fields={"max_score": c.max_score, "cell_type": c.cell_type})
              for c in nb.task_cells),
            *(CellShape(kind="source", name=c.name, fields={
                "cell_type": c.cell_type, "locked": c.locked, "source": c.source,
                "checksum": c.checksum}) for c in nb.source_cells),
        ]) for nb in found.notebooks]
        return Shape(course_id=course_id, assignment=assignment, duedate=found.duedate,
                     notebooks=notebooks)


def write_shape(db_url: str, shape: Shape) -> None:
    """Record `shape` in a new gradebook at `db_url`. Its tables are made here, so nbgrader
    finds a gradebook that exists (it would ask the `alembic` command for a version to stamp
    on a new one; nothing upgrades a scratch gradebook)."""
    engine = create_engine(db_url)
    Base.metadata.create_all(bind=engine)
    engine.dispose()
    with Gradebook(db_url, shape.course_id) as gb:
        gb.update_or_create_assignment(shape.assignment, duedate=shape.duedate)
        for nb in shape.notebooks:
            gb.update_or_create_notebook(nb.name, shape.assignment, kernelspec=nb.kernelspec)
            for cell in nb.cells:
                make = getattr(gb, f"update_or_create_{cell.kind}_cell")
                make(cell.name, nb.name, shape.assignment, **cell.fields)


def read_students(db_url: str, course_id: str, assignment: str, students: Iterable[str]
                  ) -> dict[str, StudentEntry]:
    """Each student's entry in the course's gradebook (an empty one for a new student), read
    in one session."""
    with Gradebook(db_url, course_id) as gb:
        return {student: _student_entry(gb, assignment, student) for student in students}


def _student_entry(gb: Gradebook, assignment: str, student: str) -> StudentEntry:
    try:
        record = gb.find_student(student)
    except MissingEntry:
        return StudentEntry(student=student)
    fields = {"first_name": record.first_name, "last_name": record.last_name,
              "email": record.email, "lms_user_id": record.lms_user_id}
    try:
        submission = gb.find_submission(assignment, student)
    except MissingEntry:
        return StudentEntry(student=student, fields=fields)
    manual = {nb.name: {g.name: g.manual_score for g in nb.grades
                        if g.manual_score is not None} for nb in submission.notebooks}
    return StudentEntry(student=student, fields=fields, extension=submission.extension,
                       manual_scores={nb: cells for nb, cells in manual.items() if cells})


def write_student(db_url: str, course_id: str, assignment: str, entry: StudentEntry) -> None:
    """Record `entry` in the scratch gradebook at `db_url`, which holds the assignment."""
    with Gradebook(db_url, course_id) as gb:
        gb.update_or_create_student(entry.student, **entry.fields)
        if entry.extension is None and not entry.manual_scores:
            return
        gb.update_or_create_submission(assignment, entry.student, extension=entry.extension)
        for notebook, cells in entry.manual_scores.items():
            for cell, score in cells.items():
                gb.find_grade(cell, notebook, assignment, entry.student).manual_score = score
        gb.db.commit()


def read_scores(db_url: str, course_id: str, assignment: str, student: str) -> Scores:
    """What autograde recorded for the student's submission in the gradebook at `db_url`."""
    with Gradebook(db_url, course_id) as gb:
        submission = gb.find_submission(assignment, student)
        return Scores(timestamp=submission.timestamp, notebooks=[NotebookScores(
            name=nb.name, late_submission_penalty=nb.late_submission_penalty,
            grades={g.name: (g.auto_score, g.needs_manual_grade) for g in nb.grades},
            comments={c.name: c.auto_comment for c in nb.comments})
            for nb in submission.notebooks])


def cell_names(gb: Gradebook, assignment: str) -> dict[str, str]:
    """The name of each graded, solution and task cell of `assignment`, by the cell's id."""
    return {cell.id: cell.name for notebook in gb.find_assignment(assignment).notebooks
            for cell in (*notebook.grade_cells, *notebook.solution_cells, *notebook.task_cells)}


def add_new_students(gb: Gradebook, entries: Sequence[StudentEntry]) -> None:
    """Give the students of `entries` whom the gradebook `gb` does not know their records
    (which it knows: one query)."""
    known = {found for (found,) in gb.db.query(Student.id).filter(
        Student.id.in_([entry.student for entry in entries]))}
    for entry in entries:
        if entry.student not in known:
            gb.add_student(entry.student, **entry.fields)


def submissions_of(gb: Gradebook, assignment: str, students: Sequence[str]
                   ) -> dict[str, SubmittedAssignment]:
    """The submissions of `assignment` that the gradebook `gb` holds of `students`, by
    student: one query."""
    found = (gb.db.query(SubmittedAssignment)
             .join(Assignment, Assignment.id == SubmittedAssignment.assignment_id)
             .filter(Assignment.name == assignment,
                     SubmittedAssignment.student_id.in_(students)))
    return {submission.student_id: submission for submission in found}


def merge(gb: Gradebook, assignment: str, student: str, scores: Scores,
          names: dict[str, str], submission: SubmittedAssignment | None
          ) -> SubmittedAssignment:
    """Write one submission's autograde into the gradebook `gb` (`names` from `cell_names`;
    the student known to it; `submission` the one it holds already, from `submissions_of`):
    the submission's time, and every cell's automatic score, review flag and comment; manual
    scores and comments stay as graders left them. Returns the submission; its rows reach the
    database when the caller's session flushes (GradebookWriter), so the cells of a new
    submission are known here by id."""
    if submission is None:
        when = {"timestamp": scores.timestamp} if scores.timestamp else {}
        with warnings.catch_warnings():
            # nbgrader's add_submission makes SQLAlchemy warn of each new submission
            warnings.simplefilter("ignore", SAWarning)
            submission = gb.add_submission(assignment, student, **when)
    elif scores.timestamp:  # as nbgrader's update_or_create_submission updates one
        submission.timestamp = parse_utc(scores.timestamp)
    graded = {nb.notebook.name: nb for nb in submission.notebooks}
    for nb in scores.notebooks:
        notebook = graded[nb.name]
        notebook.late_submission_penalty = nb.late_submission_penalty
        grades = {names[grade.cell_id]: grade for grade in notebook.grades}
        for cell, (auto_score, needs_manual) in nb.grades.items():
            grades[cell].auto_score, grades[cell].needs_manual_grade = auto_score, needs_manual
        comments = {names[comment.cell_id]: comment for comment in notebook.comments}
        for cell, comment in nb.comments.items():
            comments[cell].auto_comment = comment
    return submission
