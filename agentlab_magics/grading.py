"""The autograder's side of a lab: one call per graded cell, the same tests as `%%check`.

`grade(lab, group)` checks the module the notebook's `%%check` cell registered against one
group of the lab's tests, shows the report, and raises AssertionError naming each failed
test in its sentence, which is what nbgrader needs to take the cell's points away.
"""

from __future__ import annotations

import sys

from agentlab_magics.checking import CheckReport, run
from agentlab_magics.course import find_lab
from agentlab_magics.course.assignments import group_tests

# Long enough for any honest test (they take milliseconds), short enough that a notebook
# whose code hangs is graded in seconds per test rather than minutes.
TIMEOUT = 3.0


def grade(lab_id: str, group: str, *, held_back: bool = False, timeout: float = TIMEOUT) -> None:
    """Check the lab's registered module against `group`'s visible tests, or its held-back
    ones, and show the report; raise AssertionError when any fails. Returns nothing, so a
    graded cell prints no value (which would name held-back tests on the feedback page)."""
    lab = find_lab(lab_id)
    names = group_tests(lab.id, group, held_back=held_back)
    module = sys.modules.get(lab.module)
    if module is None:
        raise AssertionError(f"Nothing to grade: the `%%check {lab.id}` cell has not run "
                             "without errors, so there is no code to check.")
    report = run(lab.id, module, timeout=timeout, only=names, held_back=held_back)
    _show(report)
    failed = [outcome for outcome in report.outcomes if not outcome.passed]
    if report.problem or failed or len(report.outcomes) != len(names):
        lines = [report.problem] if report.problem else []
        lines += [f"{outcome.mark} {outcome.sentence}" for outcome in failed]
        raise AssertionError("\n".join([report.summary(), *lines]))


def _show(report: CheckReport) -> None:
    """The report as static HTML in a notebook (the feedback page shows it), as text elsewhere."""
    from IPython import get_ipython
    from IPython.display import display

    from agentlab_magics.widgets import ReportView

    view = ReportView(report, static=True)
    if get_ipython() is None:
        print(view.to_text())
    else:
        display(view)
