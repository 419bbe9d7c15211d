"""Seed 004 ("Bounded Agent Loop: Unit A Exercises") run cell by cell on agentlab_magics.bounded.

Each constant below is one code cell of the notebook, in notebook order and verbatim except
for the lines marked CHANGED: the imports of the supplied runtime and the lines that loaded its
files (COURSE_ROOT, run_book, run_path), plus the interpreter-version check, because this
project's venv runs Python 3.11. ``NOTEBOOK`` executes them in one shared namespace, as a kernel
would, with COURSE_WORK in a temporary folder and no API key. The two learner functions run
first as shipped (their graders must say NEEDS_WORK) and then again with the package's
reference answers substituted, as a learner's repaired cell would be. Every ``assert`` in the
cells is live: a cell that raises fails every test in this module.
"""

import contextlib
import io
import json
import sys

import pytest

from agentlab_magics.bounded import (
    HANDOFF_FILE,
    LLM_LAB_REPORT_FILE,
    SUBMISSION_FILE,
    load_handoff,
    load_llm_lab_report,
    load_submission,
)

PREDICTION = r"""
prediction_notes = {
    "prediction": "Write the expected behavior before running the worked example.",
    "reason": "Name the input and rule behind that prediction.",
    "falsifier": "Name an observation that would prove the explanation wrong.",
    "revision": "After execution, explain what changed in your understanding.",
}
"""

INTRO_JSON = r"""
import json

intro_data = {"sku": "MANGO", "count": 3}
intro_text = json.dumps(intro_data, sort_keys=True)
print(type(intro_data).__name__, type(intro_text).__name__, intro_text)
print(json.loads(intro_text))
print("Also valid JSON:", json.loads('["not", "a", "stock", "record"]'))
assert json.loads(intro_text) == intro_data
"""

INTRO_DATACLASS = r"""
from dataclasses import dataclass


@dataclass(frozen=True)
class IntroObservation:
    operation: str
    count: int


intro_observation = IntroObservation("count-mango", 3)
print(intro_observation.operation, intro_observation.count)
assert intro_observation == IntroObservation("count-mango", 3)
"""

INTRO_CALLBACK = r"""
def intro_apply(candidate, value):
    return {"input": value, "observed": candidate(value)}


def intro_double(value):
    return value * 2


print(intro_apply(intro_double, 3))
print(intro_apply(lambda value: value + 2, 3))
assert intro_apply(intro_double, 3)["observed"] == 6
"""

INTRO_PATHS = r"""
from pathlib import Path
from tempfile import TemporaryDirectory

with TemporaryDirectory() as intro_folder:
    intro_path = Path(intro_folder) / "observation.json"
    intro_path.write_text(json.dumps(intro_data), encoding="utf-8")
    intro_reopened = json.loads(intro_path.read_text(encoding="utf-8"))
    assert intro_reopened == intro_data
    print("Read from a file:", intro_reopened)
"""

INTRO_PYDANTIC = r"""
from pydantic import BaseModel, ConfigDict, Field, ValidationError


class IntroCourseRequest(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")
    name: str = Field(min_length=1)
    quantity: int = Field(gt=0, le=1000)
    note: str = ""


intro_request = IntroCourseRequest.model_validate({"name": "mango", "quantity": 4})
print(intro_request.name, intro_request.quantity, repr(intro_request.note))
assert intro_request.note == ""
"""

INTRO_BAD_REQUESTS = r"""
intro_bad_requests = [
    {"name": "mango", "quantity": "4"},
    {"name": "mango", "quantity": True},
    {"name": "", "quantity": 4},
    {"name": "mango", "quantity": 0},
    {"name": "mango", "quantity": 4, "approved": True},
    {"quantity": 4},
]
for intro_bad_request in intro_bad_requests:
    try:
        IntroCourseRequest.model_validate(intro_bad_request)
    except ValidationError as intro_error:
        print([(item["loc"], item["type"]) for item in intro_error.errors(include_input=False)])
    else:
        raise AssertionError("An invalid input crossed the declared contract")
"""

INTRO_SCHEMA = r"""
intro_serialized = intro_request.model_dump_json()
intro_schema = IntroCourseRequest.model_json_schema()
assert IntroCourseRequest.model_validate_json(intro_serialized) == intro_request
print("Actual values:", intro_request.model_dump())
print("Quantity contract:", intro_schema["properties"]["quantity"])
assert intro_schema["properties"]["quantity"]["exclusiveMinimum"] == 0
"""

