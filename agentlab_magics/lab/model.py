"""ScriptedModel: a fake model behind a strict provider, playing a script one call at a time.

Every request is recorded before anything else happens; an invalid request is refused
the way a hosted provider refuses it (an in-band error reply, nothing played, nothing
billed); a valid one plays the next step of the script. A loop that keeps calling far past
what any run needs (lab/caps.py) is stopped with CapReached, and nothing more is copied.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agentlab_magics.lab.caps import CALL_CAP, CALLS_PAST_MAX, COPY_CAP, reached
from agentlab_magics.lab.copies import copied
from agentlab_magics.lab.messages import Message, fail
from agentlab_magics.lab.rules import shape_problem, validate
from agentlab_magics.lab.steps import Step

CHARS_PER_TOKEN = 4
TOKENS_PER_MESSAGE = 4


class ScriptError(RuntimeError):
    """The script cannot answer this call: it is used up, or a step gave something unusable."""


@dataclass
class Request:
    """One request as the model received it; `messages` is a deep copy, safe from later edits."""

    system: str
    messages: list
    tools: list
    last_result: dict | None = None
    user_text: str = ""
    refused: str | None = None
    tokens: int = field(default=0)


def estimate_tokens(system: Any, messages: Any, tools: Any) -> int:
    """Input tokens of a request: one per 4 characters of its JSON, plus 4 per message.

    A stand-in for a real tokenizer, deterministic so that bills can be compared.
    """
    text = json.dumps([system, messages, tools], ensure_ascii=False, default=str)
    count = len(messages) if isinstance(messages, list) else 0
    return math.ceil(len(text) / CHARS_PER_TOKEN) + TOKENS_PER_MESSAGE * count


class ScriptedModel:
    """Plays `steps` in order, one per served call; a persistent step answers all later calls.

    A step is an assistant message (lab.reply, lab.say, lab.fail), a function of the request
    that returns one, or a persistent step (lab.pager, lab.forgetful, lab.stuck, lab.forever).
    Calls without an id are numbered c1, c2, … over every call this model has produced.
    After `max_calls` requests, each further one gets an in-band error instead of an answer;
    a loop that goes on calling (CALLS_PAST_MAX more calls, or CALL_CAP calls in all, or
    COPY_CAP messages sent in all) is stopped by CapReached, raised again at every later call.
    """

    # What code in another process (a student's, handed this model by a check) may use: the
    # script itself never crosses.
    __public__ = ("complete", "calls", "max_calls", "bill", "cut_off")

    def __init__(self, steps: list, max_calls: int | None = None):
        if not isinstance(steps, (list, tuple)):
            raise TypeError("ScriptedModel takes a list of steps, one per model call, "
                            f"got {type(steps).__name__}.")
        for number, step in enumerate(steps, start=1):
            _check_step(number, step)
        if max_calls is not None and (not isinstance(max_calls, int) or max_calls < 0):
            raise ValueError("max_calls must be a whole number of calls or None, got "
                             f"{max_calls!r}")
        self.steps = list(steps)
        self.max_calls = max_calls
        self.calls: list[Request] = []
        self.bill = 0
        self.cut_off = False
        self._played = 0
        self._produced = 0
        self._copied = 0
        self._runaway: str | None = None

    def complete(self, system: str, messages: list, tools: list) -> Message:
        """The reply to one request, exactly as a strict provider would give it."""
        self._stop_a_runaway(messages)
        request = _record(system, messages, tools)
        self.calls.append(request)
        complaints = validate(messages)
        if complaints:
            request.refused = f"400 invalid_request: {complaints[0]}"
            return fail(request.refused)
        if self.max_calls is not None and len(self.calls) > self.max_calls:
            self.cut_off = True
            return fail(f"ScriptedModel stopped the run: max_calls={self.max_calls} reached")
        request.tokens = estimate_tokens(system, messages, tools)
        self.bill += request.tokens
        return self._number(self._play(request))

    def _stop_a_runaway(self, messages: Any) -> None:
        """Raise CapReached, before anything is copied, once the calls are far past any run."""
        size = len(messages) if type(messages) is list else 0
        self._copied += size
        if self._runaway is None:
            self._runaway = _runaway(len(self.calls), self.max_calls, self._copied)
        if self._runaway is not None:
            reached(self._runaway)

    def _play(self, request: Request) -> Message:
        step = self._next_step(len(self.calls))
        if isinstance(step, Step):
            return _checked_reply(step.answer(request), step)
        if callable(step):
            return _checked_reply(step(request), step)
        return copied(step)

    def _next_step(self, call_number: int) -> Any:
        if self._played < len(self.steps):
            step = self.steps[self._played]
            if not isinstance(step, Step):
                self._played += 1
            return step
        raise ScriptError(f"The script is used up: it has {len(self.steps)} step(s) and this is "
                          f"model call {call_number}. Add a step for this call, or end the script "
                          "with a step that lasts (lab.pager, lab.forgetful, lab.stuck, "
                          "lab.forever).")

    def _number(self, message: Message) -> Message:
        for block in message["content"]:
            if block["type"] == "toolCall":
                self._produced += 1
                if not block.get("id"):
                    block["id"] = f"c{self._produced}"
        return message

    def __repr__(self) -> str:
        return (f"ScriptedModel({len(self.steps)} step(s), {len(self.calls)} call(s) so far, "
                f"bill {self.bill} input tokens)")


def _runaway(calls: int, max_calls: int | None, copied: int) -> str | None:
    """The sentence that stops a loop calling far past any run, or None while it may go on."""
    if max_calls is not None and calls >= max_calls + CALLS_PAST_MAX:
        return (f"The loop called the model {calls:,} times, {calls - max_calls} after it "
                f"answered \"max_calls={max_calls} reached\", and the check stopped it: your "
                "loop goes round again after a failed reply instead of ending the run. Look "
                "at what run_agent does when a reply's stop_reason is \"error\".")
    if calls >= CALL_CAP or copied > COPY_CAP:
        return (f"The loop called the model {calls:,} times, sending {copied:,} messages in "
                "all, and the check stopped it (a correct run of any test makes a few dozen "
                "calls): your loop goes round again after a reply that should end it, such as "
                "a failed reply or one that asks for no tool.")
    return None


def _record(system: Any, messages: Any, tools: Any) -> Request:
    """The request as received, deep-copied, with what a scripted step most often asks about."""
    kept = copied(messages)
    readable = [m for m in kept if isinstance(m, dict)] if isinstance(kept, list) else []
    last = readable[-1] if readable else None
    users = [m.get("content") for m in readable if m.get("role") == "user"]
    return Request(system=system, messages=kept, tools=copied(tools),
                   last_result=last if last is not None and last.get("role") == "toolResult"
                   else None,
                   user_text=users[-1] if users and isinstance(users[-1], str) else "")


def _is_reply(value: Any) -> bool:
    return (isinstance(value, dict) and value.get("role") == "assistant"
            and shape_problem(value, ids_required=False) is None)


def _check_step(number: int, step: Any) -> None:
    """Refuse, at construction, a step the model could never play."""
    if isinstance(step, Step) or callable(step) or _is_reply(step):
        return
    raise TypeError(f"Step {number} of the script is {_describe(step)}. A step is an assistant "
                    "message (lab.reply, lab.say, lab.fail), a function of the request that "
                    "returns one, or lab.pager, lab.forgetful, lab.stuck or lab.forever.")


def _checked_reply(message: Any, step: Callable | Step) -> Message:
    """What a function step returned, if it is an assistant message; a clear error if not."""
    if not _is_reply(message):
        name = getattr(step, "__name__", None) or repr(step).splitlines()[0]
        raise ScriptError(f"The step {name} returned {_describe(message)}, not a reply: a step "
                          "function must return lab.reply(...), lab.say(...) or lab.fail(...).")
    return copied(message)


def _describe(value: Any) -> str:
    if isinstance(value, dict):
        return f"a dict with role {value.get('role')!r}" if "role" in value else "a dict"
    return f"a {type(value).__name__} ({value!r:.40})"
