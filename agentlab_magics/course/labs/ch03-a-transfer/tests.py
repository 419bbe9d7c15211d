"""Unit ch03-a, transfer: transfer_check, the same decision with an estimate that varies."""

from agentlab_magics.bounded.admission import TRANSFER_CASES
from agentlab_magics.course.labtests.admission import explain, wrong_rows

ANSWERS = ("CALL", "CALL_LIMIT", "COST_LIMIT")


def rows(table):
    return [(arguments[0], expected) for _, arguments, expected in table]


def state(calls, most, spent, cost, budget):
    return {"calls": calls, "max_calls": most, "spent": spent, "next_cost": cost, "budget": budget}


def check(harness, table_rows):
    problems = wrong_rows("transfer_check", harness.transfer_check, table_rows, ANSWERS)
    assert not problems, explain("transfer_check", problems)


def test_the_transfer_cases(harness):
    """The four transfer cases in the notebook get the decisions it lists."""
    check(harness, rows(TRANSFER_CASES))


def test_a_large_estimate_landing_on_the_budget(harness):
    """A large next estimate that lands exactly on the budget is admitted."""
    check(harness, [(state(2, 6, 11, 9, 20), "CALL"), (state(4, 5, 25, 5, 30), "CALL")])


def test_one_cent_over(harness):
    """One cent over the budget is a cost refusal, whatever the estimate."""
    check(harness, [(state(2, 6, 12, 9, 20), "COST_LIMIT"), (state(0, 2, 0, 1, 0), "COST_LIMIT")])


def test_calls_before_cost(harness):
    """When calls and money are both used up, the answer is CALL_LIMIT."""
    check(harness, [(state(5, 5, 30, 8, 30), "CALL_LIMIT"), (state(0, 0, 0, 1, 50), "CALL_LIMIT")])