INTRO_TRANSCRIPT = r"""
intro_turns = [
    {"call_id": "stock-1", "tool": "stock"},
    {"call_id": "price-1", "tool": "price"},
    {"answer": "A draft is ready for review."},
]
intro_transcript = []
intro_tool_values = {"stock": 6, "price": 250}
for intro_turn in intro_turns:
    intro_transcript.append({"role": "assistant", "content": intro_turn})
    if "answer" in intro_turn:
        break
    intro_transcript.append(
        {
            "role": "tool",
            "tool_call_id": intro_turn["call_id"],
            "value": intro_tool_values[intro_turn["tool"]],
        }
    )
print([item["role"] for item in intro_transcript])
assert [item["role"] for item in intro_transcript] == [
    "assistant",
    "tool",
    "assistant",
    "tool",
    "assistant",
]
"""

INTRO_FAILED_ATTEMPTS = r"""
intro_spent = 0
intro_attempts = 0
intro_events = []
while intro_attempts < 3 and intro_spent + 2 <= 6:
    intro_attempts += 1
    intro_spent += 2
    try:
        raise RuntimeError("authored provider failure")
    except RuntimeError:
        intro_events.append((intro_attempts, intro_spent, "failed"))
print(intro_events)
assert intro_events == [(1, 2, "failed"), (2, 4, "failed"), (3, 6, "failed")]
"""

LOCATE_CODE = r"""
import copy
import json
import os
import runpy
import sys
from dataclasses import dataclass
from pathlib import Path

assert sys.version_info >= (3, 11)  # CHANGED: the seed targets 3.12+, this venv runs 3.11

ROOT = COURSE_ROOT

import agentlab_magics.bounded.shop  # CHANGED: the Chapter 2 tools come from the package

# CHANGED: was chapter2 = run_book("book/always_on/learner/ch02.py")
chapter2 = vars(agentlab_magics.bounded.shop)
ToolCall = chapter2["ToolCall"]
dispatcher = chapter2["build_tools"](chapter2["SHOP"])
print("tools", [schema["function"]["name"] for schema in dispatcher.schemas()])
"""

MODEL_TURNS = r"""
class ModelError(RuntimeError):
    pass


@dataclass(frozen=True)
class ModelTurn:
    content: str = ""
    calls: tuple = ()

    def message(self):
        message = {"role": "assistant", "content": self.content}
        if self.calls:
            message["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {
                        "name": call.name,
                        "arguments": json.dumps(call.arguments, sort_keys=True),
                    },
                }
                for call in self.calls
            ]
        return message


class ReplayModel:
    def __init__(self, turns):
        self.turns = iter(turns)

    def complete(self, messages, tools):
        try:
            return next(self.turns)
        except StopIteration:
            raise ModelError("fixture exhausted") from None


OPENING_TURNS = [
    ModelTurn(calls=(ToolCall(id="stock-1", name="list_stock", arguments={}),)),
    ModelTurn(
        calls=(
            ToolCall(
                id="draft-v", name="draft_order", arguments={"sku": "SKU-VANILLA", "quantity": 6}
            ),
            ToolCall(
                id="draft-s", name="draft_order", arguments={"sku": "SKU-STRAWBERRY", "quantity": 4}
            ),
        )
    ),
    ModelTurn("Drafts total 2600 cents USD. No purchase was made."),
]
"""

ADMISSION_STARTER = r'''
def decide_admission(case):
    """Return CALL, MODEL_CALL_LIMIT, or MODEL_COST_LIMIT."""
    return "CALL"
'''

ADMISSION_GRADE = r"""
VISIBLE_CASES = [
    ({"used_calls": 0, "max_calls": 3, "spent": 0, "next_cost": 2, "budget": 6}, "CALL"),
    (
        {"used_calls": 3, "max_calls": 3, "spent": 0, "next_cost": 0, "budget": 6},
        "MODEL_CALL_LIMIT",
    ),
    (
        {"used_calls": 1, "max_calls": 3, "spent": 5, "next_cost": 2, "budget": 6},
        "MODEL_COST_LIMIT",
    ),
    ({"used_calls": 1, "max_calls": 3, "spent": 4, "next_cost": 2, "budget": 6}, "CALL"),
]


def grade_admission(candidate, cases):
    rows = []
    for number, (case, expected) in enumerate(cases, 1):
        supplied = copy.deepcopy(case)
        try:
            observed = candidate(supplied)
        except Exception as error:
            observed = type(error).__name__
        rows.append(
            {
                "case": number,
                "expected": expected,
                "observed": observed,
                "status": "PASS" if observed == expected and supplied == case else "FAIL",
            }
        )
    return rows


visible_results = grade_admission(decide_admission, VISIBLE_CASES)
VISIBLE_PASSED = all(row["status"] == "PASS" for row in visible_results)
print(json.dumps(visible_results, indent=2))
print("VISIBLE_CONTRACT", "PASSED" if VISIBLE_PASSED else "NEEDS_WORK")
"""

