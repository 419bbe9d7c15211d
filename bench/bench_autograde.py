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
Then, for K = 8 and 24 submissions of lesson1 (fresh copies of one course each time), stock
serial `nbgrader autograde`, the default `agentlab course autograde` and its `--workers 2`, each
its own command: wall and CPU seconds, per submission, against stock; and each variant's
seconds a submission and fixed start-up. Asserts nothing (the scores' equality is a test's).
Run: python bench/bench_autograde.py [repeats]   (as root for the strongest sandbox);
python bench/bench_autograde.py parallel   for the second part only.
"""

from __future__ import annotations

import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from agentlab_magics.grading.batch import plan
from agentlab_magics.grading.sandbox import detect
from agentlab_magics.term.handed_in import handed_in
from agentlab_magics.term.nbgrader_cli import Nbgrader

COURSE = Path(__file__).resolve().parents[1] / "nbgrader_course"
ASSIGNMENTS = ("lesson1", "lesson5")
PARALLEL_ASSIGNMENT = "lesson1"
SIZES = (8, 24)
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
    """Stock serial `nbgrader autograde`, the default `agentlab course autograde` and its
    `--workers 2`, each its own command line (its interpreter's start counted), on fresh
    copies of one course with K submissions of PARALLEL_ASSIGNMENT, for each K in SIZES,
    interleaved: wall and CPU seconds (the command's own tree), per submission; then, from the two
    sizes, each variant's seconds per submission and its fixed start-up."""
    scripts = Path(sys.executable).parent
    variants = {
        "stock nbgrader": lambda course: [str(scripts / "nbgrader"), "autograde",
                                          PARALLEL_ASSIGNMENT],
        "agentlab default": lambda course: [str(scripts / "agentlab"), "course", "autograde",
                                            PARALLEL_ASSIGNMENT, "--course", str(course)],
        "agentlab -w 2": lambda course: [str(scripts / "agentlab"), "course", "autograde",
                                         PARALLEL_ASSIGNMENT, "--course", str(course),
                                         "--workers", "2"],
    }
    with tempfile.TemporaryDirectory(prefix="agentlab-bench-parallel-") as top:
        top = Path(top)
        nbgrader = Nbgrader({"AGENTLAB_EXCHANGE": str(top / "exchange"),
                             "JUPYTER_CONFIG_DIR": str(top / "jupyter-config")})
        (top / "exchange").mkdir()
        many = [f"{PERSONAS[n % len(PERSONAS)]}{n}" for n in range(max(SIZES))]
        made = handed_in(COURSE, top / "made", [PARALLEL_ASSIGNMENT], many, nbgrader)
        print(f"\n{PARALLEL_ASSIGNMENT}, K submissions, each variant its own command "
              f"(sandbox mode {detect()}):")
        print(f"{'variant':17} {'K':>3} {'wall s':>7} {'CPU s':>7} {'wall/sub':>9} "
              f"{'CPU/sub':>8} {'vs stock':>9}")
        runs: dict[tuple[str, int], tuple[float, float]] = {}
        for k in SIZES:
            for name, command in variants.items():
                course = _subset(made, top / f"{name.replace(' ', '-')}{k}", many[:k])
                runs[(name, k)] = _command_cost(command(course), course, nbgrader)
                wall, cpu = runs[(name, k)]
                stock = runs[("stock nbgrader", k)][0]
                print(f"{name:17} {k:3} {wall:7.1f} {cpu:7.1f} {wall / k:9.2f} {cpu / k:8.2f} "
                      f"{stock / wall:8.2f}x")
        small, large = SIZES
        print(f"per submission and start-up, from K={small} and K={large}:")
        for name in variants:
            if name == "agentlab default" and plan(small, None, None)[0] != plan(large, None,
                                                                                   None)[0]:
                print(f"  {name:17} graded K={small} in its own process and K={large} on a "
                      "cluster (batch.plan): no one cost a submission")
                continue
            (wall_s, cpu_s), (wall_l, cpu_l) = runs[(name, small)], runs[(name, large)]
            step = large - small
            per_wall, per_cpu = (wall_l - wall_s) / step, (cpu_l - cpu_s) / step
            print(f"  {name:17} {per_wall:5.2f} s wall, {per_cpu:5.2f} s CPU a submission; "
                  f"start-up {wall_s - small * per_wall:5.1f} s wall, "
                  f"{cpu_s - small * per_cpu:5.1f} s CPU")
        stock_cpu = (runs[("stock nbgrader", large)][1] - runs[("stock nbgrader", small)][1])
        ours_cpu = (runs[("agentlab -w 2", large)][1] - runs[("agentlab -w 2", small)][1])
        print(f"goals on {CORES} cores: default >= 1.0x stock at K={small} (here "
              f"{runs[('stock nbgrader', small)][0] / runs[('agentlab default', small)][0]:.2f}x)"
              f"; --workers 2 >= 1.7x at K={large} (here "
              f"{runs[('stock nbgrader', large)][0] / runs[('agentlab -w 2', large)][0]:.2f}x); "
              f"CPU a submission within 1.1x of stock's (here {ours_cpu / stock_cpu:.2f}x)")


def _command_cost(command: list[str], course: Path, nbgrader: Nbgrader) -> tuple[float, float]:
    """The wall seconds `command` takes in `course`, and the CPU seconds it and every process
    it started and waited for spent (getrusage of this process's children: the command's own
    tree, which other work on a shared machine does not add to)."""
    began, spent = time.perf_counter(), _children_seconds()
    done = subprocess.run(command, cwd=course, env=nbgrader.environment(), capture_output=True,
                          text=True, check=False)
    wall, cpu = time.perf_counter() - began, _children_seconds() - spent
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited {done.returncode}:\n{done.stderr[-2000:]}")
    return wall, cpu


def _children_seconds() -> float:
    """The user and system CPU seconds of the children this process has waited for."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


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
    if sys.argv[1:2] == ["parallel"]:
        parallel()
    else:
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
