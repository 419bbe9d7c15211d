"""harness.py: 03 The loop."""


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


# == 2 tools ==
# A tool is a dict: name, description and parameters are what the model is told about;
# execute(arguments) -> str is the function only this program runs.


def tool_specs(tools):
    """What the model is told about each tool: every key except the function it never sees."""
    return [{key: tool[key] for key in ("name", "description", "parameters")} for tool in tools]


# == 3 loop ==
# The code that talks to the model. The model remembers nothing between calls.


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
