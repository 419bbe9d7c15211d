"""A graded cell earns its passed tests' share of its points, as nbgrader's own
`determine_grade` reads the outputs the grader gives it. The real round that shows the same
score in the gradebook, the feedback page, the export and the batch's table is
tests/course/test_parallel_autograde.py.
"""

from __future__ import annotations

import nbformat
import pytest
from nbgrader.utils import determine_grade

from agentlab_magics.checking.report import CheckReport, TestOutcome
from agentlab_magics.course.assignments import Group
from agentlab_magics.grading.autograde import report_outputs
from agentlab_magics.grading.groups import group_of, group_tests, points


def _report(passed: int, failed: int, *, problem: str | None = None) -> CheckReport:
    outcomes = [TestOutcome(name=f"test_{i}", sentence=f"Test {i} holds.",
                            outcome="passed" if i < passed else "failed")
                for i in range(passed + failed)]
    return CheckReport(lab_id="lesson1", title="01 The conversation is a list",
                       outcomes=outcomes, problem=problem)


def _graded(reports: list[CheckReport], points: float, tests: int) -> float | None:
    cell = nbformat.v4.new_code_cell('grade("lesson1", "chat")')
    cell.metadata["nbgrader"] = {"grade": True, "solution": False, "locked": True,
                                 "grade_id": "tests-lesson1-chat", "points": points}
    cell.outputs = report_outputs(reports, points, tests)
    nbformat.validate(nbformat.v4.new_notebook(cells=[cell]))
    return determine_grade(cell)[0]


@pytest.mark.parametrize(("reports", "points", "tests", "score"), [
    ([_report(4, 0)], 4, 4, 4),
    ([_report(2, 2)], 4, 4, 2),
    ([_report(2, 2)], 8, 4, 4),
    ([_report(0, 4)], 4, 4, 0),
    ([_report(1, 2), _report(1, 0)], 4, 4, 2),
    ([_report(3, 0), _report(0, 1)], 4, 4, 3),
    ([_report(1, 2)], 5, 3, 1.67),
    ([_report(0, 0, problem="The code does not load."), _report(0, 1)], 4, 4, 0),
], ids=["all pass", "2 of 4", "2 of 4 at two points each", "none pass",
        "a held-back cell, 1+1 of 3+1", "visible pass, held-back fails", "a third of 5",
        "code that does not load"])
def test_nbgrader_scores_a_graded_cell_by_the_share_of_its_tests_that_passed(
        reports, points, tests, score):
    assert _graded(reports, points, tests) == score


def test_a_partly_passing_cell_says_its_score_in_a_sentence_and_shows_no_error():
    outputs = report_outputs([_report(2, 2)], 4, 4)
    kinds = [output.output_type for output in outputs]
    assert kinds == ["display_data", "execute_result"]
    assert outputs[-1]["data"]["text/html"] == (
        "<p>2 of 4 points: 2 of this cell's 4 tests passed.</p>")


def test_a_group_is_worth_its_points_per_test_for_every_test_visible_and_held_back(
        monkeypatch):
    chat = group_of("lesson1", "chat")
    tests = len(group_tests("lesson1", "chat")) + len(group_tests("lesson1", "chat",
                                                                  held_back=True))
    assert chat.per_test == 1 and points("lesson1", "chat") == tests == 5
    monkeypatch.setattr(chat, "per_test", 3)
    assert points("lesson1", "chat") == 15
    with pytest.raises(ValueError):
        Group(id="chat", match="chat", per_test=0)
