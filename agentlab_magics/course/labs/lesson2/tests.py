"""Lesson 2, tool calls and results: reading the calls out of a reply, describing the tools."""

import copy
import json

from agentlab_magics import lab
from agentlab_magics.course.labtests.kit import exact, failing_tool, files_tool, gave, plain

A_CALL = lab.call("read", {"path": "a.py"}, id="c1")
B_CALL = lab.call("grep", {"pattern": "PORT", "path": "b.py"}, id="c2")


def two_call_reply():
    return lab.reply(lab.text("Let me look at both files."), copy.deepcopy(A_CALL),
                     lab.text("And the other one."), copy.deepcopy(B_CALL))


def two_tools():
    return [files_tool({"a.py": "A = 1\n"}), failing_tool("grep", "grep is broken today")]


def keys(tools):
    """The keys of each tool, for a failure message; `tools` is proven plain but for the lab's
    own execute functions."""
    return [list(tool) if type(tool) is dict else tool for tool in tools]


def test_tool_calls_in_the_order_the_reply_made_them(harness):
    """tool_calls gives the reply's toolCall blocks, whole and in order, and none of its text."""
    calls = harness.tool_calls(two_call_reply())
    assert exact(calls, [A_CALL, B_CALL], "what tool_calls returned"), (
        f"tool_calls gave {calls!r} for a reply holding text, a call to read (c1), more text "
        "and a call to grep (c2); expected the two toolCall blocks, c1 then c2, exactly as "
        "the reply holds them.")


def test_tool_calls_of_a_text_only_reply_is_empty(harness):
    """A reply that only talks asks for nothing: tool_calls gives an empty list."""
    calls = harness.tool_calls(lab.say("The port is 9090."))
    assert exact(calls, [], "what tool_calls returned"), (
        f"tool_calls gave {calls!r} for a reply holding only text; expected [], "
        "an empty list: there is nothing to run.")


def test_tool_calls_leaves_the_reply_unchanged(harness):
    """Reading the calls out of a reply leaves the reply as it was: it stays on the record."""
    message = two_call_reply()
    plain(harness.tool_calls(message), "what tool_calls returned")
    assert exact(message, two_call_reply(), "the reply after tool_calls"), (
        f"After tool_calls the reply is {lab.show([message])}; expected it unchanged, "
        f"{lab.show([two_call_reply()])}: the reply is part of the record, and every later "
        "request sends it again.")


def test_every_call_tool_calls_lists_can_be_answered(harness):
    """Answering each call tool_calls lists, in its order, makes a list the strict model accepts."""
    messages = [lab.user("Where is PORT set?"), two_call_reply()]
    for call in plain(harness.tool_calls(two_call_reply()), "what tool_calls returned"):
        assert isinstance(call, dict) and call.get("type") == "toolCall", (
            f"tool_calls listed {call!r}, which is not a toolCall block: only the calls are "
            "answered with results, never the text.")
        messages.append(lab.tool_result(call, "(its output)"))
    complaints = lab.validate(messages)
    assert complaints == [] and lab.shape(messages) == "U A[c1,c2] R(c1) R(c2)", (
        f"One result per call from tool_calls, in its order, gave {lab.shape(messages)!r}, "
        f"and the strict model says: {complaints[0] if complaints else ''}. Expected "
        "'U A[c1,c2] R(c1) R(c2)': every call listed once, in the order the reply made them.")


def specs_of(tools):
    """What tool_specs should give: each tool's name, description and parameters, in order."""
    return [{"name": tool["name"], "description": tool["description"],
             "parameters": tool["parameters"]} for tool in tools]


def test_tool_specs_are_name_description_and_parameters(harness):
    """tool_specs describes each tool, in order, by its name, description and parameters only."""
    tools = two_tools()
    expected = specs_of(tools)  # before the call: the tools are the student's code's meanwhile
    specs = harness.tool_specs(tools)
    assert exact(specs, expected, "what tool_specs returned"), (
        f"tool_specs gave {gave(specs, expected)}: one dict per tool, in the same "
        "order, holding name, description and parameters and nothing else.")
    try:
        json.dumps(specs)
    except TypeError as exc:
        raise AssertionError(
            f"The specs cannot be sent as JSON ({exc}): the execute function must stay here, "
            "in this program; the model only ever reads a description of the tool.") from None


def test_tool_specs_leaves_the_tools_unchanged(harness):
    """Describing the tools does not change them: each still has its execute function afterwards."""
    tools = two_tools()
    before = copy.deepcopy(tools)  # a deep copy keeps the very same execute functions
    plain(harness.tool_specs(tools), "what tool_specs returned")
    assert exact(tools, before, "the tools after tool_specs"), (
        f"After tool_specs the tools have the keys {keys(tools)}; expected {keys(before)}, "
        "unchanged, with the same execute functions: the same tools are described again on "
        "the next call, and run when the model asks.")
