"""The notes app of notes_app.jsonl, rebuilt as a course loop: it reads files with one tool and
sends `request_for(messages)` at every model call, where the traced app sent what its filter
left of the conversation."""

from agentlab_magics import lab

TRACE = "notes_app.jsonl"  # the trace the app left, beside this notebook
LIMIT = 2000  # the characters of a tool result the app can afford to send
SYSTEM = "You summarise a team's files. Read them with read_file before you answer."
READ_FILE = {"name": "read_file", "description": "Read a file of the team's.",
             "parameters": {"type": "object", "properties": {"path": {"type": "string"}},
                            "required": ["path"]}}


def run_app(model, files, prompt, max_chars=LIMIT):
    """The app's loop: the conversation it keeps, run until a reply asks for no file."""
    messages = [lab.user(prompt)]
    while True:
        reply = model.complete(SYSTEM, request_for(messages, max_chars), [READ_FILE])
        messages.append(reply)
        calls = [block for block in reply["content"] if block["type"] == "toolCall"]
        if reply["stop_reason"] == "error" or not calls:
            return messages
        for call in calls:
            path = call["arguments"].get("path", "")
            found = path in files
            messages.append(lab.tool_result(call, files[path] if found else f"No file {path}",
                                            is_error=not found))


def fork_at():
    """How many of the recorded run's calls to replay: those before the refused request."""
    ### BEGIN SOLUTION
    return 1
    ### END SOLUTION


def request_for(messages, max_chars=LIMIT):
    """The messages to send for `messages`, which stay as they are."""
    ### BEGIN SOLUTION
    sent = []
    for message in messages:
        content = message.get("content")
        if message["role"] == "toolResult" and len(content) > max_chars:
            cut = len(content) - max_chars
            message = {**message, "content": f"{content[:max_chars]}\n[{cut} characters cut]"}
        sent.append(message)
    return sent
    ### END SOLUTION
