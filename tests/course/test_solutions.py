"""Who sees a solution: published files when $AGENTLAB_SOLUTIONS is set (and only those), else
the instructor package, else one sentence; `publish-solution` writes the published files."""

import stat
import subprocess
import sys

import pytest

from agentlab_magics import notebook
from agentlab_magics.cli import main
from agentlab_magics.course import UnknownLab, find_lab
from agentlab_magics.course.solutions import ENV, NotPublished, publish, solution
from agentlab_magics.progress import ProgressStore

NOT_YET = ("The solution to lesson3 is not published yet: your instructor publishes each "
           "solution after its deadline.")
ALONE = ("There is no solution to lesson3 here. Working on your own, set $AGENTLAB_SOLUTIONS to "
         "the folder of the course's self-paced solutions (`agentlab course self-paced-solutions "
         "DIR` writes it in a checkout of the course), then ask again.")


def test_self_paced_the_solution_is_the_instructors_reference():
    assert solution("Lesson 3") == find_lab("lesson3").reference


def test_alone_without_a_folder_of_solutions_the_sentence_names_no_instructor(
        without_instructor):
    with pytest.raises(NotPublished) as raised:
        solution("lesson3")
    assert str(raised.value) == ALONE and "instructor" not in ALONE


def test_self_paced_solutions_are_shown_once_the_lab_was_checked(tmp_path, monkeypatch,
                                                                  capsys):
    folder = tmp_path / "solutions"
    assert main(["course", "self-paced-solutions", str(folder)]) == 0
    assert f"AGENTLAB_SOLUTIONS={folder}" in capsys.readouterr().out
    assert (folder / "ch03-b.py").read_text() == find_lab("ch03-b").reference
    monkeypatch.setenv(ENV, str(folder))
    store = ProgressStore(tmp_path / "progress.json")
    assert notebook.open_solution("lesson3", store=store) == (
        "Try lesson3 first: check it once (its `%%check lesson3` cell, or `agentlab check "
        "lesson3 --harness FILE`), then `%solution lesson3` (or `agentlab solution lesson3`) "
        'shows its solution (and the map says "built with help").')
    assert not store.lab("lesson3").solution_opened
    store.checked("lesson3", [], all_passed=False)
    assert notebook.open_solution("lesson3", store=store).code == find_lab("lesson3").reference
    store.checked("lesson3", [], all_passed=True)
    assert store.lab("lesson3").state({}) == "built with help"


def test_a_failing_agentlab_check_opens_the_self_paced_solution_from_the_shell(
        tmp_path, monkeypatch, capsys):
    """Working in a terminal: `agentlab check` counts as trying, as %%check does, so
    `agentlab solution` then shows the solution and the map says the lab was built with
    help once it passes."""
    folder = tmp_path / "solutions"
    assert main(["course", "self-paced-solutions", str(folder)]) == 0
    monkeypatch.setenv(ENV, str(folder))
    monkeypatch.setenv("AGENTLAB_PROGRESS", str(tmp_path / "progress.json"))
    harness = tmp_path / "harness.py"
    harness.write_text(find_lab("lesson5").starter)
    capsys.readouterr()
    assert main(["solution", "lesson5"]) == 1
    assert "Try lesson5 first" in capsys.readouterr().err
    assert main(["check", "lesson5", "--harness", str(harness)]) == 1
    assert main(["solution", "lesson5"]) == 0
    assert capsys.readouterr().out.endswith(find_lab("lesson5").reference)
    harness.write_text(find_lab("lesson5").reference)
    assert main(["check", "lesson5", "--harness", str(harness)]) == 0
    assert ProgressStore(tmp_path / "progress.json").lab("lesson5").state({}) == \
        "built with help"


def test_a_graded_course_shows_published_files_only(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV, str(tmp_path))
    with pytest.raises(NotPublished, match="not published yet"):  # though the package is here
        solution("lesson3")
    path = publish("3", tmp_path)
    assert path == tmp_path / "lesson3.py"
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert solution("lesson3") == find_lab("lesson3").reference
    path.write_text("# what the instructor published\n", encoding="utf-8")
    assert solution("lesson3") == "# what the instructor published\n"


def test_a_published_file_that_cannot_be_read_is_a_sentence(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV, str(tmp_path))
    (tmp_path / "lesson3.py").mkdir()
    with pytest.raises(NotPublished, match="is published but cannot be read"):
        solution("lesson3")


def test_an_unknown_lab_is_unknown():
    with pytest.raises(UnknownLab):
        solution("lesson99")


def test_open_solution_marks_help_only_when_a_solution_is_shown(tmp_path, monkeypatch):
    store = ProgressStore(tmp_path / "progress.json")
    monkeypatch.setenv(ENV, str(tmp_path / "published"))
    assert notebook.open_solution("lesson3", store=store) == NOT_YET
    assert not store.lab("lesson3").solution_opened
    publish("lesson3", tmp_path / "published")
    assert "def run_agent" in notebook.open_solution("lesson3", store=store).code
    assert store.lab("lesson3").solution_opened


def test_cli_publish_then_solution(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(ENV, str(tmp_path))
    assert main(["solution", "lesson3"]) == 1
    assert capsys.readouterr().err == f"agentlab: {NOT_YET}\n"
    assert main(["course", "publish-solution", "lesson3"]) == 0
    assert capsys.readouterr().out == f"published {tmp_path / 'lesson3.py'}\n"
    assert main(["course", "publish-solution", "ch03-a", "--to", str(tmp_path / "other")]) == 0
    assert (tmp_path / "other" / "ch03-a.py").read_text() == find_lab("ch03-a").reference
    capsys.readouterr()
    monkeypatch.setenv("AGENTLAB_PROGRESS", str(tmp_path / "progress.json"))
    assert main(["solution", "lesson3"]) == 0
    assert capsys.readouterr().out == find_lab("lesson3").reference
    assert ProgressStore(tmp_path / "progress.json").lab("lesson3").solution_opened


def test_cli_publish_needs_a_folder_and_a_lab(monkeypatch, capsys, tmp_path):
    assert main(["course", "publish-solution", "lesson3"]) == 2
    assert "--to DIR, or set $AGENTLAB_SOLUTIONS" in capsys.readouterr().err
    assert main(["course", "publish-solution", "lesson99", "--to", str(tmp_path)]) == 2
    assert "There is no lab called 'lesson99'" in capsys.readouterr().err


def test_cli_solution_without_the_instructor_package_is_one_sentence():
    done = subprocess.run(
        [sys.executable, "-c", "import sys; sys.modules['agentlab_instructor'] = None\n"
         "from agentlab_magics.cli import main; sys.exit(main(['solution', 'lesson3']))"],
        capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (1, "", f"agentlab: {ALONE}\n")
