"""run_loop: each limit, their precedence, failed attempts, call ids, empty replies, tokens,
time, and the ownership of the caller's messages."""

import copy
import json

import pytest

from agentlab_magics.bounded import (
    Dispatcher,
    ExecutableTool,
    Limits,
    ModelError,
    ModelTurn,
    ScriptedModel,
    ToolCall,
    run_loop,
    scripted_turn,
)
from agentlab_magics.bounded.shop import SHOP, NoArguments, build_tools

OPENING = [
    {"role": "system", "content": "Prepare replenishment drafts. Never purchase."},
    {"role": "user", "content": "What needs ordering?"},
]
STOCK = {"name": "list_stock", "arguments": {}}
ANSWER = scripted_turn("Vanilla needs 6 and strawberry 4. Nothing was purchased.")


def run(turns, **limits):
    dispatcher = build_tools(SHOP)
    result = run_loop(ScriptedModel(turns), dispatcher, OPENING, limits=Limits(**limits))
    return result, dispatcher


class Recorder:
    """A model that hands back fixed turns and remembers what it was given."""

    source = "scripted"

    def __init__(self, *turns):
        self.turns = list(turns)
        self.seen = []

    def complete(self, messages, tools):
        self.seen.append((messages, tools))
        if not self.turns:
            raise ModelError("no turn left")
        return self.turns.pop(0)


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_a_final_answer_completes_with_the_answer_and_counts():
    result, _ = run([scripted_turn(calls=[STOCK]), ANSWER])
    assert (result.status, result.model_calls, result.tool_calls) == ("COMPLETED", 2, 1)
    assert result.estimated_cost_cents == 4 and result.answer == ANSWER.content
    assert [m["role"] for m in result.messages] == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
    ]


def test_each_observation_is_the_sorted_json_of_the_tool_result_under_the_call_id():
    result, dispatcher = run([scripted_turn(calls=[STOCK]), ANSWER])
    request, observation = result.messages[2], result.messages[3]
    assert request["tool_calls"] == [
        {
            "id": "scripted-1-call-1",
            "type": "function",
            "function": {"name": "list_stock", "arguments": "{}"},
        }
    ]
    expected = dispatcher.tools["list_stock"].handler(None)
    assert observation == {
        "role": "tool",
        "tool_call_id": "scripted-1-call-1",
        "content": json.dumps(expected, sort_keys=True),
    }


def test_zero_model_calls_refuses_the_first_attempt_without_asking_the_model():
    model = Recorder(ANSWER)
    result = run_loop(model, build_tools(SHOP), OPENING, limits=Limits(model_calls=0))
    assert (result.status, result.model_calls, result.estimated_cost_cents) == (
        "MODEL_CALL_LIMIT",
        0,
        0,
    )
    assert model.seen == [] and result.messages == OPENING and result.answer == ""


def test_the_cost_limit_allows_equality_and_refuses_the_next_cent():
    turns = [scripted_turn(calls=[STOCK]) for _ in range(3)] + [ANSWER]
    result, _ = run(turns, estimated_call_cents=5, model_budget_cents=10)
    assert (result.status, result.model_calls, result.estimated_cost_cents) == (
        "MODEL_COST_LIMIT",
        2,
        10,
    )
    assert result.tool_calls == 2


def test_a_zero_cost_attempt_fits_a_zero_budget():
    result, _ = run([ANSWER], estimated_call_cents=0, model_budget_cents=0)
    assert (result.status, result.model_calls) == ("COMPLETED", 1)


def test_when_both_limits_refuse_the_call_limit_is_reported():
    turns = [scripted_turn(calls=[STOCK]) for _ in range(3)] + [ANSWER]
    result, _ = run(turns, model_calls=2, estimated_call_cents=5, model_budget_cents=10)
    assert (result.status, result.model_calls, result.estimated_cost_cents) == (
        "MODEL_CALL_LIMIT",
        2,
        10,
    )


def test_a_failed_attempt_is_charged_a_call_and_its_estimate():
    model = Recorder()
    result = run_loop(model, build_tools(SHOP), OPENING, limits=Limits(estimated_call_cents=3))
    assert (result.status, result.model_calls, result.estimated_cost_cents) == (
        "MODEL_FAILED",
        1,
        3,
    )
    assert len(model.seen) == 1 and result.messages == OPENING


