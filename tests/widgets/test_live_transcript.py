"""LiveTranscript, the listener `watch()` returns: each event's state, bounded; call times from
the events, kept on the finished rows; the finished record judged, fed and kept for saving;
bad events ignored."""

from __future__ import annotations

import json

import pytest

from agentlab_magics import lab
from agentlab_magics.widgets.live_transcript import LIVE_ROWS, LiveTranscript
from agentlab_magics.widgets.rendering import MARK
from agentlab_magics.widgets.transcript_data import transcript_data
from tests.lesson7_runs import NOTES, reference_harness


@pytest.fixture
def harness():
    return reference_harness()


class Clock:
    """A clock that moves only when the test moves it."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def watched_run(harness, turns=2, listener=None):
    steps = [lab.reply(lab.call("notes", {}, id=f"c{n}")) for n in range(turns - 1)]
    model = lab.ScriptedModel(steps + [lab.say("The port is 9090.")])
    messages = []
    live = listener or LiveTranscript()
    states = []

    def spy(event):
        live(event)
        states.append(json.loads(json.dumps(live.widget.data)))

    harness.run_agent(model, "You are terse.", messages, [NOTES], "What port?", listener=spy)
    return live, messages, states


def test_each_message_is_a_row_at_once_and_the_finished_record_is_judged(harness, tmp_path,
                                                                         monkeypatch):
    monkeypatch.setenv("AGENTLAB_PROGRESS", str(tmp_path / "progress.json"))
    live, messages, states = watched_run(harness)
    running = [state for state in states if state["live"]["state"] == "running"]
    assert [state["total"] for state in running][-1] == len(messages)
    assert all(state["rows"][-1]["index"] == state["total"] - 1 for state in running
               if state["rows"])
    finished = live.widget.data
    assert finished["live"]["state"] == "finished" and finished["live"]["reason"] == "done"
    judged = transcript_data(messages)
    timed = [row.pop("meter") for row in finished["rows"][1:]]
    assert finished["verdict"] == judged["verdict"] and finished["rows"] == judged["rows"]
    assert all(len(meter) == 1 and meter[0].endswith(" s") for meter in timed)
    kept = json.loads((tmp_path / "views" / f"{live.widget.model_id}.json").read_text())
    assert "would accept this list" in kept["html"]


def test_the_state_holds_the_newest_rows_only_and_links_calls_to_their_results(harness):
    live, messages, states = watched_run(harness, turns=20)
    running = [state for state in states if state["live"]["state"] == "running"]
    assert len(messages) == 40 and max(len(state["rows"]) for state in running) == LIVE_ROWS
    last_running = running[-1]
    by_index = {row["index"]: row for row in last_running["rows"]}
    assert sorted(by_index) == list(range(40 - LIVE_ROWS, 40))
    assert by_index[38]["call_row"] == 37 and by_index[37]["calls"][0]["result_row"] == 38


def test_call_and_tool_times_come_from_the_events(harness):
    clock = Clock()
    live = LiveTranscript(clock=clock)

    def slow(step, seconds):
        def answer(request):
            clock.now += seconds
            return step
        return answer

    def execute(arguments):
        clock.now += 0.5
        return "The port is 9090."

    model = lab.ScriptedModel([slow(lab.reply(lab.call("notes", {}, id="c0")), 2.5),
                               slow(lab.say("The port is 9090."), 1.5)])
    harness.run_agent(model, "You are terse.", [], [{**NOTES, "execute": execute}], "What port?",
                      listener=live)
    assert live.calls == [2.5, 1.5]
    finished = live.widget.data
    assert finished["live"] == {"state": "finished", "reason": "done", "seconds": 4.5,
                                "meter": []}
    assert [row.get("meter") for row in finished["rows"]] == [None, ["2.5 s"], ["0.5 s"],
                                                              ["1.5 s"]]
    assert "[1] assistant -> toolCall c0 notes({})  (2.5 s)" in live._finished.to_text()


def test_events_that_are_not_the_lessons_are_ignored():
    live = LiveTranscript()
    for event in (None, "message", {"type": "nonsense"}, {"no": "type"}, ["message"]):
        live(event)
    assert live.messages == [] and live.widget.data["total"] == 0
    live({"type": "message", "message": "not a message"})
    assert live.widget.data["rows"][0]["role"] == "?"


def test_the_bundle_carries_the_widget_and_marks_it_kept():
    bundle, metadata = LiveTranscript()._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert metadata[MARK] == {"view": "transcript", "kept": True}
    assert "saved here once the run is over" in bundle["text/plain"]


def test_given_the_model_each_reply_says_what_its_request_cost(harness):
    model = lab.ScriptedModel([lab.reply(lab.call("notes", {}, id="c0")), lab.say("9090.")],
                              max_calls=5)
    live = LiveTranscript(model)
    states = []

    def spy(event):
        live(event)
        states.append(json.loads(json.dumps(live.widget.data)))

    harness.run_agent(model, "You are terse.", [], [NOTES], "What port?", listener=spy)
    rows = {row["index"]: row for state in states if state["live"]["state"] == "running"
            for row in state["rows"]}
    tokens = [f"~{call.tokens:,} tokens" for call in model.calls]
    assert [rows[1]["meter"][1:], rows[3]["meter"][1:]] == [[tokens[0]], [tokens[1]]]
    assert "meter" not in rows[0] and rows[2]["meter"][1:] == []
    assert model.bill == sum(call.tokens for call in model.calls)
    totals = [f"~{model.bill:,} tokens estimated", "2 of max_calls=5 calls"]
    assert live.widget.data["live"]["meter"] == live.widget.data["meter"] == totals
    finished = {row["index"]: row for row in live.widget.data["rows"]}
    assert finished[3]["meter"] == rows[3]["meter"]
