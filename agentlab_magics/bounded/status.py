"""The terminal statuses of a bounded run: every run ends with exactly one of these strings."""

from typing import Literal

COMPLETED = "COMPLETED"
EMPTY_REPLY = "EMPTY_REPLY"
MODEL_CALL_LIMIT = "MODEL_CALL_LIMIT"
MODEL_COST_LIMIT = "MODEL_COST_LIMIT"
MODEL_FAILED = "MODEL_FAILED"
REPEATED_CALL_ID = "REPEATED_CALL_ID"
TOKEN_LIMIT = "TOKEN_LIMIT"
TOOL_LIMIT = "TOOL_LIMIT"

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

STATUSES: frozenset[str] = frozenset(Status.__args__)
