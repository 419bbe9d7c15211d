"""Models the loop can call: anything with ``complete(messages, tools) -> ModelTurn``.

A model either returns one turn or raises ``ModelError``; the loop treats the latter as a
failed attempt that still counts against the limits. ``ScriptedModel`` replays authored
turns so a run is reproducible without a network.
"""

import copy
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field, NonNegativeInt

from agentlab_magics.bounded.dispatch import ToolCall


class ModelError(RuntimeError):
    """A provider attempt produced no usable turn."""


@dataclass(frozen=True)
class ModelTurn:
    """One assistant turn: text, the tool calls it requests, and the output tokens it reported."""

    content: str = ""
    calls: tuple[ToolCall, ...] = ()
    output_tokens: int = 0

    def message(self) -> dict[str, Any]:
        """The chat-completions assistant message for this turn, arguments as sorted JSON text."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.calls:
            message["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {
                        "name": call.name,
                        "arguments": json.dumps(call.arguments, sort_keys=True),
                    },
                }
                for call in self.calls
            ]
        return message


class Model(Protocol):
    """What the loop needs from a model; ``source`` says whether it was live or scripted."""

    source: str

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ModelTurn:
        """Return the next turn for this transcript, or raise ModelError."""
        ...


class ScriptedCall(BaseModel):
    """An authored tool request; without an id the script numbers it when it is played."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    arguments: dict[str, Any] = Field(default_factory=dict)
    id: str | None = None


class ScriptedTurn(BaseModel):
    """An authored turn, validated when written so that a typo fails where it was made."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)

    content: str = ""
    calls: tuple[ScriptedCall, ...] = ()
    output_tokens: NonNegativeInt = 0


def scripted_turn(
    content: str = "", calls: Iterable[dict[str, Any]] = (), *, output_tokens: int = 0
) -> ScriptedTurn:
    """One authored turn; ``calls`` are ``{"name", "arguments"}`` dicts with an optional id."""
    return ScriptedTurn(content=content, calls=tuple(ScriptedCall.model_validate(call)
                                                     for call in calls),
                        output_tokens=output_tokens)


class ScriptedModel:
    """Replays turns in order; call k of turn n is ``scripted-n-call-k`` unless the script names it.

    Running out of turns raises ModelError, like a provider that stops answering. ``reason``
    records why a scripted model stands in for a live one, when that was the choice.
    """

    source = "scripted"

    def __init__(self, turns: Iterable[ScriptedTurn], *, reason: str | None = None) -> None:
        self.turns = tuple(turns)
        self.reason = reason
        self.played = 0

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ModelTurn:
        """The next authored turn with numbered call ids; the messages and tools are not read."""
        if self.played >= len(self.turns):
            raise ModelError(f"the script has only {len(self.turns)} turns")
        turn = self.turns[self.played]
        self.played += 1
        calls = tuple(
            ToolCall(
                id=call.id or f"scripted-{self.played}-call-{number}",
                name=call.name,
                arguments=copy.deepcopy(call.arguments),
            )
            for number, call in enumerate(turn.calls, 1)
        )
        return ModelTurn(turn.content, calls, turn.output_tokens)

    def __repr__(self) -> str:
        why = f", reason={self.reason!r}" if self.reason else ""
        return f"ScriptedModel({len(self.turns)} turns, {self.played} played{why})"
