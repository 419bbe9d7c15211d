"""Seconds per notebook that `nbgrader autograde` spends, isolated against in-kernel grading, in
one run on the same submissions.

Two copies of one course hold the same handed-in notebooks (the demo's reference, starter and
wrong students, COPIES of each, for each assignment in ASSIGNMENTS):
- isolated: the course's own configuration, as instructors run it: the kernel in its sandbox,
  every graded cell scored in a sandboxed process of its own (agentlab_magics.grading);
- in-kernel: the grading before isolation: nbgrader's stock Execute, the kernel unconfined,
  and `grade()` checking inside the student's kernel (a kernel spec that leaves
  NBGRADER_EXECUTION out, so grade() does not defer to the grader).
Each configuration autogrades every notebook of an assignment in one command, REPEATS times
(alternating, `--force`); the median per notebook is printed with the ratio. Asserts nothing.
Run: python bench/bench_autograde.py [repeats]   (as root for the strongest sandbox).
"""

from __future__ import annotations

import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from agentlab_magics.course.nbgrader_cli import Nbgrader
from agentlab_magics.course.students import submission
from agentlab_magics.grading.sandbox import detect

COURSE = Path(__file__).resolve().parents[1] / "nbgrader_course"
ASSIGNMENTS = ("lesson1", "lesson5")
PERSONAS = ("reference", "starter", "wrong")
COPIES = 2
SCORED_OUTSIDE = '"agentlab_magics.grading.autograde.ScoredOutside"'
STOCK_EXECUTE = '"nbgrader.preprocessors.Execute"'


def students() -> list[str]:
    return [f"{persona}{n}" for persona in PERSONAS for n in range(1, COPIES + 1)]


def unconfined_kernel(folder: Path) -> Path:
    """A Jupyter data folder whose python3 kernel runs without NBGRADER_EXECUTION."""
    spec = folder / "kernels" / "python3"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": ["env", "-u", "NBGRADER_EXECUTION", sys.executable, "-m", "ipykernel_launcher",
                 "-f", "{connection_file}"],
        "display_name": "Python 3", "language": "python"}), encoding="utf-8")
    return folder


def course_copy(folder: Path, nbgrader: Nbgrader, in_kernel: bool) -> Path:
    """A course with every assignment generated and every student's notebook handed in;
    `in_kernel`: its configuration with nbgrader's stock Execute in place of ScoredOutside."""
    course = folder / "course"
    for assignment in ASSIGNMENTS:
        shutil.copytree(COURSE / "source" / assignment, course / "source" / assignment)
    config = (COURSE / "nbgrader_config.py").read_text(encoding="utf-8")
    assert SCORED_OUTSIDE in config
    if in_kernel:
        config = config.replace(SCORED_OUTSIDE, STOCK_EXECUTE)
    (course / "nbgrader_config.py").write_text(config, encoding="utf-8")
    for assignment in ASSIGNMENTS:
        nbgrader.run("generate_assignment", assignment, cwd=course)
    roster = folder / "students.csv"
    roster.write_text("id\n" + "".join(f"{s}\n" for s in students()), encoding="utf-8")
    nbgrader.run("db", "student", "import", str(roster), cwd=course)
    for assignment in ASSIGNMENTS:
        released = nbformat.read(course / "release" / assignment / f"{assignment}.ipynb", 4)
        for student in students():
            where = course / "submitted" / student / assignment
            where.mkdir(parents=True)
            nbformat.write(submission(student.rstrip("0123456789"), released),
                           where / f"{assignment}.ipynb")
    return course


def seconds(nbgrader: Nbgrader, course: Path, assignment: str) -> float:
    started = time.perf_counter()
    nbgrader.run("autograde", assignment, "--force", cwd=course)
    return time.perf_counter() - started


def main(repeats: int = 3) -> None:
    with tempfile.TemporaryDirectory(prefix="agentlab-bench-autograde-") as top:
        top = Path(top)
        runs = {}
        for name, in_kernel, env in (
                ("isolated", False, {}),
                ("in-kernel", True,
                 {"JUPYTER_PATH": str(unconfined_kernel(top / "in-kernel-data"))})):
            folder = top / name
            folder.mkdir()
            nbgrader = Nbgrader({"AGENTLAB_EXCHANGE": str(folder / "exchange"),
                                 "AGENTLAB_PROGRESS": str(folder / "progress.json"),
                                 "JUPYTER_CONFIG_DIR": str(folder / "jupyter-config"), **env})
            (folder / "exchange").mkdir()
            runs[name] = (nbgrader, course_copy(folder, nbgrader, in_kernel))
        count = len(students())
        print(f"sandbox mode: {detect()}; {count} notebooks per assignment, median of {repeats}")
        print(f"{'assignment':12} {'isolated s/nb':>14} {'in-kernel s/nb':>15} {'ratio':>7}")
        for assignment in ASSIGNMENTS:
            times: dict[str, list[float]] = {name: [] for name in runs}
            for _ in range(repeats):
                for name, (nbgrader, course) in runs.items():
                    times[name].append(seconds(nbgrader, course, assignment) / count)
            isolated, in_kernel = (statistics.median(times[n]) for n in runs)
            print(f"{assignment:12} {isolated:14.2f} {in_kernel:15.2f} "
                  f"{isolated / in_kernel:6.2f}x")
        print("goal: isolation costs at most 1.5x the in-kernel grading per notebook")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
