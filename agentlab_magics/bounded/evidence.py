"""The unit's three evidence files: written atomically, read back only after their shape is checked.

``ch03-unit-a-handoff-v1.json`` holds the connected run, ``ch03-a-submission-v1.json`` the
learner's submission and ``ch03-a-llm-lab-report-v1.json`` the scripted/live comparison. A
loader either returns the validated record or raises ``EvidenceError`` with one sentence
naming the file, the field and what to do about it.
"""

import json
import os
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, JsonValue, NonNegativeInt, ValidationError

from agentlab_magics.bounded.files import write_json
from agentlab_magics.bounded.status import Status

HANDOFF_FILE = "ch03-unit-a-handoff-v1.json"
SUBMISSION_FILE = "ch03-a-submission-v1.json"
LLM_LAB_REPORT_FILE = "ch03-a-llm-lab-report-v1.json"


class EvidenceError(ValueError):
    """An evidence file is missing, is not JSON, or does not have the expected shape."""


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Message(_Record):
    """A chat-completions message as the loop records it."""

    role: Literal["system", "user", "assistant", "tool"]
    content: str | None = None
    tool_calls: list[dict[str, JsonValue]] | None = None
    tool_call_id: str | None = None


class Handoff(_Record):
    """The connected run from section 4; ``answer`` is present only when the run answered."""

    status: Status
    messages: list[Message]
    model_calls: NonNegativeInt
    tool_calls: NonNegativeInt
    estimated_cents: NonNegativeInt
    answer: str | None = None


class PredictionNotes(_Record):
    prediction: str
    reason: str
    falsifier: str
    revision: str


class ExplanationNotes(_Record):
    causal_trace: str
    failed_hypothesis: str
    remaining_limit: str


class ExerciseReport(_Record):
    unit: Literal["ch03-a"]
    attempted: NonNegativeInt
    completed: NonNegativeInt
    failed: NonNegativeInt
    skipped: NonNegativeInt
    connection: Literal["PASSED", "NOT_READY"]
    handoff: Literal["WRITTEN", "NOT_WRITTEN"]


class TransferObservation(_Record):
    case: str
    expected: JsonValue
    observed: JsonValue
    passed: bool


class Submission(_Record):
    """The learner's retained submission for unit ch03-a."""

    unit: Literal["ch03-a"]
    planned_minutes: NonNegativeInt
    starting_evidence: str
    prediction: PredictionNotes
    explanation: ExplanationNotes
    core_report: ExerciseReport
    transfer: list[TransferObservation]
    explanation_review: str


class Refusal(_Record):
    call: str
    reason: str
    exposure_cents: NonNegativeInt


class ScriptedSection(_Record):
    status: Status
    model_calls: NonNegativeInt
    tool_calls: NonNegativeInt
    estimated_cost_cents: NonNegativeInt
    refused: list[Refusal]
    drafted: list[str]
    own_loop_agrees: bool


class SessionSection(_Record):
    source: Literal["live", "scripted"]
    model: str | None
    status: Status
    model_calls: NonNegativeInt
    tool_calls: NonNegativeInt
    estimated_cost_cents: NonNegativeInt
    drafted: list[dict[str, JsonValue]]
    refused: list[Refusal]
    answer: str


class LimitsSection(_Record):
    call_limit: Status
    cost_limit: Status
    tool_limit: Status
    precedence: Status


class LlmLabReport(_Record):
    """The scripted run, the session's run (live or scripted) and the four limit runs."""

    unit: Literal["ch03-a"]
    scripted: ScriptedSection
    session: SessionSection
    limits: LimitsSection


_REMEDIES = {
    Handoff: "rerun section 4 (connecting admission to the loop) and section 5, which saves it",
    Submission: "rerun the cell that saves your evidence after filling in your notes",
    LlmLabReport: "rerun the extension's challenge cell, which saves the LLM lab report",
}

Record = TypeVar("Record", Handoff, Submission, LlmLabReport)


def write_handoff(path: str | os.PathLike[str], run: dict[str, Any]) -> Path:
    """Check the connected run's shape, then write it atomically."""
    return _write(path, Handoff, run)


def write_submission(path: str | os.PathLike[str], submission: dict[str, Any]) -> Path:
    """Check the submission's shape, then write it atomically."""
    return _write(path, Submission, submission)


def write_llm_lab_report(path: str | os.PathLike[str], report: dict[str, Any]) -> Path:
    """Check the LLM lab report's shape, then write it atomically."""
    return _write(path, LlmLabReport, report)


def load_handoff(path: str | os.PathLike[str]) -> Handoff:
    """The validated handoff, or EvidenceError saying what is wrong and how to recreate it."""
    return _load(path, Handoff)


def load_submission(path: str | os.PathLike[str]) -> Submission:
    """The validated submission, or EvidenceError saying what is wrong and how to recreate it."""
    return _load(path, Submission)


def load_llm_lab_report(path: str | os.PathLike[str]) -> LlmLabReport:
    """The validated LLM lab report, or EvidenceError saying what is wrong and how to redo it."""
    return _load(path, LlmLabReport)


def _write(path: str | os.PathLike[str], shape: type[Record], data: dict[str, Any]) -> Path:
    target = Path(path)
    try:
        shape.model_validate(data)
    except ValidationError as error:
        raise EvidenceError(_shape_sentence(target, shape, error, "was not written")) from error
    return write_json(target, data)


def _load(path: str | os.PathLike[str], shape: type[Record]) -> Record:
    source = Path(path)
    remedy = _REMEDIES[shape]
    try:
        text = source.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise EvidenceError(
            f"Evidence file {source.name} was not found at {source.absolute()}; "
            f"{remedy}, then load it again."
        ) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise EvidenceError(
            f"Evidence file {source.name} is not valid JSON (line {error.lineno}, column "
            f"{error.colno}: {error.msg}); it was probably cut short or edited by hand, "
            f"so {remedy}."
        ) from None
    try:
        return shape.model_validate(data)
    except ValidationError as error:
        raise EvidenceError(_shape_sentence(source, shape, error, "cannot be used")) from None


def _shape_sentence(
    path: Path, shape: type[BaseModel], error: ValidationError, outcome: str
) -> str:
    first = error.errors(include_input=False, include_url=False)[0]
    field = ".".join(str(part) for part in first["loc"]) or "(the whole file)"
    more = error.error_count() - 1
    others = f" (and {more} more problem{'s' if more != 1 else ''})" if more else ""
    return (
        f"Evidence file {path.name} {outcome}: "
        f"field '{field}' is invalid ({first['msg']}){others}; "
        f"{_REMEDIES[shape]} instead of editing the file by hand."
    )
