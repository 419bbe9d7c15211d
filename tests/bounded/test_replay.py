"""Record a live run (a real HTTP server on 127.0.0.1) and replay it as a model of its own."""

import json

import pytest

from agentlab_magics.bounded import (
    Limits,
    ModelError,
    RecordingModel,
    RecordingProblem,
    ReplayModel,
    build_model,
    describe,
    load_recording,
    run_loop,
)
from agentlab_magics.bounded.shop import SHOP, build_tools
from tests.bounded.local_provider import completion, reply
from tests.bounded.test_bounded_live import OPENING

STOCK = [reply(completion(calls=[("call_stock", "list_stock", "{}")], tokens=12)),
         reply(completion("Vanilla needs 6 and strawberry 4.", tokens=9))]


def recorded_run(provider, tmp_path, replies=STOCK):
    """A live run against the local provider, recorded and saved: (its result, the file)."""
    provider.replies = list(replies)
    model = RecordingModel(build_model([], model="gpt-test"))
    result = run_loop(model, build_tools(SHOP), OPENING, limits=Limits())
    return result, model.recording.save(tmp_path / "run.json")


def outcome(result):
    return (result.status, result.model_calls, result.tool_calls, result.estimated_cost_cents,
            result.output_tokens, result.answer, json.dumps(result.messages))


def test_a_recorded_live_run_replays_into_the_same_record(provider, tmp_path):
    live, path = recorded_run(provider, tmp_path)
    recording = load_recording(path)
    assert [call.turn.output_tokens for call in recording.calls] == [12, 9]
    assert all(call.seconds > 0 for call in recording.calls)
    assert recording.source == "live" and "gpt-test" in recording.model

    replayed = run_loop(ReplayModel(recording), build_tools(SHOP), OPENING, limits=Limits())
    assert outcome(replayed) == outcome(live)
    assert live.status == "COMPLETED" and len(provider.requests) == 2  # the replay sent nothing


def test_a_changed_request_is_refused_in_one_sentence(provider, tmp_path):
    _, path = recorded_run(provider, tmp_path)
    changed = [OPENING[0], {"role": "user", "content": "What is in stock?"}]
    model = ReplayModel(load_recording(path))
    with pytest.raises(ModelError) as refused:
        model.complete(changed, build_tools(SHOP).schemas())
    assert str(refused.value) == (
        "request 1 differs from the recording: message 2 (user) is not the one recorded; a "
        "replay answers only the requests it recorded")
    result = run_loop(ReplayModel(load_recording(path)), build_tools(SHOP), changed,
                      limits=Limits())
    assert (result.status, result.model_calls) == ("MODEL_FAILED", 1)


def test_other_tools_or_more_calls_than_recorded_are_refused(provider, tmp_path):
    _, path = recorded_run(provider, tmp_path)
    model = ReplayModel(load_recording(path))
    with pytest.raises(ModelError, match="request 1 differs from the recording: it offers "
                                         "other tools"):
        model.complete(OPENING, [])
    short = ReplayModel(load_recording(path).model_copy(update={"calls": []}))
    with pytest.raises(ModelError, match="the recording holds 0 model calls and this is call 1"):
        short.complete(OPENING, build_tools(SHOP).schemas())


def test_a_recorded_provider_failure_replays_as_the_same_failure(provider, tmp_path):
    failing = [reply({"error": {"message": "server exploded", "type": "server_error"}}, 500)]
    live, path = recorded_run(provider, tmp_path, failing)
    recording = load_recording(path)
    assert recording.calls[0].error and recording.calls[0].turn is None
    replayed = run_loop(ReplayModel(recording), build_tools(SHOP), OPENING, limits=Limits())
    assert outcome(replayed) == outcome(live) and live.status == "MODEL_FAILED"


def test_without_a_key_build_model_replays_a_recording_and_says_so(provider, tmp_path,
                                                                    monkeypatch):
    live, path = recorded_run(provider, tmp_path)
    monkeypatch.delenv("OPENAI_API_KEY")
    model = build_model([], recording=path)
    assert model.source == "replay"
    assert model.reason == ("no OPENAI_API_KEY in Colab secrets or the environment: replaying "
                            "a recorded run of 2 model calls")
    result = run_loop(model, build_tools(SHOP), OPENING, limits=Limits())
    assert outcome(result) == outcome(live)
    assert describe(result, model.source).startswith("replay model: COMPLETED after 2 model calls")
    assert build_model([]).source == "scripted"  # no recording given: the script, as before


def test_a_damaged_or_missing_recording_says_what_to_do(tmp_path):
    damaged = tmp_path / "run.json"
    damaged.write_text('{"calls": [{"messages": "not a list"}]}')
    with pytest.raises(RecordingProblem, match=r"run.json is not a recording of model calls: "
                                                "record the run again"):
        load_recording(damaged)
    with pytest.raises(RecordingProblem, match=r"cannot be read .*: record the run again"):
        load_recording(tmp_path / "missing.json")
