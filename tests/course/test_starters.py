"""The starters the student package holds: generated from the instructor's reference, committed
up to date, and what every lab and the released notebooks hand out."""

from pathlib import Path

import pytest

from agentlab_instructor.lab_files import lab_files
from agentlab_magics import four_runs
from agentlab_magics.course import find_lab, labs
from agentlab_magics.course.catalog import built_in_labs
from agentlab_magics.course.starter_files import BUILT_IN, RECORDING
from agentlab_magics.making.four_runs_recording import play
from agentlab_magics.making.shipped import build, stale


def test_the_committed_starters_are_made_from_the_reference():
    assert stale() == [], ("these starters are stale: run `agentlab course build` and commit "
                           "agentlab_magics/course/labs")


@pytest.mark.parametrize("lab_id", list(labs()))
def test_a_labs_starter_is_the_package_file_and_the_instructors_starter(lab_id):
    lab = find_lab(lab_id)
    assert lab.starter == (BUILT_IN / lab_id / "starter.py").read_text(encoding="utf-8")
    assert lab.starter == lab_files(lab_id).starter
    for name in lab.names:  # a gap, or (a one-function lab) the function to finish
        assert f"{name}(" in lab.starter


def test_stale_names_what_is_missing_edited_or_of_no_lab_and_build_mends_it(tmp_path: Path):
    generated = [f"{lab_id}/{name}" for lab_id in built_in_labs()
                  for name in ("starter.py", "reference-runs.json")] + [RECORDING]
    assert stale(tmp_path) == generated
    written = build(tmp_path)
    assert sorted(str(path.relative_to(tmp_path)) for path in written) == sorted(generated)
    assert stale(tmp_path) == []
    (tmp_path / "lesson3" / "starter.py").write_text("# edited by hand\n", encoding="utf-8")
    (tmp_path / "lesson9").mkdir()
    (tmp_path / "lesson9" / "starter.py").write_text("", encoding="utf-8")
    (tmp_path / "lesson7" / "reference-runs.json").write_text("{}\n", encoding="utf-8")
    (tmp_path / "lesson3" / "lab.toml").write_text("", encoding="utf-8")
    assert stale(tmp_path) == ["lesson3/starter.py", "lesson7/reference-runs.json",
                               "lesson9/starter.py"]
    build(tmp_path)
    assert stale(tmp_path) == [] and not (tmp_path / "lesson9" / "starter.py").exists()
    assert (tmp_path / "lesson3" / "lab.toml").exists()  # not a generated file


def test_the_four_runs_show_what_the_reference_harness_does():
    lines: list[str] = []
    played = play(lines.append)
    shown: list[str] = []
    assert four_runs.show(shown.append) == played and shown == lines


@pytest.mark.parametrize("lab_id", list(labs()))
def test_the_released_code_goes_inside_the_starters_gaps(lab_id):
    """Where a starter has gaps, each solution block of the marked file (what nbgrader turns
    into "# YOUR CODE HERE") stands between a gap's opening and closing marker."""
    from agentlab_instructor.harness_file import BEGIN, END, GAP_CLOSE, GAP_OPEN

    markers = [line.strip() for line in lab_files(lab_id).marked.splitlines()
               if line.strip() in (GAP_OPEN, GAP_CLOSE, BEGIN, END)]
    if GAP_OPEN not in markers:
        return  # a one-function lab without gaps: its function's body is the solution
    assert BEGIN in markers
    expected = [GAP_OPEN, BEGIN, END, GAP_CLOSE] * markers.count(BEGIN)
    assert markers == expected
