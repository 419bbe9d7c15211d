"""Failure messages name what differs: `kit.gave` shows only the keys (and places) of a dict or a
list where the student's value departs from the expected one, and the lab tests use it."""

from __future__ import annotations

from agentlab_magics.checking.runner import run
from agentlab_magics.course import find_lab
from agentlab_magics.course.labtests.kit import gave, said
from agentlab_magics.lab import ScriptedModel

EXPECTED = {"role": "assistant", "content": [], "stop_reason": "error",
            "error_message": "503 overloaded"}


def test_a_dict_names_only_the_keys_that_differ():
    made = {"role": "assistant", "content": [], "stop_reason": "stop", "extra": 1}
    assert gave(made, EXPECTED) == (
        "a dict whose ['stop_reason'] is 'stop' (expected 'error'), ['error_message'] is "
        "missing (expected '503 overloaded') and ['extra'] should not be there (it is 1)")


def test_places_inside_lists_are_named_by_their_path():
    assert gave([{"name": "a", "x": 1}, {"name": "b"}], [{"name": "a", "x": 2}, {"name": "b"}]) \
        == "a list whose [0]['x'] is 1 (expected 2)"


def test_values_that_print_alike_are_told_apart_by_their_type():
    assert gave({"port": "9090"}, {"port": 9090}) == (
        "a dict whose ['port'] is a str '9090' (expected an int 9090)")


def test_values_that_cannot_be_compared_place_by_place_are_shown_whole():
    assert gave("error", EXPECTED) == f"'error'; expected {EXPECTED!r}"
    assert gave([1, 2], [1, 2, 3]) == "[1, 2]; expected [1, 2, 3]"


def test_at_most_four_places_are_named_and_the_rest_counted():
    actual, expected = {f"k{n}": n for n in range(7)}, {f"k{n}": -n for n in range(7)}
    assert gave(actual, expected).endswith("['k4'] is 4 (expected -4) and 2 more places")


def test_the_run_account_counts_model_calls_and_says_an_empty_record():
    model = ScriptedModel([])
    assert said(model, []) == "0 model calls, an empty record"


def test_a_lab_failure_names_the_differing_key_not_the_whole_dict(tmp_path):
    harness = tmp_path / "harness.py"
    harness.write_text(find_lab("lesson5").reference.replace(
        '"stop_reason": "error", "error_message"', '"stop_reason": "stop", "error_message"'))
    assert '"stop_reason": "stop", "error_message"' in harness.read_text()
    report = run("lesson5", harness, only=["test_error_message_shape"])
    assert report.outcomes[0].message == (
        "error_message('503 overloaded') gave a dict whose ['stop_reason'] is 'stop' "
        "(expected 'error').")


def test_a_request_that_is_not_a_list_is_told_and_never_breaks_the_check(tmp_path):
    """context_for_model that returns None hands the model None for its messages: each test
    that sends it fails with the provider's refusal, and the check's report is made."""
    path = tmp_path / "harness.py"
    path.write_text(find_lab("lesson5").reference.replace(
        "    return [message for message in messages\n",
        "    return None\n    return [message for message in messages\n", 1))
    report = run("lesson5", path)
    assert report.problem is None and not report.all_passed
    sent = [request for outcome in report.outcomes for request in outcome.requests or []]
    assert sent and all(request.shape == "(a NoneType, not a list)" for request in sent)
    assert "messages must be a list of message dicts, got NoneType" in sent[0].refused


def test_a_set_where_a_dict_belongs_fails_with_the_kits_sentence(tmp_path):
    """CPython's pickler writes a set without asking; it still reaches the test as the
    student's object, and the test says what it is instead of the check breaking."""
    harness = tmp_path / "harness.py"
    harness.write_text(find_lab("lesson1").reference.replace(
        'return {"role": "user", "content": text}', 'return {"role", "user", text}'))
    report = run("lesson1", harness, only=["test_user_message_is_role_and_content"])
    assert report.outcomes[0].outcome == "failed"
    assert report.outcomes[0].message.startswith("What user_message returned is a set, not a dict")
