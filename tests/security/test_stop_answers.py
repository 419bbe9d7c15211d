"""The answer a student process gives as the judge stops its test (SIGUSR2: its line, its
output and the handed lists as they stand) is the student's word like any message: a forged
one that names a list never handed, an object never lent, or nothing at all ends the test
with a sentence and earns nothing, as does a process that never answers."""

from __future__ import annotations

import pytest

from tests.checking.test_judge_protocol import check

SPIN_WITH = """
import signal
def answer(*_):
    {answer}
signal.signal(signal.SIGUSR2, answer)
while True:
    pass
"""
FORGED = {
    "a list never handed": 'say({"k": "spun", "line": 3, "final": True, '
                           '"sync": [{"$r": 99999, "v": ["forged"]}]})',
    "an object never lent": 'say({"k": "spun", "line": 3, "final": True, "sync": [{"$h": 4242}]})',
    "a line that is not a number": 'say({"k": "spun", "line": "3", "final": True})',
    "a frame cut short": 'os.write(out, b"\\x40\\x00\\x00\\x00{")',
    "no answer at all": "pass",
}


@pytest.mark.parametrize("answer", FORGED.values(), ids=FORGED)
def test_a_forged_stop_answer_ends_the_test_with_a_sentence_and_earns_nothing(answer):
    report = check(SPIN_WITH.format(answer=answer), timeout=0.3)
    assert report.problem is None and report.outcomes
    assert not [outcome.name for outcome in report.outcomes if outcome.passed]
    for outcome in report.outcomes:
        assert outcome.outcome in ("timeout", "error") and outcome.message, outcome
        assert outcome.spun_on is None  # no line of a file the judge never loaded
