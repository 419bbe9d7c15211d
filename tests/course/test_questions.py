"""The questions as data: the right answer's place varies from question to question, an answer
committed before the options moved still names the option the student chose, and a mistyped id
is answered with the nearest one."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from agentlab_magics.course.catalog import built_in_labs
from agentlab_magics.course.questions import (
    LETTERS_IN_VERSION_1,
    UnknownQuestion,
    find_question,
    questions_for,
)
from agentlab_magics.notebook import right_answer
from agentlab_magics.progress import ProgressStore


def chosen(question_id: str, letter: str) -> str:
    """The text of the option `letter` names in today's order."""
    question = find_question(question_id)
    return question.options[question.letters.index(letter)].text


def test_the_right_answers_place_varies_across_the_lessons_questions():
    predictions = [question for lab_id in built_in_labs() if lab_id != "checkpoint-a"
                   for question in questions_for(lab_id)]
    assert len(predictions) == 11
    places = Counter(right_answer(question) for question in predictions)
    assert set(places) == {"A", "B", "C"}
    assert max(places.values()) <= len(predictions) / 2, places


def test_an_answer_committed_before_the_options_moved_names_the_same_option(tmp_path):
    path = tmp_path / "progress.json"
    # version 1: every lesson question's right answer was B; lesson 1's C was "An error: ..."
    old = {question_id: {"answer": "B", "at": "2026-11-01T09:00:00+00:00"}
           for question_id in LETTERS_IN_VERSION_1}
    old["l1-two-calls"]["answer"] = "C"
    labs: dict = {"checkpoint-a": {"questions": {"a4-jumbled-order": {"answer": "C"},
                                                 "a8-own-words": {"answer": "B"}}}}
    for question_id, commitment in old.items():
        labs.setdefault(find_question(question_id).lab, {"questions": {}})["questions"][
            question_id] = commitment
    path.write_text(json.dumps({"version": 1, "labs": labs}))
    store = ProgressStore(path)
    assert store.notice is None
    committed = {question_id: record.answer for lab in store.data.labs.values()
                 for question_id, record in lab.questions.items()}
    assert chosen("l1-two-calls", committed["l1-two-calls"]) == (
        "An error: a conversation cannot start with a question.")
    for question_id in set(LETTERS_IN_VERSION_1) - {"l1-two-calls"}:
        assert committed[question_id] == right_answer(find_question(question_id)) != "B"
    assert (committed["a4-jumbled-order"], committed["a8-own-words"]) == ("C", "B")  # unmoved
    store.commit("lesson4", "l4-unknown-tool", "B")  # a write keeps what the file meant
    again = ProgressStore(path)
    assert json.loads(path.read_text())["version"] == 2
    assert again.lab("lesson1").questions["l1-two-calls"].answer == committed["l1-two-calls"]


@pytest.mark.parametrize("typed, meant", [("l1-two-call", "l1-two-calls"),
                                          ("L7-Run-End", "l7-run-end"),
                                          ("a5_outage", "a5-outage"), ("l3label", "l3-label")])
def test_a_mistyped_question_id_is_answered_with_the_nearest_one(typed, meant):
    with pytest.raises(UnknownQuestion) as raised:
        find_question(typed)
    assert str(raised.value).startswith(
        f"There is no question called {typed!r}. Did you mean `%question {meant}`?")


def test_an_id_like_none_lists_the_questions_without_a_guess():
    with pytest.raises(UnknownQuestion) as raised:
        find_question("nope")
    assert "Did you mean" not in str(raised.value)
    assert "The questions are: l1-two-calls, l2-call-order," in str(raised.value)  # course order
