"""Seconds per notebook of autograde, in one run: isolated against in-kernel grading, then
nbgrader's serial autograde against agentlab's parallel one.

Two copies of one course hold the same handed-in notebooks (the demo's reference, starter and
wrong students, COPIES of each, for each assignment in ASSIGNMENTS):
- isolated: the course's own configuration, as instructors run it: the kernel in its sandbox,
  every graded cell scored in a sandboxed process of its own (agentlab_magics.grading);
- in-kernel: the grading before isolation: nbgrader's stock Execute, the kernel unconfined,
  and `grade()` checking inside the student's kernel (a kernel spec that leaves
  NBGRADER_EXECUTION out, so grade() does not defer to the grader).
Each configuration autogrades every notebook of an assignment in one command, REPEATS times
(alternating, `--force`); the median per notebook is printed with the ratio.
Then, for K = 1, 10 and 40 submissions of lesson1 (fresh copies of one course each time),
stock serial `nbgrader autograde` (one command for the K) against `agentlab course autograde
--workers 2`: seconds per submission, the ratio, and where a submission's time goes on a
worker, with the cores each run kept busy. Asserts nothing.
Run: python bench/bench_autograde.py [repeats]   (as root for the strongest sandbox).
"""

from __future__ import annotations

import io
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

from agentlab_magics.term.handed_in import handed_in
from agentlab_magics.term.nbgrader_cli import Nbgrader
from agentlab_magics.grading.batch import autograde_course
from agentlab_magics.grading.sandbox import detect

COURSE = Path(__file__).resolve().parents[1] / "nbgrader_course"
ASSIGNMENTS = ("lesson1", "lesson5")
PARALLEL_ASSIGNMENT = "lesson1"
SIZES = (1, 10, 40)
CORES = 2
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
    config = (COURSE / "nbgrader_config.py").read_text(encoding="utf-8")
    assert SCORED_OUTSIDE in config
    if in_kernel:
        config = config.replace(SCORED_OUTSIDE, STOCK_EXECUTE)
    return handed_in(COURSE, folder, ASSIGNMENTS, students(), nbgrader, config=config)


def seconds(nbgrader: Nbgrader, course: Path, assignment: str) -> float:
    started = time.perf_counter()
    nbgrader.run("autograde", assignment, "--force", cwd=course)
    return time.perf_counter() - started


def isolation(repeats: int) -> None:
    """Isolated against in-kernel grading, per notebook."""
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


def parallel() -> None:
    """Stock serial `nbgrader autograde` against `agentlab course autograde --workers 2`, on
    fresh copies of one course with K submissions of PARALLEL_ASSIGNMENT, for each K; with
    the cores each kept busy (the machine's CPU seconds over the run's wall seconds)."""
    with tempfile.TemporaryDirectory(prefix="agentlab-bench-parallel-") as top:
        top = Path(top)
        nbgrader = Nbgrader({"AGENTLAB_EXCHANGE": str(top / "exchange"),
                             "JUPYTER_CONFIG_DIR": str(top / "jupyter-config")})
        (top / "exchange").mkdir()
        many = [f"{PERSONAS[n % len(PERSONAS)]}{n}" for n in range(max(SIZES))]
        made = handed_in(COURSE, top / "made", [PARALLEL_ASSIGNMENT], many, nbgrader)
        print(f"\n{PARALLEL_ASSIGNMENT}, K submissions: stock serial `nbgrader autograde` "
              "against `agentlab course autograde --workers 2` (a LocalCluster started per run)")
        print(f"{'K':>4} {'serial s/sub':>13} {'cores':>6} {'parallel s/sub':>15} {'cores':>6} "
              f"{'ratio':>7}")
        phases: dict[str, list[float]] = {}
        for k in SIZES:
            serial_course, parallel_course = (_subset(made, top / f"{name}{k}", many[:k])
                                              for name in ("serial", "parallel"))
            _, serial, serial_cores = _measured(lambda: nbgrader.run(
                "autograde", PARALLEL_ASSIGNMENT, cwd=serial_course))
            summary, ours, our_cores = _measured(lambda: autograde_course(
                parallel_course, PARALLEL_ASSIGNMENT, workers=2, nbgrader=nbgrader,
                progress=io.StringIO()))
            if summary.count("graded") != k:
                print(summary.render())
            for record in summary.records:
                for phase, spent in record.phases.items():
                    phases.setdefault(phase, []).append(spent)
            print(f"{k:4} {serial / k:13.2f} {serial_cores:6.2f} {ours / k:15.2f} "
                  f"{our_cores:6.2f} {serial / ours:6.2f}x")
        print(f"goal: >= 1.8x at K = {max(SIZES)} on two cores. No run on {CORES} cores can "
              f"beat the serial one by more than {CORES} / its cores busy "
              f"(here {CORES / serial_cores:.2f}x): the serial run already scores each "
              "notebook while its kernel runs.")
        print("where a submission's time goes on a worker (median seconds; scoring runs "
              "alongside kernel start and cells, scoring wait is what is left of it after):")
        for phase, spent in phases.items():
            print(f"  {phase:15} {statistics.median(spent):6.2f}")


def _measured(run: Callable[[], Any]) -> tuple[Any, float, float]:
    """What `run()` returns, the wall seconds it takes, and the cores the machine kept busy
    meanwhile."""
    began, busy = time.perf_counter(), _busy_seconds()
    result = run()
    wall = time.perf_counter() - began
    return result, wall, (_busy_seconds() - busy) / wall


def _busy_seconds() -> float:
    """The CPU seconds all of this machine's processes have spent since boot (Linux)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields[:8]
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def _subset(made: Path, folder: Path, students: list[str]) -> Path:
    """A copy of the course `made` with only `students`' submissions."""
    course = folder / "course"
    shutil.copytree(made, course, ignore=shutil.ignore_patterns("submitted"))
    for student in students:
        shutil.copytree(made / "submitted" / student, course / "submitted" / student)
    return course


def main(repeats: int = 3) -> None:
    isolation(repeats)
    parallel()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
