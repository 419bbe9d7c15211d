"""A course folder and the students' notebooks, written from the installed package: `agentlab
course init`, `agentlab notebooks`, and the demo's course where no repository is at hand."""

from pathlib import Path

import nbformat
import pytest
from nbgrader.preprocessors import ClearHiddenTests, ClearSolutions
from traitlets.config import Config

from agentlab_magics.cli import main
from agentlab_magics.course import find_lab
from agentlab_magics.course.assignments import ASSIGNMENTS
from agentlab_magics.grading.cells import lab_sources
from agentlab_magics.making.new_course import course_or_new
from agentlab_magics.making.notebooks import notebook, stale
from agentlab_magics.term.course_folder import CONFIG

REPO = Path(__file__).resolve().parents[2]


def test_init_writes_a_course_nbgrader_reads_and_refuses_a_folder_in_use(tmp_path, capsys):
    course = tmp_path / "course"
    assert main(["course", "init", str(course)]) == 0
    assert (course / CONFIG).read_text() == (REPO / "nbgrader_course" / CONFIG).read_text()
    assert stale(course) == []
    assert f"cd {course} && nbgrader generate_assignment lesson1" in capsys.readouterr().out
    (course / "source" / "lesson1" / "lesson1.ipynb").write_text("mine")
    assert main(["course", "init", str(course)]) == 2
    assert "is not empty" in capsys.readouterr().err
    assert (course / "source" / "lesson1" / "lesson1.ipynb").read_text() == "mine"


def test_the_demo_uses_the_repositorys_course_or_makes_one(tmp_path, monkeypatch):
    monkeypatch.chdir(REPO)
    assert course_or_new(None, tmp_path / "new") == Path("nbgrader_course")
    monkeypatch.chdir(tmp_path)
    assert course_or_new(None, tmp_path / "new") == tmp_path / "new"
    assert (tmp_path / "new" / CONFIG).is_file() and stale(tmp_path / "new") == []
    assert course_or_new(REPO / "x", tmp_path / "other") == REPO / "x"


def _released(assignment):
    """What nbgrader releases from the source notebook, made here with its own preprocessors."""
    config = Config()
    config.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\npass"}
    made = notebook(assignment)
    for step in (ClearSolutions(config=config), ClearHiddenTests(config=config)):
        made, _ = step.preprocess(made, {})
    return made


@pytest.mark.parametrize("assignment", ASSIGNMENTS, ids=lambda a: a.id)
def test_a_students_notebook_is_the_released_one_with_each_lab_cell_its_starter(assignment):
    mine, released = notebook(assignment, student=True), _released(assignment)
    assert len(mine.cells) == len(released.cells)
    labs = lab_sources(mine.cells)
    for lab_id, body in labs.items():
        assert body.strip() == find_lab(lab_id).starter.strip()
    for ours, theirs in zip(mine.cells, released.cells):
        if not ours.source.startswith("%%check"):
            assert ours.source == theirs.source
        assert "BEGIN HIDDEN TESTS" not in ours.source and "BEGIN SOLUTION" not in ours.source


def test_notebooks_writes_every_lesson_and_keeps_a_students_work(tmp_path, capsys):
    assert main(["notebooks", str(tmp_path)]) == 0
    for assignment in ASSIGNMENTS:
        nbformat.validate(nbformat.read(tmp_path / assignment.id / f"{assignment.id}.ipynb", 4))
    assert "jupyter lab" in capsys.readouterr().out
    work = tmp_path / "lesson1" / "lesson1.ipynb"
    work.write_text("my work")
    assert main(["notebooks", str(tmp_path)]) == 0
    assert work.read_text() == "my work"
    said = capsys.readouterr().out
    assert "wrote" not in said
    assert f"kept {work}: it was there already, and may hold your work\n" in said
    assert said.count("kept ") == len(ASSIGNMENTS)


def test_notebooks_into_a_file_is_a_sentence(tmp_path, capsys):
    (tmp_path / "a-file").write_text("")
    assert main(["notebooks", str(tmp_path / "a-file")]) == 2
    assert "cannot write the notebooks into" in capsys.readouterr().err
