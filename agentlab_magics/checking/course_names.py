"""The names the course pages import, `lab` and `loops`, made importable in the process that
runs a student's code (the kernel's, for a cell's names, and every student process). Light: the
student process imports it at start, and `lab` loads each of its parts when first used.
"""

from __future__ import annotations

import sys

from agentlab_magics import lab
from agentlab_magics.reference import loops


def course_imports() -> None:
    """Let student code say `import lab` and `import loops`, as the course pages do."""
    sys.modules.setdefault("lab", lab)
    sys.modules.setdefault("loops", loops)
