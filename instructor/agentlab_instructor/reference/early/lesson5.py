"""Lesson 5's `run_agent`: failures and limits, and nobody told what happens until it is over
(lesson 7 adds the events)."""

from agentlab_instructor.reference.harness import (
    context_for_model, error_message, run_tool, tool_calls, tool_specs, user_message)


def run_agent(model, system, messages, tools, prompt, *, max_turns=None):
    """Add `prompt` to the caller's `messages` and run turns until a reply asks for nothing.

    Everything that happens is appended to `messages` itself. A run ends on a reply with no
    calls, on a failed reply (kept, not raised), or when max_turns model calls have been
    made, with an in-band error reply that costs no model call. Returns the last reply.
    """
    messages.append(user_message(prompt))
    turn = 0
    while True:
        turn += 1
        if max_turns is not None and turn > max_turns:
            reply = error_message(f"Agent stopped after max_turns={max_turns}")
        else:
            reply = model.complete(system, context_for_model(messages), tool_specs(tools))
        messages.append(reply)
        if reply["stop_reason"] == "error":
            return reply
        calls = tool_calls(reply)
        if not calls:
            return reply
        for call in calls:
            messages.append(run_tool(tools, call))
