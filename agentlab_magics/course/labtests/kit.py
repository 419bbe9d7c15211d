"""What the lab tests share: tools the lab supplies, one-call runs, and awaiting student code.

The tools here belong to the lab, not to the student, so a lesson's tests can use tools
before the lesson that asks the student to build them.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Awaitable, Callable
from typing import Any

from agentlab_magics import lab

SYSTEM = "You are a careful test."


def held_back(test: Callable) -> Callable:
    """Mark a test the instructor holds back: %%check leaves it out; the autograder runs it
    inside the notebook's hidden tests, so a harness fitted to the visible cases is caught."""
    test.held_back = True
    return test


def settle(value: Any) -> Any:
    """value itself, or its result when it is awaitable, even inside a running event loop."""
    if not isinstance(value, Awaitable):
        return value
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(lab.drive(value))
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, lab.drive(value)).result()


def files_tool(files: dict[str, str], name: str = "read") -> dict:
    """A read tool over `files`, kept simple: the whole file, or an error naming what exists."""

    def execute(arguments: dict) -> str:
        path = arguments.get("path")
        if path not in files:
            raise FileNotFoundError(f"File not found: {path}. Files here: {', '.join(files)}")
        return files[path]

    return {"name": name, "description": "Read a whole text file.",
            "parameters": {"type": "object", "required": ["path"],
                           "properties": {"path": {"type": "string"}}},
            "execute": execute}


def failing_tool(name: str, message: str) -> dict:
    """A tool that always raises ValueError(message)."""

    def execute(arguments: dict) -> str:
        raise ValueError(message)

    return {"name": name, "description": "Always fails.",
            "parameters": {"type": "object", "properties": {}}, "execute": execute}


def run(harness: Any, steps: list, *, tools: list | None = None, prompt: str = "Find the port.",
        messages: list | None = None, max_calls: int | None = 30, record: Any = None,
        **options: Any) -> tuple[lab.ScriptedModel, list, Any]:
    """One run of the student's run_agent: (model, the caller's list, what it returned)."""
    model = lab.ScriptedModel(steps, max_calls=max_calls)
    messages = [] if messages is None else messages
    if record is not None:
        record(messages)
    final = harness.run_agent(model, SYSTEM, messages, tools or [], prompt, **options)
    return model, messages, final


def shapes(model: lab.ScriptedModel) -> list[str]:
    """The shape of every request the model was sent, in order."""
    return [lab.shape(request.messages) for request in model.calls]


def said(model: lab.ScriptedModel, messages: list) -> str:
    """A one-line account of a run for failure messages: calls made and the record's shape."""
    return f"{len(model.calls)} model call(s), record {lab.shape(messages)!r}"
