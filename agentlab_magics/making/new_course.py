"""A new course folder, written from the installed package, so an instructor needs no checkout
of the course's repository: its nbgrader_config.py and every assignment's source notebook."""

from __future__ import annotations

from pathlib import Path

from agentlab_magics.course.instructor import instructor_module
from agentlab_magics.making import notebooks
from agentlab_magics.term.course_folder import CONFIG, CourseFolderProblem, config_text


def init(folder: Path) -> list[Path]:
    """Write a new course into `folder` (new or empty): its configuration and every source
    notebook; returns the files written. The notebooks hold the reference, so this needs the
    instructor package (InstructorPackageMissing otherwise, before anything is written)."""
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
