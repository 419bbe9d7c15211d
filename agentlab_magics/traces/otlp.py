"""OpenTelemetry spans (OTLP JSON, a request a line) read as runs: under the GenAI semantic
conventions (`gen_ai.input.messages`, `gen_ai.output.messages`, `execute_tool` spans) or
OpenInference's flattened `llm.input_messages.N.message...` attributes.

What real producers write, not only what the specs say: every model call's span repeats the
history, so a conversation is read from the one span that holds the most of it (the last
call's input and output, or an agent span's); the calls are read from the spans of the model
calls, in the order they began; tool spans carry no call id in most producers, so a failed
tool (its span's status is an error) is found by its name and arguments, in order; a
producer that leaves tool calls out of an output writes them in the next call's history.
Several conversations in one file (every call a trace of its own, or several runs) are told
apart by their first words, and `pick` chooses one.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from agentlab_magics.traces.run import (
    CallFacts,
    Run,
    Said,
    ToolRun,
    course_messages,
    items,
    mapping,
    mark_failures,
)

ERROR = 2  # an OTLP status code
INDEXED = re.compile(r"llm\.(input|output)_messages\.(\d+)\.message\.(.+)")
CALL = re.compile(r"tool_calls\.(\d+)\.tool_call\.(.+)")


@dataclass
class Span:
    """One span, its attributes' values decoded."""

    trace: str
    name: str
    start: int
    end: int
    attributes: dict[str, Any]
    failed: bool
    status: str

    @property
    def seconds(self) -> float:
        return max(self.end - self.start, 0) / 1e9


def spans_of(objects: list[Any]) -> list[Span]:
    """The spans of OTLP export requests, in the order they began."""
    found = []
    for request in map(mapping, objects):
        for resource in map(mapping, items(request.get("resourceSpans"))):
            for scope in map(mapping, items(resource.get("scopeSpans"))):
                for span in map(mapping, items(scope.get("spans"))):
                    status = mapping(span.get("status"))
                    found.append(Span(
                        str(span.get("traceId", "")), str(span.get("name", "")),
                        _nanos(span.get("startTimeUnixNano")),
                        _nanos(span.get("endTimeUnixNano")),
                        {str(item.get("key")): _value(mapping(item.get("value")))
                         for item in map(mapping, items(span.get("attributes")))},
                        status.get("code") in (ERROR, "STATUS_CODE_ERROR"),
                        str(status.get("message") or "")))
    return sorted(found, key=lambda span: span.start)


def _nanos(value: Any) -> int:
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0


def _value(value: dict) -> Any:
    if "arrayValue" in value:
        return [_value(mapping(item))
                for item in items(mapping(value["arrayValue"]).get("values"))]
    if "kvlistValue" in value:
        return {str(item.get("key")): _value(mapping(item.get("value")))
                for item in map(mapping, items(mapping(value["kvlistValue"]).get("values")))}
    if "intValue" in value:
        return _nanos(value["intValue"])
    for key in ("doubleValue", "boolValue", "stringValue"):
        if key in value:
            return value[key]
    return None


def is_genai(span: Span) -> bool:
    return "gen_ai.input.messages" in span.attributes or "gen_ai.output.messages" in span.attributes


def is_openinference(span: Span) -> bool:
    return span.attributes.get("openinference.span.kind") == "LLM"