CONNECT_LOOP = r"""
def run_loop(
    model, tool_dispatcher, initial_messages, admission, *, max_calls=4, call_cost=2, budget=8
):
    transcript = copy.deepcopy(initial_messages)
    model_calls = 0
    tool_calls = 0
    spent = 0
    seen = set()
    while True:
        decision = admission(
            {
                "used_calls": model_calls,
                "max_calls": max_calls,
                "spent": spent,
                "next_cost": call_cost,
                "budget": budget,
            }
        )
        if decision != "CALL":
            return {
                "status": decision,
                "messages": transcript,
                "model_calls": model_calls,
                "tool_calls": tool_calls,
                "estimated_cents": spent,
            }
        model_calls += 1
        spent += call_cost
        try:
            turn = model.complete(copy.deepcopy(transcript), tool_dispatcher.schemas())
        except ModelError:
            return {
                "status": "MODEL_FAILED",
                "messages": transcript,
                "model_calls": model_calls,
                "tool_calls": tool_calls,
                "estimated_cents": spent,
            }
        identifiers = [call.id for call in turn.calls]
        if len(identifiers) != len(set(identifiers)) or seen.intersection(identifiers):
            return {
                "status": "REPEATED_CALL_ID",
                "messages": transcript,
                "model_calls": model_calls,
                "tool_calls": tool_calls,
                "estimated_cents": spent,
            }
        seen.update(identifiers)
        transcript.append(turn.message())
        if not turn.calls:
            return {
                "status": "COMPLETED" if turn.content.strip() else "EMPTY_REPLY",
                "messages": transcript,
                "model_calls": model_calls,
                "tool_calls": tool_calls,
                "estimated_cents": spent,
                "answer": turn.content,
            }
        for call in turn.calls:
            tool_calls += 1
            result = tool_dispatcher.invoke(call)
            transcript.append(
                {
                    "role": "tool",
                    "tool_call_id": call.id,
                    "content": json.dumps(result, sort_keys=True),
                }
            )


INITIAL_MESSAGES = [
    {"role": "system", "content": "Use stock tools to prepare drafts. Never purchase."},
    {"role": "user", "content": "What needs ordering?"},
]
connected = None
if VISIBLE_PASSED:
    connected = run_loop(
        ReplayModel(OPENING_TURNS),
        dispatcher,
        INITIAL_MESSAGES,
        decide_admission,
    )
    print(connected["status"], connected["model_calls"], connected["tool_calls"])
    print([message["role"] for message in connected["messages"]])
    assert connected["status"] == "COMPLETED"
    assert (connected["model_calls"], connected["tool_calls"]) == (3, 3)
else:
    print("CONNECTION_NOT_READY — repair decide_admission, then run again.")
"""

SAVE_HANDOFF = r"""
ARTIFACT_PATH = Path("ch03-unit-a-handoff-v1.json")
artifact_status = "NOT_WRITTEN"
if connected is not None:
    encoded = json.dumps(connected, indent=2, sort_keys=True) + "\n"
    ARTIFACT_PATH.write_text(encoded, encoding="utf-8")
    artifact_status = "WRITTEN"
    print(ARTIFACT_PATH)
else:
    print("HANDOFF_NOT_WRITTEN")
"""

EXIT_TICKET = r"""
exercise_report = {
    "unit": "ch03-a",
    "attempted": 1,
    "completed": int(VISIBLE_PASSED),
    "failed": int(not VISIBLE_PASSED),
    "skipped": 0,
    "connection": "PASSED" if connected else "NOT_READY",
    "handoff": artifact_status,
}
print("EXERCISE_REPORT=" + json.dumps(exercise_report, sort_keys=True))
"""

TRANSFER_STARTER = r"""
def transfer_check(state):
    raise NotImplementedError("Decide before admitting the next attempt")
"""

