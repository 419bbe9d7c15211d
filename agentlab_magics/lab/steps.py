"""Persistent script steps: once a ScriptedModel reaches one, it answers every later call.

Each step is a small fake model with written-down rules (its repr prints them), so a
student can predict what it will do from the request alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from agentlab_magics.lab.messages import Block, Message, call, reply, say

FILE_NAME = re.compile(r"[\w./-]+\.\w+")
NAMED_WITHIN = 2_000  # characters of a message a step looks in for a file name (the pattern
#                       backtracks: its cost grows with the square of what it reads)
NEXT_OFFSET = re.compile(r"Use offset=(\d+) to continue")
STATES_NAME = re.compile(r"\bmy name is (\w+)", re.IGNORECASE)
ASKS_NAME = re.compile(r"\bwhat is my name\b", re.IGNORECASE)


class Step:
    """A step that is never used up: `answer(request)` is asked for on every call."""

    rules: tuple[str, ...] = ()

    def answer(self, request: Any) -> Message:
        raise NotImplementedError

    def __repr__(self) -> str:
        numbered = "\n".join(f"  {n}. {rule}" for n, rule in enumerate(self.rules, start=1))
        return f"{self.describe()}, a model that\n{numbered}"

    def describe(self) -> str:
        return f"lab.{type(self).__name__.lower()}()"


class Pager(Step):
    """Reads the file the user names, follows truncation notices, and reports the needle."""

    def __init__(self, needle: str):
        if not isinstance(needle, str) or not needle:
            raise TypeError("lab.pager takes the text to look for, as a non-empty string")
        self.needle = needle
        self.rules = (
            "reads the file the user's message names, with the read tool, from the top;",
            "reports the line the text is on as soon as a result shows it;",
            "asks for the next page only when a result ends with a notice naming the offset;",
            "otherwise answers that the text does not exist in the file.",
        )

    def describe(self) -> str:
        return f"lab.pager({self.needle!r})"

    def answer(self, request: Any) -> Message:
        found = FILE_NAME.search(request.user_text[:NAMED_WITHIN])
        if found is None:
            return say("Which file should I look in?")
        path = found.group(0)
        result = request.last_result
        if result is None:
            return reply(call("read", {"path": path}))
        if result.get("is_error"):
            return say(f"I could not read {path}: {result.get('content')}")
        content = result.get("content", "")
        for number, line in enumerate(content.splitlines(), start=_offset_asked(request, result)):
            if self.needle in line:
                return say(f"`{self.needle}` is on line {number} of {path}.")
        more = NEXT_OFFSET.search(content.splitlines()[-1] if content else "")
        if more:
            return reply(call("read", {"path": path, "offset": int(more.group(1))}))
        return say(f"`{self.needle}` does not exist in {path}.")


def _offset_asked(request: Any, result: dict) -> int:
    """The offset of the read call that `result` answers (1 when it gave none)."""
    for message in reversed(request.messages):
        if message.get("role") != "assistant":
            continue
        for block in message.get("content") or []:
            if block.get("type") == "toolCall" and block.get("id") == result.get("tool_call_id"):
                offset = block.get("arguments", {}).get("offset", 1)
                return offset if isinstance(offset, int) else 1
    return 1


class Forgetful(Step):
    """A chat model with no memory at all: it answers from this one request."""

    rules = (
        "knows only what is in this request, nothing from any earlier call;",
        "asked what your name is, answers with a name only if this request states it;",
        "told your name, says hello to it;",
        "asked anything else, says it can only go on what this request holds.",
    )

    def answer(self, request: Any) -> Message:
        asked = request.user_text
        if ASKS_NAME.search(asked):
            found = [STATES_NAME.search(m["content"]) for m in request.messages
                     if m.get("role") == "user" and isinstance(m.get("content"), str)]
            names = [match.group(1) for match in found if match]
            return say(f"Your name is {names[-1]}." if names else "I don't know your name.")
        stated = STATES_NAME.search(asked)
        if stated:
            return say(f"Hello, {stated.group(1)}.")
        return say("I can only go on what this request holds.")


class Stuck(Step):
    """A model that never stops: every reply asks for the same call again."""

    def __init__(self, call_block: Block):
        if not isinstance(call_block, dict) or call_block.get("type") != "toolCall":
            raise TypeError("lab.stuck takes the call it repeats, made by lab.call")
        self.call_block = call_block
        self.rules = (f"asks for {call_block['name']}({call_block['arguments']}) on every "
                      "call, whatever it is told, with a new id each time;",)

    def describe(self) -> str:
        return f"lab.stuck(lab.call({self.call_block['name']!r}, ...))"

    def answer(self, request: Any) -> Message:
        return reply(dict(self.call_block, id=None))


class Forever(Step):
    """A function of the request, asked on every call from here on."""

    def __init__(self, function: Callable[[Any], Message]):
        if not callable(function):
            raise TypeError("lab.forever takes a function of the request that returns a reply")
        self.function = function
        name = getattr(function, "__name__", "function")
        self.rules = (f"answers every call with {name}(request), for ever;",)

    def describe(self) -> str:
        return f"lab.forever({getattr(self.function, '__name__', 'function')})"

    def answer(self, request: Any) -> Message:
        return self.function(request)


def pager(needle: str) -> Pager:
    """A model that pages through the file the user names until it finds `needle`."""
    return Pager(needle)


def forgetful() -> Forgetful:
    """A chat model that knows only what is in the request it is sent."""
    return Forgetful()


def stuck(call_block: Block) -> Stuck:
    """A model that asks for `call_block` again on every call."""
    return Stuck(call_block)


def forever(function: Callable[[Any], Message]) -> Forever:
    """A model that answers every call with `function(request)`."""
    return Forever(function)
