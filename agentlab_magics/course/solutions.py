"""Where `%solution LAB` and `agentlab solution LAB` find a lab's solution, and who may see it.

Invariant: in a graded course, a student sees a solution only once the instructor has
published it. The places, in order:
1. `$AGENTLAB_SOLUTIONS` names a folder of PUBLISHED solutions, one `<lab>.py` per lab (a hub
   admin sets it for students; `agentlab course publish-solution LAB` writes into it). When it
   is set, that folder is the only place looked in, even where the instructor package
   happens to be importable.
2. Otherwise the reference from the instructor package, when it is installed.
3. Otherwise NotPublished, whose message is the one sentence to show the student: with no
   folder named there is no instructor to wait for, so it says how to get the course's
   self-paced solutions instead.
A folder of self-paced solutions (`agentlab course self-paced-solutions DIR`) holds every
lab's and the file SELF_PACED: a student working alone chooses to see one after trying its
lab (notebook.open_solution keeps to that), and the map then says "built with help".
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from agentlab_magics.atomic import write_text_atomically
from agentlab_magics.course.catalog import find_lab, labs
from agentlab_magics.course.instructor import InstructorPackageMissing
from agentlab_magics.course.lab_folder import LabFolderProblem

ENV = "AGENTLAB_SOLUTIONS"
SELF_PACED = "self-paced"  # in a folder of solutions: every lab's, for students working alone


@dataclass
class Solution:
    """A lab's solution, opened: the help is already recorded in the progress store."""

    lab: str
    title: str
    code: str


class NotPublished(LookupError):
    """The lab's solution may not be shown here; the message says why, in one sentence."""


def published_folder() -> Path | None:
    """The folder of published solutions `$AGENTLAB_SOLUTIONS` names; None when it is unset."""
    folder = os.environ.get(ENV, "").strip()
    return Path(folder).expanduser() if folder else None


def solution(lab_id: str) -> str:
    """The solution of the lab `lab_id` names, from the first place the module docstring
    lists; UnknownLab for no such lab, NotPublished when it may not be shown."""
    lab = find_lab(lab_id)
    folder = published_folder()
    if folder is not None:
        return _published(lab.id, folder)
    try:
        return lab.reference
    except (InstructorPackageMissing, LabFolderProblem):
        raise NotPublished(
            f"There is no solution to {lab.id} here. Working on your own, set ${ENV} to the "
            "folder of the course's self-paced solutions (`agentlab course "
            "self-paced-solutions DIR` writes it in a checkout of the course), then ask "
            "again.") from None


def self_paced() -> bool:
    """Whether the folder `$AGENTLAB_SOLUTIONS` names holds the self-paced solutions."""
    folder = published_folder()
    return folder is not None and (folder / SELF_PACED).is_file()


def publish(lab_id: str, folder: Path) -> Path:
    """Write the reference of the lab `lab_id` names into `folder` as `<lab>.py`, for every
    student to read; returns the file. Needs the instructor package."""
    lab = find_lab(lab_id)
    reference = lab.reference
    target = write_text_atomically(folder / f"{lab.id}.py", reference)
    target.chmod(0o644)  # published: readable by every student, whatever the umask
    return target


def publish_self_paced(folder: Path) -> list[Path]:
    """Write every lab's reference into `folder`, marked for students working alone; returns
    the files. Needs the instructor package."""
    written = [publish(lab_id, folder) for lab_id in labs()]
    marker = write_text_atomically(folder / SELF_PACED, (
        "Every lab's solution, for students working alone: set AGENTLAB_SOLUTIONS to this "
        "folder; %solution LAB shows one once you have run the lab's %%check.\n"))
    marker.chmod(0o644)
    return [*written, marker]


def _published(lab_id: str, folder: Path) -> str:
    path = folder / f"{lab_id}.py"
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise NotPublished(_not_yet(lab_id)) from None
    except OSError as exc:
        raise NotPublished(f"The solution to {lab_id} is published but cannot be read "
                           f"({exc.strerror or exc}): tell your instructor.") from None


def _not_yet(lab_id: str) -> str:
    return (f"The solution to {lab_id} is not published yet: your instructor publishes each "
            "solution after its deadline.")
