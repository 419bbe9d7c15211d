"""Lesson 3, the loop: run_agent keeps asking the model until a reply asks for nothing more."""

from agentlab_magics import lab
from agentlab_magics.course.labtests.kit import (
    SYSTEM,
    agent,
    exact,
    files_tool,
    gave,
    model_calls,
    run,
    said,
    shapes,
)

CHAIN = {"start.txt": "Read next.txt.\n", "next.txt": "Read last.txt.\n",
         "last.txt": "The port is 9090.\n"}


def follow_the_files(request):
    """Reads the file the newest result (or the prompt) names; answers once one has the port,
    and says "You are welcome." to a prompt that names no file."""
    seen = request.last_result["content"] if request.last_result else request.user_text
    if "port is" in seen:
        return lab.say(seen.strip())
    names = [word.strip(".") for word in seen.split() if word.endswith(".txt.")]
    return lab.reply(lab.call("read", {"path": names[0]})) if names else lab.say("You are welcome.")


def three_file_job(harness, record):
    return run(harness, [lab.forever(follow_the_files)], tools=[files_tool(CHAIN)],
               prompt="Read start.txt.", record=record)


def test_three_files_take_four_model_calls(harness, record):
    """A job that needs three files takes four model calls, with no one driving the loop by hand."""
    model, messages, _ = three_file_job(harness, record)
    assert lab.shape(messages) == "U A[c1] R(c1) A[c2] R(c2) A[c3] R(c3) A", (
        f"The job needs three reads and an answer; the run made {said(model, messages)}.")
    assert len(model.calls) == 4, f"Expected 4 model calls, got {len(model.calls)}."


def test_every_request_is_the_whole_list(harness, record):
    """Each request carries the whole list as it stood: two messages longer than the one before."""
    model, messages, _ = three_file_job(harness, record)
    assert shapes(model) == ["U", "U A[c1] R(c1)", "U A[c1] R(c1) A[c2] R(c2)",
                             "U A[c1] R(c1) A[c2] R(c2) A[c3] R(c3)"], (
        f"The requests were {shapes(model)}: each one must hold everything so far, "
        "because the model remembers nothing between calls.")
    for number, request in enumerate(model.calls):
        assert exact(request.messages, messages[:len(request.messages)],
                     f"the messages of request {number + 1}"), (
            f"Request {number + 1} is not the start of the record as it stood.")


def test_everything_lands_in_the_callers_list(harness, record):
    """Everything that happened ends up in the list the caller passed in, and in no other."""
    history = [lab.user("Hello."), lab.say("Hello! How can I help?")]
    model, messages, final = run(harness, [lab.forever(follow_the_files)],
                                 tools=[files_tool(CHAIN)], prompt="Read start.txt.",
                                 messages=history, record=record)
    expected = "U A U A[c1] R(c1) A[c2] R(c2) A[c3] R(c3) A"
    copied = messages is not history or lab.shape(history) == "U A"
    assert messages is history and lab.shape(history) == expected, (
        f"After the run the caller's list is {lab.shape(history)!r}"
        + (": the loop must append to the list it was handed, not to a copy of its own."
           if copied else f"; expected {expected!r}."))


def test_a_call_labelled_stop_is_still_run(harness, record):
    """A reply that holds a call gets its result and another turn, even when labelled "stop"."""
    model, messages, _ = run(harness, [
        lab.reply(lab.call("read", {"path": "last.txt"}), stop_reason="stop"),
        lab.say("The port is 9090.")], tools=[files_tool(CHAIN)], record=record)
    believed = lab.shape(messages) == "U A[c1]"
    assert lab.shape(messages) == "U A[c1] R(c1) A", (
        f"The reply held a call but was labelled 'stop'; the run made {said(model, messages)}"
        + (". Decide by the reply's content, not its label." if believed else "."))


def test_the_list_takes_another_prompt(harness, record):
    """After a run, the same list takes another prompt, and the strict model accepts it."""
    model, messages, _ = three_file_job(harness, record)
    agent(harness, model, messages, [files_tool(CHAIN)], "Thanks.")
    assert lab.validate(messages, record=True) == [] and lab.shape(messages).endswith("A U A"), (
        f"The second prompt left {lab.shape(messages)!r}; "
        f"the strict model said {lab.show(messages[-1:]) or 'nothing: the list is empty'}.")


