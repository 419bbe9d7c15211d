"""The magics in a real kernel: a student's notebook run by nbclient in python3 (headless: its
execute requests say allow_stdin false) saves every view as its static HTML and text, marked as
ours, with no widget view and no widget state, and the progress file the kernel was pointed at
(AGENTLAB_PROGRESS, inherited from this process) records the lab.
"""

from __future__ import annotations

import json

import pytest

from agentlab_magics.widgets.rendering import MARK
from tests.student_notebook import (
    BROKEN_CHECK,
    BROKEN_SUMMARY,
    EMPTY_FAILURE,
    FAILING,
    LOAD,
    PASSING,
    QUESTION,
    REFERENCE_CHECK,
    REFERENCE_SUMMARY,
    TRANSCRIPT,
    UNANSWERED,
    executed_notebook,
    outcome_in,
)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """(the executed notebook, the progress file its kernel wrote)."""
    folder = tmp_path_factory.mktemp("kernel")
    progress = folder / "progress.json"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AGENTLAB_PROGRESS", str(progress))
        notebook = executed_notebook(folder / "lesson5.ipynb")
    return notebook, progress


def view(notebook, index: int, kind: str) -> dict:
    """The data of cell `index`'s one output: a view of `kind`, static HTML and text only."""
    (output,) = notebook.cells[index].outputs
    assert output.output_type == "display_data"
    assert set(output["data"]) == {"text/html", "text/plain"}
    assert output["metadata"][MARK]["view"] == kind
    return output["data"]


def test_no_widget_state_is_saved(run):
    assert "widgets" not in run[0].metadata


def test_loading_the_extension_prints_nothing(run):
    notebook, _ = run
    assert notebook.cells[LOAD].outputs == []


def test_the_reference_check_saves_a_passing_report(run):
    data = view(run[0], REFERENCE_CHECK, "report")
    assert REFERENCE_SUMMARY in data["text/html"]
    assert data["text/plain"].startswith(REFERENCE_SUMMARY)
    assert outcome_in(data["text/html"], PASSING) == "passed"


def test_the_broken_check_saves_a_report_that_names_what_failed(run):
    data = view(run[0], BROKEN_CHECK, "report")
    assert BROKEN_SUMMARY in data["text/html"]
    assert outcome_in(data["text/html"], FAILING) == "failed"
    assert outcome_in(data["text/html"], PASSING) == "passed"
    assert f"✗ {FAILING}" in data["text/plain"]


def test_the_transcript_saves_its_complaints(run):
    data = view(run[0], TRANSCRIPT, "transcript")
    assert 'class="al-transcript al-static"' in data["text/html"]
    assert UNANSWERED in data["text/html"] and EMPTY_FAILURE in data["text/html"]
    assert f"✗ {UNANSWERED}" in data["text/plain"]
    assert "shape: U A(error) U A[c1,c2] R(c1)" in data["text/plain"]


def test_the_question_saves_its_options_and_is_marked_unanswered(run):
    data = view(run[0], QUESTION, "question")
    (output,) = run[0].cells[QUESTION].outputs
    assert output["metadata"][MARK] == {"view": "question", "id": "a4-jumbled-order",
                                        "committed": False}
    assert "%question a4-jumbled-order --answer B" in data["text/plain"]


def test_the_progress_file_records_lesson5(run):
    _, progress = run
    lesson5 = json.loads(progress.read_text(encoding="utf-8"))["labs"]["lesson5"]
    assert lesson5["passed"] is True and len(lesson5["tests_passed"]) == 10
