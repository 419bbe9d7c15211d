"""Grading: the graded cells' `grade()`, and everything that turns a submission into a score.

In a student's notebook `grade(lab, group)` checks the code of the `%%check` cell (the module
it registered) as the grader checks it, all of the lab's own tests in one student process and
in `%%check`'s order, and shows the report of one group's share, so the student sees what the
grader will see, whatever the code keeps from one test to the next. When a test fails it
raises GradeFailed, which IPython shows as one line (how many failed; the cell's report says
which) instead of a traceback. The cell still ends in an error, which is how nbgrader's
Validate counts it, and the graded cells carry the `raises-exception` tag (making/notebooks.py),
so Run All in JupyterLab, and nbclient, go on to the next cell. Only the lab's own tests are
graded, never the earlier labs' that still hold. While nbgrader autogrades, the score does not
come from here: `autograde.ScoredOutside` scores every graded cell with the judge in nbgrader's
process, against a sandboxed student process, and replaces the cell's outputs, so `grade()`
then does nothing that could matter (and nothing a student's cell does to it can change a
score).
"""

from __future__ import annotations

import os
import sys

from agentlab_magics.checking.runner import run
from agentlab_magics.checking.time_limit import (
    TIME_LIMIT as TIMEOUT,  # the same limit as every check
)
from agentlab_magics.course import find_lab
from agentlab_magics.grading.groups import graded_together, group_tests
from agentlab_magics.widgets import ReportView

__all__ = ["TIMEOUT", "GradeFailed", "autograding", "grade"]


class GradeFailed(AssertionError):
    """A graded cell's tests did not all pass. In IPython the cell's error is this one line,
    never a traceback: the report shown above it already says what failed."""

    def _render_traceback_(self) -> list[str]:
        return [str(self)]


def autograding() -> bool:
    """Whether this process is nbgrader's autograde kernel, whose checks and grades count for
    nothing: every score comes from the isolated scoring (grading.autograde)."""
    return os.environ.get("NBGRADER_EXECUTION") == "autograde"


def grade(lab_id: str, group: str, *, held_back: bool = False,
          timeout: float | None = None) -> None:
    """Check the lab's registered module as the grader does (all of the lab's own visible
    tests, or all its held-back ones, in one student process and in the check's order) and
    show the report of `group`'s share; raise GradeFailed, one line that does not repeat it,
    when any fails. Returns nothing, so a graded cell prints no value (which would name
    held-back tests on the feedback page)."""
    if autograding():
        print("Scored by the grader, outside this notebook.")
        return
    lab = find_lab(lab_id)
    names = group_tests(lab.id, group, held_back=held_back)
    module = sys.modules.get(lab.module)
    if module is None:
        raise GradeFailed(f"Nothing to grade: the `%%check {lab.id}` cell has not run "
                          "without errors, so there is no code to check.")
    # the cell's source, checked afresh as the grader checks it (a module made otherwise is
    # served as it is)
    report = run(lab.id, module, source=getattr(module, "__source__", None), timeout=timeout,
                 only=graded_together(lab.id, held_back), held_back=held_back).share(names)
    _show(report)
    failed = len(names) - report.passed
    if report.problem:
        raise GradeFailed("These tests could not run on your code: the cell's report says why.")
    if failed:
        counted = ("This cell's one test" if len(names) == 1
                   else f"{failed} of this cell's {len(names)} tests")
        raise GradeFailed(f"{counted} failed: the cell's report says which, and why.")


def _show(report) -> None:
    """The report as static HTML in a notebook (the feedback page shows it), as text elsewhere."""
    from IPython import get_ipython
    from IPython.display import display


    view = ReportView(report, static=True)
    if get_ipython() is None:
        print(view.to_text())
    else:
        display(view)
