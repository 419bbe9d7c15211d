"""The magics in a real kernel: a student's notebook run by nbclient in python3 saves, for every
view, the widget view beside the static HTML that says the same thing, and the progress file
the kernel was pointed at (AGENTLAB_PROGRESS, inherited from this process) records the lab.
"""

from __future__ import annotations

import json

import pytest

from agentlab_magics.widgets.rendering import WIDGET_VIEW
from tests.student_notebook import (
    BROKEN_CHECK,
    BROKEN_SUMMARY,
    EMPTY_FAILURE,
    FAILING,
    LOAD,
    PASSING,
    REFERENCE_CHECK,
    REFERENCE_SUMMARY,
    TRANSCRIPT,
    UNANSWERED,
    executed_notebook,
    outcome_in,
)

STATE = "application/vnd.jupyter.widget-state+json"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """(the executed notebook, the progress file its kernel wrote)."""
    folder = tmp_path_factory.mktemp("kernel")
    progress = folder / "progress.json"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AGENTLAB_PROGRESS", str(progress))
        notebook = executed_notebook(folder / "lesson5.ipynb")
    return notebook, progress


def view(notebook, index: int) -> tuple[dict, dict]:
    """The one output of cell `index`: (its data, the saved state of its widget's model)."""
    (output,) = notebook.cells[index].outputs
    assert output.output_type == "display_data"
    data = output["data"]
    assert {WIDGET_VIEW, "text/html", "text/plain"} <= set(data)
    states = notebook.metadata["widgets"][STATE]["state"]
    return data, states[data[WIDGET_VIEW]["model_id"]]["state"]


def test_loading_the_extension_prints_nothing(run):
    notebook, _ = run
    assert notebook.cells[LOAD].outputs == []


def test_the_reference_check_saves_a_widget_and_a_passing_report(run):
    data, state = view(run[0], REFERENCE_CHECK)
    assert REFERENCE_SUMMARY in data["text/html"]
    assert data["text/plain"].startswith(REFERENCE_SUMMARY)
    assert outcome_in(data["text/html"], PASSING) == "passed"
    assert state["data"]["summary"] == REFERENCE_SUMMARY


def test_the_broken_check_saves_a_widget_and_names_what_failed(run):
    data, state = view(run[0], BROKEN_CHECK)
    assert BROKEN_SUMMARY in data["text/html"]
    assert outcome_in(data["text/html"], FAILING) == "failed"
    assert outcome_in(data["text/html"], PASSING) == "passed"
    assert f"✗ {FAILING}" in data["text/plain"]
    assert state["data"]["summary"] == BROKEN_SUMMARY


def test_the_transcript_saves_a_widget_and_its_complaints(run):
    data, state = view(run[0], TRANSCRIPT)
    assert 'class="al-transcript al-static"' in data["text/html"]
    assert UNANSWERED in data["text/html"] and EMPTY_FAILURE in data["text/html"]
    assert f"✗ {UNANSWERED}" in data["text/plain"]
    assert state["data"]["shape"] == "U A(error) U A[c1,c2] R(c1)"


def test_the_progress_file_records_lesson5(run):
    _, progress = run
    lesson5 = json.loads(progress.read_text(encoding="utf-8"))["labs"]["lesson5"]
    assert lesson5["passed"] is True and len(lesson5["tests_passed"]) == 10
