"""Where a lab's tests live, visible and held back.

A lab's visible tests are its folder's tests.py, imported as `agentlab_labs.<lab>.tests`
(`lab.tests`). A pack lab's held-back tests are its folder's heldback.py, imported as its
sibling `heldback`; a built-in lab's are the instructor package's module `heldback.<lab>`, and
nothing in the student package marks or names them. On a student's machine the instructor
package is not installed and a student's copy of a pack holds no heldback.py, and a lab simply
has no held-back tests there. Only the judge imports them (checking.runner): no process that runs a
student's code ever does.
"""

from __future__ import annotations

import importlib
import types
from typing import Any

from agentlab_magics.course.instructor import instructor_package_name
from agentlab_magics.course.lab_folder import HELD_BACK, TESTS, tests_module
from agentlab_magics.course.lab_model import Lab

PACK_HELD_BACK = "heldback"  # the last part of a pack lab's held-back tests' module name


def held_back_package() -> str | None:
    """The name of the instructor's package of held-back tests (nothing imported), or None
    where there is none."""
    package = instructor_package_name()
    return f"{package}.heldback" if package is not None else None


def is_held_back(test: Any) -> bool:
    """Whether `test` is a held-back test: a function defined in a module of the held-back
    package, or in a pack lab's heldback.py, the places held-back tests are written."""
    module = getattr(test, "__module__", None) or ""
    package = held_back_package()
    return (package is not None and module.startswith(f"{package}.")) or (
        module.startswith("agentlab_labs.") and module.endswith(f".{PACK_HELD_BACK}"))


def visible_module(lab: Lab) -> types.ModuleType:
    """The lab's visible tests module."""
    return tests_module(lab.folder / TESTS, lab.tests)


def held_back_module(lab: Lab) -> types.ModuleType | None:
    """The lab's held-back tests module, or None where there is none here."""
    if not lab.built_in:
        path = lab.folder / HELD_BACK
        name = f"{lab.tests.rpartition('.')[0]}.{PACK_HELD_BACK}"
        return tests_module(path, name) if path.is_file() else None
    package = held_back_package()
    if package is None:
        return None
    name = f"{package}.{lab.id.replace('-', '_')}"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name and name.startswith(exc.name):
            return None
        raise
    except PermissionError:  # a folder hidden from this process
        return None
