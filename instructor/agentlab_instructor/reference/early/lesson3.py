"""Lesson 3's `run_agent`: the loop, before lesson 4 gives every call exactly one result."""

from agentlab_instructor.reference.harness import tool_calls, tool_specs, user_message


def run_agent(model, system, messages, tools, prompt):
    """Add `prompt` to the caller's list and run turns until a reply asks for nothing more.

    Each call is run and its result appended right after the reply, in call order.
    """
    messages.append(user_message(prompt))
    while True:
        reply = model.complete(system, messages, tool_specs(tools))
        messages.append(reply)
        calls = tool_calls(reply)
        if not calls:
            return reply
        by_name = {tool["name"]: tool for tool in tools}
        for call in calls:
            content = by_name[call["name"]]["execute"](call["arguments"])
            messages.append({"role": "toolResult", "tool_call_id": call["id"],
                             "tool_name": call["name"], "content": content, "is_error": False})
