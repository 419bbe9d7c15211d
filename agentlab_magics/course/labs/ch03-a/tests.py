"""Unit ch03-a: decide_admission, the decision made before every model attempt."""

from agentlab_magics.bounded.admission import VISIBLE_CASES
from agentlab_magics.course.labtests.admission import explain, wrong_rows

ANSWERS = ("CALL", "MODEL_CALL_LIMIT", "MODEL_COST_LIMIT")


def case(used, most, spent, cost, budget):
    return {"used_calls": used, "max_calls": most, "spent": spent, "next_cost": cost,
            "budget": budget}


def check(harness, rows):
    problems = wrong_rows("decide_admission", harness.decide_admission, rows, ANSWERS)
    assert not problems, explain("decide_admission", problems)


def test_the_visible_cases(harness):
    """The four cases in the notebook get the decisions it lists."""
    check(harness, VISIBLE_CASES)


def test_landing_exactly_on_the_budget_is_admitted(harness):
    """An attempt that brings spending exactly to the budget is admitted: equality is allowed."""
    check(harness, [(case(1, 5, 6, 4, 10), "CALL"), (case(0, 1, 0, 0, 0), "CALL")])


def test_one_cent_over_is_refused(harness):
    """An attempt that would take spending one cent past the budget is refused for cost."""
    check(harness, [(case(1, 5, 7, 4, 10), "MODEL_COST_LIMIT"),
                    (case(0, 1, 0, 1, 0), "MODEL_COST_LIMIT")])


def test_the_call_limit_is_checked_first(harness):
    """When both limits are exhausted the answer is the call limit, because it is checked first."""
    check(harness, [(case(3, 3, 7, 1, 7), "MODEL_CALL_LIMIT"),
                    (case(2, 2, 9, 5, 9), "MODEL_CALL_LIMIT")])


def test_no_attempts_allowed(harness):
    """With max_calls at 0 no attempt is admitted, not even a free one with money left."""
    check(harness, [(case(0, 0, 0, 0, 9), "MODEL_CALL_LIMIT")])
