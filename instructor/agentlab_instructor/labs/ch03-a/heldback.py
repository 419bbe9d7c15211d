"""Unit ch03-a's held-back test: boundary cases of decide_admission the notebook never shows."""

from agentlab_labs.ch03_a.tests import check

# Boundary cases in the shape of agentlab_magics.bounded.admission.VISIBLE_CASES; each
# expectation was worked by hand.
INSTRUCTOR_ADMISSION_CASES = (
    ({"used_calls": 2, "max_calls": 5, "spent": 6, "next_cost": 4, "budget": 10}, "CALL"),
    (
        {"used_calls": 2, "max_calls": 5, "spent": 7, "next_cost": 4, "budget": 10},
        "MODEL_COST_LIMIT",
    ),
    ({"used_calls": 0, "max_calls": 1, "spent": 0, "next_cost": 0, "budget": 0}, "CALL"),
    (
        {"used_calls": 0, "max_calls": 1, "spent": 0, "next_cost": 1, "budget": 0},
        "MODEL_COST_LIMIT",
    ),
    (
        {"used_calls": 0, "max_calls": 0, "spent": 0, "next_cost": 0, "budget": 9},
        "MODEL_CALL_LIMIT",
    ),
    (
        {"used_calls": 4, "max_calls": 4, "spent": 9, "next_cost": 5, "budget": 9},
        "MODEL_CALL_LIMIT",
    ),
    ({"used_calls": 4, "max_calls": 5, "spent": 9, "next_cost": 0, "budget": 9}, "CALL"),
)


def test_the_held_back_cases(harness):
    """The instructor's held-back boundary cases get the right decisions too."""
    check(harness, INSTRUCTOR_ADMISSION_CASES)
