"""Unit ch03-a's held-back transfer test: boundary cases of transfer_check the notebook never
shows."""

from agentlab_labs.ch03_a_transfer.tests import check, rows

# Boundary cases in the shape of agentlab_magics.bounded.admission.TRANSFER_CASES; the
# estimate varies between rows.
INSTRUCTOR_TRANSFER_CASES = (
    (
        "large estimate lands exactly on the budget",
        [{"calls": 2, "max_calls": 6, "spent": 11, "next_cost": 9, "budget": 20}],
        "CALL",
    ),
    (
        "one cent over",
        [{"calls": 2, "max_calls": 6, "spent": 12, "next_cost": 9, "budget": 20}],
        "COST_LIMIT",
    ),
    (
        "zero budget, free attempt",
        [{"calls": 0, "max_calls": 2, "spent": 0, "next_cost": 0, "budget": 0}],
        "CALL",
    ),
    (
        "zero budget, paid attempt",
        [{"calls": 0, "max_calls": 2, "spent": 0, "next_cost": 1, "budget": 0}],
        "COST_LIMIT",
    ),
    (
        "zero attempts with money left",
        [{"calls": 0, "max_calls": 0, "spent": 0, "next_cost": 1, "budget": 50}],
        "CALL_LIMIT",
    ),
    (
        "both limits exhausted",
        [{"calls": 5, "max_calls": 5, "spent": 30, "next_cost": 8, "budget": 30}],
        "CALL_LIMIT",
    ),
    (
        "last attempt, last cents",
        [{"calls": 4, "max_calls": 5, "spent": 25, "next_cost": 5, "budget": 30}],
        "CALL",
    ),
)


def test_the_held_back_cases(harness):
    """The instructor's held-back cases get the right decisions too."""
    check(harness, rows(INSTRUCTOR_TRANSFER_CASES))
