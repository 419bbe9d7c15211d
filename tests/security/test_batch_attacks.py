"""Attacks on `agentlab course autograde` as a student would try them through what they hand
in: a submission folder that is a link to another student's, and a submission too big to read.
Each is refused with a sentence before anything of it is read, and the rest of the batch is
graded as if it were not there."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from agentlab_magics.cli import main
from agentlab_magics.term.handed_in import handed_in
from agentlab_magics.term.nbgrader_cli import Nbgrader
from agentlab_magics.grading.batch import SUBMISSION_LIMIT

COURSE = Path(__file__).resolve().parents[2] / "nbgrader_course"
ASSIGNMENT = "lesson1"


@pytest.fixture
def course(tmp_path) -> Path:
    (tmp_path / "exchange").mkdir()
    nbgrader = Nbgrader({"AGENTLAB_EXCHANGE": str(tmp_path / "exchange"),
                         "JUPYTER_CONFIG_DIR": str(tmp_path / "jupyter-config")})
    return handed_in(COURSE, tmp_path, [ASSIGNMENT], ["reference1", "wrong1"], nbgrader)


def _autograde(course: Path) -> tuple[int, dict, str]:
    out = io.StringIO()
    with redirect_stdout(out), redirect_stderr(io.StringIO()):
        code = main(["course", "autograde", ASSIGNMENT, "--course", str(course),
                     "--workers", "1"])
    summary = course / ".agentlab" / "autograde" / f"{ASSIGNMENT}-summary.json"
    records = {r["student"]: r for r in json.loads(summary.read_text())["records"]}
    return code, records, out.getvalue()


def test_a_submission_folder_linked_to_another_students_is_refused(course):
    mine = course / "submitted" / "wrong1" / ASSIGNMENT
    for path in mine.iterdir():
        path.unlink()
    mine.rmdir()
    mine.symlink_to(course / "submitted" / "reference1" / ASSIGNMENT)
    code, records, out = _autograde(course)
    assert code == 1, out
    assert records["wrong1"]["status"] == "failed"
    assert "not graded" in records["wrong1"]["problem"]
    assert records["reference1"]["status"] == "graded"
    assert records["reference1"]["score"] == records["reference1"]["max_score"]
    assert not (course / "autograded" / "wrong1").exists()


def test_a_submission_too_big_to_read_is_refused_unread(course):
    big = course / "submitted" / "wrong1" / ASSIGNMENT / "data.bin"
    with open(big, "wb") as handle:
        handle.truncate(SUBMISSION_LIMIT + 1)  # sparse: reading it would take the memory
    code, records, out = _autograde(course)
    assert code == 1, out
    assert records["wrong1"]["status"] == "failed"
    assert f"more than {SUBMISSION_LIMIT >> 20} MB" in records["wrong1"]["problem"]
    assert records["reference1"]["status"] == "graded"
