"""The bounded agent loop unit: admission under call and cost limits, a strict tool dispatcher,
scripted, live and replayed models, and the unit's evidence files.

Importing this package loads neither ``openai`` nor the shop; ``agentlab_magics.bounded.shop``
and ``agentlab_magics.bounded.chapter3`` are imported when needed.
"""

from agentlab_magics.bounded.admission import (
    TRANSFER_CASES,
    VISIBLE_CASES,
    decide_admission,
    transfer_check,
)
from agentlab_magics.bounded.dispatch import TOOL_FAILED, Dispatcher, ExecutableTool, ToolCall
from agentlab_magics.bounded.evidence import (
    HANDOFF_FILE,
    LLM_LAB_REPORT_FILE,
    SUBMISSION_FILE,
    EvidenceError,
    load_handoff,
    load_llm_lab_report,
    load_submission,
    write_handoff,
    write_llm_lab_report,
    write_submission,
)
from agentlab_magics.bounded.files import write_json
from agentlab_magics.bounded.limits import Limits
from agentlab_magics.bounded.live import DEFAULT_MODEL, OpenAIModel, build_model, resolve_api_key
from agentlab_magics.bounded.loop import LoopResult, run_loop
from agentlab_magics.bounded.models import (
    Model,
    ModelError,
    ModelTurn,
    ScriptedModel,
    ScriptedTurn,
    scripted_turn,
)
from agentlab_magics.bounded.replay import (
    Recording,
    RecordingModel,
    RecordingProblem,
    ReplayModel,
    load_recording,
)
from agentlab_magics.bounded.status import (
    COMPLETED,
    EMPTY_REPLY,
    MODEL_CALL_LIMIT,
    MODEL_COST_LIMIT,
    MODEL_FAILED,
    REPEATED_CALL_ID,
    STATUSES,
    TOKEN_LIMIT,
    TOOL_LIMIT,
)
from agentlab_magics.bounded.trace import describe, tool_trace

__all__ = [
    "COMPLETED",
    "DEFAULT_MODEL",
    "EMPTY_REPLY",
    "HANDOFF_FILE",
    "LLM_LAB_REPORT_FILE",
    "MODEL_CALL_LIMIT",
    "MODEL_COST_LIMIT",
    "MODEL_FAILED",
    "REPEATED_CALL_ID",
    "STATUSES",
    "SUBMISSION_FILE",
    "TOKEN_LIMIT",
    "TOOL_FAILED",
    "TOOL_LIMIT",
    "TRANSFER_CASES",
    "VISIBLE_CASES",
    "Dispatcher",
    "EvidenceError",
    "ExecutableTool",
    "Limits",
    "LoopResult",
    "Model",
    "ModelError",
    "ModelTurn",
    "OpenAIModel",
    "Recording",
    "RecordingModel",
    "RecordingProblem",
    "ReplayModel",
    "ScriptedModel",
    "ScriptedTurn",
    "ToolCall",
    "build_model",
    "decide_admission",
    "describe",
    "load_handoff",
    "load_llm_lab_report",
    "load_recording",
    "load_submission",
    "resolve_api_key",
    "run_loop",
    "scripted_turn",
    "tool_trace",
    "transfer_check",
    "write_handoff",
    "write_json",
    "write_llm_lab_report",
    "write_submission",
]
