"""The tests of real-run. The run is the trace beside this file, read as the transcript reads
it; the app's files are beside it too, as its tool returned them in the run."""

import copy
import re
from pathlib import Path

from agentlab_magics import lab

TRACE = Path(__file__).with_name("notes_app.jsonl")
RUN = lab.read_run(TRACE)
PROMPT = RUN.messages[0]["content"]
FILES = {name: TRACE.with_name(name).read_text(encoding="utf-8")
         for name in ("notes.md", "todo.txt")}
ANSWER = "notes.md covers eighteen weeks of meetings; todo.txt has two open items."
LONG = "x" * 2506


def first_refused_call(messages):
    """The number of the first model call whose request the strict provider refuses."""
    calls = [index for index, message in enumerate(messages) if message["role"] == "assistant"]
    return next(number for number, index in enumerate(calls, 1)
                if lab.validate(messages[:index]))


def record_with(*results):
    """A record of one reply calling read_file once for each result, then the results."""
    calls = [lab.call("read_file", {"path": f"f{number}.md"}, id=f"c{number}")
             for number in range(1, len(results) + 1)]
    return [lab.user(PROMPT), lab.reply(*calls),
            *(lab.tool_result(call, text) for call, text in zip(calls, results))]


def test_fork_at_is_the_number_of_calls_before_the_refused_request(harness):
    """fork_at() is how many calls come before the first request the strict provider refuses:
    the transcript flags that request's row."""
    wanted = first_refused_call(RUN.messages) - 1
    found = harness.fork_at()
    assert found == wanted, (f"fork_at() is {found!r}, but the run's call {wanted + 1} is the "
                             f"first refused: replay the {wanted} before it.")


def test_a_long_result_is_cut_not_left_out(harness):
    """A result longer than max_chars is sent cut, not left out: its first max_chars
    characters, then a line that says how many characters were cut."""
    record = record_with(LONG + "END")
    sent = harness.request_for(copy.deepcopy(record), 2000)
    assert isinstance(sent, list), f"request_for should return the messages to send, not {sent!r}."
    assert len(sent) == len(record), (f"{len(record)} messages went in and {len(sent)} came "
                                      "out: every message is sent, the long result too.")
    content = sent[2]["content"]
    assert sent[2]["tool_call_id"] == "c1" and content[:2000] == LONG[:2000], \
        "The long result should be sent with its first 2000 characters as they were."
    assert "END" not in content and "509" in re.findall(r"\d+", content[2000:]), \
        f"After its 2000 characters, the result should say 509 were cut: {content[2000:]!r}"


def test_a_result_of_exactly_max_chars_is_sent_whole(harness):
    """A result of exactly max_chars characters fits: it is sent whole."""
    record = record_with("y" * 2000)
    sent = harness.request_for(copy.deepcopy(record), 2000)
    assert sent == record, "A result of exactly 2000 characters should be sent as it is."


def test_every_other_message_is_sent_as_it_is(harness):
    """Every message but a long result is sent as it is, in its place."""
    record = [*record_with("short", "also short"), lab.say("Done."), lab.user("And now?")]
    sent = harness.request_for(copy.deepcopy(record), 2000)
    assert sent == record, "With no result over the limit, the request should be the record."


def test_the_record_itself_is_left_as_it_was(harness):
    """The record keeps the whole result: only the request is cut."""
    record = record_with(LONG)
    kept = copy.deepcopy(record)
    harness.request_for(record, 2000)
    assert record == kept, "request_for changed the record it was given: cut a copy instead."


def test_the_fork_with_your_fix_is_accepted_from_the_turn_it_went_wrong(harness):
    """Forked at fork_at() and run by the app with your request_for, the run replays the
    recorded calls, sends the result the app once left out, and the strict provider accepts
    every request."""
    later = lab.ScriptedModel([lab.say(ANSWER)])
    model = lab.fork(TRACE, at_call=harness.fork_at(), model=later)
    forked = harness.run_app(model, FILES, PROMPT)
    last = forked[-1]
    assert last.get("stop_reason") != "error", \
        f"The fork refused a call: {last.get('error_message')}"
    assert last == lab.say(ANSWER), "The forked run should end with the model's answer."
    assert lab.validate(forked) == [], f"The strict provider refuses: {lab.validate(forked)[:1]}"
    assert forked[:2] == RUN.messages[:2] and forked[2]["tool_call_id"] == "call_notes_001", \
        "The fork should replay the first call and then send notes.md's result."
    asked = [request.messages for request in later.calls]
    assert model.played == 2 and len(asked) == 1, \
        "run_app should ask the fork for each call: the recorded first one, then the next."
    assert asked[0] == harness.request_for(copy.deepcopy(forked[:-1]), 2000), \
        "The call after the fork should be sent request_for of the run so far."
