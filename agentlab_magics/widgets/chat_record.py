"""Chat-completions records (the bounded unit's) read as the course's messages, so one diagram
draws both.

The bounded unit keeps an OpenAI-style record: "system" and "tool" roles, an assistant's text
as a string and its calls under "tool_calls" with arguments as JSON text. Reading one gives the
course's shape message for message, index for index: a tool message becomes a toolResult
(named after the call it answers), an assistant's calls become toolCall blocks with their
arguments decoded, and a system message stays a row of its own ("system"), which the strict
provider's rules then skip. Arguments that are not a JSON object are kept as written, so the
diagram says what a provider would refuse them for.
"""

from __future__ import annotations

import json
from typing import Any

from agentlab_magics.bounded.dispatch import TOOL_FAILED

SYSTEM = "system"
CHAT_ONLY_ROLES = (SYSTEM, "tool")
FAILED = json.dumps(TOOL_FAILED)  # a refused tool call's content, as the loop writes it


def is_chat(messages: Any) -> bool:
    """Whether a list is a chat-completions record: every message is one (a lab assistant's
    list of blocks or a toolResult is not), and at least one is nothing else (a system or tool
    message, or an assistant's calls under tool_calls)."""
    if type(messages) is not list or not messages:
        return False
    return all(map(_chat_message, messages)) and any(map(_chat_only, messages))


def _chat_message(message: Any) -> bool:
    if type(message) is not dict:
        return False
    role = message.get("role")
    if role == "assistant":
        content = message.get("content")
        return (content is None or type(content) is str) and \
            type(message.get("tool_calls", [])) is list
    return role in ("user", *CHAT_ONLY_ROLES)


def _chat_only(message: dict) -> bool:
    return message.get("role") in CHAT_ONLY_ROLES or (
        message.get("role") == "assistant" and "tool_calls" in message)


def as_course(messages: list) -> list:
    """The record as the course's messages, one for one, in order."""
    names = {}
    for message in messages:
        for call in message.get("tool_calls") or []:
            if type(call) is dict and type(call.get("id")) is str \
                    and type(call.get("function")) is dict:
                names[call["id"]] = call["function"].get("name")
    return [_read(message, names) for message in messages]


def _read(message: dict, names: dict[str, Any]) -> dict[str, Any]:
    role = message.get("role")
    if role == "assistant":
        text = message.get("content") or ""
        blocks: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
        blocks += [_call(call) for call in message.get("tool_calls") or []]
        return {"role": "assistant", "content": blocks}
    if role == "tool":
        call_id = message.get("tool_call_id")
        content = message.get("content")
        return {"role": "toolResult", "tool_call_id": call_id,
                "tool_name": names.get(call_id) if type(call_id) is str else None,
                "content": content, "is_error": type(content) is str and content == FAILED}
    return dict(message)


def _call(call: Any) -> Any:
    """One tool call as a toolCall block; what is not a call is kept, to be flagged."""
    if type(call) is not dict or type(call.get("function")) is not dict:
        return call
    function = call["function"]
    arguments = function.get("arguments")
    try:
        decoded = json.loads(arguments) if type(arguments) is str else arguments
    except ValueError:
        decoded = arguments
    return {"type": "toolCall", "id": call.get("id"), "name": function.get("name"),
            "arguments": decoded}