TRANSFER_DRIVER = r"""
import json

TRANSFER_CASES = [
    ("exact fit", [{"calls": 1, "max_calls": 3, "spent": 4, "next_cost": 3, "budget": 7}], "CALL"),
    (
        "next attempt too costly",
        [{"calls": 1, "max_calls": 3, "spent": 4, "next_cost": 4, "budget": 7}],
        "COST_LIMIT",
    ),
    (
        "two exhausted limits",
        [{"calls": 3, "max_calls": 3, "spent": 7, "next_cost": 1, "budget": 7}],
        "CALL_LIMIT",
    ),
    (
        "zero allowed attempts",
        [{"calls": 0, "max_calls": 0, "spent": 0, "next_cost": 0, "budget": 0}],
        "CALL_LIMIT",
    ),
]


def same_transfer_value(actual, expected):
    if type(actual) is not type(expected):
        return False
    if isinstance(expected, dict):
        return actual.keys() == expected.keys() and all(
            same_transfer_value(actual[key], value) for key, value in expected.items()
        )
    if isinstance(expected, list):
        return len(actual) == len(expected) and all(
            same_transfer_value(a, e) for a, e in zip(actual, expected, strict=True)
        )
    return actual == expected


def run_transfer(candidate, cases):
    observations = []
    for label, arguments, expected in cases:
        supplied = copy.deepcopy(arguments)
        before = copy.deepcopy(supplied)
        raised = None
        try:
            actual = candidate(*supplied)
        except NotImplementedError:
            raised = "NotImplementedError"
            actual = {"unfinished": True}
        except Exception as error:
            raised = type(error).__name__
            actual = {"raises": raised}
        expects_error = isinstance(expected, dict) and set(expected) == {"raises"}
        correct = (
            raised == expected["raises"]
            if expects_error
            else (raised is None and same_transfer_value(actual, expected))
        )
        passed = correct and same_transfer_value(supplied, before)
        observations.append(
            {"case": label, "expected": expected, "observed": actual, "passed": passed}
        )
        print("PASS" if passed else "NEEDS_WORK", label, "expected", expected, "observed", actual)
    return observations


transfer_observations = run_transfer(transfer_check, TRANSFER_CASES)
TRANSFER_PASSED = all(row["passed"] for row in transfer_observations)
print("TRANSFER_STATUS", "PASS" if TRANSFER_PASSED else "NEEDS_WORK")
"""

SAVE_SUBMISSION = r"""
explanation_notes = {
    "causal_trace": "Explain the input, learner invocation and observed result.",
    "failed_hypothesis": "Describe a prediction the evidence changed.",
    "remaining_limit": "Name the guarantee not established by this experiment.",
}
course_submission = {
    "unit": "ch03-a",
    "planned_minutes": 90,
    "starting_evidence": globals().get("HANDOFF_ORIGIN", "INDEPENDENT_UNIT_A"),
    "prediction": prediction_notes,
    "explanation": explanation_notes,
    "core_report": exercise_report,
    "transfer": transfer_observations,
    "explanation_review": "HUMAN_REVIEW_REQUIRED",
}
submission_path = COURSE_WORK / "ch03-a-submission-v1.json"
submission_path.write_text(
    json.dumps(course_submission, indent=2, sort_keys=True), encoding="utf-8"
)
print("Saved evidence:", submission_path)
print(
    "COURSE_REPORT="
    + json.dumps(
        {
            "unit": "ch03-a",
            "transfer_passed": TRANSFER_PASSED,
            "starting_evidence": course_submission["starting_evidence"],
            "edition": "student",
        },
        sort_keys=True,
    )
)
"""

