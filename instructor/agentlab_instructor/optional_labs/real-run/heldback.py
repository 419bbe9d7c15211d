"""The held-back tests of real-run."""

import copy

from agentlab_magics import lab

LONG = "z" * 3000


def _record(*results, is_error=False):
    calls = [lab.call("read_file", {"path": f"f{n}.md"}, id=f"c{n}")
             for n in range(1, len(results) + 1)]
    return [lab.user("Read them."), lab.reply(*calls),
            *(lab.tool_result(call, text, is_error=is_error) for call, text in zip(calls, results))]


def test_every_long_result_is_cut_not_only_the_first(harness):
    """Every result over max_chars is cut, wherever it is in the record."""
    sent = harness.request_for(copy.deepcopy(_record(LONG, "short", LONG)), 100)
    lengths = [len(message["content"]) for message in sent[2:]]
    assert lengths[1] == len("short") and all(length < 200 for length in lengths), \
        f"Each long result should be cut to 100 characters and a line: {lengths}"


def test_a_long_failed_result_is_cut_and_stays_a_failure(harness):
    """A failed result over max_chars is cut too, and still says it failed."""
    sent = harness.request_for(copy.deepcopy(_record(LONG, is_error=True)), 100)
    assert sent[2]["is_error"] is True and sent[2]["content"][:100] == LONG[:100], \
        "A long failed result should be cut and keep is_error."
