"""One submission costs only its own grade, in `agentlab course autograde --workers 2` over
24 submissions that must all be graded: two that collude across the batch's workers (one's
held-back checks send what they are handed through a lock, the other's kernel listens), one
that floods errors and display updates, one that sends messages of odd kinds (a lone
surrogate, kinds megabytes long), one that hands in a file whose name is not UTF-8 (and holds
an escape sequence), and the controls: references at full marks, starters at 0, the same
mistake scored alike. Beside them three that cannot be graded, each refused with its sentence:
one whose kernel takes more memory than a submission's grading may have, a submission folder
that is a link to another student's, and one too big to read.

The batch runs as a grading machine would run it: the whole command under one memory cap,
with /tmp of its own (`private_tmp.py`), which must be empty of agentlab's folders after.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell

from agentlab_magics.demos.students import submission
from agentlab_magics.grading.batch_ledger import SUBMISSION_LIMIT
from agentlab_magics.grading.memory_cap import kind_here
from agentlab_magics.grading.sandbox import detect
from agentlab_magics.term.nbgrader_cli import Nbgrader
from tests.handed_in import hand_in, handed_in
from tests.security.private_tmp import keep_arguments
from tests.security.test_autograde_attacks import (
    ERROR_FLOOD,
    HELD_BACK_INPUTS,
    LOCK_LEAK,
    LOCK_LISTEN,
    MEMORY_HOG,
    ODD_MESSAGES,
    UPDATE_FLOOD,
)

if os.geteuid() != 0 or detect() != "root":
    pytest.skip("the grader's strongest sandbox needs root and unshare", allow_module_level=True)
if kind_here() == "rlimit":
    pytest.skip("a memory cap for the whole batch needs a memory cgroup", allow_module_level=True)

COURSE = Path(__file__).resolve().parents[2] / "nbgrader_course"
HERE = Path(__file__).resolve().parent
LAB = "lesson1"
ODD_NAME = os.fsdecode(b"caf\xe9 \x1b[31mred.txt")  # not UTF-8, and a terminal's escape
# the listener listens while the sender's held-back checks run on the other worker
LISTEN_LONGER = [LOCK_LISTEN.replace("+ 8", "+ 9")] * 3
EXTRA = {"colluder_listen": LISTEN_LONGER, "flood": [ERROR_FLOOD, UPDATE_FLOOD],
         "odd_message": [ODD_MESSAGES], "hog": [MEMORY_HOG]}
GRADED = sorted(["colluder_listen", "colluder_send", "flood", "odd_message", "odd_name",
                 *(f"reference{n}" for n in range(1, 14)), *(f"starter{n}" for n in range(1, 4)),
                 *(f"wrong{n}" for n in range(1, 4))])
REFUSED = {"hog": "not graded: its grading ran out of memory",
           "linked": "which is not a plain file or folder",
           "too_big": f"more than {SUBMISSION_LIMIT >> 20} MB"}
STUDENTS = sorted([*GRADED, *REFUSED])
SUBMISSION_MEMORY = 1 << 30
BATCH_MEMORY = 3 << 30


def _persona(student: str) -> str:
    return "starter" if student == "colluder_send" else \
        student.rstrip("0123456789") if student[-1].isdigit() else "reference"


def _refuse(course: Path) -> None:
    """Make the linked and the too big submissions what their names say."""
    linked = course / "submitted" / "linked" / LAB
    for path in linked.iterdir():
        path.unlink()
    linked.rmdir()
    linked.symlink_to(course / "submitted" / "reference1" / LAB)
    with open(course / "submitted" / "too_big" / LAB / "data.bin", "wb") as big:
        big.truncate(SUBMISSION_LIMIT + 1)  # sparse: reading it would take the memory


@pytest.fixture(scope="module")
def batch(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("batch-isolation")
    (folder / "exchange").mkdir()
    nbgrader = Nbgrader({"AGENTLAB_EXCHANGE": str(folder / "exchange"),
                         "JUPYTER_CONFIG_DIR": str(folder / "jupyter-config")})
    config = (COURSE / "nbgrader_config.py").read_text(encoding="utf-8") + \
        f"\nc.ScoredOutside.memory_limit = {SUBMISSION_MEMORY}\n"
    course = handed_in(COURSE, folder, [LAB], [], nbgrader, config=config)
    roster = folder / "students.csv"
    roster.write_text("id\n" + "".join(f"{s}\n" for s in STUDENTS), encoding="utf-8")
    nbgrader.run("db", "student", "import", str(roster), cwd=course)
    released = nbformat.read(course / "release" / LAB / f"{LAB}.ipynb", as_version=4)
    for student in STUDENTS:
        hand_in(course, LAB, student, _notebook(student, released))
    (course / "submitted" / "odd_name" / LAB / ODD_NAME).write_bytes(b"notes\n")
    _refuse(course)
    report = folder / "left-over.json"
    kept = keep_arguments(folder)
    done = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", sys.executable,
         str(HERE / "private_tmp.py"), *kept, "--report", str(report), "--memory",
         str(BATCH_MEMORY), "--", sys.executable, "-m", "agentlab_magics", "course",
         "autograde", LAB, "--course", str(course), "--workers", "2"],
        env=nbgrader.environment(), capture_output=True, text=True, errors="backslashreplace",
        stdin=subprocess.DEVNULL, timeout=900)
    summary = json.loads((course / ".agentlab" / "autograde" / f"{LAB}-summary.json")
                         .read_text(encoding="utf-8"))
    return {"course": course, "code": done.returncode, "out": done.stdout + done.stderr,
            "records": {r["student"]: r for r in summary["records"]},
            "measured": json.loads(report.read_text(encoding="utf-8"))}


def _notebook(student: str, released):
    """The student's notebook: their persona's, and the student's own cells."""
    nb = submission(_persona(student), released)
    index = next(i for i, cell in enumerate(nb.cells) if cell.cell_type == "code"
                 and cell.source.startswith(f"%%check {LAB}"))
    if student == "colluder_send":
        nb.cells[index].source += "\n" + LOCK_LEAK
    for offset, code in enumerate(EXTRA.get(student, []), start=1):
        nb.cells.insert(index + offset, new_code_cell(code))
    return nb