EXTENSION_SETUP = r'''
import contextlib
import json

import agentlab_magics.bounded.chapter3  # CHANGED: the learner's ch03 file is a package module
from agentlab_magics.bounded import Limits, run_loop  # CHANGED imports from here on
from agentlab_magics.bounded import write_json
from agentlab_magics.bounded import ScriptedModel, describe, scripted_turn, tool_trace
from agentlab_magics.bounded import Dispatcher, ExecutableTool

# The learner module loads the Chapter 2 tools relative to the runtime root.
chapter_three = vars(agentlab_magics.bounded.chapter3)  # CHANGED: was run_path(.../ch03.py)
shop_tools = chapter_three["shop_tools"]
SHOP, PRICES = shop_tools["SHOP"], shop_tools["PRICES"]
DRAFT_BUDGET_CENTS = 2500
BASE_LIMITS = {
    "model_calls": 8,
    "tool_calls": 16,
    "seconds": 120,
    "output_tokens": 4096,
    "total_output_tokens": 16_384,
    "estimated_call_cents": 2,
    "model_budget_cents": 20,
}
LOOP_LIMITS = Limits(**BASE_LIMITS)


def fresh_drafts_path(label):
    """The drafts file is the only durable state here; start every run without one."""
    path = COURSE_WORK / f"ch03-a-llm-drafts-{label}.json"
    path.unlink(missing_ok=True)
    return path


def build_loop_tools(shop, drafts_path):
    """The Chapter 2 handlers, unchanged, behind a draft budget in the chapter's shape."""
    reference = shop_tools["build_tools"](shop)
    handlers = {name: tool.handler for name, tool in reference.tools.items()}
    ledger = {"reserved_cents": 0, "drafts": [], "refusals": []}

    def budget(_):
        reserved = ledger["reserved_cents"]
        return {
            "budget_cents": DRAFT_BUDGET_CENTS,
            "reserved_cents": reserved,
            "remaining_cents": DRAFT_BUDGET_CENTS - reserved,
        }

    def admit_draft(call):
        # Admission asks whether this draft may begin; equality at the boundary is allowed.
        cost = PRICES.get(call.arguments["sku"], 0) * call.arguments["quantity"]
        exposure = ledger["reserved_cents"] + cost
        if exposure > DRAFT_BUDGET_CENTS:
            ledger["refusals"].append(
                {"call": call.id, "reason": "DRAFT_COST_LIMIT", "exposure_cents": exposure}
            )
            raise ValueError("draft would exceed the draft budget")

    def draft(args):
        value = handlers["draft_order"](args)  # quantity must equal need, or ValueError
        ledger["reserved_cents"] += value["total_cents"]
        ledger["drafts"].append(value)
        write_json(drafts_path, budget(None) | {"drafts": ledger["drafts"]})
        return value

    no_arguments, product, draft_arguments = (
        shop_tools["NoArguments"],
        shop_tools["ProductArguments"],
        shop_tools["DraftArguments"],
    )
    registered = [
        ExecutableTool("list_stock", "Read stock and need.", no_arguments, handlers["list_stock"]),
        ExecutableTool("supplier", "Read supplier price in cents.", product, handlers["supplier"]),
        ExecutableTool("draft_budget", "Read the draft budget and reserved.", no_arguments, budget),
        ExecutableTool(
            "draft_order",
            "Calculate a draft against the draft budget; never purchases.",
            draft_arguments,
            draft,
            consequential=True,
        ),
    ]
    allowed = frozenset(tool.name for tool in registered)
    return Dispatcher(registered, allowed=allowed, before_write=admit_draft), ledger


scripted_drafts_path = fresh_drafts_path("scripted")
loop_dispatcher, loop_ledger = build_loop_tools(SHOP, scripted_drafts_path)
for tool_schema in loop_dispatcher.schemas():
    function = tool_schema["function"]
    print(function["name"], "requires", function["parameters"].get("required", []))
    print("   ", function["description"])
shop_need = {row["sku"]: max(0, row["reorder_point"] - row["on_hand"]) for row in SHOP["products"]}
print("Need per product:", shop_need, "| prices:", PRICES)
print("Draft budget:", DRAFT_BUDGET_CENTS, "cents | loop limits:", LOOP_LIMITS)
LOOP_MESSAGES = [
    {
        "role": "system",
        "content": (
            "Help Lucy prepare replenishment drafts. First call list_stock. For each product "
            "with needed > 0, call draft_order with exactly that quantity; do not draft products "
            "with needed = 0. Drafts count against a draft budget in USD cents. If a draft is "
            "refused, call draft_budget and say what could not be drafted. Drafts are proposals, "
            "never purchases. Finish with a short summary in USD cents."
        ),
    },
    {
        "role": "user",
        "content": "Prepare replenishment drafts from current stock. State USD amounts.",
    },
]
'''

RECORDED_TRANSCRIPT = r"""
RECORDED_TURNS = [
    scripted_turn(calls=[{"name": "list_stock", "arguments": {}}]),
    scripted_turn(
        calls=[
            {"name": "supplier", "arguments": {"sku": "SKU-VANILLA"}},
            {"name": "supplier", "arguments": {"sku": "SKU-STRAWBERRY"}},
        ]
    ),
    scripted_turn(
        calls=[
            {"name": "draft_order", "arguments": {"sku": "SKU-VANILLA", "quantity": 6}},
            {"name": "draft_order", "arguments": {"sku": "SKU-STRAWBERRY", "quantity": 4}},
        ]
    ),
    scripted_turn(calls=[{"name": "draft_budget", "arguments": {}}]),
    scripted_turn(
        "Drafted 6 vanilla at 250 cents, 1500 cents in total. Strawberry needs 4 at 275 cents, "
        "1100 cents, which "
        "would take drafts to 2600 cents against a 2500 cents budget, so it was refused and needs "
        "Lucy's "
        "decision. Chocolate is above its reorder point. Nothing was purchased."
    ),
]

scripted_result = run_loop(
    ScriptedModel(RECORDED_TURNS), loop_dispatcher, LOOP_MESSAGES, limits=LOOP_LIMITS
)
print(describe(scripted_result, "scripted"))
print("Estimated exposure:", scripted_result.estimated_cost_cents, "cents")
print("Gate ledger:", loop_ledger["refusals"])
scripted_trace = tool_trace(scripted_result)
assert scripted_result.status == "COMPLETED"
assert (scripted_result.model_calls, scripted_result.tool_calls) == (5, 6)
assert scripted_result.estimated_cost_cents == 5 * 2
assert [step["ok"] for step in scripted_trace] == [True, True, True, True, False, True]
assert scripted_trace[4]["result"] == "tool_failed"
assert loop_ledger["refusals"] == [
    {"call": "scripted-3-call-2", "reason": "DRAFT_COST_LIMIT", "exposure_cents": 2600}
]
assert scripted_trace[5]["result"]["remaining_cents"] == DRAFT_BUDGET_CENTS - 1500
scripted_drafts = json.loads(scripted_drafts_path.read_text(encoding="utf-8"))
print("Drafts file:", scripted_drafts)
assert [d["sku"] for d in scripted_drafts["drafts"]] == ["SKU-VANILLA"]
assert scripted_drafts["reserved_cents"] == 1500
# Every observation in the transcript carries the identifier of the request it answers.
assert all(m.get("tool_call_id") for m in scripted_result.messages if m["role"] == "tool")

# Your own Chapter 3 loop, on the same script and a fresh dispatcher, must agree exactly.
own_dispatcher, own_ledger = build_loop_tools(SHOP, fresh_drafts_path("own-loop"))
own_result = chapter_three["run_loop"](
    ScriptedModel(RECORDED_TURNS),
    own_dispatcher,
    LOOP_MESSAGES,
    limits=chapter_three["Limits"](**BASE_LIMITS),
)
own_counts = (own_result.status, own_result.model_calls, own_result.tool_calls)
own_counts += (own_result.estimated_cost_cents,)
print("Your loop:", own_counts)
assert own_counts == ("COMPLETED", 5, 6, 10)
assert tool_trace(own_result) == scripted_trace
assert own_ledger["refusals"] == loop_ledger["refusals"]
"""

