"""Lesson 7's held-back tests: two calls in one reply, a tool that raises, and a second run."""

from agentlab_labs.lesson7.tests import Watcher, of_type, parted, watched
from agentlab_magics import lab
from agentlab_magics.course.labtests.kit import (
    EventsDiffer,
    agent,
    exact,
    failing_tool,
    files_tool,
    said,
)

FILES = {"a.txt": "alpha\n", "b.txt": "beta\n"}
BOTH = lab.reply(lab.call("read", {"path": "a.txt"}), lab.call("read", {"path": "b.txt"}))
DONE = lab.say("Both read.")


def test_two_calls_in_one_reply_each_start_and_end_in_call_order(harness, record):
    """One reply asks for two files: each call's tool_start and tool_end pair up, in call order."""
    model, messages, _, watcher = watched(harness, [BOTH, DONE], tools=[files_tool(FILES)],
                                          record=record)
    expected = ["run_start", "message", "turn_start 1", "message",
                "tool_start 1", "tool_end 1", "message", "tool_start 1", "tool_end 1", "message",
                "turn_end 1", "turn_start 2", "message", "turn_end 2", "run_end"]
    if not exact(watcher.kinds(), expected, "the events' types"):
        where, drawing = parted(watcher, expected)
        raise EventsDiffer(f"With two calls in one reply ({said(model, messages)}), {where}: "
                           "tell one call's start and end before the next call starts.", drawing)
    calls = [event.get("call") for event in of_type(watcher.events(), "tool_start")]
    assert exact(calls, messages[1]["content"], "the calls the tool_start events told"), (
        "The tool_start events named the calls in another order than the reply made them.")


def test_a_tool_that_raises_still_ends_its_call(harness, record):
    """A tool raises: its tool_end is told with the error result, and the run goes on to the answer."""
    model, messages, _, watcher = watched(
        harness, [lab.reply(lab.call("bash", {"command": "make"})), lab.say("It failed.")],
        tools=[failing_tool("bash", "make: no rule")], record=record)
    ends = of_type(watcher.events(), "tool_end")
    result = messages[2] if len(messages) > 2 else None
    assert len(ends) == 1 and exact(ends[0].get("result"), result, "the tool_end's result"), (
        f"After a tool raised, the run ({said(model, messages)}) told {len(ends)} tool_end "
        "event(s): tell tool_end with the error result run_tool made.")
    assert exact(watcher.events()[-1], {"type": "run_end", "reason": "done"}, "the last event"), (
        "A tool that raised is not the end of the run: it should still end on run_end 'done'.")


def test_a_second_run_tells_only_its_own_messages_and_counts_turns_afresh(harness, record):
    """A second prompt on the same list: its events tell only the new messages, and its turns count from 1."""
    messages: list = []
    model = lab.ScriptedModel([lab.reply(lab.call("read", {"path": "a.txt"})), DONE,
                               lab.say("Still here.")])
    record(messages, model)
    agent(harness, model, messages, [files_tool(FILES)], "Read a.")
    before = len(messages)
    watcher = Watcher(messages)
    agent(harness, model, messages, [files_tool(FILES)], "Anything else?",
          listener=watcher.listener)
    told = [event.get("message") for event in of_type(watcher.events(), "message")]
    expected = ["run_start", "message", "turn_start 1", "message", "turn_end 1", "run_end"]
    if not exact(watcher.kinds(), expected, "the second run's events' types"):
        where, drawing = parted(watcher, expected)
        raise EventsDiffer(f"In the second run, {where}: tell only what this run adds, and "
                           "number its turns from 1.", drawing)
    assert exact(told, messages[before:], "the messages the second run told"), (
        "The second run's message events told other messages than the ones it added.")