def _autograded(batch: dict, student: str) -> str:
    path = batch["course"] / "autograded" / student / LAB / f"{LAB}.ipynb"
    return path.read_text(encoding="utf-8") if path.exists() else ""


def test_every_submission_that_can_be_graded_is_and_the_rest_say_why(batch):
    records = batch["records"]
    assert sorted(records) == STUDENTS, batch["out"][-3000:]
    assert {s for s, r in records.items() if r["status"] == "graded"} == set(GRADED), \
        batch["out"][-3000:]
    for student, sentence in REFUSED.items():
        assert records[student]["status"] == "failed"
        assert sentence in records[student]["problem"], records[student]["problem"]
    assert not (batch["course"] / "autograded" / "linked").exists()
    assert batch["code"] == 1  # some submissions failed: the command says so


def test_everyone_else_scores_as_in_a_clean_round(batch):
    records = batch["records"]
    full = records["reference1"]["max_score"]
    scores = {s: records[s]["score"] for s in GRADED}
    assert {s for s, score in scores.items() if score == full} == \
        {s for s in scores if _persona(s) == "reference"}
    assert {scores[s] for s in scores if _persona(s) == "starter"} == {0}
    assert len({scores[s] for s in scores if _persona(s) == "wrong"}) == 1


def test_the_colluders_learned_nothing_held_back(batch):
    listened = _autograded(batch, "colluder_listen")
    assert "listened" in listened
    assert [text for text in HELD_BACK_INPUTS if text in listened] == []


def test_the_summary_names_the_odd_file_and_shows_it_escaped(batch):
    notes = batch["records"]["odd_name"]["notes"]
    assert notes == ["handed in a file whose name is not plain text: caf\\xe9 \\x1b[31mred.txt"]
    assert "odd_name" in batch["out"] and "\x1b[31m" not in batch["out"]


def test_each_log_is_kept_short_and_readable(batch):
    logs = batch["course"] / ".agentlab" / "autograde" / f"{LAB}-logs"
    sizes = {path.stem: path.stat().st_size for path in logs.glob("*.log")}
    assert set(sizes) == set(GRADED) | {"hog"}  # a refused submission is never run
    assert max(sizes.values()) < 300_000
    (logs / "odd_message.log").read_text(encoding="utf-8")


def test_the_batch_stayed_inside_its_memory_and_left_nothing(batch):
    assert not batch["measured"]["ran_out"] and batch["measured"]["cgroups_left"] == []
    assert [entry for entry in batch["measured"]["left_over"] if "agentlab" in entry[0]] == []
