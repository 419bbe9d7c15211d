"""Tool dispatch: a request runs only if its tool is registered, allowed and its arguments validate.

Whatever goes wrong (unknown tool, tool not allowed, invalid arguments, a refusing
``before_write`` gate, a raising handler, an unencodable result) the model sees the same
observation, ``"tool_failed"``; the reason is kept in ``Dispatcher.log`` for the people
debugging the run.
"""

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

TOOL_FAILED = "tool_failed"


@dataclass(frozen=True)
class ToolCall:
    """One requested invocation; its id is repeated by the observation that answers it."""

    id: str
    name: str
    arguments: Any


@dataclass(frozen=True)
class ExecutableTool:
    """A named handler behind a Pydantic argument contract; consequential ones pass a gate first."""

    name: str
    description: str
    arguments_model: type[BaseModel]
    handler: Callable[[Any], Any]
    """Called with an instance of `arguments_model`, validated."""
    consequential: bool = False

    def schema(self) -> dict[str, Any]:
        """The chat-completions function-tool envelope, parameters taken from the argument model."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.arguments_model.model_json_schema(),
            },
        }


class ToolRefused(Exception):
    """The dispatcher declined a request before any handler ran."""


class Dispatcher:
    """Runs allowed tools on validated arguments and turns every failure into ``"tool_failed"``.

    ``allowed`` defaults to every registered tool. ``before_write(call)`` runs after validation
    and before a consequential tool's handler; raising refuses the call.
    """

    def __init__(
        self,
        tools: Iterable[ExecutableTool],
        *,
        allowed: Iterable[str] | None = None,
        before_write: Callable[[ToolCall], None] | None = None,
    ) -> None:
        self.tools: dict[str, ExecutableTool] = {}
        for tool in tools:
            if tool.name in self.tools:
                raise ValueError(f"two tools are registered as {tool.name!r}; names must be unique")
            self.tools[tool.name] = tool
        self.allowed = frozenset(self.tools if allowed is None else allowed)
        self.before_write = before_write
        self.log: list[dict[str, Any]] = []

    def schemas(self) -> list[dict[str, Any]]:
        """Schemas of the allowed tools, in registration order: what the model is offered."""
        return [tool.schema() for tool in self.tools.values() if tool.name in self.allowed]

    def invoke(self, call: ToolCall) -> Any:
        """The handler's JSON-encodable value, or ``"tool_failed"`` with the reason logged."""
        try:
            value = self._run(call)
        except Exception as error:  # every refusal is flattened; the log keeps the reason
            self.log.append(
                {"call_id": call.id, "tool": call.name, "ok": False, "reason": _reason(error)}
            )
            return TOOL_FAILED
        self.log.append({"call_id": call.id, "tool": call.name, "ok": True, "reason": ""})
        return value

    def _run(self, call: ToolCall) -> Any:
        tool = self.tools.get(call.name)
        if tool is None:
            raise ToolRefused(f"no tool is registered as {call.name!r}")
        if tool.name not in self.allowed:
            raise ToolRefused(f"{tool.name!r} is registered but not allowed")
        arguments = tool.arguments_model.model_validate(call.arguments)
        if tool.consequential and self.before_write is not None:
            self.before_write(call)
        value = tool.handler(arguments)
        json.dumps(value, sort_keys=True, allow_nan=False)  # the observation must be JSON
        return value


def _reason(error: Exception) -> str:
    return f"{type(error).__name__}: {error}"