def test_an_exhausted_script_fails_like_a_provider_and_stays_charged():
    result, _ = run([scripted_turn(calls=[STOCK])])
    assert (result.status, result.model_calls, result.tool_calls, result.estimated_cost_cents) == (
        "MODEL_FAILED",
        2,
        1,
        4,
    )


def test_a_programming_error_in_a_model_is_not_disguised_as_a_provider_failure():
    class Broken:
        source = "scripted"

        def complete(self, messages, tools):
            raise ZeroDivisionError

    with pytest.raises(ZeroDivisionError):
        run_loop(Broken(), build_tools(SHOP), OPENING, limits=Limits())


def test_a_turn_over_the_tool_budget_runs_nothing_and_is_not_appended():
    three = [STOCK, {"name": "supplier", "arguments": {"sku": "SKU-VANILLA"}}, STOCK]
    result, dispatcher = run([scripted_turn(calls=three), ANSWER], tool_calls=2)
    assert (result.status, result.model_calls, result.tool_calls) == ("TOOL_LIMIT", 1, 0)
    assert dispatcher.log == [] and result.messages == OPENING


def test_a_turn_that_exactly_fills_the_tool_budget_runs():
    result, _ = run([scripted_turn(calls=[STOCK, STOCK]), ANSWER], tool_calls=2)
    assert (result.status, result.tool_calls) == ("COMPLETED", 2)


def test_a_refused_tool_call_still_counts_against_the_tool_budget():
    bad = {"name": "draft_order", "arguments": {"sku": "SKU-VANILLA", "quantity": 1}}
    result, _ = run(
        [scripted_turn(calls=[bad]), scripted_turn(calls=[STOCK]), ANSWER], tool_calls=1
    )
    assert (result.status, result.model_calls, result.tool_calls) == ("TOOL_LIMIT", 2, 1)


def test_a_call_id_repeated_within_a_turn_ends_the_run_before_any_tool_runs():
    twice = [{**STOCK, "id": "same"}, {**STOCK, "id": "same"}]
    result, dispatcher = run([scripted_turn(calls=twice), ANSWER])
    assert (result.status, result.model_calls, result.tool_calls) == ("REPEATED_CALL_ID", 1, 0)
    assert dispatcher.log == [] and result.messages == OPENING


def test_a_call_id_reused_from_an_earlier_turn_ends_the_run():
    turns = [
        scripted_turn(calls=[{**STOCK, "id": "stock-1"}]),
        scripted_turn(calls=[{**STOCK, "id": "stock-1"}]),
    ]
    result, dispatcher = run([*turns, ANSWER])
    assert (result.status, result.model_calls, result.tool_calls) == ("REPEATED_CALL_ID", 2, 1)
    assert len(dispatcher.log) == 1 and len(result.messages) == len(OPENING) + 2


@pytest.mark.parametrize("content", ["", "   \n\t"])
def test_a_blank_turn_without_calls_is_an_empty_reply(content):
    result, _ = run([scripted_turn(content)])
    assert (result.status, result.model_calls) == ("EMPTY_REPLY", 1)
    assert result.messages[-1] == {"role": "assistant", "content": content}


def test_text_alongside_tool_calls_is_not_a_final_answer():
    result, _ = run([scripted_turn("I will check stock.", calls=[STOCK]), ANSWER])
    assert result.status == "COMPLETED" and result.model_calls == 2
    assert result.messages[2]["content"] == "I will check stock."


def test_one_reply_over_the_per_call_token_limit_ends_the_run_unappended():
    result, _ = run([scripted_turn(calls=[STOCK], output_tokens=101), ANSWER], output_tokens=100)
    assert (result.status, result.model_calls, result.tool_calls, result.output_tokens) == (
        "TOKEN_LIMIT",
        1,
        0,
        101,
    )
    assert result.messages == OPENING


def test_a_reply_at_the_per_call_token_limit_is_accepted():
    result, _ = run([scripted_turn("Done.", output_tokens=100)], output_tokens=100)
    assert (result.status, result.output_tokens) == ("COMPLETED", 100)


