"""`export_run(run, path)`: a run written as OpenTelemetry spans under the GenAI semantic
conventions, as OTLP JSON Lines (one export request), for Phoenix, Langfuse or any OTLP
reader.

The spans: an `invoke_agent` span holding the whole record (`gen_ai.input.messages`) and the
system prompt; under it a `chat` span per assistant message (the history before it as input,
the message as output with its finish reason, the call's model, tokens, cost and timing where
the run knows them, and a failed reply's error as the span's status); and an `execute_tool`
span per tool result, with its call's id, name, arguments and result (an error's status when
the result is one). Invariant: `read_run(export_run(run, path))` gives the run's messages
back, key for key.
"""

from __future__ import annotations

import json
import secrets
import time
from pathlib import Path
from typing import Any

from agentlab_magics.atomic import write_text_atomically
from agentlab_magics.lab.rules import shape_problem
from agentlab_magics.traces.read import read_run
from agentlab_magics.traces.run import CallFacts, Run, TraceProblem

FINISH = {"toolUse": "tool_call", "stop": "stop", "length": "length", "error": "error"}
OK, ERROR = 1, 2  # OTLP status codes
CLIENT, INTERNAL = 3, 1  # OTLP span kinds
STEP = 1_000_000  # nanoseconds between made-up moments, where the run has no timing


def export_run(source: Any, path: str | Path) -> Path:
    """Write the run `source` holds (anything `read_run` reads) to `path`; returns the path."""
    run = read_run(source)
    malformed = next(((index, problem) for index, problem in enumerate(
        map(shape_problem, run.messages)) if problem), None)
    if malformed:
        raise TraceProblem(f"export_run writes runs of well-formed messages, and "
                           f"messages[{malformed[0]}] {malformed[1]}: draw the run with "
                           "%transcript to see it, and mend or leave out that message.")
    trace, root = secrets.token_hex(16), secrets.token_hex(8)
    clock = _Clock(run)
    spans = []
    for index, message in enumerate(run.messages):
        if message["role"] == "assistant":
            spans.append(_chat(trace, root, run, index, clock))
        elif message["role"] == "toolResult":
            spans.append(_tool(trace, root, run.messages, index, clock))
    begin = min((span["startTimeUnixNano"] for span in spans), default=str(clock.now))
    spans.insert(0, _span(trace, root, "", f"invoke_agent {run.source}", INTERNAL, int(begin),
                          clock.now, {"gen_ai.operation.name": "invoke_agent",
                                      "gen_ai.input.messages": _messages(run.messages),
                                      "gen_ai.system_instructions": _instructions(run.system)}))
    request = {"resourceSpans": [{"resource": {"attributes": _attributes(
        {"service.name": "agentlab_magics"})}, "scopeSpans": [
            {"scope": {"name": "agentlab_magics.traces"}, "spans": spans}]}]}
    return write_text_atomically(Path(path), json.dumps(request, ensure_ascii=False) + "\n")


class _Clock:
    """Moments for spans: a call's own where the run knows it, else made up in order."""

    def __init__(self, run: Run) -> None:
        known = [facts.started for facts in run.calls.values() if facts.started is not None]
        self.now = int(min(known) * 1e9) if known else time.time_ns()

    def span(self, facts: CallFacts | None) -> tuple[int, int]:
        start = int(facts.started * 1e9) if facts and facts.started is not None else self.now
        end = start + (int(facts.seconds * 1e9) if facts and facts.seconds is not None else STEP)
        self.now = max(self.now, end) + 1
        return start, end


def _chat(trace: str, root: str, run: Run, index: int, clock: _Clock) -> dict[str, Any]:
    message, facts = run.messages[index], run.calls.get(index)
    stop = str(message.get("stop_reason"))
    output = {**_message(message), "finish_reason": FINISH.get(stop, stop)}
    found: dict[str, Any] = {"gen_ai.operation.name": "chat",
                             "gen_ai.input.messages": _messages(run.messages[:index]),
                             "gen_ai.output.messages": json.dumps([output], ensure_ascii=False)}
    if facts is not None:
        found.update({"gen_ai.request.model": facts.model,
                      "gen_ai.usage.input_tokens": facts.input_tokens,
                      "gen_ai.usage.output_tokens": facts.output_tokens,
                      "gen_ai.usage.cost": facts.cost})
    start, end = clock.span(facts)
    failed = message.get("stop_reason") == "error"
    return _span(trace, secrets.token_hex(8), root, f"chat {facts.model if facts else ''}".strip(),
                 CLIENT, start, end, found, (ERROR, str(message.get("error_message", "")))
                 if failed else None)


def _tool(trace: str, root: str, messages: list[dict], index: int, clock: _Clock
          ) -> dict[str, Any]:
    result = messages[index]
    calls = [block for message in messages[:index] if message["role"] == "assistant"
             for block in message["content"] if block.get("type") == "toolCall"]
    call: dict[str, Any] = next((block for block in calls
                                 if block.get("id") == result["tool_call_id"]), {})
    start, end = clock.span(None)
    found = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": result["tool_name"],
             "gen_ai.tool.call.id": result["tool_call_id"],
             "gen_ai.tool.call.arguments": json.dumps(call.get("arguments", {})),
             "gen_ai.tool.call.result": result["content"]}
    return _span(trace, secrets.token_hex(8), root, f"execute_tool {result['tool_name']}",
                 INTERNAL, start, end, found,
                 (ERROR, result["content"]) if result["is_error"] else None)


def _messages(messages: list[dict]) -> str:
    return json.dumps([_message(message) for message in messages], ensure_ascii=False)


def _message(message: dict) -> dict[str, Any]:
    """A course message in the GenAI conventions' shape."""
    role = message["role"]
    if role == "user":
        return {"role": "user", "parts": [{"type": "text", "content": message["content"]}]}
    if role == "toolResult":
        return {"role": "tool", "parts": [{"type": "tool_call_response",
                                           "id": message["tool_call_id"],
                                           "response": message["content"]}]}
    return {"role": "assistant", "parts": [
        {"type": "text", "content": block["text"]} if block["type"] == "text" else
        {"type": "tool_call", "id": block["id"], "name": block["name"],
         "arguments": block["arguments"]} for block in message["content"]]}


def _instructions(system: str) -> str:
    return json.dumps([{"type": "text", "content": system}] if system else [],
                      ensure_ascii=False)


def _span(trace: str, span: str, parent: str, name: str, kind: int, start: int, end: int,
          found: dict[str, Any], status: tuple[int, str] | None = None) -> dict[str, Any]:
    code, words = status or (OK, "")
    made: dict[str, Any] = {"traceId": trace, "spanId": span, "name": name, "kind": kind,
                            "startTimeUnixNano": str(start), "endTimeUnixNano": str(end),
                            "attributes": _attributes(found),
                            "status": {"code": code, **({"message": words} if words else {})}}
    if parent:
        made["parentSpanId"] = parent
    return made


def _attributes(found: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"key": key, "value": _value(value)} for key, value in found.items()
            if value is not None]


def _value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    return {"stringValue": str(value)}
