"""Still holds: a lesson's check also runs the earlier lessons' tests of the names its file
still holds, under "Still holds from lesson N", and never grades or counts them as its own.

The expected groups are written out here by hand, from what each lesson's file holds.
"""

from __future__ import annotations

import sys
from collections import Counter

import pytest

from agentlab_labs.lesson1 import tests as lesson1
from agentlab_labs.lesson3 import tests as lesson3
from agentlab_labs.lesson5 import tests as lesson5
from agentlab_magics.checking.runner import lab_tests, run
from agentlab_magics.checking.text_report import render
from agentlab_magics.course import find_lab, labs
from agentlab_magics.course.assignments import ASSIGNMENTS
from agentlab_magics.course.labtests import reads
from agentlab_magics.grading.groups import group_tests, points
from agentlab_magics.notebook import check_cell
from agentlab_magics.progress import ProgressStore
from tests.mutation.mutants import MUTANTS

# Per lab, how many visible tests still hold from each earlier lesson. Lesson 3's file drops
# chat, so lesson 1's four chat tests stop there; checkpoint A's own tests are lessons 3 and
# 5's and two of lesson 4's, so those are not run twice.
CARRIED = {
    "lesson1": {},
    "lesson2": {"1": 7},
    "lesson3": {"1": 3, "2": 6},
    "lesson4": {"1": 3, "2": 6, "3": 10},
    "lesson5": {"1": 3, "2": 6, "3": 10, "4": 11},
    "lesson6": {"1": 3, "2": 6, "3": 10, "4": 11, "5": 10},
    "checkpoint-a": {"1": 3, "2": 6, "4": 9, "6": 26},
    "lesson7": {"1": 3, "2": 6, "3": 10, "4": 11, "5": 10, "6": 26},
    "checkpoint-a-test": {}, "ch03-a": {}, "ch03-a-transfer": {}, "ch03-b": {},
}
ONLY_THE_FIRST_CALL = {m.name: m for m in MUTANTS}["lesson5: only the first call is answered"]


def carried(lab_id: str, **options) -> list:
    return [test for test in lab_tests(find_lab(lab_id), **options) if test.group]


@pytest.mark.parametrize("lab_id", list(labs()))
def test_each_lab_runs_the_earlier_tests_of_what_its_file_holds(lab_id):
    counted = Counter(test.group for test in carried(lab_id, held_back=True))
    assert counted == {f"Still holds from lesson {n}": k for n, k in CARRIED[lab_id].items()}


@pytest.mark.parametrize("lab_id", list(labs()))
def test_names_stay_unique_and_carried_tests_come_after_the_labs_own(lab_id):
    tests = lab_tests(find_lab(lab_id), held_back=True)
    names = [test.name for test in tests]
    assert len(names) == len(set(names))
    groups = [test.group for test in tests]
    assert groups == sorted(groups, key=lambda group: group != "")


def test_only_visible_tests_are_carried():
    for lab_id in labs():
        assert not any(test.held_back for test in carried(lab_id, held_back=True)), lab_id


def test_a_test_reads_the_names_it_and_its_helpers_take_from_the_harness():
    assert reads(lesson1.test_chat_sends_the_whole_list_every_time) == {"chat"}  # via chat_run
    assert reads(lesson1.test_user_message_is_role_and_content) == {"user_message"}
    assert reads(lesson3.test_two_calls_get_two_results_in_call_order) == {"run_agent"}
    assert reads(lesson5.test_the_view_is_made_again_every_call) == {"run_agent", "text_of"}


def test_no_chat_test_is_carried_past_lesson_2_whose_file_still_has_chat():
    assert any("chat" in test.name for test in carried("lesson2"))
    for lab_id in ("lesson3", "lesson4", "lesson5", "lesson6", "checkpoint-a"):
        assert not any("chat" in test.name for test in carried(lab_id)), lab_id


def test_grading_counts_the_labs_own_tests_only():
    for assignment in ASSIGNMENTS:
        for assigned in assignment.labs:
            own = {test.name for test in lab_tests(find_lab(assigned.lab), held_back=True,
                                                   still_holds=False)}
            graded = [name for group in assigned.groups for hidden in (False, True)
                      for name in group_tests(assigned.lab, group.id, held_back=hidden)]
            assert sorted(graded) == sorted(own), assigned.lab
            assert sum(points(assigned.lab, group.id) for group in assigned.groups) == len(own)


def test_a_broken_earlier_loop_fails_under_its_lessons_heading(tmp_path):
    path = tmp_path / "harness.py"
    path.write_text(ONLY_THE_FIRST_CALL.apply(find_lab("lesson5").reference), encoding="utf-8")
    report = run("lesson5", path)
    failed = {(o.group, o.name) for o in report.outcomes if not o.passed}
    assert failed == {
        ("Still holds from lesson 3", "test_two_calls_get_two_results_in_call_order"),
        ("Still holds from lesson 4", "test_three_calls_one_failing_get_three_results_in_order")}
    text = render(report).splitlines()
    heading = text.index("Still holds from lesson 3")
    assert text[heading + 1].startswith("✓ A job that needs three files")
    assert text.count("Still holds from lesson 3") == 1 and "Still holds from lesson 5" not in text


def test_a_starters_summary_counts_its_own_tests_apart_from_those_that_still_hold(tmp_path):
    path = tmp_path / "harness.py"
    path.write_text(find_lab("lesson2").starter, encoding="utf-8")
    assert run("lesson2", path).summary() == (
        "02 Tool calls and results: 0 of its 6 own tests passed; 7 of 7 from earlier lessons "
        "still hold")
    path.write_text(find_lab("lesson2").reference, encoding="utf-8")
    assert run("lesson2", path).summary() == "02 Tool calls and results: 13 of 13 tests passed"


def test_a_grade_of_the_same_code_runs_none_of_them(tmp_path):
    path = tmp_path / "harness.py"
    path.write_text(ONLY_THE_FIRST_CALL.apply(find_lab("lesson5").reference), encoding="utf-8")
    names = group_tests("lesson5", "failures")
    report = run("lesson5", path, only=names)
    assert report.all_passed and [o.name for o in report.outcomes] == names
    assert not any(o.group for o in report.outcomes)


def test_the_progress_map_counts_the_labs_own_tests(tmp_path, monkeypatch):
    monkeypatch.delitem(sys.modules, "harness", raising=False)  # check_cell registers it
    store = ProgressStore(tmp_path / "progress.json")
    report = check_cell("lesson5", find_lab("lesson5").reference, {}, store=store)
    assert report.all_passed and report.total == 40
    assert sorted(store.lab("lesson5").tests_passed) == sorted(
        test.name for test in lab_tests(find_lab("lesson5")) if not test.group)
