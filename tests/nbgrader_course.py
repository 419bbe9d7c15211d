"""A course of the repository's nbgrader course, made for one round of a test: its source
notebooks, its configuration, an exchange and a Jupyter configuration of the round's own,
the assignments generated and the roster imported."""

from __future__ import annotations

import shutil
from pathlib import Path

from agentlab_magics.term.nbgrader_cli import Nbgrader

SOURCE = Path(__file__).resolve().parents[1] / "nbgrader_course"


def round_course(folder: Path, assignment: str, students: list[str]) -> tuple[Path, Nbgrader]:
    """`folder`/course, with `assignment` (or every one, for "*") generated and `students` on
    its roster; and the nbgrader that runs in it."""
    course = folder / "course"
    if assignment == "*":
        shutil.copytree(SOURCE / "source", course / "source")
    else:
        shutil.copytree(SOURCE / "source" / assignment, course / "source" / assignment)
    shutil.copy(SOURCE / "nbgrader_config.py", course)
    for made in ("exchange", "jupyter-config"):
        (folder / made).mkdir(parents=True)
    nbgrader = Nbgrader({"AGENTLAB_EXCHANGE": str(folder / "exchange"),
                         "AGENTLAB_PROGRESS": str(folder / "progress.json"),
                         "JUPYTER_CONFIG_DIR": str(folder / "jupyter-config")})
    nbgrader.run("generate_assignment", assignment, cwd=course)
    roster = folder / "students.csv"
    roster.write_text("id\n" + "".join(f"{name}\n" for name in students), encoding="utf-8")
    nbgrader.run("db", "student", "import", str(roster), cwd=course)
    return course, nbgrader
