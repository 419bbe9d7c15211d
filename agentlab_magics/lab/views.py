"""Three ways to look at a list of messages: its shape, its words, and how two lists differ.

None of them raise on a malformed message; what cannot be read is drawn as "?".
"""

from __future__ import annotations

import difflib
import json
from typing import Any

LONG = 120  # strings longer than this are shortened by `show`
SHAPES = ("U a user message, A an assistant reply, A[c1,c2] a reply calling tools c1 and c2, "
          "A(error) a failed reply, R(c1) the result for call c1, ? what is not a message")


def shape(messages: list) -> str:
    """One token per message (SHAPES says what each means), joined by spaces."""
    return " ".join(_token(message) for message in messages)


def _token(message: Any) -> str:
    if not isinstance(message, dict):
        return "?"
    role = message.get("role")
    if role == "user":
        return "U"
    if role == "toolResult":
        return f"R({message.get('tool_call_id')})"
    if role != "assistant":
        return "?"
    ids = [str(b.get("id")) for b in _blocks(message) if b.get("type") == "toolCall"]
    token = f"A[{','.join(ids)}]" if ids else "A"
    return token + "(error)" if message.get("stop_reason") == "error" else token


def show(messages: list) -> str:
    """One line per message: who spoke, and what they said or asked for."""
    return "\n".join(_line(message) for message in messages)


def _line(message: Any) -> str:
    if not isinstance(message, dict):
        return f"? -> {_quote(repr(message))}"
    role = message.get("role")
    if role == "user":
        return f"user -> {_quote(message.get('content'))}"
    if role == "toolResult":
        marker = " error:" if message.get("is_error") else ""
        content = _quote(message.get("content"))
        return f"toolResult {message.get('tool_call_id')} ->{marker} {content}"
    if role != "assistant":
        return f"{role} -> {_quote(message.get('content'))}"
    parts = [_block(block) for block in _blocks(message)]
    line = f"assistant -> {', '.join(parts) if parts else '(nothing)'}"
    if message.get("stop_reason") == "error":
        line += f"  [error: {message.get('error_message') or 'no error_message given'}]"
    return line


def _block(block: dict) -> str:
    if block.get("type") == "toolCall":
        try:
            arguments = json.dumps(block.get("arguments"), ensure_ascii=False,
                                   default=_unreadable)
        except (TypeError, ValueError):  # a key JSON cannot hold, or a cycle
            arguments = _unreadable(block.get("arguments"))
        return f"toolCall {block.get('id')} {block.get('name')}({arguments})"
    return _quote(block.get("text"))


def _unreadable(value: Any) -> str:
    """What JSON cannot hold, by its type alone: no method of a stranger's is asked."""
    return f"<{type(value).__name__} object>"


def _blocks(message: dict) -> list[dict]:
    content = message.get("content")
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _quote(value: Any) -> str:
    if not isinstance(value, str):
        return repr(value)
    if len(value) > LONG:
        value = f"{value[:LONG - 20]}… (+{len(value) - LONG + 20} chars)"
    return json.dumps(value, ensure_ascii=False)


def diff(got: list, expected: list) -> str:
    """Where two lists of messages part company: `show` lines, "-" for got, "+" for expected."""
    lines = difflib.unified_diff(show(got).splitlines(), show(expected).splitlines(),
                                 "got", "expected", lineterm="", n=len(got) + len(expected))
    return "\n".join(lines) or "(no difference)"
