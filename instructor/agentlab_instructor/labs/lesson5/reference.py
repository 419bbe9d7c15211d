"""harness.py: 05 Failures and limits."""


# == 1 messages ==
# A conversation is a list of dicts, each tagged with the role that spoke.


SYSTEM = "You are a helpful assistant."  # standing instructions, sent on every call


def user_message(text):
    """What the user typed, as a message: its content is the plain string."""
    return {"role": "user", "content": text}


def text_of(message):
    """The words of an assistant message: its text blocks, joined, without the calls."""
    return "".join(block["text"] for block in message["content"] if block["type"] == "text")


def tool_calls(message):
    """The toolCall blocks of an assistant message, in the order it made them.

    Read from the content every time: nothing else records what the model asked for.
    """
    return [block for block in message["content"] if block["type"] == "toolCall"]


def error_message(text):
    """A reply that failed: nothing said, labelled "error", the reason in its own field."""
    return {"role": "assistant", "content": [], "stop_reason": "error", "error_message": text}


# == 2 tools ==
# A tool is a dict: name, description and parameters are what the model is told about;
# execute(arguments) -> str is the function only this program runs.


def str_arg(arguments, name):
    """arguments[name] when it is a string; otherwise ValueError("<name> must be a string").

    A schema asks the model for types; nothing makes it comply, so tools check here.
    """
    value = arguments.get(name)
    if isinstance(value, str):
        return value
    raise ValueError(f"{name} must be a string")


def int_arg(arguments, name, default):
    """arguments[name] as a whole number, or `default` when it is absent or None.

    Anything else raises ValueError("<name> must be an integer").
    """
    value = arguments.get(name)
    if value is None:
        return default
    if isinstance(value, int):
        return value
    raise ValueError(f"{name} must be an integer")


def tool_specs(tools):
    """What the model is told about each tool: every key except the function it never sees."""
    return [{key: tool[key] for key in ("name", "description", "parameters")} for tool in tools]


def run_tool(tools, call):
    """The one toolResult that answers `call`, whatever happens while running it.

    An unknown tool or a tool that raises becomes a result with is_error set, so the model
    can read what went wrong; this function itself never raises.
    """
    tool = {tool["name"]: tool for tool in tools}.get(call["name"])
    is_error = True
    if tool is None:
        content = f"Tool {call['name']} not found"
    else:
        try:
            content = tool["execute"](call["arguments"])
            is_error = False
        except Exception as exc:
            content = str(exc)
    return {"role": "toolResult", "tool_call_id": call["id"], "tool_name": call["name"],
            "content": content, "is_error": is_error}


# == 3 loop ==
# The code that talks to the model. The model remembers nothing between calls.


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


def context_for_model(messages):
    """The request made from the record: a new list, every message except failed replies
    that said nothing. The record itself is never changed."""
    return [message for message in messages
            if not (message["role"] == "assistant" and message.get("stop_reason") == "error"
                    and not message["content"])]
