"""The bounded agent loop: every model attempt is admitted and charged before it is made.

Before each attempt the loop asks ``decide_admission`` (call count first, then estimated
cost exposure) and checks the wall-clock allowance; an admitted attempt is charged one call
and ``limits.estimated_call_cents`` before the provider is asked, so failures are never free.
A returned turn is checked (arrival time, output tokens, call ids, tool-call budget) before
it is appended; a refused turn is left out of the transcript. Each admitted tool call gets
an observation under its call id.

Time has no status of its own: an allowance spent before an attempt, or a turn that arrives
after it, ends the run ``MODEL_FAILED`` (the provider did not answer in time). In the first
case nothing is charged, because no attempt was made; in the second the attempt stays charged.
"""

import copy
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agentlab_magics.bounded.admission import decide_admission
from agentlab_magics.bounded.dispatch import Dispatcher
from agentlab_magics.bounded.limits import Limits
from agentlab_magics.bounded.models import Model, ModelError
from agentlab_magics.bounded.status import (
    COMPLETED,
    EMPTY_REPLY,
    MODEL_FAILED,
    REPEATED_CALL_ID,
    TOKEN_LIMIT,
    TOOL_LIMIT,
    Status,
)


@dataclass(frozen=True)
class LoopResult:
    """How a run ended, its transcript, and the counters that prove it stayed within its limits."""

    status: Status
    messages: list[dict[str, Any]]
    model_calls: int
    tool_calls: int
    estimated_cost_cents: int
    output_tokens: int
    answer: str = ""
    limits: Limits | None = None
    turn_tokens: tuple[int, ...] = ()  # output tokens of each assistant turn on the transcript


def run_loop(
    model: Model,
    dispatcher: Dispatcher,
    messages: list[dict[str, Any]],
    *,
    limits: Limits,
    clock: Callable[[], float] = time.monotonic,
) -> LoopResult:
    """Run model turns and their tools until an answer or a limit; ``messages`` is never mutated."""
    transcript = copy.deepcopy(messages)
    deadline = clock() + limits.seconds
    model_calls = tool_calls = spent = tokens = 0
    seen: set[str] = set()
    kept_tokens: list[int] = []

    def finish(status: Status, answer: str = "") -> LoopResult:
        return LoopResult(status, transcript, model_calls, tool_calls, spent, tokens, answer,
                          limits, tuple(kept_tokens))

    while True:
        decision = decide_admission(
            {
                "used_calls": model_calls,
                "max_calls": limits.model_calls,
                "spent": spent,
                "next_cost": limits.estimated_call_cents,
                "budget": limits.model_budget_cents,
            }
        )
        if decision != "CALL":
            return finish(decision)
        if clock() >= deadline:
            return finish(MODEL_FAILED)
        model_calls += 1
        spent += limits.estimated_call_cents
        try:
            turn = model.complete(copy.deepcopy(transcript), dispatcher.schemas())
        except ModelError:
            return finish(MODEL_FAILED)
        if clock() > deadline:
            return finish(MODEL_FAILED)
        tokens += turn.output_tokens
        if turn.output_tokens > limits.output_tokens or tokens > limits.total_output_tokens:
            return finish(TOKEN_LIMIT)
        ids = [call.id for call in turn.calls]
        if len(ids) != len(set(ids)) or seen.intersection(ids):
            return finish(REPEATED_CALL_ID)
        if tool_calls + len(ids) > limits.tool_calls:
            return finish(TOOL_LIMIT)
        seen.update(ids)
        transcript.append(turn.message())
        kept_tokens.append(turn.output_tokens)
        if not turn.calls:
            return finish(COMPLETED if turn.content.strip() else EMPTY_REPLY, turn.content)
        for call in turn.calls:
            tool_calls += 1
            result = dispatcher.invoke(call)
            transcript.append(
                {
                    "role": "tool",
                    "tool_call_id": call.id,
                    "content": json.dumps(result, sort_keys=True),
                }
            )
