"""Traces that are not what their formats write (a value of another type anywhere, a key gone,
the JSON inside an attribute broken the same way) are read to a run whose messages the strict
provider then judges, or refused in one sentence: never an error from inside the readers.
Each real fixture is bent a few hundred ways, with seeds fixed so a failure is repeatable."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from agentlab_magics import lab
from agentlab_magics.lab.runs import TraceProblem

FIXTURES = Path(__file__).parent / "fixtures"
ODD: list[Any] = [None, 1, "x", [], {}, [1], {"a": 1}, True, 1.5, "[1,2", "{}"]
SEEDS = 300


def bent(value: Any, rng: random.Random) -> Any:
    """`value` with one part replaced by an odd value or removed, at a random depth; the JSON
    text of an attribute is bent inside."""
    if isinstance(value, dict) and value:
        key = rng.choice(list(value))
        if rng.random() < 0.3:
            value[key] = rng.choice(ODD)
        elif rng.random() < 0.1:
            del value[key]
        else:
            value[key] = bent(value[key], rng)
    elif isinstance(value, list) and value:
        index = rng.randrange(len(value))
        value[index] = rng.choice(ODD) if rng.random() < 0.3 else bent(value[index], rng)
    elif isinstance(value, str) and value[:1] in "[{" and rng.random() < 0.7:
        try:
            return json.dumps(bent(json.loads(value), rng))
        except ValueError:
            pass
    return value


def loaded(name: str) -> Any:
    text = (FIXTURES / name).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()] if name.endswith(".jsonl") \
        else json.loads(text)


@pytest.mark.parametrize("name", ["agents_sdk_chat.jsonl", "notes_app.jsonl", "otel_genai.jsonl",
                                  "openinference.jsonl", "otel_genai_openai_v2.jsonl",
                                  "inspect.json"])
def test_a_bent_trace_reads_to_a_run_or_one_sentence(name, tmp_path):
    original = loaded(name)
    outcomes = {"read": 0, "refused": 0}
    for seed in range(SEEDS):
        rng = random.Random(seed)
        trace = json.loads(json.dumps(original))
        for _ in range(rng.randint(1, 4)):
            trace = bent(trace, rng)
        try:
            run = lab.read_run(trace)
        except (TraceProblem, ValueError) as exc:
            assert str(exc).endswith("."), (seed, exc)
            outcomes["refused"] += 1
            continue
        assert type(run.messages) is list and all(type(m) is dict for m in run.messages)
        lab.validate(run.messages)
        try:
            lab.read_run(lab.export_run(run, tmp_path / "out.jsonl"))
        except TraceProblem as exc:
            assert "export_run writes runs of well-formed messages" in str(exc)
        outcomes["read"] += 1
    assert outcomes["read"] > SEEDS // 20, outcomes  # bends that leave a run to read
