"""The source notebooks: made from the course data, committed up to date, valid for nbformat and
nbgrader, every test graded exactly once, and the released copy of each lab cell its starter."""

import re
from pathlib import Path

import nbformat
import pytest
from nbgrader.nbgraderformat.v3 import MetadataValidatorV3
from nbgrader.preprocessors import ClearSolutions

from agentlab_magics.cli import main
from agentlab_magics.course import find_lab
from agentlab_magics.course.assignments import ASSIGNMENTS
from agentlab_magics.grading.groups import group_tests, lab_tests, points
from agentlab_magics.making.notebooks import HIDDEN_BEGIN, notebook, path, stale
from agentlab_magics.term.course_folder import CONFIG, config_text

COURSE = Path(__file__).resolve().parents[2] / "nbgrader_course"
ASSIGNED = [(assignment.id, assigned) for assignment in ASSIGNMENTS for assigned in assignment.labs]


def test_the_committed_notebooks_are_made_from_the_course_data():
    assert stale(COURSE) == [], ("these notebooks are stale: run `agentlab course build` and "
                                 "commit nbgrader_course/source")


@pytest.mark.parametrize("assignment", ASSIGNMENTS, ids=lambda a: a.id)
def test_each_notebook_is_valid_for_nbformat_and_nbgrader(assignment):
    made = nbformat.read(path(COURSE, assignment), as_version=4)
    nbformat.validate(made)
    MetadataValidatorV3().validate_nb(made)
    ids = [cell.metadata["nbgrader"]["grade_id"] for cell in made.cells
           if "nbgrader" in cell.metadata]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("assignment_id, assigned", ASSIGNED,
                         ids=[assigned.lab for _, assigned in ASSIGNED])
def test_every_test_of_a_lab_is_graded_in_exactly_one_cell(assignment_id, assigned):
    graded = [name for group in assigned.groups for held_back in (False, True)
              for name in group_tests(assigned.lab, group.id, held_back=held_back)]
    assert sorted(graded) == sorted(lab_tests(assigned.lab))
    assert all(points(assigned.lab, group.id) > 0 for group in assigned.groups)


@pytest.mark.parametrize("assignment", ASSIGNMENTS, ids=lambda a: a.id)
def test_the_released_lab_cells_hold_the_starters_gaps_not_the_reference(assignment):
    released = ClearSolutions(code_stub={"python": "# YOUR CODE HERE\npass"}).preprocess(
        notebook(assignment), {})[0]
    for assigned in assignment.labs:
        lab = find_lab(assigned.lab)
        (cell,) = [c for c in released.cells if c.source.startswith(f"%%check {lab.id}\n")
                   and c.metadata.get("nbgrader", {}).get("solution")]
        body = cell.source.removeprefix(f"%%check {lab.id}\n")
        compile(body, lab.id, "exec")
        assert "BEGIN SOLUTION" not in body
        if lab.module == "harness":  # a lesson file: the starter, a stub in each gap
            assert re.sub(r"\n# YOUR CODE HERE\npass", "", body) + "\n" == lab.starter
        else:  # a function or two: the starter's signatures and docstrings, a stub for a body
            kept = [line for line in lab.starter.splitlines()
                    if line.startswith(("def ", '    """'))]
            assert kept and all(line in body.splitlines() for line in kept)
            assert body.count("# YOUR CODE HERE") == len(lab.names)


@pytest.mark.parametrize("assignment", ASSIGNMENTS, ids=lambda a: a.id)
def test_hidden_tests_sit_in_graded_cells_only(assignment):
    for cell in notebook(assignment).cells:
        meta = cell.metadata.get("nbgrader", {})
        if HIDDEN_BEGIN in cell.source:
            assert meta["grade"] and meta["locked"] and "held_back=True" in cell.source
        else:
            assert "held_back=True" not in cell.source


def test_course_build_writes_the_notebooks_and_check_says_when_they_are_stale(tmp_path, capsys):
    where = ["--course", str(tmp_path), "--starters", str(tmp_path / "starters")]
    assert main(["course", "build", *where, "--check"]) == 1
    out = capsys.readouterr().out
    assert f"Out of date in {tmp_path}: lesson1" in out
    assert f"Out of date in {tmp_path / 'starters'}: lesson1/starter.py" in out
    assert main(["course", "build", *where]) == 2  # no course here yet
    assert f"start one with `agentlab course init {tmp_path}`" in capsys.readouterr().err
    (tmp_path / CONFIG).write_text(config_text())
    assert main(["course", "build", *where]) == 0
    assert main(["course", "build", *where, "--check"]) == 0
    assert stale(tmp_path) == []
