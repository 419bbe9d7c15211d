"""Record a lab model's calls and replay them: `lab.recording(model)` answers as `model` does and
keeps each request (system, messages, tools) with its reply and time; `lab.replay(calls)` (or a
file `save` wrote) answers the same requests, in order, with the same replies, and any other
request with a failed reply whose error_message says where it departs from the recording, in
band, as the lab's strict model refuses a request.
"""

from __future__ import annotations

import copy
import json
import os
import time
from pathlib import Path
from typing import Any

from agentlab_magics.atomic import write_text_atomically
from agentlab_magics.lab.messages import fail
from agentlab_magics.requests_match import departure


class Recording:
    """A lab model that answers as `model` does and keeps every call in `calls`."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.calls: list[dict[str, Any]] = []

    def complete(self, system: str, messages: list, tools: list) -> dict:
        call: dict[str, Any] = {"system": system, "messages": copy.deepcopy(messages),
                                "tools": copy.deepcopy(tools)}
        started = time.perf_counter()
        reply = self.model.complete(system, messages, tools)
        call.update(reply=copy.deepcopy(reply), seconds=time.perf_counter() - started)
        self.calls.append(call)
        return reply

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the calls as JSON in one atomic step."""
        return write_text_atomically(path, json.dumps(self.calls, ensure_ascii=False, indent=1))


class Replay:
    """The recorded calls as a model: request n must be recorded request n."""

    def __init__(self, calls: list[dict[str, Any]]) -> None:
        self.calls = calls
        self.played = 0

    def complete(self, system: str, messages: list, tools: list) -> dict:
        number = self.played + 1
        if number > len(self.calls):
            return fail(f"The recording holds {len(self.calls)} model calls and this is call "
                        f"{number}: a replay answers only the requests it recorded.")
        recorded = self.calls[number - 1]
        where = ("it has another system prompt" if system != recorded["system"] else
                 departure(recorded["messages"], recorded["tools"], messages, tools))
        if where:
            return fail(f"Request {number} differs from the recording: {where}; a replay "
                        "answers only the requests it recorded.")
        self.played = number
        return copy.deepcopy(recorded["reply"])


def recording(model: Any) -> Recording:
    """`model`, recording every call it answers."""
    return Recording(model)


def replay(calls: list[dict[str, Any]] | str | os.PathLike[str]) -> Replay:
    """A model answering from recorded calls: a Recording's `calls`, or the file it saved.
    A file that cannot be read, or holds no recording, is a ValueError saying so."""
    if isinstance(calls, list):
        return Replay(calls)
    try:
        loaded = json.loads(Path(calls).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ValueError(f"{os.fspath(calls)} cannot be replayed ({error}): record the run "
                         "again with lab.recording(model) and save it.") from None
    if not (isinstance(loaded, list) and all(
            isinstance(call, dict) and {"system", "messages", "tools", "reply"} <= call.keys()
            for call in loaded)):
        raise ValueError(f"{os.fspath(calls)} is not a recording of model calls: record the "
                         "run again with lab.recording(model) and save it.")
    return Replay(loaded)
