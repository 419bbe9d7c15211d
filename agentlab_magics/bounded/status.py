"""The terminal statuses of a bounded run: every run ends with exactly one of these strings."""

from typing import Literal

Status = Literal[
    "COMPLETED",
    "EMPTY_REPLY",
    "MODEL_CALL_LIMIT",
    "MODEL_COST_LIMIT",
    "MODEL_FAILED",
    "REPEATED_CALL_ID",
    "TOKEN_LIMIT",
    "TOOL_LIMIT",
]

COMPLETED: Status = "COMPLETED"
EMPTY_REPLY: Status = "EMPTY_REPLY"
MODEL_CALL_LIMIT: Status = "MODEL_CALL_LIMIT"
MODEL_COST_LIMIT: Status = "MODEL_COST_LIMIT"
MODEL_FAILED: Status = "MODEL_FAILED"
REPEATED_CALL_ID: Status = "REPEATED_CALL_ID"
TOKEN_LIMIT: Status = "TOKEN_LIMIT"
TOOL_LIMIT: Status = "TOOL_LIMIT"

STATUSES: frozenset[str] = frozenset(Status.__args__)  # type: ignore[attr-defined]
