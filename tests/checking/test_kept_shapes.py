"""A request's shape in a report is read off the request without copying it whole, and says
exactly what the shape of its `plain` copy says, whatever the student's code sent."""

from __future__ import annotations

import random
from typing import Any

from agentlab_magics.checking.kept import _shape, plain
from agentlab_magics.lab.rules import a_type
from agentlab_magics.lab.views import shape


class Word(str):
    """A str subclass, as code may send one (it crosses as an imitation)."""


class Table(dict):
    """A dict subclass."""


SCALARS = ["user", "assistant", "toolResult", "toolCall", "error", "c1", Word("user"), 1, 1.0,
           True, None, float("nan"), "x" * 2_100, b"bytes", ("t",)]
KEYS = ["role", "tool_call_id", "stop_reason", "content", "type", "id", Word("role"), 1, "text"]


def copied_then_shaped(messages: Any) -> str:
    """The shape as it was made before: of the request's whole `plain` copy."""
    sent = plain(messages)
    return shape(sent) if type(sent) is list else f"({a_type(sent)}, not a list)"


def anything(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth > 4 or roll < 0.35:
        return rng.choice(SCALARS)
    if roll < 0.5:
        return [anything(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    if roll < 0.6:
        return tuple(anything(rng, depth + 1) for _ in range(rng.randint(0, 3)))
    made = {rng.choice(KEYS): anything(rng, depth + 1) for _ in range(rng.randint(0, 5))}
    return Table(made) if rng.random() < 0.05 else made


def test_the_shape_of_any_request_is_its_plain_copys():
    rng = random.Random(7)
    for _ in range(5_000):
        messages = (anything(rng) if rng.random() < 0.2
                    else [anything(rng, 1) for _ in range(rng.randint(0, 6))])
        assert _shape(messages) == copied_then_shaped(messages), repr(messages)[:400]


def test_the_shape_keeps_plains_limits():
    nested: Any = "x"
    for _ in range(23):
        nested = [nested]
    deep = [{"role": "toolResult", "tool_call_id": nested}]
    long = [{"role": "user"}] * 250 + [{"role": "assistant"}]
    many_keys = [{**{f"k{n}": n for n in range(250)}, "role": "user"}]
    many_blocks = [{"role": "assistant", "content": [{"type": "text"}] * 200
                    + [{"type": "toolCall", "id": "c1"}]}]
    for messages in (deep, long, many_keys, many_blocks, ({"role": "user"},), "text", None):
        assert _shape(messages) == copied_then_shaped(messages)
