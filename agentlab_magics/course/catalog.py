"""The labs as data: what each asks the student to write, its tests, its files.

Lab ids are lesson1 … lesson7, checkpoint-a and checkpoint-a-test; "lesson06", "6" and
"Lesson 6" name lesson6 too. An unknown id is an UnknownLab whose message lists them all.

A harness lab builds on the lessons before it (`builds_on`): its file holds what they wrote,
so their tests of the names its file still holds run with its own, under "Still holds from
lesson N" (checking.runner), and never count towards its grade. A checkpoint rebuilds what
lessons wrote and adds nothing of its own, so no later lab builds on it.

Every lab is what its folder's lab.toml says (course.packs): the built-in ones, from the
package's own folders (course/labs/<id>/), then the labs of course packs, found and read as
that module says; a pack lab may build on any lab before it.

The student package holds each lab's starter only, as a file `agentlab course build` wrote
(course/labs/<lab>/starter.py). The reference and the marked file are the instructor's: reading
them imports the instructor package (agentlab_instructor) then and there, and where it is not
installed they are InstructorPackageMissing. Nothing here imports it when it is imported.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

from agentlab_magics.course import packs
from agentlab_magics.course.lab_folder import LabFolderProblem
from agentlab_magics.course.lab_model import Lab, UnknownLab
from agentlab_magics.course.packs import pack_folders, pack_labs, stamp


def harness_names() -> frozenset[str]:
    """Every name a lab asks for: the names a lab test can read off the student's file."""
    return frozenset(name for lab in labs().values() for name in lab.names)


def purposes_for(lab_id: str) -> dict[str, str]:
    """What each name a lab asks for is for, in a sentence: the lab's own names as it says, and
    any other lab's name (its file may hold an earlier lab's) as that lab says."""
    lab = find_lab(lab_id)
    return {**{name: purpose for other in labs().values()
               for name, purpose in other.purposes.items()}, **lab.purposes}


def file_names(lab_id: str) -> frozenset[str]:
    """The names the lab's file holds: those its starter defines at the top level, and the
    gaps it asks the student to fill."""
    lab = find_lab(lab_id)
    return _file_names(lab.starter, tuple(lab.names))


@cache
def _file_names(starter: str, names: tuple[str, ...]) -> frozenset[str]:
    """Worked out once a starter: every check of a later lab asks."""
    defined = {node.name for node in ast.parse(starter).body
               if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    return frozenset(defined | set(names))


def labs() -> dict[str, Lab]:
    """Every lab, by id, in course order: the built-in ones, then the packs' (read again when
    a file of theirs changed)."""
    folders = pack_folders()
    return _labs(tuple(folders), stamp(folders))


@cache
def built_in_labs() -> dict[str, Lab]:
    """The labs of the built-in course, by id, in course order (course.packs.built_in_labs)."""
    return {lab.id: lab for lab in packs.built_in_labs()}


@cache
def _labs(folders: tuple[Path, ...], stamp: tuple) -> dict[str, Lab]:
    known = dict(built_in_labs())
    for lab in pack_labs(list(folders)):
        if lab.id in known:
            raise LabFolderProblem(f"{lab.folder}: a lab called {lab.id!r} is already "
                                   "in the course: rename the folder.")
        unknown = [earlier for earlier in lab.builds_on if earlier not in known]
        if unknown:
            raise LabFolderProblem(f"{lab.folder}/lab.toml: builds_on names {', '.join(unknown)}, "
                                   f"which no lab before {lab.id} is: the labs are "
                                   f"{', '.join(known)}.")
        known[lab.id] = lab
    return known


def find_lab(lab_id: str) -> Lab:
    """The lab `lab_id` names, accepting "lesson06", "6" and "Lesson 6" for lesson6."""
    known = labs()
    key = _canonical(str(lab_id))
    if key in known:
        return known[key]
    raise UnknownLab(f"There is no lab called {lab_id!r}. The labs are: {', '.join(known)}.")


def _canonical(lab_id: str) -> str:
    text = lab_id.strip().lower()
    number = re.fullmatch(r"(?:lesson[\s_-]*)?0*(\d+)", text)
    if number:
        return f"lesson{number.group(1)}"
    return re.sub(r"[\s_]+", "-", text)
