"""`agentlab course autograde`: the same scores as nbgrader's own serial autograde, merged so
that nbgrader's feedback and export work after it, graded again only where something changed,
and stopped by Ctrl-C with the gradebook whole.

One course with the simulated students' lesson1 submissions is made once; each test grades a
copy of it.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbgrader.api import Gradebook

from agentlab_magics.cli import main
from agentlab_magics.demos.students import submission
from agentlab_magics.term.nbgrader_cli import Nbgrader
from tests.course.test_bad_input import tree
from tests.handed_in import hand_in, handed_in

COURSE = Path(__file__).resolve().parents[2] / "nbgrader_course"
ASSIGNMENT = "lesson1"
STUDENTS = ["reference1", "wrong1", "starter1", "deleted1", "hanging1", "reference2"]


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("handed-in")
    (folder / "exchange").mkdir()
    return handed_in(COURSE, folder, [ASSIGNMENT], STUDENTS, _nbgrader(folder))


@pytest.fixture(scope="module")
def stock(made, tmp_path_factory) -> Path:
    """The course graded by nbgrader's own `nbgrader autograde`, one submission after another."""
    course = _copy(made, tmp_path_factory.mktemp("stock"))
    _nbgrader(course.parent).run("autograde", ASSIGNMENT, cwd=course)
    return course


@pytest.fixture(scope="module")
def parallel(made, tmp_path_factory) -> tuple[Path, int, str]:
    course = _copy(made, tmp_path_factory.mktemp("parallel"))
    code, out = _autograde(course, "--workers", "2")
    return course, code, out


def _nbgrader(folder: Path) -> Nbgrader:
    return Nbgrader({"AGENTLAB_EXCHANGE": str(folder / "exchange"),
                     "JUPYTER_CONFIG_DIR": str(folder / "jupyter-config")})


def _copy(made: Path, folder: Path) -> Path:
    shutil.copytree(made.parent, folder, dirs_exist_ok=True)
    return folder / "course"


def _autograde(course: Path, *options: str, assignment: str = ASSIGNMENT) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["course", "autograde", assignment, "--course", str(course), *options])
    return code, out.getvalue() + err.getvalue()


def _cells(course: Path) -> dict:
    """Every graded cell of every submission, as the gradebook holds it."""
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", "agentlab") as gb:
        return {(s.student.id, nb.name, g.name): (g.auto_score, g.needs_manual_grade,
                                                 g.max_score)
                for s in gb.find_assignment(ASSIGNMENT).submissions
                for nb in s.notebooks for g in nb.grades}


def _summary(course: Path) -> dict:
    path = course / ".agentlab" / "autograde" / f"{ASSIGNMENT}-summary.json"
    return {r["student"]: r for r in json.loads(path.read_text())["records"]}


def test_every_cell_scores_as_nbgraders_own_serial_autograde(stock, parallel):
    course, code, out = parallel
    assert code == 0, out
    ours, theirs = _cells(course), _cells(stock)
    assert ours == theirs
    assert {student for student, _, _ in ours} == set(STUDENTS)


def test_the_hanging_submission_keeps_the_share_of_a_cell_that_passed_and_no_one_else_loses(
        parallel):
    """hanging1's text_of never returns: the messages cell passes its two user_message tests
    (one visible, one held back) of four, and scores 2 of its 4 points."""
    course, _, _ = parallel
    cells = _cells(course)
    for (student, _, cell), (score, _, maximum) in cells.items():
        if student.startswith("reference"):
            assert score == maximum, cell
    assert cells[("hanging1", ASSIGNMENT, "tests-lesson1-messages")] == (2.0, False, 4.0)
    assert cells[("hanging1", ASSIGNMENT, "tests-lesson1-chat")] == (5.0, False, 5.0)


def test_the_summary_says_who_graded_what_and_when(parallel):
    course, _, out = parallel
    records = _summary(course)
    assert set(records) == set(STUDENTS)
    for record in records.values():
        assert record["status"] == "graded"
        assert record["worker"].startswith("tcp://127.0.0.1:")
        assert record["queued"] <= record["started"] <= record["finished"] <= record["merged"]
        assert record["merged_at"].endswith("+00:00")
    assert records["reference1"]["score"] == records["reference1"]["max_score"]
    assert (records["hanging1"]["score"], records["hanging1"]["max_score"]) == (7, 9)
    assert re.search(r"^hanging1 +graded +7/9 ", out, re.MULTILINE), out
    assert f"{ASSIGNMENT}: 6 graded" in out and "LocalCluster, 2 workers" in out


