"""An assignment's submissions as nbgrader's gradebook records them, read in three queries.

nbgrader's own totals (`SubmittedAssignment.score`, `submission_dicts`) sum the grades of
every submission in a subquery over the whole grade table, which takes seconds per hundred
submissions; here each submission's notebooks, grades and student are loaded together
(SQLAlchemy's selectinload, on nbgrader.api's own classes and session) and summed as
nbgrader sums them: a grade's score is its manual score, else its automatic one; a
submission's late penalty is its notebooks' penalties; lateness is nbgrader's own
`total_seconds_late` (the due date with the student's extension).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel


class HandIn(BaseModel):
    """One student's submission of one assignment."""

    student: str
    score: float
    penalty: float
    timestamp: datetime | None
    late: bool


def hand_ins(gradebook: Any, assignment: str) -> list[HandIn]:
    """Every submission of `assignment` in nbgrader's `gradebook`, by student id."""
    from nbgrader.api import SubmittedAssignment, SubmittedNotebook
    from sqlalchemy.orm import selectinload

    found = gradebook.find_assignment(assignment)
    submissions = gradebook.db.query(SubmittedAssignment).filter(
        SubmittedAssignment.assignment_id == found.id).options(
        selectinload(SubmittedAssignment.student),
        selectinload(SubmittedAssignment.notebooks).selectinload(SubmittedNotebook.grades))
    return sorted((HandIn(student=s.student.id,
                          score=sum(g.score or 0.0 for nb in s.notebooks for g in nb.grades),
                          penalty=sum(nb.late_submission_penalty or 0.0 for nb in s.notebooks),
                          timestamp=s.timestamp, late=s.total_seconds_late > 0)
                   for s in submissions), key=lambda hand_in: hand_in.student)
