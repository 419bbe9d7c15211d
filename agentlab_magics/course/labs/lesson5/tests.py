"""Lesson 5, failures and limits: error_message, max_turns, and the record versus the request."""

import copy

from agentlab_magics import lab
from agentlab_magics.course.labtests.kit import (
    agent,
    exact,
    files_tool,
    gave,
    plain,
    run,
    said,
    shapes,
)

CONFIG = {"config.py": "PORT = 9090\n"}
READ = lab.call("read", {"path": "config.py"})


def test_error_message_shape(harness):
    """error_message(text) is an assistant message with no content, labelled "error", the text in
    error_message."""
    made = harness.error_message("503 overloaded")
    expected = {"role": "assistant", "content": [], "stop_reason": "error",
                "error_message": "503 overloaded"}
    assert exact(made, expected, "what error_message returned"), (
        f"error_message('503 overloaded') gave {gave(made, expected)}.")


def test_max_turns_one_against_a_stuck_model(harness, record):
    """max_turns=1 against a stuck model: one model call, its call answered, then an in-band
    stop."""
    model, messages, final = run(harness, [lab.stuck(READ)], tools=[files_tool(CONFIG)],
                                 record=record, max_turns=1)
    assert (len(model.calls), lab.shape(messages)) == (1, "U A[c1] R(c1) A(error)"), (
        off_by_one(1, [len(model.calls)])
        or f"With max_turns=1 the run made {said(model, messages)}; expected one model call, "
        "its result, then an error reply that costs no call.")
    assert exact(final.get("error_message"), "Agent stopped after max_turns=1",
                 "the error_message run_agent returned"), (
        f"The run ended on {lab.show([final])}; expected the error "
        "'Agent stopped after max_turns=1'.")


def test_max_turns_counts_each_run_afresh(harness, record):
    """max_turns=3 allows exactly three model calls in every run, however long the list
    already is."""
    model = lab.ScriptedModel([lab.stuck(READ)], max_calls=30)
    messages = record([], model)
    counts = []
    for prompt in ("Find the port.", "Try again.", "Once more."):
        before = len(model.calls)
        agent(harness, model, messages, [files_tool(CONFIG)], prompt, max_turns=3)
        counts.append(len(model.calls) - before)
    assert counts == [3, 3, 3], off_by_one(3, counts) or (
        f"Three runs with max_turns=3 made {counts} model calls: count the turns of this run, "
        "not the messages already on the list." if counts[0] == 3 and 0 in counts[1:] else
        f"Three runs with max_turns=3 made {counts} model calls; each should make exactly 3.")


def off_by_one(limit: int, counts: list[int]) -> str:
    """The sentence for runs under max_turns=`limit` that each made one model call too many,
    or each one too few: the limit's comparison is off by one; "" for any other counts."""
    made = set(counts)
    if len(made) != 1 or abs(made.pop() - limit) != 1:
        return ""
    runs = "the run" if len(counts) == 1 else f"each of {len(counts)} runs"
    return (f"max_turns={limit} allowed {counts[0]} model call{'s' * (counts[0] != 1)} in "
            f"{runs}: the limit is off by one (a run makes exactly max_turns model calls, "
            "then ends with the in-band error reply, which costs none).")


def test_max_turns_none_is_no_limit(harness, record):
    """max_turns=None means no limit: twelve requests in a row are served, and a limit of 20 changes
    nothing."""
    steps = [lab.reply(READ) for _ in range(12)] + [lab.say("The port is 9090.")]
    shapes_seen = []
    for limit in (None, 20):
        model, messages, _ = run(harness, list(steps), tools=[files_tool(CONFIG)],
                                 record=record, max_turns=limit)
        shapes_seen.append(lab.shape(messages))
        assert len(model.calls) == 13, (
            f"With max_turns={limit} the run made {said(model, messages)}; all 13 calls should "
            "be served.")
    assert shapes_seen[0] == shapes_seen[1], "max_turns=20 changed a run that needs only 13 turns."


def test_the_view_is_made_again_every_call(harness, record):
    """The request is worked out again for every model call: the model sees the result it just asked
    for."""
    def answer_from_result(request):
        result = request.last_result
        return lab.say(result["content"].strip() if result else "I was shown no result.")

    model, messages, final = run(harness, [lab.reply(READ), answer_from_result],
                                 tools=[files_tool(CONFIG)], record=record)
    assert shapes(model) == ["U", "U A[c1] R(c1)"] and exact(
            harness.text_of(final), "PORT = 9090", "what text_of returned"), (
        f"The requests were {shapes(model)} and the run ended on {lab.show([final])}: build the "
        "request from the record before every model call, not once before the loop.")


