"""Where a lab's tests live, visible and held back.

A lab's visible tests are its folder's tests.py, imported as `agentlab_labs.<lab>.tests`
(`lab.tests`); its held-back tests are heldback.py where the lab was written (`Lab.authored`: a pack
lab's own folder, a built-in lab's part in the instructor package), imported as its sibling
`heldback`, and nothing in the student package marks or names them. On a student's machine the
instructor package is not installed and a student's copy of a pack holds no heldback.py, and a lab
simply has no held-back tests there. Only the judge imports them (checking.runner): no process that
runs a student's code ever does.
"""

from __future__ import annotations

import types
from pathlib import Path
from typing import Any

from agentlab_magics.course.lab_folder import HELD_BACK, TESTS, tests_module
from agentlab_magics.course.lab_model import Lab

HELD_BACK_MODULE = "heldback"  # the last part of a lab's held-back tests' module name


def is_held_back(test: Any) -> bool:
    """Whether `test` is a held-back test: a function defined in a lab's heldback.py, the one
    place held-back tests are written."""
    module = getattr(test, "__module__", None) or ""
    return module.startswith("agentlab_labs.") and module.endswith(f".{HELD_BACK_MODULE}")


def visible_module(lab: Lab) -> types.ModuleType:
    """The lab's visible tests module."""
    return tests_module(lab.folder / TESTS, lab.tests)


def held_back_path(lab: Lab) -> Path | None:
    """The lab's heldback.py, or None where there is none here (a student copy, a built-in lab
    where the instructor package is not installed, or is hidden)."""
    authored = lab.authored
    if authored is None:
        return None
    try:
        path = authored / HELD_BACK
        return path if path.is_file() else None
    except PermissionError:  # a folder hidden from this process
        return None


def held_back_module(lab: Lab) -> types.ModuleType | None:
    """The lab's held-back tests module, or None where there is none here."""
    path = held_back_path(lab)
    name = f"{lab.tests.rpartition('.')[0]}.{HELD_BACK_MODULE}"
    return tests_module(path, name) if path is not None else None
