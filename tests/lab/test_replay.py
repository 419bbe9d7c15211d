"""lab.recording and lab.replay: a lab model's run recorded, saved, and replayed into the very
same record; another request refused in band, in one sentence."""

from __future__ import annotations

import json

import pytest

from agentlab_magics import lab
from tests.lesson7_runs import NOTES, reference_harness


@pytest.fixture
def harness():
    return reference_harness()


def recorded(harness, tmp_path):
    model = lab.recording(lab.ScriptedModel([lab.reply(lab.call("notes")), lab.say("9090.")]))
    messages = []
    harness.run_agent(model, "You are terse.", messages, [NOTES], "What port?")
    return messages, model.save(tmp_path / "run.json"), model


def test_a_recorded_run_replays_into_the_same_record(harness, tmp_path):
    messages, path, model = recorded(harness, tmp_path)
    assert len(model.calls) == 2 and all(call["seconds"] >= 0 for call in model.calls)
    again = []
    final = harness.run_agent(lab.replay(path), "You are terse.", again, [NOTES], "What port?")
    assert json.dumps(again) == json.dumps(messages) and final == messages[-1]


def test_another_request_is_refused_in_one_sentence(harness, tmp_path):
    _, path, _ = recorded(harness, tmp_path)
    final = harness.run_agent(lab.replay(path), "You are terse.", [], [NOTES], "Which port?")
    assert final["error_message"] == (
        "Request 1 differs from the recording: message 1 (user) is not the one recorded; a "
        "replay answers only the requests it recorded.")
    other_system = harness.run_agent(lab.replay(path), "Be brief.", [], [NOTES], "What port?")
    assert "it has another system prompt" in other_system["error_message"]
    beyond = lab.replay([]).complete("s", [lab.user("hi")], [])
    assert beyond["error_message"].startswith("The recording holds 0 model calls")


def test_a_file_that_is_not_a_recording_says_what_to_do(tmp_path):
    (tmp_path / "bad.json").write_text('{"not": "calls"}')
    with pytest.raises(ValueError, match="is not a recording of model calls: record the run"):
        lab.replay(tmp_path / "bad.json")
    with pytest.raises(ValueError, match="cannot be replayed"):
        lab.replay(tmp_path / "missing.json")