LIVE_SESSION = r"""
from agentlab_magics.bounded import DEFAULT_MODEL, build_model, resolve_api_key  # CHANGED

live_drafts_path = fresh_drafts_path("live")
live_dispatcher, live_ledger = build_loop_tools(SHOP, live_drafts_path)
chosen_model = build_model(RECORDED_TURNS, model=DEFAULT_MODEL)
print("Model source:", chosen_model.source, "| key found:", resolve_api_key() is not None)
live_result = run_loop(chosen_model, live_dispatcher, LOOP_MESSAGES, limits=LOOP_LIMITS)
print(describe(live_result, chosen_model.source))
print("Estimated exposure:", live_result.estimated_cost_cents, "cents")
print("Gate ledger:", live_ledger["refusals"])
live_trace = tool_trace(live_result)
assert live_result.status in {
    "COMPLETED",
    "MODEL_CALL_LIMIT",
    "MODEL_COST_LIMIT",
    "TOOL_LIMIT",
    "TOKEN_LIMIT",
    "MODEL_FAILED",
}
# The loop's accounting holds whatever the model did.
assert live_result.model_calls <= LOOP_LIMITS.model_calls
assert live_result.estimated_cost_cents == 2 * live_result.model_calls
assert live_result.estimated_cost_cents <= LOOP_LIMITS.model_budget_cents
assert live_result.tool_calls == sum(1 for m in live_result.messages if m["role"] == "tool")
# The handler's rule and the gate's rule hold whatever the model proposed.
live_drafted = [step for step in live_trace if step["tool"] == "draft_order" and step["ok"]]
for step in live_drafted:
    assert step["arguments"]["quantity"] == shop_need[step["arguments"]["sku"]], step
assert live_ledger["reserved_cents"] == sum(step["result"]["total_cents"] for step in live_drafted)
assert live_ledger["reserved_cents"] <= DRAFT_BUDGET_CENTS
assert all(entry["reason"] == "DRAFT_COST_LIMIT" for entry in live_ledger["refusals"])
assert live_drafts_path.exists() == bool(live_drafted)
"""

