"""Graded cells in a real kernel: checkpoint A as released, run from the top by nbclient with
its defaults (a cell's error stops the run unless the cell is tagged `raises-exception`).

The first lab is left as its starter, so each of its graded cells fails; the second lab holds
its reference. The run must go on past the failing cells to the second lab, and each failing
graded cell must show its report once and then one line of error, no traceback into our code.
"""

from __future__ import annotations

import sys

import pytest
from nbclient import NotebookClient

from agentlab_magics.course import find_lab
from agentlab_magics.course.assignments import find_assignment
from agentlab_magics.making.notebooks import notebook

FIRST, SECOND = "checkpoint-a", "checkpoint-a-test"


def graded(executed, lab_id: str) -> list:
    """The graded cells of `lab_id`, one per group of its tests."""
    (assigned,) = [assigned for assigned in find_assignment("checkpoint-a").labs
                   if assigned.lab == lab_id]
    ids = {f"tests-{lab_id}-{group.id}" for group in assigned.groups}
    return [cell for cell in executed.cells
            if cell.metadata.get("nbgrader", {}).get("grade_id") in ids]


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    """The student's notebook of checkpoint A after nbclient ran it: the first lab's starter
    untouched, the second lab's cell given the reference."""
    folder = tmp_path_factory.mktemp("graded")
    made = notebook(find_assignment("checkpoint-a"), student=True)
    (second,) = [cell for cell in made.cells if cell.source.startswith(f"%%check {SECOND}\n")]
    second.source = f"%%check {SECOND}\n{find_lab(SECOND).reference}"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AGENTLAB_PROGRESS", str(folder / "progress.json"))
        NotebookClient(made, kernel_name="python3", timeout=300,
                       resources={"metadata": {"path": str(folder)}}).execute()
    return made


def test_run_all_goes_on_past_the_failing_graded_cells_to_the_second_lab(executed):
    assert all(cell.execution_count for cell in executed.cells if cell.cell_type == "code")
    (second,) = [cell for cell in executed.cells if cell.source.startswith(f"%%check {SECOND}\n")]
    assert "4 of 4 tests passed" in second.outputs[0]["data"]["text/plain"]
    for cell in graded(executed, SECOND):
        assert [output.output_type for output in cell.outputs] == ["display_data"], cell.source


def test_a_failing_graded_cell_shows_its_report_once_then_one_line(executed):
    failing = graded(executed, FIRST)
    assert len(failing) == 4
    for cell in failing:
        shown, error = cell.outputs
        assert shown.output_type == "display_data" and error.output_type == "error"
        summary = shown["data"]["text/plain"].splitlines()[0]
        assert "tests passed" in summary
        (line,) = error.traceback
        assert error.ename == "GradeFailed" and line == error.evalue
        assert line.endswith("failed: the cell's report says which, and why."), line
        assert summary not in line and "\n" not in line
        assert "agentlab_magics" not in line and ".py" not in line and "\x1b" not in line


def test_the_graded_cells_are_tagged_to_let_the_run_go_on(executed):
    for lab_id in (FIRST, SECOND):
        for cell in graded(executed, lab_id):
            assert cell.metadata["tags"] == ["raises-exception"]


def test_a_grade_with_nothing_to_grade_is_one_line_in_an_ipython_shell(capsys, monkeypatch):
    from IPython.core.interactiveshell import InteractiveShell

    monkeypatch.delitem(sys.modules, "harness", raising=False)
    shell = InteractiveShell.instance()
    try:
        result = shell.run_cell("from agentlab_magics.grading import grade\n"
                                'grade("lesson1", "chat")')
    finally:
        InteractiveShell.clear_instance()
    assert type(result.error_in_exec).__name__ == "GradeFailed"
    assert capsys.readouterr().out.strip() == (
        "Nothing to grade: the `%%check lesson1` cell has not run without errors, so there is "
        "no code to check.")