def read_spans(spans: list[Span], pick: int | None) -> Run:
    """The run of one conversation of `spans` (see the module docstring)."""
    genai = any(map(is_genai, spans))
    talk = [span for span in spans if (is_genai if genai else is_openinference)(span)]
    turns_of = _genai_turns if genai else _openinference_turns
    opening_of = _genai_opening if genai else lambda span: _opening(turns_of(span))
    size_of = _genai_size if genai else lambda span: len(turns_of(span))
    conversations: dict[str, list[Span]] = defaultdict(list)
    for span in talk:
        conversations[opening_of(span)].append(span)
    keys = list(conversations)
    chosen = _chosen(keys, pick)
    group = conversations[keys[chosen]]
    fullest = max(group, key=lambda span: (size_of(span), span.end))
    turns = turns_of(fullest)
    calls = [span for span in group if _is_call(span, genai)]
    _fill_calls(turns, calls, genai)
    tools = [span for span in spans if span.trace in {s.trace for s in group}
             and _is_tool(span, genai)]
    mark_failures(turns, [_tool_run(span, genai) for span in tools])
    messages, system = course_messages(turns, join_calls=not genai)
    answered = sum(message["role"] == "toolResult" for message in messages)
    if genai and not system:
        system = _instructions(fullest)
    facts = [_facts(span, genai) for span in calls]
    assistants = [index for index, message in enumerate(messages)
                  if message["role"] == "assistant"]
    source = "OpenTelemetry GenAI spans" if genai else "OpenInference spans"
    missing = (f"Its spans ran {len(tools)} tools, but no model call's span holds their calls "
               "and results (a producer that records only the prompt of each call): they are "
               "not drawn. " if len(tools) > answered else "")
    return Run(messages, dict(zip(assistants, facts)), system, source,
               missing + _note(source, len(keys), chosen))


def _chosen(keys: list[str], pick: int | None) -> int:
    if pick is None:
        return 0
    if not 0 <= pick < len(keys):
        raise ValueError(f"This trace holds {len(keys)} conversation"
                         f"{'' if len(keys) == 1 else 's'}: pick one from 0 to {len(keys) - 1}.")
    return pick


def _note(source: str, count: int, chosen: int) -> str:
    if count == 1:
        return ""
    return (f"These {source} hold {count} conversations, told apart by their first words; "
            f"this is number {chosen} (from 0): read_run(path, pick=N) reads another.")


def _opening(turns: list[Said]) -> str:
    return "\n".join(turn.text for turn in turns[:2] if turn.role in ("system", "user"))


def _is_call(span: Span, genai: bool) -> bool:
    if genai:
        return span.attributes.get("gen_ai.operation.name") in ("chat", "text_completion",
                                                                "generate_content")
    return is_openinference(span)


def _is_tool(span: Span, genai: bool) -> bool:
    if genai:
        return span.attributes.get("gen_ai.operation.name") == "execute_tool"
    return span.attributes.get("openinference.span.kind") == "TOOL"


def _facts(span: Span, genai: bool) -> CallFacts:
    found = span.attributes
    if genai:
        model = found.get("gen_ai.response.model") or found.get("gen_ai.request.model")
        tokens = found.get("gen_ai.usage.input_tokens"), found.get("gen_ai.usage.output_tokens")
    else:
        model = found.get("llm.model_name")
        tokens = found.get("llm.token_count.prompt"), found.get("llm.token_count.completion")
    cost = found.get("gen_ai.usage.cost", found.get("llm.cost.total"))
    return CallFacts(model=model, input_tokens=tokens[0], output_tokens=tokens[1],
                     cost=cost, started=span.start / 1e9 if span.start else None,
                     seconds=span.seconds if span.end else None)


def _fill_calls(turns: list[Said], calls: list[Span], genai: bool) -> None:
    """Each assistant turn's stop reason and error from its own call's span, where its span
    says them (the history of the fullest span does not)."""
    assistants = [turn for turn in turns if turn.role == "assistant"]
    for turn, span in zip(assistants, calls):
        said = [t for t in (_genai_list(span, "gen_ai.output.messages") if genai else [])
                if t.role == "assistant"]
        if said and said[-1].stop:
            turn.stop = said[-1].stop
        if span.failed and turn.stop == "error":
            turn.error = span.status


def _tool_run(span: Span, genai: bool) -> ToolRun:
    """A tool span as a run of its tool (OpenInference's carry no call id)."""
    found = span.attributes
    if genai:
        return ToolRun(found.get("gen_ai.tool.call.id"), found.get("gen_ai.tool.name"),
                       found.get("gen_ai.tool.call.arguments"), span.failed)
    return ToolRun(None, found.get("tool.name"), found.get("input.value"), span.failed)


# -- the GenAI conventions -------------------------------------------------------------------

def _genai_turns(span: Span) -> list[Said]:
    return [*_genai_list(span, "gen_ai.input.messages"),
            *_genai_list(span, "gen_ai.output.messages")]