CHALLENGE = r"""
def scripted_run(label, **overrides):
    dispatcher, _ = build_loop_tools(SHOP, fresh_drafts_path(label))
    limits = Limits(**{**BASE_LIMITS, **overrides})
    result = run_loop(ScriptedModel(RECORDED_TURNS), dispatcher, LOOP_MESSAGES, limits=limits)
    counts = (result.status, result.model_calls, result.tool_calls, result.estimated_cost_cents)
    print(label, overrides, "->", counts)
    return result


call_limited = scripted_run("call-limit", model_calls=2)
cost_limited = scripted_run("cost-limit", estimated_call_cents=30, model_budget_cents=100)
tool_limited = scripted_run("tool-limit", tool_calls=2)
precedence = scripted_run(
    "precedence", model_calls=3, estimated_call_cents=30, model_budget_cents=100
)
assert (call_limited.status, call_limited.model_calls, call_limited.tool_calls) == (
    "MODEL_CALL_LIMIT",
    2,
    3,
)
assert (cost_limited.status, cost_limited.model_calls) == ("MODEL_COST_LIMIT", 3)
assert (cost_limited.tool_calls, cost_limited.estimated_cost_cents) == (5, 90)
assert (tool_limited.status, tool_limited.model_calls, tool_limited.tool_calls) == (
    "TOOL_LIMIT",
    2,
    1,
)
assert sum(1 for m in tool_limited.messages if m["role"] == "tool") == 1
assert (precedence.status, precedence.model_calls, precedence.estimated_cost_cents) == (
    "MODEL_CALL_LIMIT",
    3,
    90,
)

llm_lab_report = {
    "unit": "ch03-a",
    "scripted": {
        "status": scripted_result.status,
        "model_calls": scripted_result.model_calls,
        "tool_calls": scripted_result.tool_calls,
        "estimated_cost_cents": scripted_result.estimated_cost_cents,
        "refused": loop_ledger["refusals"],
        "drafted": [d["sku"] for d in scripted_drafts["drafts"]],
        "own_loop_agrees": own_counts == ("COMPLETED", 5, 6, 10),
    },
    "session": {
        "source": chosen_model.source,
        "model": DEFAULT_MODEL if chosen_model.source == "live" else None,
        "status": live_result.status,
        "model_calls": live_result.model_calls,
        "tool_calls": live_result.tool_calls,
        "estimated_cost_cents": live_result.estimated_cost_cents,
        "drafted": [step["arguments"] for step in live_drafted],
        "refused": live_ledger["refusals"],
        "answer": live_result.answer[:400],
    },
    "limits": {
        "call_limit": call_limited.status,
        "cost_limit": cost_limited.status,
        "tool_limit": tool_limited.status,
        "precedence": precedence.status,
    },
}
llm_report_path = COURSE_WORK / "ch03-a-llm-lab-report-v1.json"
llm_report_path.write_text(json.dumps(llm_lab_report, indent=2, sort_keys=True), encoding="utf-8")
print("Saved evidence:", llm_report_path)
print("LLM_LAB_REPORT=" + json.dumps(llm_lab_report["session"], sort_keys=True))
"""

ADMISSION_ANSWER = "from agentlab_magics.bounded.admission import decide_admission\n"
TRANSFER_ANSWER = "from agentlab_magics.bounded.admission import transfer_check\n"

NOTEBOOK = [
    ("prediction notes", PREDICTION),
    ("intro json", INTRO_JSON),
    ("intro dataclass", INTRO_DATACLASS),
    ("intro callback", INTRO_CALLBACK),
    ("intro paths", INTRO_PATHS),
    ("intro pydantic", INTRO_PYDANTIC),
    ("intro bad requests", INTRO_BAD_REQUESTS),
    ("intro schema", INTRO_SCHEMA),
    ("intro transcript", INTRO_TRANSCRIPT),
    ("intro failed attempts", INTRO_FAILED_ATTEMPTS),
    ("1 locate the code", LOCATE_CODE),
    ("2 model turns", MODEL_TURNS),
    ("3 admission starter", ADMISSION_STARTER),
    ("3 grade the starter", ADMISSION_GRADE),
    ("3 admission answer", ADMISSION_ANSWER),
    ("3 grade the answer", ADMISSION_GRADE),
    ("4 connect the loop", CONNECT_LOOP),
    ("5 save the handoff", SAVE_HANDOFF),
    ("exit ticket", EXIT_TICKET),
    ("transfer starter", TRANSFER_STARTER),
    ("transfer driver on the starter", TRANSFER_DRIVER),
    ("transfer answer", TRANSFER_ANSWER),
    ("transfer driver on the answer", TRANSFER_DRIVER),
    ("save the submission", SAVE_SUBMISSION),
    ("extension setup", EXTENSION_SETUP),
    ("recorded transcript", RECORDED_TRANSCRIPT),
    ("live session", LIVE_SESSION),
    ("challenge", CHALLENGE),
]


@pytest.fixture(scope="module")
def notebook(tmp_path_factory):
    """Run every cell in order in one namespace; return the namespace and each cell's printout."""
    root = tmp_path_factory.mktemp("seed004")
    course_root = root / "runtime"
    course_work = root / "practical-work" / "ch03-a"
    course_root.mkdir()
    course_work.mkdir(parents=True)
    namespace = {"__name__": "__main__", "COURSE_ROOT": course_root, "COURSE_WORK": course_work}
    printed = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(course_work)
        patch.delenv("OPENAI_API_KEY", raising=False)
        patch.delenv("OPENAI_BASE_URL", raising=False)
        patch.setitem(sys.modules, "google.colab", None)  # never mistake this run for Colab
        for label, source in NOTEBOOK:
            stream = io.StringIO()
            with contextlib.redirect_stdout(stream):
                exec(compile(source, f"<seed 004 cell: {label}>", "exec"), namespace)
            printed[label] = stream.getvalue()
    return namespace, printed


