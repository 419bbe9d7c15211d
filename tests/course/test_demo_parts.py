"""The parts of `agentlab course demo` that need no nbgrader run: the simulated students'
harnesses, the task graph, the progress bar, the grade table and the command's errors."""

from __future__ import annotations

import io
import threading
import time

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from agentlab_magics.checking.cell_source import load
from agentlab_magics.checking.runner import run as check
from agentlab_magics.cli import main
from agentlab_magics.course import find_lab, labs
from agentlab_magics.demos.students import (
    HANGING,
    STUDENTS,
    WRONG,
    Edit,
    graded_cells,
    harness,
    harness_cells,
    lab_of,
    submission,
)
from agentlab_magics.demos.task_graph import Task, run_tasks
from agentlab_magics.term.grade_table import CellGrade, GradeTable
from agentlab_magics.term.progress_bar import ProgressBar


def _outcomes(lab_id: str, student: str, timeout: float) -> dict[str, str]:
    lab = find_lab(lab_id)
    report = check(lab.id, load(harness(student, lab.id), "harness.py", lab.module),
                          timeout=timeout, held_back=True)
    assert report.problem is None, report.problem
    return {outcome.name: outcome.outcome for outcome in report.outcomes}


def test_every_lab_has_a_wrong_and_a_hanging_harness():
    assert set(WRONG) == set(HANGING) == set(labs())


@pytest.mark.parametrize("lab", list(WRONG))
def test_the_wrong_harness_fails_some_tests_and_passes_others(lab):
    outcomes = _outcomes(lab, "wrong", timeout=5)
    assert "failed" in outcomes.values() or "error" in outcomes.values()
    assert "passed" in outcomes.values()
    assert "timeout" not in outcomes.values()


@pytest.mark.parametrize("lab", list(HANGING))
def test_the_hanging_harness_runs_out_of_time_and_nothing_else(lab):
    outcomes = _outcomes(lab, "hanging", timeout=0.2)
    assert "timeout" in outcomes.values()
    assert set(outcomes.values()) <= {"timeout", "passed"}


def test_an_edit_that_does_not_apply_says_so():
    with pytest.raises(ValueError, match="0 times, not once"):
        Edit("nothing", "not in it", "x").apply("reference")


def _released() -> object:
    meta = {"schema_version": 3, "grade": False, "locked": False, "solution": True}
    return new_notebook(cells=[
        new_code_cell("%load_ext agentlab_magics"),
        new_code_cell("%%check ch03-a\n# YOUR CODE HERE\npass",
                      metadata={"nbgrader": {**meta, "grade_id": "harness"}}),
        new_code_cell("grade('ch03-a', 'admission')", metadata={"nbgrader": {
            **meta, "grade": True, "locked": True, "solution": False, "points": 2,
            "grade_id": "tests-a"}}),
        new_code_cell("%%check ch03-a-transfer --quiet\n# YOUR CODE HERE\npass",
                      metadata={"nbgrader": {**meta, "grade_id": "harness-transfer"}}),
        new_code_cell("grade('ch03-a-transfer', 'transfer')", metadata={"nbgrader": {
            **meta, "grade": True, "locked": True, "solution": False, "points": 1,
            "grade_id": "tests-b"}}),
    ])


def test_each_harness_cell_gets_the_students_code_for_its_own_lab():
    released = _released()
    handed_in = submission("wrong", released)
    cells = harness_cells(handed_in)
    assert [lab_of(cell) for cell in cells] == ["ch03-a", "ch03-a-transfer"]
    assert cells[0].source == f"%%check ch03-a\n{harness('wrong', 'ch03-a').rstrip()}\n"
    assert cells[1].source.startswith("%%check ch03-a-transfer --quiet\ndef transfer_check")
    assert harness_cells(released)[0].source.endswith("pass")


def test_the_starter_hands_in_the_released_notebook_and_deleted_loses_one_test_cell():
    released = _released()
    assert submission("starter", released) == released
    deleted = submission("deleted", released)
    assert [c.metadata["nbgrader"]["grade_id"] for c in graded_cells(deleted)] == ["tests-b"]
    with pytest.raises(ValueError, match="no simulated student 'nobody'"):
        submission("nobody", released)


