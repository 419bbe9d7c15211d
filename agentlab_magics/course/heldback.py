"""Where a lab's held-back tests live: the instructor's package, never the student's.

`agentlab_instructor.heldback.<module>` holds the held-back tests of the lab whose visible
tests are `agentlab_magics.course.labtests.<module>`; nothing in the student package marks or
names them. On a student's machine the instructor package is not installed, and a lab simply
has no held-back tests there. The grader's scoring sandbox cannot read the instructor's
package, so the grader sends it the text of every held-back module (`held_back_sources`), and
there they are imported from that text by their own names: a held-back module imports only
agentlab_magics, the standard library and other held-back modules.
"""

from __future__ import annotations

import importlib
import pkgutil
import types
from pathlib import Path
from typing import Any

from agentlab_magics.course.catalog import Lab

PACKAGE = "agentlab_instructor.heldback"


def held_back_name(lab: Lab) -> str:
    """The module name of the lab's held-back tests."""
    return f"{PACKAGE}.{lab.tests.rpartition('.')[2]}"


def is_held_back(test: Any) -> bool:
    """Whether `test` is a held-back test: a function defined in a module of PACKAGE, the one
    place held-back tests are written."""
    return (getattr(test, "__module__", None) or "").startswith(f"{PACKAGE}.")


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


def held_back_sources() -> dict[str, str]:
    """The text of every held-back module, by module name; empty where the instructor
    package is not installed (or cannot be read)."""
    try:
        package = importlib.import_module(PACKAGE)
    except (ImportError, PermissionError):
        return {}
    return {f"{PACKAGE}.{found.name}": Path(found.module_finder.path, f"{found.name}.py")
            .read_text(encoding="utf-8") for found in pkgutil.iter_modules(package.__path__)}
