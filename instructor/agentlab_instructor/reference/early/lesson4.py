"""Lesson 4's `run_agent`: every call goes through run_tool; failures and limits come in lesson 5."""

from agentlab_instructor.reference.harness import run_tool, tool_calls, tool_specs, user_message


def run_agent(model, system, messages, tools, prompt):
    """Add `prompt` to the caller's list and run turns until a reply asks for nothing more.

    Every call gets exactly one result, from run_tool, appended in call order.
    """
    messages.append(user_message(prompt))
    while True:
        reply = model.complete(system, messages, tool_specs(tools))
        messages.append(reply)
        calls = tool_calls(reply)
        if not calls:
            return reply
        for call in calls:
            messages.append(run_tool(tools, call))
