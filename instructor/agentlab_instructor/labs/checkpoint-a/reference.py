"""harness.py: checkpoint A."""


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


# One tool result may hold at most this much: everything it holds is sent again, and paid
# for again, on every later turn. Sizes are UTF-8 bytes, so "é" counts as two.
MAX_LINES = 2000


MAX_BYTES = 50_000


def _fit(lines, max_lines, max_bytes):
    """How many of `lines`, taken in order, fit within both budgets. Only whole lines count."""
    used = 0
    for count, line in enumerate(lines):
        used += len(line.encode("utf-8"))
        if count == max_lines or used > max_bytes:
            return count
    return len(lines)


def truncate_head(text, max_lines=MAX_LINES, max_bytes=MAX_BYTES):
    """(the first whole lines of `text` that fit the budget, how many). For reading files.

    If the very first line is over the byte budget, nothing is kept: ("", 0).
    """
    lines = text.splitlines(keepends=True)
    shown = _fit(lines, max_lines, max_bytes)
    return "".join(lines[:shown]), shown


def truncate_tail(text, max_lines=MAX_LINES, max_bytes=MAX_BYTES):
    """(the last whole lines of `text` that fit the budget, how many). For command output,
    whose verdict is at the end."""
    lines = text.splitlines(keepends=True)
    shown = _fit(lines[::-1], max_lines, max_bytes)
    return "".join(lines[len(lines) - shown:]), shown


def make_read_tool(ws, max_lines=MAX_LINES, max_bytes=MAX_BYTES):
    """The `read` tool over workspace `ws`: at most one budget per call, and when it stops
    short, a last line saying where to carry on from."""

    def execute(arguments):
        path = str_arg(arguments, "path")
        offset = int_arg(arguments, "offset", 1)
        limit = int_arg(arguments, "limit", None)
        if offset < 1 or (limit is not None and limit < 1):
            raise ValueError("offset and limit must be 1 or more")
        if not ws.exists(path):
            raise FileNotFoundError(
                f"File not found: {path}. Files here: {', '.join(ws.listdir('.'))}")
        lines = ws.read_text(path).splitlines(keepends=True)
        if offset > max(len(lines), 1):
            raise ValueError(f"offset {offset} is past the end of {path}: {len(lines)} lines")
        end = len(lines) if limit is None else offset - 1 + limit
        wanted = lines[offset - 1:end]
        kept, shown = truncate_head("".join(wanted), max_lines, max_bytes)
        if wanted and shown == 0:
            size = len(wanted[0].encode("utf-8"))
            skip = f" Use offset={offset + 1} to skip it." if offset < len(lines) else ""
            return (f"[Line {offset} of {path} is {size} bytes, over the {max_bytes}-byte "
                    f"budget of one read, so none of it is shown.{skip}]")
        last = offset + shown - 1
        if last < len(lines):
            kept += (f"[Showing lines {offset}-{last} of {len(lines)}. "
                     f"Use offset={last + 1} to continue.]")
        return kept

    return {
        "name": "read",
        "description": ("Read a text file and return its contents. One call returns at most "
                        f"{max_lines} lines or {max_bytes} bytes; use offset to read on."),
        "parameters": {
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Path of the file to read."},
                "offset": {"type": "integer", "description": "First line, from 1."},
                "limit": {"type": "integer", "description": "How many lines."},
            },
            "required": ["path"],
        },
        "execute": execute,
    }


def make_write_tool(ws):
    """The `write` tool over workspace `ws`: the file ends up holding exactly `content`."""

    def execute(arguments):
        path = str_arg(arguments, "path")
        content = str_arg(arguments, "content")
        ws.write_text(path, content)
        return f"Successfully wrote to {path}."

    return {
        "name": "write",
        "description": "Write a text file. Creates the file, or replaces its whole contents.",
        "parameters": {
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Path of the file to write."},
                "content": {"type": "string", "description": "The new contents."},
            },
            "required": ["path", "content"],
        },
        "execute": execute,
    }


def make_bash_tool(shell, max_lines=MAX_LINES, max_bytes=MAX_BYTES):
    """The `bash` tool over `shell`: the tail of what the command printed, within budget.

    A non-zero exit is not a tool failure: the command ran, and its exit code is reported
    to the model on a last line of an ordinary result.
    """

    def execute(arguments):
        output, code = shell.run(str_arg(arguments, "command"))
        total = len(output.splitlines())
        output, shown = truncate_tail(output, max_lines, max_bytes)
        if shown < total:
            output += (f"\n[Showing the last {shown} of {total} lines. "
                       "Narrow the command for more.]")
        if code != 0:
            output += f"\nCommand exited with code {code}"
        return output

    return {
        "name": "bash",
        "description": ("Run a shell command and return its output (stdout and stderr "
                        f"together). Only the last {max_lines} lines or {max_bytes} bytes "
                        "come back."),
        "parameters": {
            "type": "object",
            "properties": {"command": {"type": "string", "description": "The command line."}},
            "required": ["command"],
        },
        "execute": execute,
    }


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
