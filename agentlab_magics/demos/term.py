"""`agentlab course demo`: nbgrader's whole round trip over a copy of the course, with
simulated students (students.py), every step through nbgrader's own command line.

The work folder holds:
  course/            the instructor's folder: a copy of the course's source/ and
                     nbgrader_config.py; nbgrader adds release/, submitted/, autograded/,
                     feedback/ and gradebook.db
  exchange/          the exchange (AGENTLAB_EXCHANGE points here, whatever it was before)
  students/<name>/   each student's home, where they fetch and submit
  grades.csv         what `nbgrader export` wrote
  logs/              each command's log
The steps: generate_assignment (every assignment in one run), `db student import` (the
roster), release_assignment per assignment, fetch_assignment per student (every assignment),
submit per student and assignment (after the student's edits), then per assignment collect,
autograde and generate_feedback, and last export. Autograde is agentlab's own
(`agentlab course autograde`, grading.batch): each assignment's submissions graded in
parallel on one local Dask cluster the demo starts (`graders()` workers), merged into
nbgrader's gradebook.
Commands run WORKERS at a time, each as soon as what it needs is done, so an assignment is
graded while others are handed in.
Nothing is read from or written to the caller's home: the Jupyter configuration folder and
the progress store (which %%check writes while autograding) are in the work folder too.
"""

from __future__ import annotations

import io
import shutil
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import nbformat
from pydantic import BaseModel

from agentlab_magics.demos.students import (
    STUDENTS,
    harness,
    harness_cells,
    lab_of,
    submission,
)
from agentlab_magics.demos.task_graph import Task, run_tasks
from agentlab_magics.grading.batch import autograde_course, cores, local_cluster
from agentlab_magics.grading.batch_ledger import log_folder
from agentlab_magics.problems import UsageProblem
from agentlab_magics.term.course_folder import CONFIG, in_course_order
from agentlab_magics.term.grade_table import GradeTable, read_grades
from agentlab_magics.term.nbgrader_cli import Nbgrader, require_nbgrader
from agentlab_magics.term.progress_bar import ProgressBar

# Commands at a time. More than the two cores this was measured on: a hanging submission
# spends its time limits asleep (measured before lesson 7, with 9 assignments and 5 students:
# 188 s with 3, 170 s with 4).
WORKERS = 4
# The demo's graders (its local cluster's single-threaded workers), for the same reason: twice
# the cores, up to GRADERS_CAP (each is a process of its own). Measured on 2 cores, the whole
# term: 119 s with 2 graders, 93 s with 4, 95 s with 6.
GRADERS_CAP = 8


def graders() -> int:
    """How many submissions the demo grades at once: twice the cores, at most GRADERS_CAP."""
    return min(2 * cores(), GRADERS_CAP)


class CourseProblem(UsageProblem):
    """The course folder cannot be demonstrated; the message says what is missing."""


class DemoRun(BaseModel):
    """What a demo gave: the grades, and how long it took."""

    table: GradeTable
    seconds: float


def assignments(course: Path) -> list[str]:
    """The assignments of a course folder: each folder of source/ holding a notebook, in the
    course's order (labs first, in catalog order, then the rest by name)."""
    source = course / "source"
    found = [d.name for d in sorted(source.iterdir()) if d.is_dir() and any(d.glob("*.ipynb"))] \
        if source.is_dir() else []
    return in_course_order(found)


def run_demo(course: Path, folder: Path, students: Sequence[str] = STUDENTS, *,
             workers: int = WORKERS) -> DemoRun:
    """Copy `course` into `folder` (new or empty), play the whole nbgrader round trip there
    with `students`, and return the grades; a progress bar on stderr counts the commands."""
    require_nbgrader()
    started = time.monotonic()
    students = list(dict.fromkeys(students))
    found = assignments(course)
    if not (course / CONFIG).is_file() or not found:
        raise CourseProblem(f"{course} needs an {CONFIG} and at least one notebook in "
                            "source/<assignment>/; `agentlab course build` writes them.")
    if folder.exists() and any(folder.iterdir()):
        raise CourseProblem(f"{folder} is not empty; the demo needs a folder of its own.")
    unknown = [s for s in students if s not in STUDENTS]
    if unknown or not students:
        raise CourseProblem(f"The simulated students are {', '.join(STUDENTS)}; "
                            f"not {', '.join(unknown) or 'none'}.")
    _check_students_can_write(course, found, students)
    home = folder / "course"
    shutil.copytree(course / "source", home / "source")
    shutil.copy(course / CONFIG, home / CONFIG)
    for made in ("exchange", "jupyter-config", "logs",
                 *(f"students/{student}" for student in students)):
        (folder / made).mkdir(parents=True)
    nbgrader = Nbgrader({"AGENTLAB_EXCHANGE": str(folder / "exchange"),
                         "AGENTLAB_PROGRESS": str(folder / "progress.json"),
                         "JUPYTER_CONFIG_DIR": str(folder / "jupyter-config")})

    def command(label: str, *args: str, cwd: Path = home, needs: Sequence[Task] = ()) -> Task:
        def run() -> None:
            log = nbgrader.run(*args, cwd=cwd)
            (folder / "logs" / f"{label.replace(' ', '-')}.log").write_text(log, encoding="utf-8")
        return Task(label, run, list(needs))

    with local_cluster(graders()) as cluster:
        scheduler = cluster.scheduler_address

        def autograde(assignment: str, needs: Sequence[Task]) -> Task:
            def run() -> None:
                log = io.StringIO()
                # simulated students, not for credit: graded on any machine, the sandbox's
                # mode said at the end
                summary = autograde_course(home, assignment, scheduler=scheduler,
                                           nbgrader=nbgrader, progress=log,
                                           without_sandbox=True)
                log.write(summary.render() + "\n")
                for path in sorted(log_folder(home, assignment).glob("*.log")):
                    log.write(f"\n{path.stem}:\n{path.read_text(encoding='utf-8')}")
                (folder / "logs" / f"autograde-{assignment}.log").write_text(
                    log.getvalue(), encoding="utf-8")
                if summary.count("failed"):
                    raise CourseProblem(f"autograde {assignment}: "
                                        + "; ".join(r.problem or r.student for r in
                                                    summary.records if r.status == "failed"))
            return Task(f"autograde {assignment}", run, list(needs))

        tasks = _tasks(home, folder, found, students, command, autograde)
        bar = ProgressBar(len(tasks))
        run_tasks(tasks, workers, lambda task: bar.step(task.label))
    table = read_grades(folder / "grades.csv", f"sqlite:///{home / 'gradebook.db'}",
                        _course_id(folder / "exchange"), found, students)
    return DemoRun(table=table, seconds=time.monotonic() - started)