def test_feedback_and_export_work_after_it_as_after_nbgraders_own(stock, parallel):
    course, _, _ = parallel
    for graded in (stock, course):
        nbgrader = _nbgrader(graded.parent)
        nbgrader.run("generate_feedback", ASSIGNMENT, cwd=graded)
        nbgrader.run("export", f"--to={graded / 'grades.csv'}", cwd=graded)
    for student in STUDENTS:
        page = course / "feedback" / student / ASSIGNMENT / f"{ASSIGNMENT}.html"
        assert page.is_file()

    def rows(graded: Path) -> list[dict]:
        with open(graded / "grades.csv", newline="") as handle:
            return sorted(({k: v for k, v in row.items() if k != "timestamp"}
                           for row in csv.DictReader(handle)), key=lambda r: r["student_id"])

    assert rows(course) == rows(stock)
    (hanging,) = [row for row in rows(course) if row["student_id"] == "hanging1"]
    assert (float(hanging["score"]), float(hanging["max_score"])) == (7, 9)
    page = (course / "feedback" / "hanging1" / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text()
    assert "Test cell</a> (Score: 2.0 / 4.0)" in page
    assert "2 of 4 points: 2 of this cell&#39;s 4 tests passed." in page or \
        "2 of 4 points: 2 of this cell's 4 tests passed." in page


def test_running_it_again_grades_only_what_changed(made, tmp_path):
    course = _copy(made, tmp_path)
    students = "reference1,wrong1"
    assert _autograde(course, "--students", students, "--workers", "2")[0] == 0
    code, out = _autograde(course, "--students", students, "--workers", "2")
    assert code == 0 and "2 unchanged" in out
    assert {r["status"] for r in _summary(course).values()} == {"unchanged"}
    wrong = _cells(course)
    released = nbformat.read(course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", 4)
    hand_in(course, ASSIGNMENT, "wrong1", submission("reference", released))
    code, out = _autograde(course, "--students", students, "--workers", "2")
    records = _summary(course)
    assert code == 0 and records["wrong1"]["status"] == "graded"
    assert records["reference1"]["status"] == "unchanged"
    now = _cells(course)
    assert all(score == maximum for (s, _, _), (score, _, maximum) in now.items() if s == "wrong1")
    assert {k: v for k, v in now.items() if k[0] == "reference1"} == \
        {k: v for k, v in wrong.items() if k[0] == "reference1"}
    assert "1 graded" in _autograde(course, "--students", "reference1", "--force")[1]


def test_a_regrade_keeps_a_graders_manual_score_and_flags_the_cell_as_nbgrader_does(
        made, tmp_path):
    course = _copy(made, tmp_path)
    db = f"sqlite:///{course / 'gradebook.db'}"
    assert _autograde(course, "--students", "wrong1", "--workers", "1")[0] == 0
    with Gradebook(db, "agentlab") as gb:
        grade = gb.find_submission(ASSIGNMENT, "wrong1").notebooks[0].grades[0]
        name, grade.manual_score = grade.name, 0.5
        gb.db.commit()
    assert _autograde(course, "--students", "wrong1", "--workers", "1", "--force")[0] == 0
    with Gradebook(db, "agentlab") as gb:
        grade = gb.find_grade(name, ASSIGNMENT, ASSIGNMENT, "wrong1")
        assert (grade.manual_score, grade.needs_manual_grade) == (0.5, True)
        assert grade.auto_score is not None


def _fingerprints(course: Path) -> Path:
    """Where the batch notes what it merged (written at its first merge)."""
    return course / ".agentlab" / "autograde" / f"{ASSIGNMENT}.json"


def _merging(course: Path, *options: str, **popen: Any) -> subprocess.Popen:
    """`agentlab course autograde` of the course as a command of its own (`popen`: how it is
    started), once it has merged its first submission."""
    command = [sys.executable, "-m", "agentlab_magics.cli", "course", "autograde", ASSIGNMENT,
               "--course", str(course), *options]
    run = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           env={**os.environ, **_nbgrader(course.parent).env}, **popen)
    deadline = time.monotonic() + 240
    while not _fingerprints(course).exists() and time.monotonic() < deadline \
            and run.poll() is None:
        time.sleep(0.2)
    return run


def _ctrl_c_as_a_terminal_gives_it() -> None:
    """In the command's process: Ctrl-C as a terminal gives it, even where these tests were
    started with it ignored (a background job of a script), which the command would inherit."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _one_core_and_ctrl_c() -> None:
    """In the command's process: one core, so its plan for any class is this process
    (batch.plan); and Ctrl-C as a terminal gives it."""
    os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:1])
    _ctrl_c_as_a_terminal_gives_it()


@pytest.mark.parametrize("options, plan, before", [
    ((), "no cluster: this process graded", _one_core_and_ctrl_c),
    (("--workers", "2"), "on LocalCluster, 2 workers (as asked)", _ctrl_c_as_a_terminal_gives_it),
], ids=["in-process", "cluster"])
def test_ctrl_c_stops_it_and_the_gradebook_stays_whole_and_the_cluster_grades_the_rest(
        options, plan, before, made, stock, tmp_path):
    """Ctrl-C reaches the command's whole process group, as a terminal sends it: every
    process of the batch gets it, and only the command acts on it (no worker's traceback)."""
    course = _copy(made, tmp_path)
    state = _fingerprints(course)
    run = _merging(course, *options, preexec_fn=before, process_group=0)
    os.killpg(run.pid, signal.SIGINT)
    out = run.communicate(timeout=120)[0]
    assert run.returncode == 130, out
    assert "Stopped." in out and plan in out
    assert "Traceback" not in out and "KeyboardInterrupt" not in out, out
    assert "--existing" not in out  # no kernel writes to the grader's terminal (its banner)
    merged = json.loads(state.read_text())
    records = _summary(course)
    assert 1 <= len(merged) < len(STUDENTS)
    assert {s for s, r in records.items() if r["status"] == "graded"} == set(merged)
    cells, expected = _cells(course), _cells(stock)
    assert {s for s, _, _ in cells} == set(merged)
    assert cells == {k: v for k, v in expected.items() if k[0] in merged}
    assert _autograde(course, "--workers", "2")[0] == 0
    assert _cells(course) == expected


def test_a_worker_killed_mid_run_is_started_again_and_every_submission_counts_once(
        made, stock, tmp_path):
    """A local worker killed while the batch runs (its kernel's memory, an operator's kill):
    Dask's nanny forks a new one from the command's process, which is mid-batch by then, and
    every submission is graded and merged once, as nbgrader's own autograde scores it."""
    course = _copy(made, tmp_path)
    run = _merging(course, "--workers", "2")
    workers = _workers(run.pid)
    assert len(workers) == 2, workers
    os.kill(workers[0], signal.SIGKILL)
    started_again = set()
    deadline = time.monotonic() + 240
    while not started_again and time.monotonic() < deadline and run.poll() is None:
        started_again = set(_workers(run.pid)) - set(workers)
        time.sleep(0.05)
    out = run.communicate(timeout=300)[0]
    assert started_again, out
    assert run.returncode == 0, out
    assert {s for s, r in _summary(course).items() if r["status"] == "graded"} == set(STUDENTS)
    assert _cells(course) == _cells(stock)


def _workers(command: int) -> list[int]:
    """The worker processes of the batch whose process is `command`: its children forked
    from it (so their command line is its own)."""
    children = subprocess.run(["ps", "-o", "pid=,args=", "--ppid", str(command)],
                              capture_output=True, text=True, check=False).stdout.splitlines()
    return [int(line.split()[0]) for line in children if "autograde" in line]


def test_a_refused_submission_fails_with_its_sentence_and_the_rest_is_graded(made, tmp_path):
    course = _copy(made, tmp_path)
    (course / "submitted" / "wrong1" / ASSIGNMENT / "notes.txt").symlink_to("/etc/passwd")
    code, out = _autograde(course, "--students", "reference1,wrong1", "--workers", "1")
    records = _summary(course)
    assert code == 1, out
    assert records["reference1"]["status"] == "graded"
    assert records["wrong1"]["status"] == "failed"
    assert "notes.txt" in records["wrong1"]["problem"] and "not graded" in out
    assert {s for s, _, _ in _cells(course)} == {"reference1"}


def test_nobody_handed_in_is_a_sentence_even_with_the_environment_not_activated(made,
                                                                               tmp_path):
    """The environment's agentlab run by its full path, its scripts (nbgrader's `alembic`)
    not on PATH: the assignment is read, and the empty round refused in one sentence."""
    course = _copy(made, tmp_path)
    shutil.rmtree(course / "submitted")
    before = tree(course)
    done = subprocess.run(
        [str(Path(sys.executable).parent / "agentlab"), "course", "autograde", ASSIGNMENT,
         "--course", str(course)],
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "AGENTLAB_EXCHANGE":
             str(tmp_path / "exchange"), "JUPYTER_CONFIG_DIR": str(tmp_path / "jupyter-config")},
        capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    assert done.stderr == (f"agentlab: Nobody has handed in {ASSIGNMENT}: there is no submission "
                           f"in {course / 'submitted'}. Run `nbgrader collect {ASSIGNMENT}` "
                           "first.\n")
    assert tree(course) == before
