"""Lesson 2's held-back tests: calls to one tool twice, and other tools described in order."""

import copy

from agentlab_labs.lesson2.tests import specs_of
from agentlab_magics import lab
from agentlab_magics.course.labtests.kit import exact, failing_tool, files_tool


def test_tool_calls_keeps_every_call_to_the_same_tool(harness):
    """Three calls, two of them to the same tool: tool_calls gives all three, in order."""
    calls = [lab.call("read", {"path": "src/app.py"}, id="k1"),
             lab.call("bash", {"command": "pytest -q"}, id="k2"),
             lab.call("read", {"path": "README.md"}, id="k3")]
    got = harness.tool_calls(lab.reply(lab.text("Three things to look at."), *copy.deepcopy(calls)))
    assert exact(got, calls, "what tool_calls returned"), (
        f"tool_calls gave {got!r} for a reply calling read (k1), bash (k2) and read again (k3); "
        f"expected all three, k1, k2 then k3: two calls to one tool are still two calls, and "
        "each needs its own result.")


def test_tool_specs_describe_other_tools_in_order(harness):
    """Three other tools are described in their own order, by name, description and parameters."""
    tools = [failing_tool("bash", "no shell here"),
             files_tool({"todo.md": "- ship\n"}, name="view"), failing_tool("write", "read-only")]
    expected = specs_of(tools)  # before the call: the tools are the student's code's meanwhile
    specs = harness.tool_specs(tools)
    assert exact(specs, expected, "what tool_specs returned"), (
        f"tool_specs gave {specs!r}; expected {expected!r}: bash, view and write, in that order, "
        "each with its name, description and parameters and nothing else.")