def test_every_cell_runs_in_order_and_its_asserts_hold(notebook):
    """All cells ran; the seed's own asserts are the checks (a failing one errors this module)."""
    _, printed = notebook
    assert list(printed) == [label for label, _ in NOTEBOOK]


def test_the_shipped_admission_starter_needs_work_and_the_answer_passes(notebook):
    _, printed = notebook
    assert printed["3 grade the starter"].rstrip().endswith("VISIBLE_CONTRACT NEEDS_WORK")
    assert '"status": "FAIL"' in printed["3 grade the starter"]
    assert printed["3 grade the answer"].rstrip().endswith("VISIBLE_CONTRACT PASSED")
    assert '"status": "FAIL"' not in printed["3 grade the answer"]


def test_the_shipped_transfer_starter_needs_work_and_the_answer_passes(notebook):
    _, printed = notebook
    starter = printed["transfer driver on the starter"].splitlines()
    assert starter[-1] == "TRANSFER_STATUS NEEDS_WORK"
    assert all(line.startswith("NEEDS_WORK ") for line in starter[:-1]) and len(starter) == 5
    answer = printed["transfer driver on the answer"].splitlines()
    assert answer[-1] == "TRANSFER_STATUS PASS"
    assert all(line.startswith("PASS ") for line in answer[:-1]) and len(answer) == 5


def test_the_chapter_two_dispatcher_offers_its_three_tools(notebook):
    _, printed = notebook
    assert printed["1 locate the code"] == "tools ['list_stock', 'supplier', 'draft_order']\n"


def test_the_connected_run_completes_and_its_handoff_loads(notebook):
    namespace, printed = notebook
    assert printed["4 connect the loop"].splitlines()[0] == "COMPLETED 3 3"
    handoff = load_handoff(namespace["COURSE_WORK"] / HANDOFF_FILE)
    assert handoff.status == "COMPLETED" and handoff.estimated_cents == 6
    drafts = [
        json.loads(m.content) for m in handoff.messages if m.tool_call_id in {"draft-v", "draft-s"}
    ]
    assert [draft["total_cents"] for draft in drafts] == [1500, 1100]


def test_the_exit_ticket_reports_a_passed_connection(notebook):
    _, printed = notebook
    report = json.loads(printed["exit ticket"].removeprefix("EXERCISE_REPORT="))
    assert report == {
        "attempted": 1,
        "completed": 1,
        "connection": "PASSED",
        "failed": 0,
        "handoff": "WRITTEN",
        "skipped": 0,
        "unit": "ch03-a",
    }


def test_the_saved_submission_loads_with_every_transfer_case_passed(notebook):
    namespace, _ = notebook
    submission = load_submission(namespace["COURSE_WORK"] / SUBMISSION_FILE)
    assert submission.starting_evidence == "INDEPENDENT_UNIT_A"
    assert [row.passed for row in submission.transfer] == [True, True, True, True]


def test_the_extension_prints_four_schemas_and_the_needs(notebook):
    _, printed = notebook
    lines = printed["extension setup"].splitlines()
    assert lines[0] == "list_stock requires []"
    assert "draft_order requires ['sku', 'quantity']" in lines
    assert (
        "Need per product: {'SKU-VANILLA': 6, 'SKU-STRAWBERRY': 4, 'SKU-CHOCOLATE': 0}"
        in printed["extension setup"]
    )


def test_without_a_key_the_live_cell_runs_the_script_and_says_so(notebook):
    namespace, printed = notebook
    assert printed["live session"].splitlines()[0] == "Model source: scripted | key found: False"
    assert "OPENAI_API_KEY" in namespace["chosen_model"].reason
    assert namespace["live_result"].status == "COMPLETED"


def test_the_llm_lab_report_loads_and_keeps_scripted_and_session_apart(notebook):
    namespace, _ = notebook
    report = load_llm_lab_report(namespace["COURSE_WORK"] / LLM_LAB_REPORT_FILE)
    assert report.scripted.own_loop_agrees is True
    assert report.scripted.drafted == ["SKU-VANILLA"]
    assert report.session.source == "scripted" and report.session.model is None
    assert report.limits.model_dump() == {
        "call_limit": "MODEL_CALL_LIMIT",
        "cost_limit": "MODEL_COST_LIMIT",
        "tool_limit": "TOOL_LIMIT",
        "precedence": "MODEL_CALL_LIMIT",
    }