def _genai_opening(span: Span) -> str:
    """`_opening` of a span's messages, read from the first two only: a span of a long run
    repeats all of its history, which only the fullest span's reading needs."""
    written = span.attributes.get("gen_ai.input.messages")
    first = _first(written, 2) if isinstance(written, str) else items(written)[:2]
    return _opening([_genai_turn(message) for message in first if isinstance(message, dict)])


def _first(text: str, count: int) -> list[Any]:
    """The first `count` values of the JSON array `text` (fewer where it holds fewer, none
    where it is not one), decoded one by one."""
    decoder = json.JSONDecoder()
    found: list[Any] = []
    at = _past_space(text, 0)
    if not text.startswith("[", at):
        return []
    at += 1
    while len(found) < count:
        try:
            value, at = decoder.raw_decode(text, _past_space(text, at))
        except ValueError:
            break
        found.append(value)
    return found


def _past_space(text: str, at: int) -> int:
    """The place of the first character from `at` on that is not blank or a comma."""
    while at < len(text) and text[at] in " \t\r\n,":
        at += 1
    return at


def _genai_size(span: Span) -> int:
    """How many messages a span holds, counted without reading each one as a turn."""
    return sum(len(items(_decoded(span.attributes.get(key))))
               for key in ("gen_ai.input.messages", "gen_ai.output.messages"))


def _decoded(written: Any) -> Any:
    """An attribute's JSON text decoded (None where it is not JSON), or its value as it is."""
    if not isinstance(written, str):
        return written
    try:
        return json.loads(written)
    except ValueError:
        return None


def _genai_list(span: Span, key: str) -> list[Said]:
    return [_genai_turn(message) for message in items(_decoded(span.attributes.get(key)))
            if isinstance(message, dict)]


def _genai_turn(message: dict) -> Said:
    parts = [part for part in items(message.get("parts")) if isinstance(part, dict)]
    text = "".join(str(part.get("content", "")) for part in parts if part.get("type") == "text")
    responses = [part for part in parts if part.get("type") == "tool_call_response"]
    role = str(message.get("role", ""))
    if role == "tool" or responses:
        return Said("tool", results=[
            (part.get("id"), _text(part.get("result", part.get("response", ""))), False)
            for part in responses])
    calls = [(part.get("id"), part.get("name"), part.get("arguments")) for part in parts
             if part.get("type") == "tool_call"]
    return Said(role, text, calls, stop=message.get("finish_reason"))


def _instructions(span: Span) -> str:
    written = span.attributes.get("gen_ai.system_instructions")
    try:
        parts = json.loads(written) if isinstance(written, str) else []
    except ValueError:
        return ""
    return "".join(str(part.get("content", "")) for part in items(parts)
                   if isinstance(part, dict))


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


# -- OpenInference ---------------------------------------------------------------------------

def _openinference_turns(span: Span) -> list[Said]:
    messages: dict[tuple[str, int], dict[str, Any]] = defaultdict(dict)
    for key, value in span.attributes.items():
        found = INDEXED.fullmatch(str(key))
        if found:
            side, number, rest = found.groups()
            messages[(side, int(number))][rest] = value
    order = sorted(messages, key=lambda key: (key[0] == "output", key[1]))
    return [_openinference_turn(messages[key]) for key in order]


def _openinference_turn(fields: dict[str, Any]) -> Said:
    role = str(fields.get("role", ""))
    text = fields.get("content")
    if not isinstance(text, str):
        text = "".join(str(value) for key, value in sorted(fields.items())
                       if key.startswith("contents.") and key.endswith(".text"))
    if role == "tool":
        return Said("tool", results=[(fields.get("tool_call_id"), text, False)])
    calls: dict[int, dict[str, Any]] = defaultdict(dict)
    for key, value in fields.items():
        found = CALL.fullmatch(key)
        if found:
            calls[int(found.group(1))][found.group(2)] = value
    return Said(role, text, [(call.get("id"), call.get("function.name"),
                              call.get("function.arguments")) for _, call in sorted(calls.items())])
