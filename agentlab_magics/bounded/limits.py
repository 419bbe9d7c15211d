"""Configured bounds for one run: validated once, frozen, and read by every admission decision."""

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, NonNegativeInt


class Limits(BaseModel):
    """Every bound is a finite nonnegative number fixed before the run; the run cannot raise it.

    The defaults are the unit's base limits: eight attempts at an estimated 2 cents each
    against a 20 cent budget, so the call limit is reached before the cost limit.
    """

    model_config = ConfigDict(frozen=True, strict=True, extra="forbid")

    model_calls: NonNegativeInt = 8
    tool_calls: NonNegativeInt = 16
    seconds: Annotated[float, Field(ge=0, allow_inf_nan=False)] = 120.0
    output_tokens: NonNegativeInt = 4096
    total_output_tokens: NonNegativeInt = 16_384
    estimated_call_cents: NonNegativeInt = 2
    model_budget_cents: NonNegativeInt = 20

    def __str__(self) -> str:
        return repr(self)
