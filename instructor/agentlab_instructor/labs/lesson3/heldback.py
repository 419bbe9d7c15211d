"""Lesson 3's held-back tests: a chain of twenty-five files, and calls three then two."""

from agentlab_labs.lesson3.tests import follow_the_files
from agentlab_magics import lab
from agentlab_magics.course.labtests.kit import exact, files_tool, run, said

# 25 files, each naming the next; the last one holds the answer.
LONG_CHAIN = {**{f"step{n:02d}.txt": f"Read step{n + 1:02d}.txt.\n" for n in range(1, 25)},
              "step25.txt": "The port is 7070.\n"}


def test_twenty_five_files_and_no_turn_count_of_its_own(harness, record):
    """A chain of twenty-five files is read to its end: the loop has no turn limit of its own."""
    model, messages, final = run(harness, [lab.forever(follow_the_files)],
                                 tools=[files_tool(LONG_CHAIN)], prompt="Read step01.txt.",
                                 record=record)
    results = sum(m["role"] == "toolResult" for m in messages)
    assert (results, len(model.calls)) == (25, 26) and exact(
            final, lab.say("The port is 7070."), "what run_agent returned"), (
        f"Twenty-five files, each naming the next, then the answer: the run made "
        f"{said(model, messages)} with {results} result(s) and returned {lab.show([final])}; "
        "expected 25 results over 26 model calls, ending on 'The port is 7070.'")


def test_three_then_two_calls_are_answered_in_call_order(harness, record):
    """Three calls in one reply, two in the next: each result follows its reply, in call order."""
    files = {name: f"This is {name}.\n" for name in ("a.md", "b.md", "c.md", "d.md", "e.md")}
    reads = [lab.call("read", {"path": name}) for name in files]
    model, messages, _ = run(harness, [lab.reply(*reads[:3]), lab.reply(*reads[3:]),
                                       lab.say("All five read.")],
                             tools=[files_tool(files)], record=record)
    assert lab.shape(messages) == "U A[c1,c2,c3] R(c1) R(c2) R(c3) A[c4,c5] R(c4) R(c5) A", (
        f"Three calls and then two: the run made {said(model, messages)}.")
    contents = [m["content"] for m in messages if m["role"] == "toolResult"]
    assert exact(contents, list(files.values()), "the results' contents"), (
        f"The results hold {contents}: each must be the output of the call it answers, "
        "a.md to e.md in order.")
