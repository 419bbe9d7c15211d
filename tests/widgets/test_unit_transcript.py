"""The bounded unit's runs on the diagram: a LoopResult's chat-completions record read as the
course's messages, what the run cost beside its limits, and two runs (scripted against live,
from the 127.0.0.1 provider) side by side."""

from __future__ import annotations

import json

from agentlab_magics.bounded import (
    Limits,
    LoopResult,
    ScriptedModel,
    build_model,
    run_loop,
    scripted_turn,
)
from agentlab_magics.bounded.shop import SHOP, build_tools
from agentlab_magics.widgets import Transcript
from agentlab_magics.widgets.run_diff import RunDiff
from agentlab_magics.widgets.transcript_data import CHAT_HINT, CHAT_NOTE, transcript_data
from tests.bounded.conftest import provider  # noqa: F401  (the local provider fixture)
from tests.bounded.local_provider import completion, reply
from tests.bounded.test_bounded_live import OPENING
from tests.widgets.test_static_renderings import soup

STOCK = scripted_turn(calls=[{"name": "list_stock"}], output_tokens=12)


def scripted_run(answer="Vanilla needs 6 and strawberry 4.", limits=None, turns=None):
    model = ScriptedModel(turns or [STOCK, scripted_turn(answer, output_tokens=9)])
    return run_loop(model, build_tools(SHOP), OPENING, limits=limits or Limits())


def test_a_loop_result_is_drawn_as_the_courses_messages_with_its_system_row():
    result = scripted_run()
    data = transcript_data(result)
    assert data["shape"] == "S U A[scripted-1-call-1] R(scripted-1-call-1) A"
    assert data["format_note"] == CHAT_NOTE and data["accepted"]
    system, _, call, answer, _ = data["rows"]
    assert system["role"] == "system" and "problem" not in system
    assert call["calls"] == [{"id": "scripted-1-call-1", "name": "list_stock",
                              "arguments": "{}", "result_row": 3}]
    assert answer["role"] == "toolResult" and answer["tool_name"] == "list_stock"
    assert answer["call_row"] == 2 and "is_error" not in answer
    assert json.loads(call["raw"])["tool_calls"][0]["function"]["name"] == "list_stock"
    assert "request_verdict" not in data  # the unit sends its whole record


def test_what_the_run_cost_is_on_its_calls_and_beside_its_limits():
    data = transcript_data(scripted_run(limits=Limits(model_calls=5, model_budget_cents=12)))
    assert data["meter"] == ["COMPLETED", "2 of 5 model calls", "1 of 16 tool calls",
                             "4 of 12 cents estimated", "21 of 16,384 output tokens"]
    assert [row.get("meter") for row in data["rows"]] == [
        None, None, ["2 cents", "12 output tokens"], None, ["2 cents", "9 output tokens"]]
    text = Transcript(scripted_run(), static=True).to_text()
    assert "[2] assistant -> toolCall scripted-1-call-1 list_stock({})  (2 cents · 12 output " \
        "tokens)" in text.splitlines()
    page = soup(Transcript(scripted_run(), static=True).to_html())
    assert page.select_one(".al-meter").get_text().startswith("COMPLETED · 2 of 8 model calls")


def test_a_charged_call_that_left_no_turn_is_counted():
    failed = scripted_run(turns=[STOCK])  # the script runs out: the second call fails
    data = transcript_data(failed)
    assert data["meter"][0] == "MODEL_FAILED"
    assert data["meter"][1:3] == ["2 of 8 model calls", "1 of 16 tool calls"]
    assert data["meter"][-1] == "1 charged call left no turn"


def test_a_refused_tool_call_and_unreadable_arguments_are_flagged():
    refused = scripted_run(turns=[scripted_turn(calls=[{"name": "purchase"}]),
                                  scripted_turn("No.")])
    assert transcript_data(refused)["rows"][3]["is_error"] is True
    broken = LoopResult("COMPLETED", [*OPENING, {"role": "assistant", "content": "", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "list_stock",
                                                      "arguments": "{not json"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "{}"}], 1, 1, 2, 3)
    data = transcript_data(broken)
    assert data["rows"][2]["problem"] == ("This message cannot be read: content[0] is a "
                                          "toolCall to list_stock whose arguments are not a dict.")
    assert data["meter"][1] == "1 model call" and not data["accepted"]


def test_a_plain_list_is_a_course_record_and_a_chat_looking_one_says_what_to_do():
    data = transcript_data(list(OPENING))
    assert data["rows"][0]["problem"].endswith("got 'system'.")
    assert data["format_note"] == CHAT_HINT


def test_a_tools_words_are_escaped_in_a_unit_record():
    hostile = scripted_run(answer='<img src=x onerror="alert(1)"><script>alert(2)</script>')
    page = soup(Transcript(hostile, static=True).to_html())
    assert not page.find_all(["img", "script"])
    assert "<script>alert(2)</script>" in page.select(".al-row")[-1].get_text()


def test_a_scripted_run_beside_a_live_one_parts_at_the_answer(provider):  # noqa: F811
    provider.replies = [
        reply(completion(calls=[("call_stock", "list_stock", "{}")], tokens=12)),
        reply(completion("Order 6 vanilla.", tokens=9))]
    live = run_loop(build_model([], model="gpt-test"), build_tools(SHOP), OPENING,
                    limits=Limits())
    diff = RunDiff(scripted_run(), live, ("scripted", "live"))
    assert [row["state"] for row in diff.diff["rows"]] == ["same", "same", "words", "words"]
    assert diff.diff["parted"] == 3
    text = diff.to_text()
    assert "  live      [2] assistant -> toolCall call_stock list_stock({})" in text
    assert '  live      [4] assistant -> "Order 6 vanilla."' in text


class Liar:
    """Equal to everything, and a string to no one."""

    def __eq__(self, other):
        return True

    __hash__ = object.__hash__


def test_a_hand_made_loop_result_that_lies_is_drawn_and_flagged_never_raised():
    calls = [{"id": "c1", "type": "function", "function": "list_stock"}, "c2",
             {"id": "c3", "type": "function", "function": {"name": "x", "arguments": Liar()}}]
    messages = [{"role": "user", "content": "Stock?"},
                {"role": "assistant", "content": None, "tool_calls": calls},
                {"role": "tool", "tool_call_id": "c1", "content": Liar()},
                {"role": "tool", "tool_call_id": Liar(), "content": "{}"}]
    data = transcript_data(LoopResult("COMPLETED", messages, 1, 3, 2, 0))
    assert data["format_note"] == CHAT_NOTE and not data["accepted"]
    assert data["rows"][1]["problem"].startswith("This message cannot be read: content[0] ")
    assert data["rows"][2]["problem"] == ("This message cannot be read: toolResult content "
                                          "must be a string.")
    assert "is_error" not in data["rows"][2]
    assert data["rows"][3]["problem"] == "This message cannot be read: toolResult has no " \
        "tool_call_id."
    assert "Liar object" in Transcript(LoopResult("COMPLETED", messages, 1, 3, 2, 0),
                                       static=True).to_text()
