"""The grades of a course as nbgrader recorded them: a score per student and assignment.

The totals come from the CSV `nbgrader export` writes; the scores of single cells from the
gradebook, read through nbgrader's own API.
"""

from __future__ import annotations

import csv
from pathlib import Path

from pydantic import BaseModel


class CellGrade(BaseModel):
    """One graded cell of one submission: its score, its maximum, whether a person must grade it."""

    score: float | None
    max_score: float
    needs_manual_grade: bool


class GradeTable(BaseModel):
    """Scores by student and assignment, each assignment's maximum, and every cell's grade."""

    assignments: list[str]
    students: list[str]
    scores: dict[str, dict[str, float]]
    max_scores: dict[str, float]
    cells: dict[str, dict[str, dict[str, CellGrade]]]

    def render(self) -> str:
        """The table as text: a row per student, a column per assignment, then the maxima; and
        below it, each submission's cells that did not get full marks."""
        width = max(len(name) for name in [*self.students, "max"])
        columns = [max(len(a), 5) for a in self.assignments]
        rows = [" " * width + "".join(f"  {a:>{w}}" for a, w in zip(self.assignments, columns))]
        for student, scores in [*self.scores.items(), ("max", self.max_scores)]:
            rows.append(f"{student:<{width}}" + "".join(
                f"  {_number(scores.get(a)):>{w}}" for a, w in zip(self.assignments, columns)))
        short = [f"  {student}, {assignment}: {', '.join(lost)}"
                 for student in self.students for assignment in self.assignments
                 if (lost := self.short_cells(student, assignment))]
        if short:
            rows += ["", "Cells without full marks:", *short]
        return "\n".join(rows)

    def short_cells(self, student: str, assignment: str) -> list[str]:
        """"<cell> <score>/<max>" for each of the submission's cells short of full marks."""
        cells = self.cells.get(student, {}).get(assignment, {})
        return [f"{name} {_number(grade.score)}/{_number(grade.max_score)}"
                + (" (to grade by hand)" if grade.needs_manual_grade else "")
                for name, grade in cells.items()
                if grade.needs_manual_grade or grade.score != grade.max_score]


def _number(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:g}"


def read_grades(csv_file: Path, db_url: str, course_id: str, assignments: list[str],
                students: list[str]) -> GradeTable:
    """The table of `students` by `assignments` (in those orders), from nbgrader's export CSV
    and, for the cells, the gradebook at `db_url`."""
    from nbgrader.api import Gradebook, MissingEntry

    with open(csv_file, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    scores: dict[str, dict[str, float]] = {student: {} for student in students}
    max_scores: dict[str, float] = {}
    for row in rows:
        if row["student_id"] in scores and row["assignment"] in assignments:
            scores[row["student_id"]][row["assignment"]] = float(row["score"])
            max_scores[row["assignment"]] = float(row["max_score"])
    cells: dict[str, dict[str, dict[str, CellGrade]]] = {student: {} for student in students}
    with Gradebook(db_url, course_id) as gradebook:
        for student in students:
            for assignment in assignments:
                try:
                    submission = gradebook.find_submission(assignment, student)
                except MissingEntry:
                    continue
                cells[student][assignment] = {
                    grade.name: CellGrade(score=grade.score, max_score=grade.max_score,
                                          needs_manual_grade=grade.needs_manual_grade)
                    for notebook in submission.notebooks for grade in notebook.grades}
    return GradeTable(assignments=assignments, students=students, scores=scores,
                      max_scores=max_scores, cells=cells)
