"""Whether a request is the one a recording holds, for every replayed model (lab's, the
bounded unit's): the same tools and the same messages, compared as JSON."""

from __future__ import annotations

import json
from typing import Any


def departure(recorded_messages: list, recorded_tools: list, messages: list,
              tools: list) -> str:
    """Where a request departs from the recorded one, as a clause; "" when it does not."""
    if _json(tools) != _json(recorded_tools):
        return "it offers other tools"
    for number, (asked, kept) in enumerate(zip(messages, recorded_messages), start=1):
        if _json(asked) != _json(kept):
            role = asked.get("role", "?") if isinstance(asked, dict) else "?"
            return f"message {number} ({role}) is not the one recorded"
    if len(messages) != len(recorded_messages):
        return (f"it has {len(messages)} messages where the recording has "
                f"{len(recorded_messages)}")
    return ""


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=repr)