def test_a_reply_without_calls_ends_the_run_whatever_its_label(harness, record):
    """A reply with no calls ends the run, even when it is labelled "toolUse" or "length"."""
    for label in ("toolUse", "length"):
        model, messages, _ = run(harness, [lab.reply(lab.text("Done."), stop_reason=label),
                                           lab.say("(a second answer nobody asked for)")],
                                 record=record)
        assert len(model.calls) == 1 and lab.shape(messages) == "U A", (
            f"A reply labelled {label!r} with no calls should end the run; "
            f"it made {said(model, messages)}.")


def test_two_calls_get_two_results_in_call_order(harness, record):
    """One reply asks for two files: both results follow it, in call order, before the next turn."""
    model, messages, _ = run(harness, [
        lab.reply(lab.call("read", {"path": "start.txt"}), lab.call("read", {"path": "last.txt"})),
        lab.say("Both read.")], tools=[files_tool(CHAIN)], record=record)
    assert lab.shape(messages) == "U A[c1,c2] R(c1) R(c2) A", (
        f"Two calls in one reply: the run made {said(model, messages)}.")
    results = [m for m in messages if m["role"] == "toolResult"]
    contents = [m["content"] for m in results]
    assert exact(contents, [CHAIN["start.txt"], CHAIN["last.txt"]], "the results' contents"), (
        f"The results hold {contents}: each must be the output of the call it answers.")
    expected = [{"role": "toolResult", "tool_call_id": call_id, "tool_name": "read",
                 "content": content, "is_error": False}
                for call_id, content in (("c1", CHAIN["start.txt"]), ("c2", CHAIN["last.txt"]))]
    assert exact(results, expected, "the results"), (
        f"The results are {gave(results, expected)}: a result is {{'role': 'toolResult', "
        "'tool_call_id': the call's id, 'tool_name': its name, 'content': what execute "
        "returned, 'is_error': False}, key for key.")


def test_no_turn_count_of_its_own(harness, record):
    """The loop has no turn limit of its own: twelve requests in a row get twelve results."""
    steps = [lab.reply(lab.call("read", {"path": "start.txt"})) for _ in range(12)]
    model, messages, _ = run(harness, steps + [lab.say("Twelve reads.")],
                             tools=[files_tool(CHAIN)], record=record)
    results = sum(m["role"] == "toolResult" for m in messages)
    assert (results, len(model.calls)) == (12, 13), (
        f"Twelve calls in a row should get twelve results over 13 model calls; "
        f"got {results} result(s) over {model_calls(len(model.calls))}.")


def test_no_tools_and_an_answer_is_one_call(harness, record):
    """With no tools and a plain answer, the run is one model call: what chat used to do."""
    model, messages, _ = run(harness, [lab.say("Hello.")], prompt="Hi.", record=record)
    assert len(model.calls) == 1 and lab.shape(messages) == "U A", (
        f"A plain answer should take one model call; the run made {said(model, messages)}.")
    request = model.calls[0]
    assert exact((request.system, request.tools), (SYSTEM, []), "what the request carried"), (
        f"The request carried system={request.system!r} and tools={request.tools!r}: send the "
        "system prompt you were given and the specs of the tools (none here).")


def test_returns_the_final_reply(harness, record):
    """run_agent returns the final assistant message, the one that asked for nothing more."""
    model, messages, final = three_file_job(harness, record)
    answer = lab.say("The port is 9090.")
    returned_last = bool(messages) and exact(final, messages[-1], "what run_agent returned")
    assert returned_last and exact(final, answer, "what run_agent returned"), (
        f"run_agent returned its last reply, as it should, but the run ended on "
        f"{lab.show([final])}, never reaching the model's answer {lab.show([answer])}."
        if returned_last else
        f"run_agent returned {gave(final, messages[-1] if messages else answer)}; it should "
        f"return the last reply{f', {lab.show(messages[-1:])}' if messages else ''}.")
