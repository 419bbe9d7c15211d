"""The instructor's held-back tests: found through the instructor package, for the labs that
have them, and run by the judge only; a grader without them says so."""

import pytest

from agentlab_magics.checking.runner import lab_tests
from agentlab_magics.course import find_lab, labs
from agentlab_magics.course.heldback import held_back_module


@pytest.mark.parametrize("lab_id", list(labs()))
def test_every_lab_but_the_test_lab_has_held_back_tests_that_are_not_visible(lab_id):
    lab = find_lab(lab_id)
    hidden = {test.name for test in lab_tests(lab, held_back=True) if test.held_back}
    visible = {test.name for test in lab_tests(lab)}
    assert (held_back_module(lab) is None) == (lab_id == "checkpoint-a-test")
    assert hidden.isdisjoint(visible)
    assert bool(hidden) == (lab_id != "checkpoint-a-test")


def test_a_grader_without_the_held_back_tests_says_so_instead_of_scoring_zero(monkeypatch):
    from agentlab_magics.grading import autograde
    from agentlab_magics.grading.cells import GradeCall

    monkeypatch.setattr(autograde, "group_tests", lambda lab, group, held_back: [])
    with pytest.raises(autograde.HeldBackMissing, match="install the instructor package"):
        autograde.score_jobs([GradeCall("lesson1", "messages", True)], {"lesson1": ""}, [])
