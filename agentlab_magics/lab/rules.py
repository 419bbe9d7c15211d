"""The strict provider's rules: what makes a list of messages one a provider will read.

`validate` never raises on bad input; every problem becomes a complaint string that
names the message by its index, in index order, so the first one is what a provider
would refuse the request for.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

ROLES = ("user", "assistant", "toolResult")


def validate(messages: Any, record: bool = False,
             problems: Sequence[str | None] | None = None) -> list[str]:
    """Every complaint a strict provider could make about `messages`; [] when it would accept.

    With record=True the list is judged as a stored record rather than a request: an empty
    failed reply is something that happened, so it is allowed there (and only there).
    `problems`, where the caller has them, are the messages' `shape_problem`s, in order.
    """
    if not isinstance(messages, list):
        return [f"messages must be a list of message dicts, got {type(messages).__name__}"]
    complaints: list[tuple[int, str]] = []
    pairing = _Pairing(complaints)
    for index, message in enumerate(messages):
        problem = shape_problem(message) if problems is None else problems[index]
        if problem:
            pairing.close()
            complaints.append((index, problem))
        elif message["role"] == "toolResult":
            pairing.answer(index, message["tool_call_id"])
        else:
            pairing.close()
            if message["role"] == "assistant":
                if not message["content"] and not (record and _failed(message)):
                    complaints.append((index, "assistant message has empty content"))
                pairing.open(index, [block["id"] for block in message["content"]
                                     if block["type"] == "toolCall"])
    pairing.close()
    complaints.sort(key=lambda item: item[0])
    return [f"messages[{index}]: {text}" for index, text in complaints]


class _Pairing:
    """Tracks which calls the next messages must answer: each result right after its call."""

    def __init__(self, complaints: list[tuple[int, str]]):
        self.complaints = complaints
        self.called: set[str] = set()
        self.waiting: list[str] = []
        self.owner = -1

    def open(self, index: int, call_ids: list[str]) -> None:
        self.called.update(call_ids)
        self.waiting, self.owner = list(call_ids), index

    def answer(self, index: int, call_id: str) -> None:
        if call_id not in self.called:
            self.complaints.append((index, f"toolResult {call_id} has no toolCall before it"))
        elif self.waiting and self.waiting[0] == call_id:
            self.waiting.pop(0)
        else:
            self.close()
            self.complaints.append((index, f"toolResult {call_id} must directly follow its "
                                           "assistant message, in call order"))

    def close(self) -> None:
        """The run of results has ended: the first call still waiting never got its result."""
        if self.waiting:
            self.complaints.append((self.owner, f"toolCall {self.waiting[0]} has no toolResult"))
        self.waiting = []


def _failed(message: dict) -> bool:
    return message.get("stop_reason") == "error"


def a_type(thing: Any) -> str:
    """"a str", "an int", "a LyingDict": the type of `thing` with its article. Asks only type()."""
    name = type(thing).__name__
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def same(one: Any, other: Any) -> bool:
    """Equal with the very same types at every depth: "1" is not 1, 1 is not True, a list is
    not a tuple, a dict subclass is not a dict. Only builtin == is asked of plain values; any
    other value is the same only as itself, so no method of a stranger's decides it."""
    if type(one) is not type(other):
        return False
    if type(one) is dict:
        return one.keys() == other.keys() and all(same(one[key], other[key]) for key in other)
    if type(one) in (list, tuple):
        return len(one) == len(other) and all(map(same, one, other))
    if type(one) not in (str, int, float, bool, type(None)):
        return one is other
    return other == one


def shape_problem(message: Any, ids_required: bool = True) -> str | None:
    """What is wrong with the shape of one message, in a sentence; None when it is well formed.

    With ids_required=False a call may still lack its id (a script step before it is played).
    """
    if not isinstance(message, dict):
        return f"is {a_type(message)}, not a message dict"
    role = message.get("role")
    if role not in ROLES:
        return f"role must be 'user', 'assistant' or 'toolResult', got {role!r}"
    content = message.get("content")
    if role == "user":
        return None if isinstance(content, str) else "user content must be a string"
    if role == "toolResult":
        if not isinstance(message.get("tool_call_id"), str) or not message["tool_call_id"]:
            return "toolResult has no tool_call_id"
        return None if isinstance(content, str) else "toolResult content must be a string"
    if not isinstance(content, list):
        return "assistant content must be a list of text and toolCall blocks"
    for position, block in enumerate(content):
        problem = _block_problem(block, ids_required)
        if problem:
            return f"content[{position}] {problem}"
    return None


def _block_problem(block: Any, ids_required: bool) -> str | None:
    if not isinstance(block, dict) or block.get("type") not in ("text", "toolCall"):
        return "is not a text or toolCall block"
    if block["type"] == "text":
        return None if isinstance(block.get("text"), str) else "is a text block with no text"
    if not isinstance(block.get("name"), str):
        return "is a toolCall with no name"
    if ids_required and (not isinstance(block.get("id"), str) or not block["id"]):
        return f"is a toolCall to {block['name']} with no id"
    if not isinstance(block.get("arguments"), dict):
        return f"is a toolCall to {block['name']} whose arguments are not a dict"
    return None
