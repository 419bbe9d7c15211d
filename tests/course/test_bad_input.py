"""Every course command refuses what it cannot do in one sentence, with exit 2, and leaves the
folder it was given as it was: no traceback, no stray gradebook, no advice that cannot work.
(The case that needs a generated course, nobody handed in, is in test_parallel_autograde.py.)
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from agentlab_magics.cli import main
from agentlab_magics.term.nbgrader_cli import tools_on_path

COURSE = Path(__file__).resolve().parents[2] / "nbgrader_course"


def tree(folder: Path) -> dict[str, bytes | None]:
    """Everything under `folder`: each file's bytes, each folder as None."""
    return {str(p.relative_to(folder)): p.read_bytes() if p.is_file() else None
            for p in sorted(folder.rglob("*"))}


def refused(capsys, *argv: str) -> str:
    """The one line `agentlab ARGV` printed, given that it exited 2 and printed nothing else."""
    assert main(list(argv)) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("agentlab: ") and err.count("\n") == 1, (out, err)
    assert "Traceback" not in err
    return err


@pytest.fixture
def ungenerated(tmp_path) -> Path:
    """A course folder holding lesson1's source and the configuration, never generated."""
    course = tmp_path / "course"
    shutil.copytree(COURSE / "source" / "lesson1", course / "source" / "lesson1")
    shutil.copy(COURSE / "nbgrader_config.py", course)
    (course / "exchange").mkdir()  # the configuration makes it when missing
    return course


def test_autograde_of_a_folder_that_is_not_there_says_so(capsys, tmp_path):
    missing = tmp_path / "no" / "such"
    said = refused(capsys, "course", "autograde", "lesson1", "--course", str(missing))
    assert f"There is no folder {missing}" in said and "--course DIR" in said
    assert list(tmp_path.iterdir()) == []


def test_autograde_in_a_folder_that_is_not_a_course_writes_no_gradebook(capsys, tmp_path,
                                                                         monkeypatch):
    (tmp_path / "notes.txt").write_text("mine")
    before = tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    said = refused(capsys, "course", "autograde", "lesson1")
    assert "holds no course (nbgrader_config.py is missing)" in said
    assert "generate_assignment" not in said
    assert tree(tmp_path) == before


def test_autograde_of_an_assignment_the_course_lacks_names_the_ones_it_has(capsys, ungenerated):
    before = tree(ungenerated)
    said = refused(capsys, "course", "autograde", "lesson99", "--course", str(ungenerated))
    assert "has no assignment 'lesson99'" in said and "its assignments are: lesson1." in said
    assert tree(ungenerated) == before


def test_autograde_before_the_assignment_is_generated_says_to_generate_it(capsys, ungenerated):
    before = tree(ungenerated)
    said = refused(capsys, "course", "autograde", "lesson1", "--course", str(ungenerated))
    assert "run `nbgrader generate_assignment lesson1` first" in said
    assert tree(ungenerated) == before


def test_autograde_of_a_folder_with_only_the_configuration_leaves_it_as_it_was(capsys,
                                                                                 tmp_path):
    """The configuration makes the exchange only for a course with assignments (source/):
    a folder holding nothing else gets no exchange/ from a command that refuses it."""
    shutil.copy(COURSE / "nbgrader_config.py", tmp_path)
    before = tree(tmp_path)
    said = refused(capsys, "course", "autograde", "lesson1", "--course", str(tmp_path))
    assert "its assignments are: none yet." in said
    assert tree(tmp_path) == before


def test_export_of_a_course_never_graded_says_so_and_makes_no_gradebook(capsys, ungenerated,
                                                                        tmp_path):
    before = tree(ungenerated)
    grades = tmp_path / "grades.csv"
    said = refused(capsys, "course", "export", "--to", "moodle", str(grades),
                   "--course", str(ungenerated))
    assert "has no gradebook yet" in said and "autograde an assignment first" in said
    assert tree(ungenerated) == before and not grades.exists()


@pytest.mark.parametrize("where", ["missing-folder", "a-folder"])
def test_export_to_a_place_it_cannot_write_says_so(capsys, tmp_path, where):
    course = tmp_path / "course"
    for folder in ("source", "exchange"):  # the configuration makes exchange/ beside source/
        (course / folder).mkdir(parents=True)
    shutil.copy(COURSE / "nbgrader_config.py", course)
    (course / "gradebook.db").write_bytes(b"")  # a gradebook file, never opened
    target = tmp_path / "no" / "such" / "grades.csv" if where == "missing-folder" else tmp_path
    before = tree(tmp_path)
    said = refused(capsys, "course", "export", "--to", "canvas", str(target),
                   "--course", str(course))
    assert ("There is no folder" in said if where == "missing-folder"
            else "is a folder: give the CSV file to write" in said), said
    assert tree(tmp_path) == before


def test_build_of_a_folder_that_is_not_a_course_says_how_to_start_one(capsys, tmp_path):
    said = refused(capsys, "course", "build", "--course", str(tmp_path / "none"))
    assert "agentlab course init" in said
    assert list(tmp_path.iterdir()) == []


def test_nbgraders_tools_are_found_beside_the_running_python(monkeypatch):
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    with tools_on_path():
        assert os.environ["PATH"].split(os.pathsep)[0] == str(Path(sys.executable).parent)
        assert shutil.which("alembic") == str(Path(sys.executable).parent / "alembic")
    assert os.environ["PATH"] == "/usr/bin:/bin"


@pytest.mark.parametrize("argv", [
    ["course", "publish-solution", "lesson1", "--to"],
    ["course", "self-paced-solutions"],
    ["course", "wheel", "--to"],
    ["course", "init"],
], ids=["publish-solution", "self-paced-solutions", "wheel", "init"])
def test_a_command_told_to_write_into_a_file_says_so_and_leaves_it(capsys, tmp_path, argv):
    taken = tmp_path / "notes.txt"
    taken.write_text("mine")
    said = refused(capsys, *argv, str(taken))
    assert str(taken) in said
    assert taken.read_text() == "mine" and list(tmp_path.iterdir()) == [taken]
