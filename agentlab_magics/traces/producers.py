"""The runs of the other producers: chat-completions message lists, the OpenAI Agents SDK's
own trace export (JSON Lines of `Span.export()` and `Trace.export()`), and Inspect AI's logs.

The Agents SDK writes its spans as they finish, children first, and a generation span holds
the whole chat-completions list the model was sent: the conversation is the last generation's
input and output, and a function span that failed (no call id: matched by name and
arguments) marks its result an error. An Inspect sample's `messages` is its conversation; its
model events, in order, are its calls.
"""

from __future__ import annotations

import json
import mmap
import re
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from agentlab_magics.traces.run import (
    CallFacts,
    Run,
    Said,
    ToolRun,
    TraceProblem,
    course_messages,
    fold_repeats,
    items,
    mapping,
    mark_failures,
)

LIGHT = 1 << 16  # bytes of a span's line past which only its head and tail are read
HEAD = 2_000  # bytes of a line's head that hold its ids and times
INPUT, OUTPUT = b'"input": ', b', "output": '  # around a generation's request, as written
SPAN_HEAD = ("id", "trace_id", "started_at", "ended_at")

# -- chat completions ------------------------------------------------------------------------

def chat_turn(message: dict) -> Said:
    """One chat-completions message as a turn."""
    role = str(message.get("role", ""))
    content = message.get("content")
    if isinstance(content, list):
        content = "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    text = content if isinstance(content, str) else ""
    if role == "tool":
        return Said("tool", results=[(message.get("tool_call_id"), text, False)])
    calls = [(call.get("id"), mapping(call.get("function")).get("name"),
              mapping(call.get("function")).get("arguments"))
             for call in items(message.get("tool_calls")) if isinstance(call, dict)]
    return Said(role, text, calls, stop=message.get("finish_reason"))


def read_chat(messages: list[dict]) -> Run:
    turns = [chat_turn(message) for message in messages]
    course, system = course_messages(turns)
    return Run(course, system=system, source="chat-completions messages")


# -- the OpenAI Agents SDK's own export ------------------------------------------------------

def is_agents_sdk(objects: list[Any]) -> bool:
    return any(isinstance(item, dict) and item.get("object") == "trace.span" for item in objects)


