"""Scripted turns, trace and summary views, and atomic JSON writes."""

import json
import os

import pytest
from pydantic import ValidationError

from agentlab_magics.bounded import (
    Limits,
    ModelError,
    ModelTurn,
    ScriptedModel,
    ToolCall,
    describe,
    run_loop,
    scripted_turn,
    tool_trace,
    write_json,
)
from agentlab_magics.bounded.shop import SHOP, build_tools


def test_scripted_call_ids_are_numbered_by_turn_and_position_unless_given():
    model = ScriptedModel(
        [
            scripted_turn(calls=[{"name": "list_stock", "arguments": {}}]),
            scripted_turn(
                calls=[
                    {"name": "supplier", "arguments": {"sku": "SKU-VANILLA"}},
                    {"name": "supplier", "arguments": {"sku": "SKU-STRAWBERRY"}, "id": "mine"},
                ]
            ),
        ]
    )
    first = model.complete([], [])
    second = model.complete([], [])
    assert [c.id for c in first.calls] == ["scripted-1-call-1"]
    assert [c.id for c in second.calls] == ["scripted-2-call-1", "mine"]
    with pytest.raises(ModelError):
        model.complete([], [])


def test_a_scripted_model_hands_out_copies_of_its_arguments():
    model = ScriptedModel(
        [scripted_turn(calls=[{"name": "supplier", "arguments": {"sku": "SKU-VANILLA"}}])]
    )
    model.complete([], []).calls[0].arguments["sku"] = "changed"
    assert model.turns[0].calls[0].arguments == {"sku": "SKU-VANILLA"}


@pytest.mark.parametrize(
    "calls",
    [
        [{"name": "list_stock", "arguments": {}, "extra": 1}],
        [{"arguments": {}}],
        [{"name": "", "arguments": {}}],
    ],
)
def test_a_mistyped_scripted_call_fails_where_it_is_written(calls):
    with pytest.raises(ValidationError):
        scripted_turn(calls=calls)


def test_a_model_turn_becomes_an_assistant_message_with_sorted_json_arguments():
    turn = ModelTurn("Checking.", (ToolCall("x", "draft_order", {"sku": "S", "quantity": 2}),))
    assert turn.message() == {
        "role": "assistant",
        "content": "Checking.",
        "tool_calls": [
            {
                "id": "x",
                "type": "function",
                "function": {"name": "draft_order", "arguments": '{"quantity": 2, "sku": "S"}'},
            }
        ],
    }
    assert ModelTurn("Done.").message() == {"role": "assistant", "content": "Done."}


def test_tool_trace_joins_each_request_to_its_observation_in_order():
    turns = [
        scripted_turn(
            calls=[
                {"name": "draft_order", "arguments": {"sku": "SKU-VANILLA", "quantity": 6}},
                {"name": "draft_order", "arguments": {"sku": "SKU-VANILLA", "quantity": 2}},
            ]
        ),
        scripted_turn("Drafted vanilla."),
    ]
    result = run_loop(ScriptedModel(turns), build_tools(SHOP), [], limits=Limits())
    trace = tool_trace(result)
    assert [(row["call_id"], row["tool"], row["ok"]) for row in trace] == [
        ("scripted-1-call-1", "draft_order", True),
        ("scripted-1-call-2", "draft_order", False),
    ]
    assert trace[0]["arguments"] == {"sku": "SKU-VANILLA", "quantity": 6}
    assert trace[0]["result"]["total_cents"] == 1500 and trace[1]["result"] == "tool_failed"


def test_describe_names_the_source_status_counts_refusals_and_answer():
    turns = [
        scripted_turn(
            calls=[{"name": "draft_order", "arguments": {"sku": "SKU-VANILLA", "quantity": 1}}]
        ),
        scripted_turn("Nothing drafted."),
    ]
    result = run_loop(ScriptedModel(turns), build_tools(SHOP), [], limits=Limits())
    summary = describe(result, "scripted")
    assert summary.startswith(
        "scripted model: COMPLETED after 2 model calls and 1 tool calls (1 refused)"
    )
    assert "4 cents" in summary and summary.endswith("Answer: Nothing drafted.")


def test_write_json_replaces_the_file_and_leaves_no_temporary_behind(tmp_path):
    target = tmp_path / "drafts.json"
    write_json(target, {"b": 1, "a": [1, 2]})
    write_json(target, {"reserved_cents": 1500})
    assert json.loads(target.read_text(encoding="utf-8")) == {"reserved_cents": 1500}
    assert os.listdir(tmp_path) == ["drafts.json"]


def test_write_json_keeps_the_previous_file_when_the_data_cannot_be_encoded(tmp_path):
    target = tmp_path / "drafts.json"
    write_json(target, {"reserved_cents": 0})
    with pytest.raises(ValueError):
        write_json(target, {"reserved_cents": float("nan")})
    assert json.loads(target.read_text(encoding="utf-8")) == {"reserved_cents": 0}
    assert os.listdir(tmp_path) == ["drafts.json"]
