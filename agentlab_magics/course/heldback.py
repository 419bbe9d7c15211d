"""Where a lab's held-back tests live: the instructor's package, never the student's.

`agentlab_instructor.heldback.<module>` holds the held-back tests of the lab whose visible
tests are `agentlab_magics.course.labtests.<module>`. On a student's machine the instructor
package is not installed, and a lab simply has no held-back tests there.
"""

from __future__ import annotations

import importlib
import types

from agentlab_magics.course.catalog import Lab

PACKAGE = "agentlab_instructor.heldback"


def held_back_name(lab: Lab) -> str:
    """The module name of the lab's held-back tests."""
    return f"{PACKAGE}.{lab.tests.rpartition('.')[2]}"


def held_back_module(lab: Lab) -> types.ModuleType | None:
    """The lab's held-back tests module, or None where the instructor package has none."""
    try:
        return importlib.import_module(held_back_name(lab))
    except ModuleNotFoundError as exc:
        if exc.name and held_back_name(lab).startswith(exc.name):
            return None
        raise
    except PermissionError:  # inside the grading sandbox, which hides the instructor package
        return None
