"""Grades out to the LMS: nbgrader export plugins writing the CSV files Canvas's and Moodle's
gradebooks import, and readers of those files (for the round trip that tests them).

    nbgrader export --exporter agentlab_magics.term.lms_export.CanvasExport --to canvas.csv
    nbgrader export --exporter agentlab_magics.term.lms_export.MoodleExport --to moodle.csv
    agentlab course export --to canvas|moodle FILE      (the same, run in the course folder)

The columns follow each LMS's documented import:
- Canvas ("Import CSV file to Grades", Ohio State's guide to Canvas's gradebook import,
  https://teaching.resources.osu.edu/toolsets/carmencanvas/guides/calculating-final-grades/
  import-csv-file-carmen-grades; and Canvas's gradebook export, whose file the import takes
  back, https://ts.vcu.edu/askit/teaching-and-learning/canvas/faculty/grading-faculty/
  gradebook-action-menu-faculty/): the columns Student (last name, first name), ID, SIS User
  ID, SIS Login ID and Section, then a column per assignment; the row under the header is
  "Points Possible", each assignment's maximum. From nbgrader's student records: ID is the
  student's `lms_user_id` (Canvas's own id, which nbgrader keeps for LTI), SIS Login ID the
  nbgrader id (the login students use on the hub); SIS User ID and Section stay empty.
- Moodle ("Grade import", https://docs.moodle.org/311/en/Grade_import): a header row and a
  row per student, any columns; on import the teacher maps one column to a user field ("Map
  from" / "Map to": ID number to useridnumber, or Email address to useremail) and each other
  column to a grade item. Here: First name, Last name, ID number (the nbgrader id), Email
  address, then a column per assignment named "ASSIGNMENT (out of POINTS)": Moodle's CSV has
  no row of maxima, so the header says what the grade item's maximum must be.
A grade is nbgrader's own total less its late penalty, never below 0 (as `nbgrader export`
writes it); a student who handed nothing in gets an empty cell, never a 0 that reads as
earned.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from nbgrader.plugins.export import ExportPlugin
from pydantic import BaseModel

from agentlab_magics.term.course_folder import in_course_order
from agentlab_magics.term.hand_ins import hand_ins

CANVAS_IDS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
POINTS_POSSIBLE = "Points Possible"
MOODLE_IDS = ["First name", "Last name", "ID number", "Email address"]
MOODLE_COLUMN = re.compile(r"^(?P<assignment>.*) \(out of (?P<points>[0-9.]+)\)$")


class Person(BaseModel):
    """A student as nbgrader's roster records them."""

    id: str
    first_name: str = ""
    last_name: str = ""
    email: str = ""
    lms_user_id: str = ""


class Grades(BaseModel):
    """Each assignment's points possible, and each student's grade on what they handed in."""

    assignments: list[str]
    points: dict[str, float]
    students: list[Person]
    grades: dict[str, dict[str, float]]


def lms_grades(gradebook: Any, assignments: Sequence[str] = (),
                students: Sequence[str] = ()) -> Grades:
    """The grades in nbgrader's `gradebook` (of those assignments and students, if given)."""
    chosen = in_course_order([a.name for a in gradebook.assignments
                              if not assignments or a.name in assignments])
    people = [Person(id=s.id, first_name=s.first_name or "", last_name=s.last_name or "",
                     email=s.email or "", lms_user_id=s.lms_user_id or "")
              for s in sorted(gradebook.students, key=lambda s: s.id)
              if not students or s.id in students]
    grades: dict[str, dict[str, float]] = {p.id: {} for p in people}
    points = {}
    for name in chosen:
        points[name] = gradebook.find_assignment(name).max_score
        for handed in hand_ins(gradebook, name):
            if handed.student in grades:
                grades[handed.student][name] = max(0.0, handed.score - handed.penalty)
    return Grades(assignments=chosen, points=points, students=people, grades=grades)


def canvas_rows(grades: Grades) -> list[list[str]]:
    """The Canvas import: header, Points Possible, a row per student."""
    rows = [[*CANVAS_IDS, *grades.assignments],
            [POINTS_POSSIBLE, "", "", "", "", *(_number(grades.points[a])
                                                for a in grades.assignments)]]
    for person in grades.students:
        name = ", ".join(n for n in (person.last_name, person.first_name) if n) or person.id
        rows.append([name, person.lms_user_id, "", person.id, "",
                     *_cells(grades, person.id)])
    return rows


def moodle_rows(grades: Grades) -> list[list[str]]:
    """The Moodle import: header, a row per student."""
    rows = [[*MOODLE_IDS, *(f"{a} (out of {_number(grades.points[a])})"
                            for a in grades.assignments)]]
    rows += [[p.first_name, p.last_name, p.id, p.email, *_cells(grades, p.id)]
             for p in grades.students]
    return rows


def read_canvas(path: Path) -> Grades:
    """Grades back from a Canvas import file (the student's id from SIS Login ID)."""
    header, points, *rows = _rows(path)
    assignments = header[len(CANVAS_IDS):]
    people = [Person(id=row[3], lms_user_id=row[1]) for row in rows]
    return _grades(assignments, points[len(CANVAS_IDS):], people,
                   [row[len(CANVAS_IDS):] for row in rows])


def read_moodle(path: Path) -> Grades:
    """Grades back from a Moodle import file (the student's id from ID number)."""
    header, *rows = _rows(path)
    columns = [MOODLE_COLUMN.match(column) for column in header[len(MOODLE_IDS):]]
    people = [Person(id=row[2], first_name=row[0], last_name=row[1], email=row[3])
              for row in rows]
    return _grades([c["assignment"] if c else "" for c in columns],
                   [c["points"] if c else "" for c in columns], people,
                   [row[len(MOODLE_IDS):] for row in rows])


def write_csv(path: Path, rows: list[list[str]]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows)


class _LmsExport(ExportPlugin):
    """An nbgrader exporter writing `rows` of the gradebook's grades to --to."""

    rows: Callable[[Grades], list[list[str]]]
    default = "grades.csv"

    def export(self, gradebook: Any) -> None:
        destination = Path(self.to or self.default)
        self.log.info("Exporting grades to %s", destination)
        grades = lms_grades(gradebook, [str(a) for a in self.assignment],
                             [str(s) for s in self.student])
        write_csv(destination, type(self).rows(grades))


class CanvasExport(_LmsExport):
    """Canvas's gradebook import CSV (the module docstring gives its columns)."""

    rows = staticmethod(canvas_rows)
    default = "canvas.csv"


class MoodleExport(_LmsExport):
    """Moodle's grade import CSV (the module docstring gives its columns)."""

    rows = staticmethod(moodle_rows)
    default = "moodle.csv"


EXPORTERS = {"canvas": f"{__name__}.CanvasExport", "moodle": f"{__name__}.MoodleExport"}


def _number(value: float) -> str:
    return f"{value:g}"


def _cells(grades: Grades, student: str) -> list[str]:
    """A student's grade per assignment; empty where they handed nothing in."""
    given = grades.grades[student]
    return [_number(given[a]) if a in given else "" for a in grades.assignments]


def _rows(path: Path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


def _grades(assignments: list[str], points: list[str], people: list[Person],
            cells: list[list[str]]) -> Grades:
    return Grades(assignments=assignments,
                  points={a: float(p) for a, p in zip(assignments, points)},
                  students=people,
                  grades={p.id: {a: float(c) for a, c in zip(assignments, row) if c}
                          for p, row in zip(people, cells)})