def test_the_running_token_total_ends_the_run_when_it_passes_the_total_limit():
    turns = [scripted_turn(calls=[STOCK], output_tokens=6) for _ in range(3)] + [ANSWER]
    result, _ = run(turns, output_tokens=10, total_output_tokens=15)
    assert (result.status, result.model_calls, result.tool_calls, result.output_tokens) == (
        "TOKEN_LIMIT",
        3,
        2,
        18,
    )


def test_a_spent_time_allowance_refuses_the_next_attempt_uncharged():
    clock = Clock()
    model = Recorder(ModelTurn(calls=(ToolCall("a", "list_stock", {}),)), ModelTurn("Done."))
    original = model.complete

    def slow_complete(messages, tools):
        clock.now += 6
        return original(messages, tools)

    model.complete = slow_complete
    result = run_loop(model, build_tools(SHOP), OPENING, limits=Limits(seconds=5.5), clock=clock)
    assert (result.status, result.model_calls, result.estimated_cost_cents) == (
        "MODEL_FAILED",
        1,
        2,
    )
    assert result.messages == OPENING  # the late turn was discarded


def test_the_next_attempt_is_refused_once_the_deadline_has_passed():
    clock = Clock()

    def slow_stock(_):
        clock.now += 10
        return {"products": []}

    dispatcher = Dispatcher([ExecutableTool("list_stock", "Slow stock.", NoArguments, slow_stock)])
    model = Recorder(ModelTurn(calls=(ToolCall("a", "list_stock", {}),)), ModelTurn("Done."))
    result = run_loop(model, dispatcher, OPENING, limits=Limits(seconds=5), clock=clock)
    assert (result.status, result.model_calls, result.tool_calls, result.estimated_cost_cents) == (
        "MODEL_FAILED",
        1,
        1,
        2,
    )
    assert len(model.seen) == 1


def test_zero_seconds_admits_no_attempt():
    model = Recorder(ANSWER)
    result = run_loop(model, build_tools(SHOP), OPENING, limits=Limits(seconds=0))
    assert (result.status, result.model_calls, result.estimated_cost_cents) == (
        "MODEL_FAILED",
        0,
        0,
    )
    assert model.seen == []


def test_the_callers_messages_are_never_mutated():
    messages = copy.deepcopy(OPENING)
    before = copy.deepcopy(messages)
    result = run_loop(
        ScriptedModel([scripted_turn(calls=[STOCK]), ANSWER]),
        build_tools(SHOP),
        messages,
        limits=Limits(),
    )
    assert messages == before and len(result.messages) == 5
    result.messages[0]["content"] = "changed"
    assert messages == before


def test_a_model_that_edits_what_it_was_given_cannot_edit_the_transcript():
    class Vandal(Recorder):
        def complete(self, messages, tools):
            messages[0]["content"] = "vandalised"
            messages.clear()
            tools.clear()
            return super().complete(messages, tools)

    result = run_loop(Vandal(ModelTurn("Done.")), build_tools(SHOP), OPENING, limits=Limits())
    assert result.status == "COMPLETED" and result.messages[:2] == OPENING


def test_the_model_is_offered_the_dispatchers_schemas_and_the_transcript_so_far():
    model = Recorder(ModelTurn(calls=(ToolCall("a", "list_stock", {}),)), ModelTurn("Done."))
    dispatcher = build_tools(SHOP)
    run_loop(model, dispatcher, OPENING, limits=Limits())
    (first_messages, first_tools), (second_messages, _) = model.seen
    assert first_messages == OPENING and first_tools == dispatcher.schemas()
    assert [m["role"] for m in second_messages] == ["system", "user", "assistant", "tool"]


def test_limits_are_frozen_nonnegative_and_strict():
    limits = Limits()
    with pytest.raises(ValueError):
        Limits(tool_calls=-1)
    with pytest.raises(ValueError):
        Limits(model_calls=True)
    with pytest.raises(ValueError):
        Limits(seconds=float("inf"))
    with pytest.raises(ValueError):
        Limits(model_budget=20)
    with pytest.raises(ValueError):
        limits.model_calls = 9
    assert repr(limits).startswith("Limits(model_calls=8, tool_calls=16, seconds=120.0")