def test_a_503_is_written_down_not_raised(harness, record):
    """The provider answers 503: the failed reply goes on the record and the run ends without
    raising; a reply that failed holding a call ends the run too, its call not run."""
    model, messages, final = run(harness, [lab.fail("503 overloaded")], record=record)
    failed = lab.fail("503 overloaded")
    assert lab.shape(messages) == "U A(error)" and exact(
            final, failed, "what run_agent returned") and exact(
            messages[-1], failed, "the last message of the record"), (
        f"After a 503 the run made {said(model, messages)} and returned "
        f"{gave(final, failed)}: the failed reply goes on the record and is returned.")
    cut = lab.fail("stream cut", lab.call("read", {"path": "config.py"}, id="c1"))
    model, messages, final = run(harness, [cut, lab.say("The port is 9090.")],
                                 tools=[files_tool(CONFIG)], record=record)
    assert lab.shape(messages) == "U A[c1](error)" and exact(
            final, cut, "what run_agent returned"), (
        f"A reply that failed holding a call left the run at {said(model, messages)}; expected "
        "'U A[c1](error)', the failed reply returned: a failed reply ends the run, and its "
        "calls are not run.")


def test_try_again_after_a_503(harness, record):
    """After a 503 the user says "try again": the failed reply stays on the record and is not
    sent."""
    model, messages, _ = run(harness, [lab.fail("503 overloaded"), lab.say("The port is 9090.")],
                             record=record)
    final = agent(harness, model, messages, [], "try again")
    sent = shapes(model)
    assert sent[1:2] == ["U U"], (
        f"The second request was {sent[1] if len(sent) > 1 else 'never sent'!r}: an empty "
        "failed reply must be left out of what is sent, or the strict provider refuses it.")
    assert lab.shape(messages) == "U A(error) U A", (
        f"The record is {lab.shape(messages)!r}; the failed reply must stay on it. "
        f"The second run ended on {lab.show([final])}.")


def test_a_failed_reply_with_text_is_sent(harness, record):
    """A reply that failed after producing text is sent back to the model like any other message."""
    model, messages, _ = run(harness, [lab.fail("stream cut", "The port is"),
                                       lab.say("The port is 9090.")], record=record)
    agent(harness, model, messages, [], "Go on.")
    assert shapes(model)[1] == "U A(error) U", (
        f"The second request was {shapes(model)[1]!r}: a failed reply that said something is "
        "part of the conversation, so it is sent.")


def test_context_for_model_drops_only_empty_failures(harness):
    """context_for_model drops assistant messages that failed and are empty, keeps the rest, and
    never edits the record."""
    c1 = lab.call("read", {"path": "config.py"}, id="c1")
    messages = [lab.user("a"), lab.fail("503"), lab.user("b"), lab.reply(c1),
                lab.tool_result(c1, "PORT = 9090\n"), lab.fail("cut", "partial"),
                lab.user("c"), lab.say("done")]
    before = copy.deepcopy(messages)
    view = plain(harness.context_for_model(messages), "what context_for_model returned")
    assert exact(messages, before, "the record after context_for_model"), (
        "context_for_model changed the record it was given.")
    assert view is not messages, "context_for_model returned the record itself, not a new list."
    assert lab.shape(view) == "U U A[c1] R(c1) A(error) U A", (
        f"The view is {lab.shape(view)!r}; expected every message except the empty failed "
        "reply.")


def test_a_run_stopped_by_max_turns_can_go_on(harness, record):
    """A run stopped by max_turns leaves a list the next prompt is accepted on, and the model
    recovers."""
    def recover(request):
        if request.user_text == "Stop reading.":
            return lab.say("The port is 9090.")
        return lab.reply(READ)

    model, messages, _ = run(harness, [lab.forever(recover)], tools=[files_tool(CONFIG)],
                             record=record, max_turns=2)
    final = agent(harness, model, messages, [files_tool(CONFIG)], "Stop reading.")
    assert exact(final, lab.say("The port is 9090."), "what run_agent returned"), (
        f"After a run cut off by max_turns, the next prompt ended on {lab.show([final])}; "
        f"the record is {lab.shape(messages)!r}.")
