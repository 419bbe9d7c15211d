"""A released notebook's language_info, as the kernels of the environment that releases it
report theirs.

JupyterLab writes the language_info its kernel reports into the notebook it opens; a notebook
that this changes shows as unsaved before the student has touched anything. On a hub the
instructor releases from the environment every student's kernel runs in (docs/instructors.md),
so a notebook released with that environment's language_info opens unchanged. The source
notebooks keep only the language's name: they are the same on every machine.
"""

from __future__ import annotations

import copy
from typing import Any

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool


def kernel_language() -> dict[str, Any]:
    """The language_info an ipykernel of this interpreter reports, as a notebook keeps it."""
    from ipykernel.ipkernel import IPythonKernel  # 0.3 s to import: only when releasing

    return copy.deepcopy(IPythonKernel.language_info)


class KernelLanguage(Preprocessor):
    """nbgrader generate_assignment's last step: the notebook's language_info is this
    environment's kernels' (`kernel_language`)."""

    enabled = Bool(True).tag(config=True)  # nbgrader registers its steps without enabling them

    def preprocess(self, nb: Any, resources: dict) -> tuple[Any, dict]:
        nb.metadata["language_info"] = kernel_language()
        return nb, resources
