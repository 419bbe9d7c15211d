"""What a run cost, in the words its diagram shows: a tag per model call, and the run's totals
beside its limits in the header.

Only what the model or the unit says is shown; nothing is estimated here. The bounded unit
charges every admitted attempt its estimated cents and counts the output tokens each turn
reports (LoopResult); the lab's ScriptedModel estimates each request's input tokens and keeps
its bill; a live run times each call and tool.
"""

from __future__ import annotations

from typing import Any

from agentlab_magics.traces.run import Run
from agentlab_magics.widgets.words import clip, plural


def seconds(value: float) -> str:
    return f"{value:.1f} s"


def tokens(count: int) -> str:
    return f"~{count:,} tokens"


def unit_meter(result: Any) -> tuple[list[str], dict[int, list[str]]]:
    """(header, row tags) of a bounded LoopResult: the status, each counter against its limit,
    and on each assistant turn what it was charged and the output tokens it reported."""
    limits = result.limits

    def counted(used: int, limit_name: str, what: str) -> str:
        limit = getattr(limits, limit_name) if limits is not None else None
        return plural(used, what) if limit is None else f"{used:,} of {limit:,} {what}s"

    header = [str(result.status),
              counted(result.model_calls, "model_calls", "model call"),
              counted(result.tool_calls, "tool_calls", "tool call"),
              counted(result.estimated_cost_cents, "model_budget_cents", "cent") + " estimated",
              counted(result.output_tokens, "total_output_tokens", "output token")]
    unanswered = result.model_calls - len(result.turn_tokens)
    if unanswered > 0:
        header.append(f"{plural(unanswered, 'charged call')} left no turn")
    turns = [index for index, message in enumerate(result.messages)
             if type(message) is dict and message.get("role") == "assistant"]
    charged = [plural(limits.estimated_call_cents, "cent")] if limits is not None else []
    notes = {index: [*charged, plural(output, "output token")]
             for index, output in zip(turns, result.turn_tokens)}
    return header, notes


def request_meter(request: Any) -> list[str]:
    """The header's words for a lab Request: its estimated input tokens, when it has them."""
    return [f"{tokens(request.tokens)} estimated"] if request.tokens else []


def model_meter(model: Any) -> list[str]:
    """The header's words for a lab model that keeps its requests and bill (ScriptedModel):
    the estimated input tokens so far, and the calls made against max_calls; [] otherwise."""
    requests, bill = getattr(model, "calls", None), getattr(model, "bill", None)
    if not isinstance(requests, list) or not isinstance(bill, int):
        return []
    words = [f"{tokens(bill)} estimated"]
    limit = getattr(model, "max_calls", None)
    if isinstance(limit, int):
        words.append(f"{len(requests):,} of max_calls={limit:,} calls")
    return words


def request_tokens(model: Any) -> list[str]:
    """The tag for the newest request of a lab model that keeps its requests: its estimated
    input tokens; [] otherwise."""
    requests = getattr(model, "calls", None)
    count = getattr(requests[-1], "tokens", None) if isinstance(requests, list) and requests \
        else None
    return [tokens(count)] if isinstance(count, int) else []


def trace_meter(run: Run) -> tuple[list[str], dict[int, list[str]]]:
    """(header, row tags) of a run read from a trace: where it came from, its model calls and
    what the trace says they used, its system prompt (the course's messages have no place for
    one) and, for a trace of several conversations, which one this is."""
    kept = list(run.calls.values())
    facts = [made for fact in kept for made in [*fact.earlier, fact]]
    retried = len(facts) - len(kept)
    header = [f"read from {run.source}", plural(len(facts), "model call") + (
        f" ({plural(retried, 'request')} sent again)" if retried else "")]
    for what, values in (("input token", [f.input_tokens for f in facts]),
                         ("output token", [f.output_tokens for f in facts])):
        known = [value for value in values if value is not None]
        if known:
            header.append(plural(sum(known), what))
    costs = [f.cost for f in facts if f.cost is not None]
    if costs:
        header.append(f"${sum(costs):.4f}")
    if run.system:
        header.append(f"system prompt (not a message here): {clip(run.system, 120)!r}")
    if run.note:
        header.append(run.note)
    return header, {index: found.tags() for index, found in run.calls.items() if found.tags()}
