"""A run read from a trace: the course's messages, and beside them what the trace knew.

Invariant: `Run.messages` holds only the course's message dicts (user, assistant with text and
toolCall blocks, toolResult), so the strict provider judges them as it judges a course record;
what is not a message (the system prompt, each model call's model, tokens, cost and timing,
which conversation of the trace this is) travels in the other fields, never as keys of a
message. The readers (`read.read_run`) all build a run the same way: each producer's format
is read into `Said` turns, and `course_messages` makes the messages from those.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

STOPS = {"tool_call": "toolUse", "tool_calls": "toolUse", "tool_use": "toolUse",
         "toolUse": "toolUse", "stop": "stop", "length": "length", "max_tokens": "length",
         "error": "error", "end_turn": "stop"}


class TraceProblem(ValueError):
    """A trace that cannot be read as a run; the message says what was found and what is read."""


def mapping(value: Any) -> dict:
    """`value` where it is a dict, else an empty one: a part of a trace that is not what its
    format writes reads as absent, and the messages made then show what is missing."""
    return value if isinstance(value, dict) else {}


def items(value: Any) -> list:
    """`value` where it is a list, else an empty one (see `mapping`)."""
    return value if isinstance(value, list) else []


def key_of(value: Any) -> Any:
    """A call id as a key: itself where it can be one, else its JSON text."""
    return value if isinstance(value, (str, int, float, type(None))) else json.dumps(
        value, default=str)


def _number(value: Any) -> Any:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


@dataclass
class CallFacts:
    """What a trace knows of one model call; None where it does not say (or says it in
    something that is not a name, a count or a number)."""

    model: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost: float | None = None  # dollars
    started: float | None = None  # seconds since the epoch
    seconds: float | None = None
    earlier: list[CallFacts] = field(default_factory=list)
    """Calls made before this one with the very same request, whose replies the run did not
    keep (a retry): each was made, and billed, as a call of its own."""

    def __post_init__(self) -> None:
        self.model = self.model if isinstance(self.model, str) else None
        for name in ("input_tokens", "output_tokens"):
            value = getattr(self, name)
            setattr(self, name, value if isinstance(_number(value), int) else None)
        self.cost, self.started, self.seconds = map(_number, (self.cost, self.started,
                                                              self.seconds))

    def tags(self) -> list[str]:
        """The call's facts as the transcript tags its row."""
        tags = [self.model] if self.model else []
        if self.input_tokens is not None or self.output_tokens is not None:
            tags.append(f"{self.input_tokens or 0:,} in, {self.output_tokens or 0:,} out tokens")
        if self.cost is not None:
            tags.append(f"${self.cost:.4f}")
        if self.seconds is not None:
            tags.append(f"{self.seconds:.2f} s")
        if self.earlier:
            spent = sum((fact.input_tokens or 0) + (fact.output_tokens or 0)
                        for fact in self.earlier)
            tags.append(f"request sent {len(self.earlier) + 1} times, each one billed (the "
                        f"earlier: {spent:,} tokens)")
        return tags


def fold_repeats(facts: list[CallFacts], repeats: Callable[[int], bool]) -> list[CallFacts]:
    """The facts of the calls whose replies the run kept, in call order: a call whose request
    is the next call's (`repeats(i)`) is an earlier attempt of that call, kept in its
    `earlier`."""
    kept: list[CallFacts] = []
    waiting: list[CallFacts] = []
    for index, fact in enumerate(facts):
        if index + 1 < len(facts) and repeats(index):
            waiting.append(fact)
        else:
            fact.earlier, waiting = [*waiting, *fact.earlier], []
            kept.append(fact)
    return kept


@dataclass
class Run:
    """The course's messages of one conversation of a trace, with what the trace knew of it."""

    messages: list[dict[str, Any]]
    calls: dict[int, CallFacts] = field(default_factory=dict)
    """By the index of the assistant message each model call made."""
    system: str = ""
    source: str = "course messages"
    note: str = ""
    """Which conversation of the trace this is, of how many, and how to read another."""

    def __len__(self) -> int:
        return len(self.messages)


