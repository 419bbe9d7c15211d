"""A course folder: nbgrader's course directory, which holds its configuration (CONFIG, the
package's template/, a folder of data rather than a module; the repository's nbgrader_course/
links to it), the assignments' source notebooks, the students' submissions and the gradebook.
making/new_course.py writes a new one from the installed package."""

from __future__ import annotations

import importlib.resources
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from agentlab_magics.course import labs
from agentlab_magics.problems import UsageProblem
from agentlab_magics.term.nbgrader_cli import Nbgrader, without_slow_imports

without_slow_imports()

from nbgrader.api import Gradebook  # noqa: E402 (after the line above)
from nbgrader.coursedir import CourseDirectory  # noqa: E402

Step = Literal["source", "release", "submitted", "autograded", "feedback"]

CONFIG = "nbgrader_config.py"


class CourseFolderProblem(UsageProblem):
    """The course folder cannot be written where asked; the message says what to do."""


def require_course(folder: Path) -> None:
    """CourseFolderProblem, saying what to do, unless `folder` holds a course (its CONFIG)."""
    if not folder.is_dir():
        raise CourseFolderProblem(
            f"There is no folder {folder}: name your course folder (the one holding {CONFIG}) "
            f"with --course DIR, or start one with `agentlab course init {folder}`.")
    if not (folder / CONFIG).is_file():
        raise CourseFolderProblem(
            f"{folder} holds no course ({CONFIG} is missing): run this in your course folder "
            f"or name it with --course DIR, or start one with `agentlab course init {folder}`.")


def config_text() -> str:
    """The course's nbgrader configuration, as the package holds it."""
    return importlib.resources.files("agentlab_magics.term").joinpath(
        "template", CONFIG).read_text(encoding="utf-8")


def in_course_order(names: Sequence[str]) -> list[str]:
    """Assignment names in the course's order: labs first, in catalog order, then the rest by
    name."""
    order = list(labs())
    return sorted(names, key=lambda a: (order.index(a) if a in order else len(order), a))


def graded_assignments(gradebook: Gradebook, names: Sequence[str] = ()) -> list[str]:
    """Those of `names` (every one, if none) that the open `gradebook` has, in the course's
    order; CourseFolderProblem, naming the ones it has, when it lacks one or has none."""
    known = in_course_order([a.name for a in gradebook.assignments])
    unknown = [a for a in names if a not in known]
    if unknown or not known:
        raise CourseFolderProblem(f"The gradebook has no assignment {', '.join(unknown) or 'yet'};"
                                  f" it has: {', '.join(known) or 'none'}.")
    return [a for a in known if not names or a in names]


class CourseFolder:
    """A course folder as nbgrader's configuration lays it out: where each step's folder of a
    student's assignment is, the gradebook, the course's id and who is left off the roster.
    The one reading of it, for the batch grader (grading/) and the class report (term/)."""

    def __init__(self, config: dict) -> None:
        self.config = config
        self.dirs = CourseDirectory(config=config)
        self.root = Path(self.dirs.root)
        self.db_url, self.course_id = self.dirs.db_url, self.dirs.course_id

    @classmethod
    def read(cls, root: Path, nbgrader: Nbgrader | None = None) -> CourseFolder:
        """The course in `root`, as its configuration says (CourseFolderProblem if none)."""
        require_course(root)
        return cls((nbgrader or Nbgrader()).configuration(root))

    def folder(self, step: Step, student: str, assignment: str) -> Path:
        """The folder of `student`'s `assignment` at `step` ("." for a step of no student)."""
        return Path(self.dirs.format_path(getattr(self.dirs, f"{step}_directory"), student,
                                          assignment))

    def gradebook_file(self) -> Path | None:
        """The SQLite gradebook's file; None where the gradebook is a database server."""
        database = self.db_url.removeprefix("sqlite:///")
        return Path(database) if database != self.db_url else None

    def gradebook(self) -> Gradebook:
        """The course's gradebook, opened (a context manager: closed when its block ends)."""
        return Gradebook(self.db_url, self.course_id)

    def require_gradebook(self) -> None:
        """CourseFolderProblem where the SQLite gradebook was never made (nothing was graded
        yet): opening it would make an empty one."""
        database = self.gradebook_file()
        if database is not None and not database.is_file():
            raise CourseFolderProblem(f"{self.root} has no gradebook yet ({database}): "
                                      "generate, collect and autograde an assignment first.")

    def submitted(self, assignment: str, students: Sequence[str] | None = None
                  ) -> dict[str, Path]:
        """Each student's submitted folder of `assignment` (of `students`, if given), but
        those the configuration leaves off the roster; CourseFolderProblem, saying what to
        run, when nobody (or one of `students`) has handed it in."""
        pattern = self.folder("submitted", "*", assignment)
        found = {path.parent.name: path for path in sorted(pattern.parent.parent.glob(
            f"*/{pattern.name}")) if path.is_dir() or path.is_symlink()}
        excluded = set(filter(None, self.dirs.student_id_exclude.split(",")))
        found = {s: p for s, p in found.items() if s not in excluded}
        if not found:
            raise CourseFolderProblem(
                f"Nobody has handed in {assignment}: there is no submission in "
                f"{pattern.parent.parent}. Run `nbgrader collect {assignment}` first.")
        if students is None:
            return found
        missing = [s for s in students if s not in found]
        if missing:
            raise CourseFolderProblem(
                f"No submission of {assignment} by {', '.join(missing)} in "
                f"{pattern.parent.parent}: run `nbgrader collect {assignment}` first, or leave "
                "them out of --students.")
        return {s: found[s] for s in students}

    def autograded(self, assignment: str) -> set[str]:
        """The students whose submission of `assignment` is in the gradebook and has an
        autograded folder."""
        with self.gradebook() as gb:
            known = {s.student.id for s in gb.find_assignment(assignment).submissions}
        return {student for student in known
                if self.folder("autograded", student, assignment).is_dir()}
