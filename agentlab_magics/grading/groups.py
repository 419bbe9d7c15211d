"""A graded cell's share of a lab: its group of tests, picked out of the lab's own tests by the
group's pattern (course/assignments.py holds the groups), and what the group is worth. The
notebooks are laid out by them (making/notebooks.py), and the grader and a graded cell check
by them (`graded_together`, `group_tests`)."""

from __future__ import annotations

import re

from agentlab_magics.checking import runner
from agentlab_magics.course.assignments import Group, assignments
from agentlab_magics.course.catalog import find_lab


def lab_tests(lab_id: str) -> dict[str, runner.LabTest]:
    """The lab's own tests by name, visible and held back, in the order the lab runs them: a
    grade counts the lab's own, never the earlier labs' tests that still hold."""
    return {test.name: test for test in runner.lab_tests(find_lab(lab_id), held_back=True,
                                                          still_holds=False)}


def group_of(lab_id: str, group_id: str) -> Group:
    """The group `group_id` of lab `lab_id`, from the assignment that holds the lab."""
    for assignment in assignments():
        for assigned in assignment.labs:
            if assigned.lab == lab_id:
                for group in assigned.groups:
                    if group.id == group_id:
                        return group
    raise LookupError(f"Lab {lab_id!r} has no group of tests called {group_id!r}.")


def group_tests(lab_id: str, group_id: str, *, held_back: bool = False) -> list[str]:
    """The names of the group's visible tests, or of its held-back ones."""
    pattern = re.compile(group_of(lab_id, group_id).match)
    return [name for name, test in lab_tests(lab_id).items()
            if pattern.search(name) and test.held_back == held_back]


def graded_together(lab_id: str, held_back: bool) -> list[str]:
    """The tests one grading check of the lab runs, in one student process: all of its own
    visible tests, or all its held-back ones, in the lab's order. `%%check` runs the visible
    ones first, in this order, in one student process, so each has the same tests before it
    when graded as when checked; the earlier labs' tests that still hold come after them and
    are never scored here, so a grading check leaves them out."""
    return [name for name, test in lab_tests(lab_id).items() if test.held_back == held_back]


def points(lab_id: str, group_id: str) -> int:
    """A group is worth its `per_test` points for each of its tests, visible and held back."""
    return group_of(lab_id, group_id).per_test * sum(
        len(group_tests(lab_id, group_id, held_back=hidden)) for hidden in (False, True))
