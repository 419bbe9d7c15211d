"""A short term of the course for the class report's tests: three of the demo's simulated
students (demos/students.py) hand in lesson 1 and are graded by the real nbgrader commands and
agentlab's batch autograde; a fourth student on the roster hands in nothing. Lesson 1 has a
due date that "wrong" misses; "wrong" has a name and an email that are
markup, and an LMS id. Then `agentlab course report` writes the page."""

from __future__ import annotations

import io
import os
from contextlib import redirect_stdout
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from unittest import mock

from agentlab_magics.cli import main
from agentlab_magics.grading.batch import autograde_course, local_cluster
from agentlab_magics.term.nbgrader_cli import Nbgrader
from tests.handed_in import handed_in
from tests.nbgrader_course import SOURCE

ASSIGNMENTS = ["lesson1"]
HANDING_IN = ["reference", "starter", "wrong"]
ROSTER = ["absent", *HANDING_IN]
DUE = datetime(2026, 12, 1, 12, 0)  # UTC, as nbgrader keeps it
HANDED = {"reference": DUE - timedelta(days=2), "starter": DUE - timedelta(hours=3),
          "wrong": DUE + timedelta(hours=5)}
MARKUP = {"first_name": "<b>Robin</b>", "last_name": "<script>alert(1)</script>",
          "email": "robin@example.org", "lms_user_id": "4242"}


@dataclass
class Term:
    course: Path
    page: Path
    printed: str
    untouched: bool  # the report changed no file of the course

    @property
    def db_url(self) -> str:
        return f"sqlite:///{self.course / 'gradebook.db'}"


def build_term(root: Path) -> Term:
    from nbgrader.api import Gradebook

    environment = {"AGENTLAB_EXCHANGE": str(root / "exchange"),
                   "AGENTLAB_PROGRESS": str(root / "progress.json"),
                   "JUPYTER_CONFIG_DIR": str(root / "jupyter-config")}
    nbgrader = Nbgrader(environment)
    course = handed_in(SOURCE, root, ASSIGNMENTS, HANDING_IN, nbgrader)
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", "agentlab") as gradebook:
        gradebook.update_or_create_assignment("lesson1", duedate=DUE)
        gradebook.add_student("absent", first_name="Ada", last_name="Absent")
        gradebook.update_or_create_student("wrong", **MARKUP)
    for assignment in ASSIGNMENTS:
        for student, when in HANDED.items():
            (course / "submitted" / student / assignment / "timestamp.txt").write_text(
                f"{when:%Y-%m-%d %H:%M:%S}.000000 UTC")
    with local_cluster(2) as cluster:
        for assignment in ASSIGNMENTS:
            autograde_course(course, assignment, scheduler=cluster.scheduler_address,
                             nbgrader=nbgrader, progress=io.StringIO(), without_sandbox=True)
    before = _files(course)
    printed = io.StringIO()
    with mock.patch.dict(os.environ, environment), redirect_stdout(printed):
        code = main(["course", "report", "--course", str(course), "--out", str(root / "report")])
    assert code == 0
    return Term(course, root / "report" / "index.html", printed.getvalue(),
                untouched=_files(course) == before)


def _files(folder: Path) -> dict[str, tuple[int, int]]:
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.rglob("*")
            if p.is_file()}
