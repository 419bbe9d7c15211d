"""Dispatcher and the Chapter 2 shop tools: only allowed, validated calls reach a handler, and
every refusal reaches the model as "tool_failed" while the log keeps the reason."""

import copy

import pytest

from agentlab_magics.bounded import TOOL_FAILED, Dispatcher, ExecutableTool, ToolCall
from agentlab_magics.bounded.shop import (
    PRICES,
    SHOP,
    DraftArguments,
    NoArguments,
    ProductArguments,
    build_tools,
)

VANILLA_DRAFT = {"sku": "SKU-VANILLA", "quantity": 6}


def call(name, arguments, call_id="c1"):
    return ToolCall(id=call_id, name=name, arguments=arguments)


def gated(before_write):
    """The shop's handlers behind a dispatcher whose draft_order is consequential."""
    handlers = {name: tool.handler for name, tool in build_tools(SHOP).tools.items()}
    tools = [
        ExecutableTool("list_stock", "Stock.", NoArguments, handlers["list_stock"]),
        ExecutableTool(
            "draft_order", "Draft.", DraftArguments, handlers["draft_order"], consequential=True
        ),
    ]
    return Dispatcher(tools, allowed={"list_stock", "draft_order"}, before_write=before_write)


def test_the_shop_needs_and_prices_are_the_units_figures():
    needs = {row["sku"]: max(0, row["reorder_point"] - row["on_hand"]) for row in SHOP["products"]}
    assert needs == {"SKU-VANILLA": 6, "SKU-STRAWBERRY": 4, "SKU-CHOCOLATE": 0}
    assert (PRICES["SKU-VANILLA"], PRICES["SKU-STRAWBERRY"]) == (250, 275)


def test_list_stock_reports_the_need_per_product():
    rows = build_tools(SHOP).invoke(call("list_stock", {}))["products"]
    assert [(row["sku"], row["needed"]) for row in rows] == [
        ("SKU-VANILLA", 6),
        ("SKU-STRAWBERRY", 4),
        ("SKU-CHOCOLATE", 0),
    ]


def test_supplier_returns_the_price_in_cents():
    assert (
        build_tools(SHOP).invoke(call("supplier", {"sku": "SKU-STRAWBERRY"}))["unit_cents"] == 275
    )


@pytest.mark.parametrize(
    ("arguments", "total"),
    [
        ({"sku": "SKU-VANILLA", "quantity": 6}, 1500),
        ({"sku": "SKU-STRAWBERRY", "quantity": 4}, 1100),
    ],
)
def test_a_draft_for_exactly_the_need_is_calculated(arguments, total):
    draft = build_tools(SHOP).invoke(call("draft_order", arguments))
    assert draft["total_cents"] == total and draft["sku"] == arguments["sku"]
    assert (
        draft["quantity"] == arguments["quantity"]
        and draft["unit_cents"] * draft["quantity"] == total
    )


@pytest.mark.parametrize(
    "arguments",
    [
        {"sku": "SKU-VANILLA", "quantity": 5},
        {"sku": "SKU-CHOCOLATE", "quantity": 1},
        {"sku": "SKU-MANGO", "quantity": 1},
    ],
)
def test_a_draft_the_shop_does_not_need_is_refused_by_the_handler(arguments):
    dispatcher = build_tools(SHOP)
    assert dispatcher.invoke(call("draft_order", arguments)) == TOOL_FAILED
    assert dispatcher.log[-1]["reason"].startswith("ValueError")


def test_unknown_supplier_sku_fails():
    assert build_tools(SHOP).invoke(call("supplier", {"sku": "SKU-MANGO"})) == TOOL_FAILED


def test_build_tools_binds_a_snapshot_of_the_shop():
    shop = copy.deepcopy(SHOP)
    dispatcher = build_tools(shop)
    shop["products"][0]["on_hand"] = 8
    assert dispatcher.invoke(call("draft_order", VANILLA_DRAFT))["total_cents"] == 1500
    assert build_tools(shop).invoke(call("draft_order", VANILLA_DRAFT)) == TOOL_FAILED


