"""The states of a lab and of a page, as progress/store.py defines them: mastered needs an
answer committed to every question (right or wrong, as the course says; a wrong one is shown
as wrong) and an unaided pass; built with help is a pass made only after the solution was
opened; an earlier unaided pass is never rubbed out by opening the solution."""

import json

import pytest

from agentlab_magics.progress import ProgressStore
from agentlab_magics.progress.store import LabProgress, Progress, page_state

KEY = {"q1": "B"}


@pytest.fixture
def store(tmp_path):
    return ProgressStore(tmp_path / "p.json")


def test_a_wrong_answer_is_committed_and_counted_wrong(store):
    store.commit("lesson5", "q1", "A")
    store.checked("lesson5", ["t1"], all_passed=True)
    record = store.lab("lesson5")
    assert record.state(KEY) == "mastered" and record.right(KEY) == []


def test_a_right_answer_and_an_unaided_pass_is_mastered(store):
    store.commit("lesson5", "q1", "B")
    store.checked("lesson5", ["t1"], all_passed=True)
    assert store.lab("lesson5").state(KEY) == "mastered"


def test_a_pass_made_before_the_solution_was_opened_stays_unaided(store):
    store.commit("lesson5", "q1", "B")
    store.checked("lesson5", ["t1"], all_passed=True)
    store.solution_opened("lesson5")
    store.checked("lesson5", ["t1"], all_passed=True)  # passing again after changes nothing
    record = store.lab("lesson5")
    assert record.state(KEY) == "mastered"
    assert record.passed_at <= record.solution_opened_at


def test_a_pass_made_only_after_the_solution_was_opened_is_built_with_help(store):
    store.commit("lesson5", "q1", "B")
    store.checked("lesson5", ["t1"], all_passed=False)  # a partial pass is no pass
    store.solution_opened("lesson5")
    assert store.lab("lesson5").state(KEY) == "in progress"
    store.checked("lesson5", ["t1", "t2"], all_passed=True)
    assert store.lab("lesson5").state(KEY) == "built with help"


def test_a_lab_without_questions_is_mastered_or_built_with_help_by_its_tests(store):
    store.solution_opened("ch03-b")
    store.checked("ch03-b", ["t1"], all_passed=True)
    assert store.lab("ch03-b").state({}) == "built with help"
    store.checked("lesson1", ["t1"], all_passed=True)
    assert store.lab("lesson1").state({}) == "mastered"


def test_the_first_times_are_kept(store):
    store.checked("lesson5", ["t1"], all_passed=True)
    store.solution_opened("lesson5")
    first = store.lab("lesson5")
    store.checked("lesson5", ["t1"], all_passed=True)
    store.solution_opened("lesson5")
    again = store.lab("lesson5")
    assert (again.passed_at, again.solution_opened_at) == (first.passed_at,
                                                          first.solution_opened_at)


def test_an_unaided_pass_on_either_machine_survives_an_import(tmp_path):
    home, school = ProgressStore(tmp_path / "home.json"), ProgressStore(tmp_path / "school.json")
    home.checked("lesson3", ["t1"], all_passed=True)        # passed at home, no help
    school.solution_opened("lesson3")
    school.checked("lesson3", ["t1"], all_passed=True)      # passed at school, with help
    school.import_(home.export(tmp_path / "export.json"))
    merged = school.lab("lesson3")
    assert merged.state({}) == "mastered" and merged.solution_opened
    assert merged.passed_at == min(home.lab("lesson3").passed_at,
                                   ProgressStore(tmp_path / "school.json").lab("lesson3").passed_at)


@pytest.mark.parametrize("old, state", [
    ({"passed": True}, "mastered"),
    ({"passed": True, "solution_opened": True}, "built with help"),  # order unknown: help
    ({"solution_opened": True}, "in progress"),
    ({}, "not started"),
])
def test_a_file_from_before_the_times_were_kept_still_loads(tmp_path, old, state):
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"version": 1, "labs": {"lesson1": {
        "questions": {}, "tests_passed": ["t1"] if old else [], **old}}}))
    store = ProgressStore(path)
    assert store.notice is None and store.lab("lesson1").state({}) == state
    store.checked("lesson2", ["t1"], all_passed=True)  # a write keeps the old record's meaning
    assert ProgressStore(path).lab("lesson1").state({}) == state


def test_an_open_question_counts_once_answered():
    record = LabProgress.model_validate({"questions": {"a8": {"answer": "my words"}},
                                         "passed": True})
    assert record.right({"a8": None}) == ["a8"] and record.state({"a8": None}) == "mastered"
    assert record.right({"a8": None, "a1": "C"}) == ["a8"]


@pytest.mark.parametrize("states, page", [
    (["mastered", "mastered"], "mastered"),
    (["mastered", "built with help"], "built with help"),
    (["mastered", "not started"], "in progress"),
    (["not started", "not started"], "not started"),
    (["in progress", "built with help"], "in progress"),
])
def test_a_pages_state_comes_from_its_labs(states, page):
    assert page_state(states) == page


def test_an_export_round_trip_keeps_every_new_field(tmp_path, store):
    store.commit("lesson5", "q1", "A")
    store.solution_opened("lesson5")
    store.checked("lesson5", ["t1"], all_passed=True)
    exported = json.loads(store.export(tmp_path / "e.json").read_text())
    assert Progress.model_validate(exported) == store.data
    assert exported["labs"]["lesson5"]["passed_unaided"] is False