def _check_students_can_write(course: Path, found: list[str], students: list[str]) -> None:
    """CourseProblem unless each student has code for every lab the course's notebooks check."""
    for assignment in found:
        for path in sorted((course / "source" / assignment).glob("*.ipynb")):
            for cell in harness_cells(nbformat.read(path, as_version=4)):
                for student in set(students) - {"starter"}:
                    try:
                        harness(student, lab_of(cell))
                    except (LookupError, ValueError) as exc:
                        raise CourseProblem(f"{path.name}: {exc}") from None


def _tasks(home: Path, folder: Path, found: list[str], students: list[str],
           command: Callable[..., Task], autograde: Callable[..., Task]) -> list[Task]:
    """Every command of the round trip, each with the commands it needs, in the order they
    should start when several could: an assignment's collect and autograde come before
    the next assignment's hand-ins."""
    roster = folder / "students.csv"
    roster.write_text("id\n" + "".join(f"{student}\n" for student in students), encoding="utf-8")
    generate = command("generate every assignment", "generate_assignment", "*")
    enrol = command("import the roster", "db", "student", "import", str(roster), needs=[generate])
    # One release at a time: each makes the exchange's course folders if they are missing
    # (os.makedirs, not exist_ok), so two at once can fail on the same folder.
    release: list[Task] = []
    for assignment in found:
        release.append(command(f"release {assignment}", "release_assignment", assignment,
                               needs=[release[-1] if release else generate]))
    fetch = {student: command(f"{student} fetches every assignment", "fetch_assignment",
                              *found, *_as_student(home, own, student), cwd=own, needs=release)
             for student in students for own in [folder / "students" / student]}
    tasks = [generate, enrol, *release, *fetch.values()]
    given_feedback = []
    for assignment in found:
        handed_in = [_hand_in(command(f"{student} hands in {assignment}", "submit", assignment,
                                      *_as_student(home, own, student), cwd=own,
                                      needs=[fetch[student]]), own / assignment, student)
                     for student in students for own in [folder / "students" / student]]
        collect = command(f"collect {assignment}", "collect", assignment,
                          "--ExchangeCollect.check_owner=False", needs=handed_in)
        grade = autograde(assignment, needs=[collect, enrol])
        feedback = command(f"feedback on {assignment}", "generate_feedback", assignment,
                           needs=[grade])
        tasks += [*handed_in, collect, grade, feedback]
        given_feedback.append(feedback)
    export = command("export the grades", "export", f"--to={folder / 'grades.csv'}",
                     needs=given_feedback)
    return [*tasks, export]


def _as_student(home: Path, own: Path, student: str) -> list[str]:
    """A student's options: the course's settings (course id, exchange), their own cache,
    and their id (every simulated student is the same user of this machine)."""
    return [f"--course-dir={home}", f"--Exchange.cache={own / '.nbgrader-cache'}",
            f"--student={student}"]


def _hand_in(submit: Task, fetched: Path, student: str) -> Task:
    """`submit`, after the student's edits to each fetched notebook that has a harness cell."""
    def edit_and_submit() -> None:
        for path in sorted(fetched.glob("*.ipynb")):
            nb = nbformat.read(path, as_version=4)
            if harness_cells(nb):
                nbformat.write(submission(student, nb), path)
        submit.run()

    return Task(submit.label, edit_and_submit, submit.needs)


def _course_id(exchange: Path) -> str:
    """The course id, read off the exchange: release made one folder in it, named for it."""
    (course,) = [d.name for d in exchange.iterdir() if d.is_dir()]
    return course
