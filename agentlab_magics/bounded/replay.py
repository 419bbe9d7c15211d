"""Record a run's model calls, and replay them as a model of their own.

A `RecordingModel` passes each call through to the model it wraps (live or scripted) and keeps
what was sent, what came back (or the failure), the output tokens and how long the call took.
A `ReplayModel` answers from a `Recording`: the same requests, in the same order, get the same
turns, so a run replayed against the same tools leaves the same transcript; any other request
is refused with a ModelError that says, in one sentence, where it departs from the recording.
"""

from __future__ import annotations

import copy
import os
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from agentlab_magics.bounded.dispatch import ToolCall
from agentlab_magics.bounded.files import write_json
from agentlab_magics.bounded.models import Model, ModelError, ModelTurn
from agentlab_magics.requests_match import departure as departure_from


class RecordedTurn(BaseModel):
    """A turn as the recording keeps it: its words, its calls and the tokens it reported."""

    content: str = ""
    calls: list[dict[str, Any]] = []
    output_tokens: int = 0


class RecordedCall(BaseModel):
    """One model call: the request, then the turn or the failure, and its duration."""

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    turn: RecordedTurn | None = None
    error: str | None = None
    seconds: float = 0.0


class Recording(BaseModel):
    """Every model call of one run, in order, and the model that answered them."""

    model: str = ""
    source: str = ""
    calls: list[RecordedCall] = []

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the recording as JSON in one atomic step."""
        return write_json(path, self.model_dump(mode="json"))


class RecordingProblem(ValueError):
    """A recording file that cannot be replayed; the message says why and what to do."""


def load_recording(path: str | os.PathLike[str]) -> Recording:
    """The recording saved at `path`; a missing or damaged file is a RecordingProblem."""
    try:
        return Recording.model_validate_json(Path(path).read_bytes())
    except OSError as error:
        raise RecordingProblem(f"The recording {os.fspath(path)} cannot be read "
                               f"({error.strerror or error}): record the run again.") from None
    except ValidationError:
        raise RecordingProblem(f"{os.fspath(path)} is not a recording of model calls: record "
                               "the run again with RecordingModel.") from None


class RecordingModel:
    """`model`, with every call it answers kept in `recording`; it answers exactly as `model`."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.source = model.source
        self.recording = Recording(model=repr(model), source=model.source)

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ModelTurn:
        call = RecordedCall(messages=copy.deepcopy(messages), tools=copy.deepcopy(tools))
        self.recording.calls.append(call)
        started = time.perf_counter()
        try:
            turn = self.model.complete(messages, tools)
        except ModelError as error:
            call.error = str(error)
            raise
        finally:
            call.seconds = time.perf_counter() - started
        call.turn = RecordedTurn(
            content=turn.content, output_tokens=turn.output_tokens,
            calls=[{"id": c.id, "name": c.name, "arguments": copy.deepcopy(c.arguments)}
                   for c in turn.calls])
        return turn

    def __repr__(self) -> str:
        return f"RecordingModel({self.model!r}, {len(self.recording.calls)} calls)"


class ReplayModel:
    """The recorded run's model: request n must be the recording's request n, and gets its
    turn (or its failure) back; ``reason`` says why a replay stands in, when that was the choice."""

    source = "replay"

    def __init__(self, recording: Recording, *, reason: str | None = None) -> None:
        self.recording = recording
        self.reason = reason
        self.played = 0

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ModelTurn:
        number = self.played + 1
        calls = self.recording.calls
        if number > len(calls):
            raise ModelError(f"the recording holds {len(calls)} model calls and this is call "
                             f"{number}: a replay answers only the requests it recorded")
        recorded = calls[number - 1]
        departure = departure_from(recorded.messages, recorded.tools, messages, tools)
        if departure:
            raise ModelError(f"request {number} differs from the recording: {departure}; a "
                             "replay answers only the requests it recorded")
        self.played = number
        if recorded.error is not None or recorded.turn is None:
            raise ModelError(recorded.error or "the recorded call gave no turn")
        turn = recorded.turn
        return ModelTurn(turn.content, tuple(
            ToolCall(id=call["id"], name=call["name"], arguments=copy.deepcopy(call["arguments"]))
            for call in turn.calls), turn.output_tokens)

    def __repr__(self) -> str:
        why = f", reason={self.reason!r}" if self.reason else ""
        return f"ReplayModel({len(self.recording.calls)} calls, {self.played} played{why})"
