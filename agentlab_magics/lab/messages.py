"""Builders for the plain-dict messages a conversation is made of.

Every builder returns a fresh dict in exactly the shape students write by hand:
user content is a string, assistant content is a list of text/toolCall blocks.
"""

from __future__ import annotations

from typing import Any

Message = dict[str, Any]
Block = dict[str, Any]


def user(text: str) -> Message:
    """A user message: the content is the plain string that was typed."""
    _require_str(text, "lab.user")
    return {"role": "user", "content": text}


def text(words: str) -> Block:
    """A text block for an assistant reply."""
    _require_str(words, "lab.text")
    return {"type": "text", "text": words}


def call(name: str, arguments: dict | None = None, *, id: str | None = None) -> Block:
    """A toolCall block; without an `id`, the model that plays it numbers it c1, c2, …"""
    _require_str(name, "lab.call")
    arguments = {} if arguments is None else arguments
    if not isinstance(arguments, dict):
        raise TypeError(f"lab.call({name!r}, ...) takes its arguments as a dict, "
                        f"got {type(arguments).__name__}.")
    return {"type": "toolCall", "id": id, "name": name, "arguments": arguments}


def reply(*blocks: Block | str, stop_reason: str | None = None) -> Message:
    """An assistant reply; labelled "toolUse" when it holds a call, else "stop", unless told."""
    content = [_as_block(block) for block in blocks]
    if stop_reason is None:
        stop_reason = "toolUse" if any(b["type"] == "toolCall" for b in content) else "stop"
    return {"role": "assistant", "content": content, "stop_reason": stop_reason}


def say(words: str) -> Message:
    """A reply that only talks: one text block, labelled "stop"."""
    return reply(text(words))


def fail(error_message: str, *blocks: Block | str) -> Message:
    """A failed reply: stop_reason "error", the words in `error_message`, content usually empty."""
    _require_str(error_message, "lab.fail")
    message = reply(*blocks, stop_reason="error")
    message["error_message"] = error_message
    return message


def tool_result(call_block: Block, content: str, *, is_error: bool = False) -> Message:
    """The toolResult that answers `call_block`, carrying its id and tool name."""
    if not isinstance(call_block, dict) or call_block.get("type") != "toolCall":
        raise TypeError("lab.tool_result takes the toolCall block it answers (made by lab.call), "
                        f"got {type(call_block).__name__}.")
    if not call_block.get("id"):
        raise ValueError(f"lab.tool_result: the call to {call_block.get('name')!r} has no id yet; "
                         "give it one with lab.call(..., id='c1'), or answer the call the model "
                         "sent, which the model has numbered.")
    _require_str(content, "lab.tool_result")
    return {"role": "toolResult", "tool_call_id": call_block["id"],
            "tool_name": call_block["name"], "content": content, "is_error": bool(is_error)}


def _as_block(block: Block | str) -> Block:
    """A block as given, or a text block made from a plain string."""
    if isinstance(block, str):
        return text(block)
    if isinstance(block, dict) and block.get("type") in ("text", "toolCall"):
        return block
    raise TypeError("lab.reply takes blocks made by lab.text or lab.call (or plain strings), "
                    f"got {type(block).__name__}: {block!r:.60}")


def _require_str(value: Any, where: str) -> None:
    if not isinstance(value, str):
        raise TypeError(f"{where} takes a string, got {type(value).__name__}: {value!r:.60}")