def test_an_unknown_tool_fails_and_the_log_says_why():
    dispatcher = build_tools(SHOP)
    assert dispatcher.invoke(call("purchase", {})) == TOOL_FAILED
    assert dispatcher.log == [
        {
            "call_id": "c1",
            "tool": "purchase",
            "ok": False,
            "reason": "ToolRefused: no tool is registered as 'purchase'",
        }
    ]


def test_a_registered_tool_outside_allowed_is_neither_offered_nor_run():
    ran = []
    tools = [
        ExecutableTool("list_stock", "Stock.", NoArguments, lambda _: ran.append("stock") or {}),
        ExecutableTool(
            "supplier", "Price.", ProductArguments, lambda _: ran.append("supplier") or {}
        ),
    ]
    dispatcher = Dispatcher(tools, allowed={"list_stock"})
    assert [schema["function"]["name"] for schema in dispatcher.schemas()] == ["list_stock"]
    assert dispatcher.invoke(call("supplier", {"sku": "SKU-VANILLA"})) == TOOL_FAILED
    assert ran == [] and "not allowed" in dispatcher.log[-1]["reason"]


@pytest.mark.parametrize(
    "arguments",
    [
        {"sku": "SKU-VANILLA", "quantity": "6"},
        {"sku": "SKU-VANILLA", "quantity": True},
        {"sku": "SKU-VANILLA", "quantity": 6.0},
        {"sku": "SKU-VANILLA", "quantity": 6, "approved": True},
        {"sku": "SKU-VANILLA"},
        {"sku": "SKU-VANILLA", "quantity": 0},
        ["SKU-VANILLA", 6],
    ],
    ids=["string", "bool", "float", "extra-key", "missing-key", "zero", "not-an-object"],
)
def test_strict_argument_validation_refuses_before_the_gate_or_handler(arguments):
    gate_calls = []
    dispatcher = gated(gate_calls.append)
    assert dispatcher.invoke(call("draft_order", arguments)) == TOOL_FAILED
    assert gate_calls == [] and dispatcher.log[-1]["reason"].startswith("ValidationError")


def test_the_gate_sees_a_consequential_call_and_can_refuse_it():
    def refuse(_):
        raise ValueError("over the draft budget")

    dispatcher = gated(refuse)
    assert dispatcher.invoke(call("draft_order", VANILLA_DRAFT)) == TOOL_FAILED
    assert dispatcher.log[-1]["reason"] == "ValueError: over the draft budget"


def test_an_admitting_gate_lets_the_handler_run_and_receives_the_call():
    seen = []
    dispatcher = gated(seen.append)
    assert dispatcher.invoke(call("draft_order", VANILLA_DRAFT, "d1"))["total_cents"] == 1500
    assert seen == [ToolCall("d1", "draft_order", VANILLA_DRAFT)]
    assert dispatcher.log[-1] == {"call_id": "d1", "tool": "draft_order", "ok": True, "reason": ""}


def test_the_gate_is_not_consulted_for_a_read_only_tool():
    seen = []
    gated(seen.append).invoke(call("list_stock", {}))
    assert seen == []


def test_a_handler_returning_something_that_is_not_json_fails():
    dispatcher = Dispatcher(
        [ExecutableTool("odd", "Odd.", NoArguments, lambda _: {"at": object()})]
    )
    assert dispatcher.invoke(call("odd", {})) == TOOL_FAILED
    assert dispatcher.log[-1]["reason"].startswith("TypeError")


def test_two_tools_with_one_name_are_refused_at_registration():
    tool = ExecutableTool("list_stock", "Stock.", NoArguments, lambda _: {})
    with pytest.raises(ValueError, match="unique"):
        Dispatcher([tool, tool])


def test_schemas_use_the_function_envelope_and_the_argument_models_schema():
    schemas = build_tools(SHOP).schemas()
    assert [schema["type"] for schema in schemas] == ["function"] * 3
    draft = schemas[2]["function"]
    assert draft["name"] == "draft_order" and draft["description"]
    assert draft["parameters"] == DraftArguments.model_json_schema()
    assert draft["parameters"]["required"] == ["sku", "quantity"]
    assert draft["parameters"]["additionalProperties"] is False
