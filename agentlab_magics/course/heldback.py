"""Where a lab's held-back tests live: the instructor's package, never the student's.

The instructor package's module `heldback.<module>` holds the held-back tests of the lab whose
visible tests are `agentlab_magics.course.labtests.<module>`; nothing in the student package
marks or names them. On a student's machine the instructor package is not installed, and a
lab simply has no held-back tests there. Only the judge imports them (checking.runner): no
process that runs a student's code ever does.
"""

from __future__ import annotations

import importlib
import types
from typing import Any

from agentlab_magics.course.instructor import instructor_package_name
from agentlab_magics.course.lab_model import Lab


def held_back_package() -> str | None:
    """The name of the instructor's package of held-back tests (nothing imported), or None
    where there is none."""
    package = instructor_package_name()
    return f"{package}.heldback" if package is not None else None


def is_held_back(test: Any) -> bool:
    """Whether `test` is a held-back test: a function defined in a module of the held-back
    package, the one place held-back tests are written."""
    package = held_back_package()
    return package is not None and (getattr(test, "__module__", None) or "").startswith(
        f"{package}.")


def held_back_module(lab: Lab) -> types.ModuleType | None:
    """The lab's held-back tests module, or None where the instructor package has none."""
    package = held_back_package()
    if package is None:
        return None
    name = f"{package}.{lab.tests.rpartition('.')[2]}"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name and name.startswith(exc.name):
            return None
        raise
    except PermissionError:  # a folder hidden from this process
        return None
