"""`lab.fork(source, at_call=N, model=M)`: a recorded run, taken over at a turn.

The fork answers the first N model calls with the run's own replies, and hands every later
call to `model` (a ScriptedModel, a replay, a live model): the student's own loop drives it
with their own tools, from the turn a run went wrong, without running the turns before
again. Invariant: a reply of the recording answers only the request the recording made
before it; a request that departs from it (a message, or the count of messages) gets a
failed reply, in band, whose error_message names the first difference, as `lab.replay` does.
The source is anything `lab.read_run` reads: a course record, a trace, a recording's file.
"""

from __future__ import annotations

import copy
from typing import Any

from agentlab_magics.lab.messages import fail
from agentlab_magics.requests_match import departure
from agentlab_magics.traces.read import read_run


class Fork:
    """The recorded replies for the first `at_call` calls, then `model`'s."""

    # What code in another process (a student's, handed this fork by a check) may use.
    __public__ = ("complete",)

    def __init__(self, source: Any, at_call: int, model: Any) -> None:
        messages = read_run(source).messages
        self.recorded = [(messages[:index], message) for index, message in enumerate(messages)
                         if isinstance(message, dict) and message.get("role") == "assistant"]
        if not isinstance(at_call, int) or isinstance(at_call, bool) or not (
                0 <= at_call <= len(self.recorded)):
            raise ValueError(f"at_call must be a number of model calls from 0 to "
                             f"{len(self.recorded)}, the calls the run made; got {at_call!r}.")
        if not callable(getattr(model, "complete", None)):
            raise TypeError("fork's model answers the calls after the fork: give a lab model "
                            "(lab.ScriptedModel, lab.replay(...), a live model), got "
                            f"{type(model).__name__}.")
        self.at_call, self.model, self.played = at_call, model, 0

    def complete(self, system: str, messages: list, tools: list) -> dict:
        number = self.played + 1
        if number > self.at_call:
            self.played = number
            return self.model.complete(system, messages, tools)
        asked, reply = self.recorded[number - 1]
        where = departure(asked, tools, messages, tools) and departure(
            _sendable(asked), tools, messages, tools)
        if where:
            return fail(f"Request {number} differs from the recorded run: {where}; the fork "
                        f"answers the first {self.at_call} calls only as the run did, so the "
                        "run must reach them as it did.")
        self.played = number
        return copy.deepcopy(reply)


def _sendable(record: list) -> list:
    """The record as a lesson 5 loop sends it: its empty failed replies left out."""
    return [message for message in record if not (
        isinstance(message, dict) and message.get("role") == "assistant"
        and message.get("stop_reason") == "error" and not message.get("content"))]


def fork(source: Any, at_call: int, model: Any) -> Fork:
    """A model that answers as the recorded run did up to call `at_call`, then as `model`."""
    return Fork(source, at_call, model)
