"""`lab.fork`: a recorded run taken over at a call. A run of checkpoint A's buggy loop, which
believes a reply's label and so leaves the calls of a reply labelled "stop" unanswered, is
forked at call 3 and driven on by lesson 5's loop: the first three calls are answered as the
run was, the rest by the model given, and the diff marks the fourth call's turn (its fifth:
the prompt is the first), where the two part."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentlab_magics import lab
from agentlab_magics.reference.loops import buggy, reference
from agentlab_magics.widgets.run_diff import RunDiff

SYSTEM, PROMPT = "You are terse.", "Where is PORT set?"
FILES = {"a.py": "import b\n", "b.py": "import c\n", "c.py": "PORT = 9090\n", "d.py": ""}
READ = {"name": "read", "description": "Read a file.",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        "execute": lambda arguments: FILES[arguments["path"]]}
FOUND = lab.reply(lab.text("PORT is in c.py; d.py may say more."),
                  lab.call("read", {"path": "d.py"}), stop_reason="stop")
TRACE = Path(__file__).resolve().parents[1] / "traces" / "fixtures" / "otel_genai.jsonl"


def steps() -> list:
    return [lab.reply(lab.call("read", {"path": name})) for name in ("a.py", "b.py", "c.py")]


def original() -> list:
    """The buggy loop's run: it stops at the fourth reply, whose call it never answers."""
    messages: list = []
    buggy(lab.ScriptedModel([*steps(), FOUND]), SYSTEM, messages, [READ], PROMPT)
    return messages


def test_a_fork_answers_as_the_run_did_then_hands_over_and_the_diff_marks_call_4():
    recorded = original()
    model = lab.fork(recorded, at_call=3, model=lab.ScriptedModel([FOUND, lab.say("c.py.")]))
    forked: list = []
    reference(model, SYSTEM, forked, [READ], PROMPT)
    assert lab.shape(recorded) == "U A[c1] R(c1) A[c2] R(c2) A[c3] R(c3) A[c4]"
    assert lab.shape(forked) == "U A[c1] R(c1) A[c2] R(c2) A[c3] R(c3) A[c1] R(c1) A"
    assert forked[:7] == recorded[:7]
    diff = RunDiff(recorded, forked, ("original", "forked")).diff
    marked = diff["rows"][diff["parted"] - 1]
    assert diff["parted"] == 5 and marked["left"] == [7] and marked["right"] == [7, 8]
    assert recorded[7]["content"] == FOUND["content"][:1] + [
        lab.call("read", {"path": "d.py"}, id="c4")]


def test_a_request_that_departs_before_the_fork_is_refused_in_band():
    model = lab.fork(original(), at_call=3, model=lab.ScriptedModel([lab.say("never")]))
    messages: list = []
    reference(model, SYSTEM, messages, [READ], "Where is HOST set?")
    assert messages[-1] == lab.fail(
        "Request 1 differs from the recorded run: message 1 (user) is not the one recorded; "
        "the fork answers the first 3 calls only as the run did, so the run must reach them "
        "as it did.")


def test_a_trace_can_be_forked_too():
    model = lab.fork(TRACE, at_call=1, model=lab.ScriptedModel([lab.say("Both read.")]))
    prompt = lab.read_run(TRACE).messages[0]["content"]
    reply = model.complete("", [lab.user(prompt)], [])
    assert [block["id"] for block in reply["content"]] == ["call_a_001", "call_b_002"]
    answered = [lab.user(prompt), reply,
                *(lab.tool_result(call, "(read)") for call in reply["content"])]
    assert model.complete("", answered, []) == lab.say("Both read.")


@pytest.mark.parametrize("at_call", [-1, 9, True, "3"])
def test_a_fork_point_the_run_does_not_have_is_a_sentence(at_call):
    with pytest.raises(ValueError, match=r"at_call must be a number of model calls from 0 to 4"):
        lab.fork(original(), at_call=at_call, model=lab.ScriptedModel([]))
