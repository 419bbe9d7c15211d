"""Readable views of a finished run, computed only from its transcript."""

import json
from typing import Any

from agentlab_magics.bounded.dispatch import TOOL_FAILED
from agentlab_magics.bounded.loop import LoopResult


def tool_trace(result: LoopResult) -> list[dict[str, Any]]:
    """One row per requested tool call, in order, joined to its observation by call id.

    Rows carry ``call_id``, ``tool``, the decoded ``arguments``, the decoded observation as
    ``result`` and ``ok``, which is False exactly when the observation is ``"tool_failed"``.
    The loop appends a requesting turn only together with all of its observations, so every
    request in a loop transcript has one.
    """
    observations = {
        message["tool_call_id"]: json.loads(message["content"])
        for message in result.messages
        if message["role"] == "tool"
    }
    rows = []
    for message in result.messages:
        for call in message.get("tool_calls") or ():
            observed = observations[call["id"]]
            rows.append(
                {
                    "call_id": call["id"],
                    "tool": call["function"]["name"],
                    "arguments": json.loads(call["function"]["arguments"]),
                    "ok": observed != TOOL_FAILED,
                    "result": observed,
                }
            )
    return rows


def describe(result: LoopResult, source: str) -> str:
    """A one-paragraph summary: which model ran, how the run ended, and what it consumed."""
    refused = sum(1 for row in tool_trace(result) if not row["ok"])
    summary = (
        f"{source} model: {result.status} after {result.model_calls} model calls and "
        f"{result.tool_calls} tool calls ({refused} refused), "
        f"{result.estimated_cost_cents} cents estimated exposure."
    )
    if not result.answer.strip():
        return summary
    answer = " ".join(result.answer.split())
    return f"{summary} Answer: {answer[:160]}{'…' if len(answer) > 160 else ''}"