def test_tasks_start_once_their_needs_are_done_and_a_failure_stops_the_rest():
    order, lock = [], threading.Lock()

    def step(name: str, seconds: float = 0.0):
        def run():
            time.sleep(seconds)
            with lock:
                order.append(name)
        return run

    first = Task("first", step("first", 0.05))
    second = Task("second", step("second"), [first])
    alone = Task("alone", step("alone"))
    heard = []
    run_tasks([second, first, alone], workers=2, finished=lambda task: heard.append(task.label))
    assert order.index("first") < order.index("second")
    assert sorted(heard) == ["alone", "first", "second"]

    def boom():
        raise RuntimeError("boom")

    broken = Task("broken", boom)
    with pytest.raises(RuntimeError, match="boom"):
        run_tasks([broken, Task("after", step("after"), [broken])], workers=2)
    assert "after" not in order


def test_the_progress_bar_writes_a_line_per_step_off_a_terminal():
    out = io.StringIO()
    bar = ProgressBar(4, out)
    bar.step("one")
    bar.step("two")
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("[" + "#" * 7 + "." * 23 + "] 1/4")
    assert lines[1].startswith("[" + "#" * 15 + "." * 15 + "] 2/4") and lines[1].endswith("two")


def test_the_grade_table_lists_scores_maxima_and_the_cells_short_of_full_marks():
    full, none = CellGrade(score=2, max_score=2, needs_manual_grade=False), \
        CellGrade(score=0, max_score=1, needs_manual_grade=False)
    table = GradeTable(assignments=["lesson1", "checkpoint-a"], students=["ann", "bo"],
                       scores={"ann": {"lesson1": 2, "checkpoint-a": 3}, "bo": {"lesson1": 0}},
                       max_scores={"lesson1": 3, "checkpoint-a": 3},
                       cells={"ann": {}, "bo": {"lesson1": {"tests-a": full, "tests-b": none}}})
    assert table.render().splitlines() == [
        "     lesson1  checkpoint-a",
        "ann        2             3",
        "bo         0             -",
        "max        3             3",
        "",
        "Cells without full marks:",
        "  bo, lesson1: tests-b 0/1",
    ]


def test_without_nbgrader_the_demo_says_how_to_install_it(monkeypatch, capsys):
    monkeypatch.setattr("importlib.util.find_spec", lambda name: None)
    assert main(["course", "demo"]) == 1
    assert 'pip install -e ".[course]"' in capsys.readouterr().err


def test_a_course_the_demo_cannot_play_is_a_usage_error(tmp_path, capsys):
    assert main(["course", "demo", "--course", str(tmp_path / "nowhere")]) == 2
    assert "agentlab course build" in capsys.readouterr().err
    course = tmp_path / "course"
    (course / "source" / "a").mkdir(parents=True)
    released = _released()
    released.cells[1].source = "%%check no-such-lab\npass"
    nbformat.write(released, course / "source" / "a" / "a.ipynb")
    (course / "nbgrader_config.py").write_text("")
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "file").write_text("")
    assert main(["course", "demo", "--course", str(course), "--keep", str(tmp_path / "busy")]) == 2
    assert "not empty" in capsys.readouterr().err
    assert main(["course", "demo", "--course", str(course), "--keep", str(tmp_path / "new")]) == 2
    assert "There is no lab called 'no-such-lab'" in capsys.readouterr().err
    assert not (tmp_path / "new").exists()


def test_an_unknown_student_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["course", "demo", "--students", "nobody"])
    assert stopped.value.code == 2
    said = capsys.readouterr().err
    assert all(student in said for student in STUDENTS)


def test_without_keep_the_demo_says_its_folder_is_gone_and_how_to_keep_it(monkeypatch, capsys):
    from agentlab_magics.demos import term as demo_course
    from agentlab_magics.demos.term import DemoRun

    worked_in = []

    def played(course, folder, students):
        worked_in.append(folder)
        (folder / "course").mkdir()
        return DemoRun(table=GradeTable(assignments=["lesson1"], students=["ann"],
                                        scores={"ann": {"lesson1": 1}},
                                        max_scores={"lesson1": 1}, cells={"ann": {}}),
                       seconds=1)

    monkeypatch.setattr(demo_course, "run_demo", played)
    monkeypatch.setattr("agentlab_magics.cli._demo_report",
                        lambda course, out: out / "index.html")  # no term to report on here
    monkeypatch.setattr("agentlab_magics.demos.HANDS_IN", {"ann": "a lesson"})
    assert main(["course", "demo", "--course", "nbgrader_course"]) == 0
    (folder,) = worked_in
    assert not folder.exists()
    assert capsys.readouterr().out.splitlines()[-1] == (
        f"The demo's folder ({folder}) is gone; run it with --keep DIR to keep the course, the "
        "feedback pages and the logs.")
