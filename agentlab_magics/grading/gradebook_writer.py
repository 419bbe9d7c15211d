"""The batch's one writer to the course's gradebook.

It holds one nbgrader Gradebook for the whole batch (one engine, so SQLAlchemy compiles each of
nbgrader's queries once, not once a submission) and merges the submissions that finished
together in one database transaction, written in one flush (so the rows of a group go in
together, a statement a table, not a statement a row).
Invariant: a group's scores reach the gradebook all together or not at all, so the batch, which
notes a group's fingerprints only after `merge` returns, resumes after any stop by grading
again exactly the submissions whose scores it did not record.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from types import TracebackType

from sqlalchemy.orm import Session, scoped_session, sessionmaker, undefer

from agentlab_magics.grading.gradebook_copy import (
    Gradebook,
    Scores,
    StudentEntry,
    SubmittedAssignment,
    add_new_students,
    cell_names,
    merge,
    submissions_of,
)


class GradebookWriter:
    """Merges graded submissions of `assignment` into the gradebook at `db_url`; use it in a
    `with` block, which opens and closes the gradebook."""

    def __init__(self, db_url: str, course_id: str, assignment: str):
        self.db_url, self.course_id, self.assignment = db_url, course_id, assignment
        self._gradebook: Gradebook | None = None
        self._names: dict[str, str] = {}

    def __enter__(self) -> GradebookWriter:
        self._gradebook = Gradebook(self.db_url, self.course_id)
        self._names = cell_names(self._gradebook, self.assignment)
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        if self._gradebook is not None:
            self._gradebook.close()
            self._gradebook = None

    def merge(self, graded: Sequence[tuple[StudentEntry, Scores]]) -> list[tuple[float, float]]:
        """Merge each (student's part, scores) in one transaction; each one's score and
        maximum, in order."""
        with self._transaction() as gb:
            add_new_students(gb, [entry for entry, _ in graded])
            gb.db.flush()  # for add_submission, which looks each student up
            known = submissions_of(gb, self.assignment, [entry.student for entry, _ in graded])
            submissions = [merge(gb, self.assignment, entry.student, scores, self._names,
                                 known.get(entry.student)) for entry, scores in graded]
            gb.db.flush()
            return _totals(gb, submissions)

    @contextmanager
    def _transaction(self) -> Iterator[Gradebook]:
        """The gradebook, its session joined to one transaction of the database: committed
        when the block ends, rolled back whole if it raises."""
        gb = self._gradebook
        if gb is None:
            raise RuntimeError("GradebookWriter.merge is used inside its `with` block")
        own_session = gb.db
        with gb.engine.connect() as connection, connection.begin():
            gb.db = scoped_session(sessionmaker(
                bind=connection, class_=_GroupSession, autoflush=False, future=True,
                join_transaction_mode="rollback_only", expire_on_commit=False))
            try:
                yield gb
            finally:
                gb.db.remove()
                gb.db = own_session


def _totals(gb: Gradebook, submissions: list[SubmittedAssignment]) -> list[tuple[float, float]]:
    """Each submission's score and maximum, as nbgrader sums them over the grades just
    written: one query for the group."""
    summed = (gb.db.query(SubmittedAssignment)
              .filter(SubmittedAssignment.id.in_([s.id for s in submissions]))
              .options(undefer(SubmittedAssignment.score), undefer(SubmittedAssignment.max_score))
              .populate_existing())
    found = {submission.id: (submission.score, submission.max_score) for submission in summed}
    return [found[submission.id] for submission in submissions]


class _GroupSession(Session):
    """A session whose commits do nothing: nbgrader commits after each change it makes, and a
    group's changes are written by one flush and committed once, by the writer."""

    def commit(self) -> None:
        pass
