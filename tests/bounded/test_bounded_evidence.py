"""Evidence files: what the writers save, the loader gives back; a missing, truncated or
misshapen file produces one sentence naming the file, the field and the remedy."""

import copy
import json

import pytest

from agentlab_magics.bounded import (
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

HANDOFF = {
    "status": "COMPLETED",
    "messages": [
        {"role": "system", "content": "Use stock tools to prepare drafts. Never purchase."},
        {"role": "user", "content": "What needs ordering?"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "stock-1",
                    "type": "function",
                    "function": {"name": "list_stock", "arguments": "{}"},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "stock-1", "content": '{"products": []}'},
        {"role": "assistant", "content": "Nothing needs ordering."},
    ],
    "model_calls": 2,
    "tool_calls": 1,
    "estimated_cents": 4,
    "answer": "Nothing needs ordering.",
}

SUBMISSION = {
    "unit": "ch03-a",
    "planned_minutes": 90,
    "starting_evidence": "INDEPENDENT_UNIT_A",
    "prediction": {"prediction": "p", "reason": "r", "falsifier": "f", "revision": "v"},
    "explanation": {"causal_trace": "c", "failed_hypothesis": "h", "remaining_limit": "l"},
    "core_report": {
        "unit": "ch03-a",
        "attempted": 1,
        "completed": 1,
        "failed": 0,
        "skipped": 0,
        "connection": "PASSED",
        "handoff": "WRITTEN",
    },
    "transfer": [
        {"case": "exact fit", "expected": "CALL", "observed": "CALL", "passed": True},
        {
            "case": "unfinished",
            "expected": "CALL",
            "observed": {"unfinished": True},
            "passed": False,
        },
    ],
    "explanation_review": "HUMAN_REVIEW_REQUIRED",
}

REFUSAL = {"call": "scripted-3-call-2", "reason": "DRAFT_COST_LIMIT", "exposure_cents": 2600}
LLM_LAB_REPORT = {
    "unit": "ch03-a",
    "scripted": {
        "status": "COMPLETED",
        "model_calls": 5,
        "tool_calls": 6,
        "estimated_cost_cents": 10,
        "refused": [REFUSAL],
        "drafted": ["SKU-VANILLA"],
        "own_loop_agrees": True,
    },
    "session": {
        "source": "scripted",
        "model": None,
        "status": "COMPLETED",
        "model_calls": 5,
        "tool_calls": 6,
        "estimated_cost_cents": 10,
        "drafted": [{"quantity": 6, "sku": "SKU-VANILLA"}],
        "refused": [REFUSAL],
        "answer": "Drafted vanilla.",
    },
    "limits": {
        "call_limit": "MODEL_CALL_LIMIT",
        "cost_limit": "MODEL_COST_LIMIT",
        "tool_limit": "TOOL_LIMIT",
        "precedence": "MODEL_CALL_LIMIT",
    },
}

KINDS = [
    (HANDOFF_FILE, HANDOFF, write_handoff, load_handoff),
    (SUBMISSION_FILE, SUBMISSION, write_submission, load_submission),
    (LLM_LAB_REPORT_FILE, LLM_LAB_REPORT, write_llm_lab_report, load_llm_lab_report),
]
IDS = ["handoff", "submission", "llm-lab-report"]


@pytest.mark.parametrize(("name", "data", "write", "load"), KINDS, ids=IDS)
def test_what_is_written_loads_back_unchanged(tmp_path, name, data, write, load):
    path = write(tmp_path / name, data)
    assert json.loads(path.read_text(encoding="utf-8")) == data
    assert load(path).model_dump(exclude_unset=True) == data


@pytest.mark.parametrize(("name", "data", "write", "load"), KINDS, ids=IDS)
def test_a_missing_file_names_itself_and_the_cell_to_rerun(tmp_path, name, data, write, load):
    with pytest.raises(EvidenceError) as raised:
        load(tmp_path / name)
    message = str(raised.value)
    assert message.startswith(f"Evidence file {name} was not found at ") and "rerun" in message


@pytest.mark.parametrize(("name", "data", "write", "load"), KINDS, ids=IDS)
def test_a_truncated_file_is_reported_as_not_json(tmp_path, name, data, write, load):
    path = write(tmp_path / name, data)
    path.write_text(path.read_text(encoding="utf-8")[:40], encoding="utf-8")
    with pytest.raises(
        EvidenceError, match=rf"^Evidence file {name} is not valid JSON \(line \d+, column \d+"
    ):
        load(path)


@pytest.mark.parametrize(
    ("name", "load", "edit", "field"),
    [
        (
            HANDOFF_FILE,
            load_handoff,
            lambda d: d["messages"][3].update(role="observer"),
            "messages.3.role",
        ),
        (HANDOFF_FILE, load_handoff, lambda d: d.update(status="FINISHED"), "status"),
        (
            SUBMISSION_FILE,
            load_submission,
            lambda d: d["core_report"].pop("connection"),
            "core_report.connection",
        ),
        (
            SUBMISSION_FILE,
            load_submission,
            lambda d: d.update(planned_minutes="ninety"),
            "planned_minutes",
        ),
        (
            SUBMISSION_FILE,
            load_submission,
            lambda d: d["transfer"][1].pop("passed"),
            "transfer.1.passed",
        ),
        (
            LLM_LAB_REPORT_FILE,
            load_llm_lab_report,
            lambda d: d["session"].update(source="guess"),
            "session.source",
        ),
        (LLM_LAB_REPORT_FILE, load_llm_lab_report, lambda d: d.update(notes="extra"), "notes"),
    ],
)
def test_a_misshapen_file_names_the_field_and_what_to_do(tmp_path, name, load, edit, field):
    data = copy.deepcopy(
        {HANDOFF_FILE: HANDOFF, SUBMISSION_FILE: SUBMISSION, LLM_LAB_REPORT_FILE: LLM_LAB_REPORT}[
            name
        ]
    )
    edit(data)
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(EvidenceError) as raised:
        load(path)
    message = str(raised.value)
    assert message.startswith(f"Evidence file {name} cannot be used: field '{field}' is invalid (")
    assert "rerun" in message and "instead of editing the file by hand" in message


def test_a_file_that_is_json_but_not_an_object_names_the_whole_file(tmp_path):
    path = tmp_path / SUBMISSION_FILE
    path.write_text('["not", "a", "submission"]', encoding="utf-8")
    with pytest.raises(EvidenceError, match=r"field '\(the whole file\)' is invalid"):
        load_submission(path)


def test_a_writer_refuses_a_misshapen_record_and_writes_nothing(tmp_path):
    broken = copy.deepcopy(SUBMISSION)
    del broken["explanation"]["remaining_limit"]
    expected = r"was not written: field 'explanation\.remaining_limit'"
    with pytest.raises(EvidenceError, match=expected):
        write_submission(tmp_path / SUBMISSION_FILE, broken)
    assert list(tmp_path.iterdir()) == []