def agents_sdk_file(path: Path, pick: int | None) -> Run:
    """The run of an Agents SDK trace file, read a line at a time: a model call's line longer
    than LIGHT is read by its head and its tail only (its times, model and usage), and only
    the last one's line of the run drawn is read whole, as it holds the conversation. A line
    whose head or tail is not as the SDK writes it is read whole."""
    with open(path, "rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as data:
        spans, start = [], 0
        while start < len(data):
            end = data.find(b"\n", start)
            end = len(data) if end < 0 else end
            if data[start:min(end, start + 1)].strip():
                spans.append(_light(data, start, end) if end - start > LIGHT
                             else json.loads(data[start:end]))
            start = end + 1
        def whole(span: dict) -> dict:
            return json.loads(data[span["at"]:span["end"]]) if "at" in span else span

        def same_input(one: dict, other: dict) -> bool:
            if "input_at" in one and "input_at" in other:
                (start, end), (other_start, other_end) = one["input_at"], other["input_at"]
                return end - start == other_end - other_start and data[start:end] == data[
                    other_start:other_end]
            return _input(whole(one)) == _input(whole(other))

        return read_agents_sdk(spans, pick, whole, same_input)


def _light(data: mmap.mmap, start: int, end: int) -> dict:
    """The span on `data[start:end]`, read by its head and its tail (see agents_sdk_file)."""
    head, tail = data[start:start + HEAD].decode("utf-8", "replace"), data.rfind(
        b'"model": ', start, end)
    fields = {key: re.search(rf'"{key}": "([^"\\]*)"', head) for key in SPAN_HEAD}
    kind = re.search(r'"span_data": \{"type": "(\w+)"', head)
    try:
        facts, _ = json.JSONDecoder().raw_decode("{" + data[tail:end].decode("utf-8"))
    except ValueError:
        facts = None
    if tail < 0 or facts is None or kind is None or not all(fields.values()):
        return json.loads(data[start:end])
    light = {"object": "trace.span", "at": start, "end": end,
             "span_data": {"type": kind.group(1), **facts},
             **{key: found.group(1) for key, found in fields.items() if found}}
    inputs, outputs = data.find(INPUT, start, start + HEAD), data.rfind(OUTPUT, start, tail)
    if 0 <= inputs < outputs:
        light["input_at"] = (inputs + len(INPUT), outputs)
    return light


def read_agents_sdk(objects: list[dict], pick: int | None,
                    whole: Callable[[dict], dict] = lambda span: span,
                    same_input: Callable[[dict, dict], bool] = lambda one, other: _input(
                        one) == _input(other)) -> Run:
    """The run of Agents SDK spans; `whole` gives a span read light as it was written, and
    `same_input` says whether two model calls sent the same request. A model call whose request
    the next one sends again was retried: its facts go to that call's `earlier`, and the tools
    run between the two belong to the abandoned attempt, not to the run's results."""
    spans = [item for item in objects
             if isinstance(item, dict) and item.get("object") == "trace.span"]
    traces = list(dict.fromkeys(str(span.get("trace_id")) for span in spans))
    chosen = pick or 0
    if not 0 <= chosen < len(traces):
        raise ValueError(f"This trace file holds {len(traces)} runs: pick one from 0 to "
                         f"{len(traces) - 1}.")
    mine = sorted((span for span in spans if str(span.get("trace_id")) == traces[chosen]),
                  key=lambda span: str(span.get("started_at") or ""))
    generations = [span for span in mine if _kind(span) == "generation"]
    if not generations:
        kinds = sorted({_kind(span) for span in mine})
        raise TraceProblem(
            "This OpenAI Agents SDK trace keeps no messages (its model spans are "
            f"{', '.join(kinds)}: the Responses API's spans hold only ids and usage). Record "
            "the run with the Chat Completions model (OpenAIChatCompletionsModel), or read "
            "its OpenTelemetry spans instead.")
    last = mapping(whole(generations[-1]).get("span_data"))
    turns = [chat_turn(message) for message in [*items(last.get("input")),
                                                 *items(last.get("output"))]
             if isinstance(message, dict)]
    retried = [index for index in range(len(generations) - 1)
               if same_input(generations[index], generations[index + 1])]
    abandoned = [(str(generations[index].get("started_at")),
                  str(generations[index + 1].get("started_at"))) for index in retried]
    mark_failures(turns, [ToolRun(None, mapping(span.get("span_data")).get("name"),
                                  mapping(span.get("span_data")).get("input"),
                                  bool(span.get("error")))
                          for span in mine if _kind(span) == "function" and not any(
                              first <= str(span.get("started_at")) < then
                              for first, then in abandoned)])
    messages, system = course_messages(turns)
    assistants = [index for index, message in enumerate(messages)
                  if message["role"] == "assistant"]
    note = (f"This file holds {len(traces)} runs; this is number {chosen} (from 0): "
            "read_run(path, pick=N) reads another.") if len(traces) > 1 else ""
    facts = fold_repeats(list(map(_generation_facts, generations)), set(retried).__contains__)
    return Run(messages, dict(zip(assistants, facts)), system, "OpenAI Agents SDK trace", note)


def _input(span: dict) -> Any:
    return mapping(span.get("span_data")).get("input")


def _kind(span: dict) -> str:
    return str(mapping(span.get("span_data")).get("type", ""))


def _generation_facts(span: dict) -> CallFacts:
    data = mapping(span.get("span_data"))
    usage = mapping(data.get("usage"))
    started, ended = _moment(span.get("started_at")), _moment(span.get("ended_at"))
    return CallFacts(model=data.get("model"), input_tokens=usage.get("input_tokens"),
                     output_tokens=usage.get("output_tokens"), started=started,
                     seconds=ended - started if started is not None and ended is not None
                     else None)


def _moment(written: Any) -> float | None:
    try:
        return datetime.fromisoformat(written).timestamp() if isinstance(written, str) else None
    except ValueError:
        return None


# -- Inspect AI ------------------------------------------------------------------------------

def is_inspect(found: Any) -> bool:
    return isinstance(found, dict) and "eval" in found and ("samples" in found or "messages"
                                                            in found)


def read_inspect(log: dict, samples: Any, pick: int | str | None) -> Run:
    """The run of one sample of an Inspect log (the first, or the one `pick` names by id or
    place)."""
    samples = [sample for sample in items(samples) if isinstance(sample, dict)]
    if not samples:
        raise TraceProblem("This Inspect log holds no samples: run the eval to the end, or "
                           "read the log of a finished eval.")
    ids = [sample.get("id") for sample in samples]
    chosen = _sample(ids, pick)
    sample = samples[chosen]
    turns = [_inspect_turn(message) for message in items(sample.get("messages"))
             if isinstance(message, dict)]
    messages, system = course_messages(turns)
    model = mapping(log.get("eval")).get("model")
    events = [event for event in items(sample.get("events"))
              if isinstance(event, dict) and event.get("event") == "model"]
    assistants = [index for index, message in enumerate(messages)
                  if message["role"] == "assistant"]
    note = (f"This Inspect log holds {len(samples)} samples ({', '.join(map(str, ids))}); this "
            "is the sample " + repr(ids[chosen]) + ": read_run(path, pick=ID) reads another."
            ) if len(samples) > 1 else ""
    return Run(messages, dict(zip(assistants, (_model_facts(event, model) for event in events))),
               system, "Inspect AI log", note)


def _sample(ids: list[Any], pick: int | str | None) -> int:
    if pick is None:
        return 0
    if pick in ids:
        return ids.index(pick)
    if isinstance(pick, int) and 0 <= pick < len(ids):
        return pick
    raise ValueError(f"This Inspect log has no sample {pick!r}: its samples are "
                     f"{', '.join(map(repr, ids))}.")


def _inspect_turn(message: dict) -> Said:
    role = str(message.get("role", ""))
    content = message.get("content")
    if isinstance(content, list):
        content = "".join(str(part.get("text", "")) for part in content
                          if isinstance(part, dict) and part.get("type") == "text")
    text = content if isinstance(content, str) else ""
    if role == "tool":
        error = message.get("error")
        if error and not text:
            text = str(error.get("message", "")) if isinstance(error, dict) else str(error)
        return Said("tool", results=[(message.get("tool_call_id"), text, bool(error))])
    calls = [(call.get("id"), call.get("function"), call.get("arguments"))
             for call in items(message.get("tool_calls")) if isinstance(call, dict)]
    return Said(role, text, calls, stop=message.get("stop_reason"))


def _model_facts(event: dict, model: Any) -> CallFacts:
    usage = mapping(mapping(event.get("output")).get("usage"))
    return CallFacts(model=str(event.get("model") or model or "") or None,
                     input_tokens=usage.get("input_tokens"),
                     output_tokens=usage.get("output_tokens"),
                     started=_moment(event.get("timestamp")),
                     seconds=event.get("working_time"))


def json_of(text: str) -> Any:
    """JSON text, or None where it is not JSON."""
    try:
        return json.loads(text)
    except ValueError:
        return None
