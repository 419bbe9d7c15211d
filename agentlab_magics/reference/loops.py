"""The two loops of checkpoint A's test lab: the reference, and one that believes the label.

`buggy` differs from the reference in one decision: it goes round again only while the
reply is labelled "toolUse", where the reference goes round while the reply holds calls.
"""

from agentlab_magics.reference.harness import (
    context_for_model, error_message, run_agent, run_tool, tool_specs, user_message)

reference = run_agent


def buggy(model, system, messages, tools, prompt, *, max_turns=None):
    """run_agent, except that a reply not labelled "toolUse" ends the run, calls or no calls."""
    messages.append(user_message(prompt))
    turn = 0
    while True:
        turn += 1
        if max_turns is not None and turn > max_turns:
            reply = error_message(f"Agent stopped after max_turns={max_turns}")
        else:
            reply = model.complete(system, context_for_model(messages), tool_specs(tools))
        messages.append(reply)
        if reply["stop_reason"] != "toolUse":  # the one changed decision: the label, not the calls
            return reply
        for block in reply["content"]:
            if block["type"] == "toolCall":
                messages.append(run_tool(tools, block))
