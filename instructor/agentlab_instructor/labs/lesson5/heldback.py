"""Lesson 5's held-back tests: a turn limit of four, and empty failed replies side by side."""

import copy

from agentlab_magics import lab
from agentlab_magics.course.labtests.kit import exact, failing_tool, plain, run, said


def test_max_turns_four_against_a_stuck_model(harness, record):
    """max_turns=4 against a stuck model: four model calls, each answered, then the stop naming 4."""
    model, messages, final = run(harness, [lab.stuck(lab.call("bash", {"command": "make"}))],
                                 tools=[failing_tool("bash", "make: no rule")], record=record,
                                 max_turns=4)
    expected = "U A[c1] R(c1) A[c2] R(c2) A[c3] R(c3) A[c4] R(c4) A(error)"
    assert (len(model.calls), lab.shape(messages)) == (4, expected), (
        f"With max_turns=4 the run made {said(model, messages)}; expected four model calls, "
        f"each answered, then an error reply that costs no call: {expected!r}.")
    stop = "Agent stopped after max_turns=4"
    assert exact(final, messages[-1], "what run_agent returned") and exact(
            final.get("error_message"), stop, "the error_message run_agent returned"), (
        f"The run ended on {lab.show([final])}; expected it to return the error "
        f"{stop!r}, naming the limit it was given.")


def test_context_for_model_drops_empty_failures_in_a_row(harness):
    """Empty failed replies one after another are all left out; a failure that said something stays."""
    messages = [lab.user("a"), lab.fail("503"), lab.fail("529 overloaded"), lab.user("b"),
                lab.fail("cut", "The port"), lab.fail("503"), lab.user("c"), lab.say("9090"),
                lab.fail("timeout")]
    before = copy.deepcopy(messages)
    view = plain(harness.context_for_model(messages), "what context_for_model returned")
    assert exact(messages, before, "the record after context_for_model"), (
        "context_for_model changed the record it was given.")
    assert lab.shape(view) == "U U A(error) U A", (
        f"The view is {lab.shape(view)!r}; expected 'U U A(error) U A': all four empty failed "
        "replies left out, two of them side by side, and the one that said 'The port' kept.")
