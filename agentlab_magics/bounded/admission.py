"""Admission of the next model attempt: the call count is checked first, then cost exposure.

An attempt is refused when the used attempts have reached the maximum, otherwise when the
money already charged plus the next attempt's estimate would exceed the budget. Reaching the
budget exactly is allowed. The same rule serves the loop (``decide_admission``) and the
variable-cost transfer task (``transfer_check``); only the vocabulary differs.

The case tables are data, importable by checkers: ``VISIBLE_CASES`` and ``TRANSFER_CASES``
are the ones the learner sees. The boundary cases held back for grading are the instructor's,
in the heldback.py of ch03-a's and ch03-a-transfer's parts in the instructor package, and
never ship here.
"""

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, NonNegativeInt

Admission = Literal["CALL", "MODEL_CALL_LIMIT", "MODEL_COST_LIMIT"]
CALL: Admission = "CALL"


class _Exposure(BaseModel):
    """Validated counters for one admission question; input dictionaries are only read."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)

    calls: NonNegativeInt
    max_calls: NonNegativeInt
    spent: NonNegativeInt
    next_cost: NonNegativeInt
    budget: NonNegativeInt

    def refusal(self) -> str | None:
        """'calls' when no attempt is left, else 'cost' if the estimate would overrun, else None."""
        if self.calls >= self.max_calls:
            return "calls"
        if self.spent + self.next_cost > self.budget:
            return "cost"
        return None


class _LoopExposure(_Exposure):
    """The loop's spelling of the same counters: the used attempts arrive as ``used_calls``."""

    calls: NonNegativeInt = Field(alias="used_calls")


def decide_admission(case: dict[str, Any]) -> Admission:
    """CALL, MODEL_CALL_LIMIT or MODEL_COST_LIMIT for the loop's counters (used_calls, ...)."""
    exposure = _LoopExposure.model_validate(case)
    answers: dict[str | None, Admission] = {None: CALL, "calls": "MODEL_CALL_LIMIT",
                                            "cost": "MODEL_COST_LIMIT"}
    return answers[exposure.refusal()]


def transfer_check(state: dict[str, Any]) -> str:
    """CALL, CALL_LIMIT or COST_LIMIT for keys calls, max_calls, spent, next_cost, budget."""
    exposure = _Exposure.model_validate(state)
    return {None: CALL, "calls": "CALL_LIMIT", "cost": "COST_LIMIT"}[exposure.refusal()]


# (case, expected) rows for decide_admission, exactly as the learner sees them.
VISIBLE_CASES = (
    ({"used_calls": 0, "max_calls": 3, "spent": 0, "next_cost": 2, "budget": 6}, "CALL"),
    (
        {"used_calls": 3, "max_calls": 3, "spent": 0, "next_cost": 0, "budget": 6},
        "MODEL_CALL_LIMIT",
    ),
    (
        {"used_calls": 1, "max_calls": 3, "spent": 5, "next_cost": 2, "budget": 6},
        "MODEL_COST_LIMIT",
    ),
    ({"used_calls": 1, "max_calls": 3, "spent": 4, "next_cost": 2, "budget": 6}, "CALL"),
)

# (label, positional arguments, expected) rows for transfer_check, exactly as the learner sees them.
TRANSFER_CASES = (
    ("exact fit", [{"calls": 1, "max_calls": 3, "spent": 4, "next_cost": 3, "budget": 7}], "CALL"),
    (
        "next attempt too costly",
        [{"calls": 1, "max_calls": 3, "spent": 4, "next_cost": 4, "budget": 7}],
        "COST_LIMIT",
    ),
    (
        "two exhausted limits",
        [{"calls": 3, "max_calls": 3, "spent": 7, "next_cost": 1, "budget": 7}],
        "CALL_LIMIT",
    ),
    (
        "zero allowed attempts",
        [{"calls": 0, "max_calls": 0, "spent": 0, "next_cost": 0, "budget": 0}],
        "CALL_LIMIT",
    ),
)
