"""The instructor's half of the course (agentlab_instructor), reached only when it is asked for.

Invariant: importing any module of agentlab_magics never imports agentlab_instructor. A
student's install has no instructor package, and everything a student runs works without it.
What does need it (a lab's reference and marked file, `agentlab demo`, `agentlab course build`
and `publish-solution`) imports it through `instructor_module` at the moment it is needed, and
where it is not installed gets InstructorPackageMissing: one sentence saying what to install.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentlab_instructor.lab_files import LabFiles

PACKAGE = "agentlab_instructor"


class InstructorPackageMissing(ImportError):
    """What was asked for needs the instructor package, which is not installed here."""


def instructor_module(name: str, needs: str) -> ModuleType:
    """agentlab_instructor.<name>, imported now. Where the package is not installed,
    InstructorPackageMissing saying that `needs` (the start of the sentence) needs it; any
    other import error inside the package is raised as it is."""
    try:
        importlib.import_module(PACKAGE)
    except ModuleNotFoundError as exc:
        if exc.name != PACKAGE:
            raise
        raise InstructorPackageMissing(
            f"{needs} needs the instructor package ({PACKAGE}), which is not installed here: "
            "install it with `pip install -e ./instructor` from the course's repository.",
            name=PACKAGE) from None
    return importlib.import_module(f"{PACKAGE}.{name}")


def instructor_files(lab_id: str, needs: str) -> LabFiles:
    """The instructor's files of a lab (starter, reference, marked); see `instructor_module`."""
    return instructor_module("lab_files", needs).lab_files(lab_id)
