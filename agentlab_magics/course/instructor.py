"""The instructor's half of the course, found through an entry point, reached only when asked for.

The instructor package (agentlab_instructor, in the course's repository) declares itself in the
entry point group ENTRY_POINTS under the name "course"; this package never names it. Invariant:
importing any module of agentlab_magics never imports it. A student's install has no
instructor package, and everything a student runs works without it. It holds the instructor's
part of each built-in lab, a folder of the lab's own (`instructor_part`: reference.py,
heldback.py, equivalents.toml and the held-back tests' reference runs), which the student
copy in the package lacks. What does need it (a lab's reference and marked file, the held-back
tests, `agentlab demo`, `agentlab course build` and `publish-solution`) finds it at the moment
it is needed, and where it is not installed gets InstructorPackageMissing: one sentence saying
what to install.
"""

from __future__ import annotations

import importlib
from functools import cache
from importlib.metadata import entry_points
from pathlib import Path
from types import ModuleType

from agentlab_magics.problems import Problem

ENTRY_POINTS = "agentlab_magics.instructor"
PARTS = "labs"  # the instructor package's folder of the built-in labs' parts, by lab id


class InstructorPackageMissing(ImportError, Problem):
    """What was asked for needs the instructor package, which is not installed here."""


@cache
def instructor_package_name() -> str | None:
    """The name of the module the entry point declares (read from the installed metadata,
    nothing imported), or None where no instructor package is installed."""
    for point in entry_points(group=ENTRY_POINTS, name="course"):
        return point.value
    return None


def instructor_package() -> ModuleType | None:
    """The instructor package, imported now, or None where none is installed (or where it
    cannot be read: a grading sandbox hides it)."""
    name = instructor_package_name()
    if name is None:
        return None
    try:
        return importlib.import_module(name)
    except (ImportError, PermissionError):
        return None


def instructor_module(name: str, needs: str) -> ModuleType:
    """The instructor package's module `name`, imported now. Where the package is not
    installed, InstructorPackageMissing saying that `needs` (the start of the sentence) needs
    it; any other import error inside the package is raised as it is."""
    package = instructor_package()
    if package is None:
        raise missing(needs)
    return importlib.import_module(f"{package.__name__}.{name}")


def missing(needs: str) -> InstructorPackageMissing:
    """The problem of `needs` (the start of the sentence) where no instructor package is."""
    return InstructorPackageMissing(
        f"{needs} needs the instructor package, which is not installed here: install it "
        "with `pip install -e ./instructor` from the course's repository.")


def instructor_part(lab_id: str) -> Path | None:
    """The folder of the instructor's part of the built-in lab `lab_id`, or None where the
    instructor package is not installed (or cannot be read)."""
    package = instructor_package()
    if package is None or not package.__file__:
        return None
    return Path(package.__file__).parent / PARTS / lab_id
