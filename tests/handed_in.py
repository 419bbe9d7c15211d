"""A course folder whose submissions are already in place: for benchmarks and tests of grading.

`handed_in` copies the course's source and configuration, generates the assignments, imports
a roster and writes each student's notebook straight into submitted/ (what `nbgrader
collect` would leave there), skipping the exchange. A student is a simulated persona
(students.py) with a number after it: `wrong3` hands in what `wrong` does.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

import nbformat

from agentlab_magics.demos.students import submission
from agentlab_magics.term.course_folder import CONFIG
from agentlab_magics.term.nbgrader_cli import Nbgrader


def persona(student: str) -> str:
    """The simulated student a numbered one copies: `wrong3` -> `wrong`."""
    return student.rstrip("0123456789")


def handed_in(course: Path, folder: Path, assignments: Sequence[str], students: Sequence[str],
              nbgrader: Nbgrader, *, config: str | None = None) -> Path:
    """A new course in `folder`/course with `assignments` generated and every student's
    notebook of each submitted; `config`, if given, in place of the course's configuration."""
    home = folder / "course"
    for assignment in assignments:
        shutil.copytree(course / "source" / assignment, home / "source" / assignment)
    text = config if config is not None else (course / CONFIG).read_text(encoding="utf-8")
    (home / CONFIG).write_text(text, encoding="utf-8")
    for assignment in assignments:
        nbgrader.run("generate_assignment", assignment, cwd=home)
    roster = folder / "students.csv"
    roster.write_text("id\n" + "".join(f"{s}\n" for s in students), encoding="utf-8")
    nbgrader.run("db", "student", "import", str(roster), cwd=home)
    for assignment in assignments:
        released = nbformat.read(home / "release" / assignment / f"{assignment}.ipynb", 4)
        for student in students:
            hand_in(home, assignment, student, submission(persona(student), released))
    return home


def hand_in(home: Path, assignment: str, student: str, notebook) -> Path:
    """Put `notebook` in submitted/ as `student`'s notebook of `assignment`."""
    where = home / "submitted" / student / assignment
    where.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, where / f"{assignment}.ipynb")
    return where
