"""A course folder for nbgrader, written from the installed package, so an instructor needs
no checkout of the course's repository: its nbgrader_config.py (the package's template/, a
folder of data rather than a module; the repository's nbgrader_course/ links to it) and every
assignment's source notebook."""

from __future__ import annotations

import importlib.resources
from collections.abc import Sequence
from pathlib import Path

from agentlab_magics.problems import UsageProblem

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


def init(folder: Path) -> list[Path]:
    """Write a new course into `folder` (new or empty): its configuration and every source
    notebook; returns the files written. The notebooks hold the reference, so this needs the
    instructor package (InstructorPackageMissing otherwise, before anything is written)."""
    from agentlab_magics.course.instructor import instructor_module
    from agentlab_magics.term import notebooks

    instructor_module("lab_files", "`agentlab course init`")
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise CourseFolderProblem(
            f"{folder} is not empty: give `agentlab course init` a new folder, or refresh the "
            f"notebooks of an existing course with `agentlab course build --course {folder}`.")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / CONFIG).write_text(config_text(), encoding="utf-8")
    return [folder / CONFIG, *notebooks.build(folder)]


def course_or_new(course: Path | None, new: Path) -> Path:
    """`course` if given; else ./nbgrader_course where the working folder holds the course's
    repository; else a new course written into `new`."""
    if course is not None:
        return course
    here = Path("nbgrader_course")
    if (here / CONFIG).is_file():
        return here
    init(new)
    return new


def in_course_order(names: Sequence[str]) -> list[str]:
    """Assignment names in the course's order: labs first, in catalog order, then the rest by
    name."""
    from agentlab_magics.course import labs

    order = list(labs())
    return sorted(names, key=lambda a: (order.index(a) if a in order else len(order), a))
