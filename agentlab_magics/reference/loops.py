"""The two loops of checkpoint A's test lab: the reference, and one that believes the label.

`reference` is lesson 5's loop; `buggy` is the same loop with one decision changed: it goes
round again only while the reply is labelled "toolUse", where the reference goes round while
the reply holds calls. The few helpers both need are in this file, so it runs on its own: it
imports nothing, and in particular no reference solution (those are the instructor's). In the
test lab they run in the judge, beside the tests; a student who copies one into a lab of
their own copies a solution, which the course's honour code covers.
"""


def _user(text):
    """The user's prompt as a message."""
    return {"role": "user", "content": text}


def _stopped(reason):
    """The in-band reply a loop gives itself when it stops: a failure that said nothing."""
    return {"role": "assistant", "content": [], "stop_reason": "error", "error_message": reason}


def _told(tools):
    """The tools as the model is told of them: without the function only this program runs."""
    return [{"name": tool["name"], "description": tool["description"],
             "parameters": tool["parameters"]} for tool in tools]


def _said_nothing_and_failed(message):
    """An assistant reply that failed with no content: kept on the record, never sent."""
    return (message["role"] == "assistant" and message.get("stop_reason") == "error"
            and not message["content"])


def _sendable(messages):
    """A new list: the record less its empty failed replies, which a strict provider refuses."""
    return [message for message in messages if not _said_nothing_and_failed(message)]


def _result(tools, call):
    """The one toolResult answering `call`: the tool's output, or why it gave none (is_error)."""
    matching = [tool for tool in tools if tool["name"] == call["name"]]
    content, is_error = f"Tool {call['name']} not found", True
    if matching:
        try:
            content, is_error = matching[-1]["execute"](call["arguments"]), False
        except Exception as exc:
            content = str(exc)
    return {"role": "toolResult", "tool_call_id": call["id"], "tool_name": call["name"],
            "content": content, "is_error": is_error}


def reference(model, system, messages, tools, prompt, *, max_turns=None):
    """Lesson 5's loop: a reply that holds calls gets their results, and the model goes again."""
    messages.append(_user(prompt))
    turn = 0
    while True:
        turn += 1
        if max_turns is not None and turn > max_turns:
            reply = _stopped(f"Agent stopped after max_turns={max_turns}")
        else:
            reply = model.complete(system, _sendable(messages), _told(tools))
        messages.append(reply)
        if reply["stop_reason"] == "error":
            return reply
        calls = [block for block in reply["content"] if block["type"] == "toolCall"]
        if not calls:  # the decision buggy makes from the label instead
            return reply
        for call in calls:
            messages.append(_result(tools, call))


def buggy(model, system, messages, tools, prompt, *, max_turns=None):
    """The reference loop, except that a reply not labelled "toolUse" ends the run, calls or no
    calls."""
    messages.append(_user(prompt))
    turn = 0
    while True:
        turn += 1
        if max_turns is not None and turn > max_turns:
            reply = _stopped(f"Agent stopped after max_turns={max_turns}")
        else:
            reply = model.complete(system, _sendable(messages), _told(tools))
        messages.append(reply)
        if reply["stop_reason"] != "toolUse":  # the one changed decision: the label, not the calls
            return reply
        for block in reply["content"]:
            if block["type"] == "toolCall":
                messages.append(_result(tools, block))