@dataclass
class Said:
    """One turn of a conversation as any producer writes it, before it is a course message:
    a role ("system", "user", "assistant" or "tool"), its words, the calls an assistant made
    (id, name, arguments), the results a tool turn gives (call id, content, is an error), and an
    assistant's stop reason and error."""

    role: str
    text: str = ""
    calls: list[tuple[Any, Any, Any]] = field(default_factory=list)
    results: list[tuple[Any, str, bool]] = field(default_factory=list)
    stop: str | None = None
    error: str | None = None


def arguments_of(written: Any) -> Any:
    """A call's arguments as a dict: decoded when written as JSON text; kept as written when
    they are not an object, for the strict provider to flag."""
    if isinstance(written, str):
        try:
            return json.loads(written) if written.strip() else {}
        except ValueError:
            return written
    return {} if written is None else written


@dataclass
class ToolRun:
    """What a trace says of one run of a tool: the id of the call it answers where it names
    one, the tool's name and arguments, and whether it failed."""

    call_id: Any
    name: Any
    arguments: Any
    failed: bool


def mark_failures(turns: list[Said], tools: list[ToolRun]) -> None:
    """Each result is an error where its tool's run failed: the run naming the call's id,
    else the first run not yet matched of the call's name and arguments (compared decoded),
    `tools` being in the order they began."""
    by_id = {key_of(tool.call_id): tool for tool in tools if tool.call_id}
    unclaimed = [tool for tool in tools if not tool.call_id]
    calls = {key_of(call_id): (name, arguments)
             for turn in turns for call_id, name, arguments in turn.calls}
    for turn in turns:
        results = []
        for call_id, content, failed in turn.results:
            key = key_of(call_id)
            tool = by_id.get(key) if key in by_id else _claim(unclaimed, calls.get(key))
            results.append((call_id, content, failed or (tool is not None and tool.failed)))
        turn.results = results


def _claim(unclaimed: list[ToolRun], call: tuple[Any, Any] | None) -> ToolRun | None:
    """The first of `unclaimed` that ran `call` (name, arguments), taken off the list."""
    if call is None:
        return None
    name, arguments = call
    for tool in unclaimed:
        if tool.name == name and arguments_of(tool.arguments) == arguments_of(arguments):
            unclaimed.remove(tool)
            return tool
    return None


def course_messages(turns: list[Said], join_calls: bool = False
                    ) -> tuple[list[dict[str, Any]], str]:
    """The course's messages of `turns`, and the system prompt they held (the course has no
    system role). A tool turn gives one toolResult per result, named after its call. With
    `join_calls`, turns of an assistant that only call tools, one right after another, are one
    reply (for a producer that writes each parallel call as a message of its own)."""
    messages: list[dict[str, Any]] = []
    names: dict[Any, Any] = {}
    system = []
    for turn in _joined(turns) if join_calls else turns:
        if turn.role == "system":
            system.append(turn.text)
        elif turn.role == "user":
            messages.append({"role": "user", "content": turn.text})
        elif turn.role == "assistant":
            blocks: list[dict[str, Any]] = [{"type": "text", "text": turn.text}] if turn.text \
                else []
            for call_id, name, arguments in turn.calls:
                names[key_of(call_id)] = name
                blocks.append({"type": "toolCall", "id": call_id, "name": name,
                               "arguments": arguments_of(arguments)})
            stop = STOPS.get(turn.stop or "") or ("toolUse" if turn.calls else "stop")
            message = {"role": "assistant", "content": blocks, "stop_reason": stop}
            if stop == "error":
                message["error_message"] = turn.error or ""
            messages.append(message)
        else:
            messages += [{"role": "toolResult", "tool_call_id": call_id,
                          "tool_name": names.get(key_of(call_id), ""), "content": content,
                          "is_error": failed} for call_id, content, failed in turn.results]
    return messages, "\n\n".join(text for text in system if text)


def _joined(turns: list[Said]) -> list[Said]:
    joined: list[Said] = []
    for turn in turns:
        last = joined[-1] if joined else None
        if (last is not None and turn.role == last.role == "assistant" and last.calls
                and not turn.text and turn.calls and not last.text):
            last.calls = [*last.calls, *turn.calls]
        else:
            joined.append(Said(turn.role, turn.text, list(turn.calls), list(turn.results),
                               turn.stop, turn.error))
    return joined
