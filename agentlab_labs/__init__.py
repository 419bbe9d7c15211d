"""Every lab's tests as modules: `agentlab_labs.<lab>.tests`, and `.heldback` where the lab's
held-back tests are at hand (course.heldback; <lab> is the lab's id with "_" for "-"). A lab's
tests may import another's (`from agentlab_labs.lesson3.tests import follow_the_files`), and so
may the instructor's held-back tests and the course's own suite; the judge imports them the same
way (agentlab_magics.course.lab_folder.tests_module), so a module is one object however it came.
Only a judge imports them: no process that runs a student's code does.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

PARTS = ("tests", "heldback")  # the modules a lab's folder may hold


class LabModules:
    """Finds `agentlab_labs.<lab>` (a package with no files of its own) and its PARTS, in the
    folder of the lab whose module name is <lab>."""

    def find_spec(self, name: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        parts = name.split(".")
        if parts[0] != __name__ or len(parts) not in (2, 3) \
                or (len(parts) == 3 and parts[2] not in PARTS):
            return None
        from agentlab_magics.course.catalog import labs
        from agentlab_magics.course.heldback import held_back_path
        from agentlab_magics.course.lab_folder import TESTS, module_spec

        package = ".".join(parts[:2])  # a lab's `tests` names its module in that package
        lab = next((lab for lab in labs().values() if lab.tests.rpartition(".")[0] == package),
                   None)
        if lab is None:
            return None
        if len(parts) == 2:
            return ModuleSpec(name, None, is_package=True)
        file = lab.folder / TESTS if parts[2] == "tests" else held_back_path(lab)
        return module_spec(file, name) if file is not None and file.is_file() else None


if not any(isinstance(finder, LabModules) for finder in sys.meta_path):
    sys.meta_path.append(LabModules())
