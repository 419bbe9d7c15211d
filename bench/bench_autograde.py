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
its own command: wall and CPU seconds (the command's tree's and the machine's), per
submission, against stock; each variant's seconds a submission and fixed start-up; and the
most any grader could gain on these cores. Asserts nothing (the scores' equality is a test's).
Run: python bench/bench_autograde.py [repeats]   (as root for the strongest sandbox);
python bench/bench_autograde.py parallel   for the second part only.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

from agentlab_magics.grading.batch import plan
from agentlab_magics.grading.sandbox import detect
from agentlab_magics.term.nbgrader_cli import Nbgrader
from tests.handed_in import handed_in

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
    interleaved: wall seconds, and CPU seconds twice: the command's own tree (what it waited
    for) and the machine's (every process and the kernel's threads while it ran: the sandboxes'
    processes are reaped outside the tree, so only this counts them; run on a quiet machine);
    per submission. Then, from the two sizes, each variant's seconds a submission and fixed
    start-up, and the most any grader could gain on these cores doing stock's work."""
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
              f"(sandbox mode {detect()}; CPU s: the command's tree / the machine's):")
        print(f"{'variant':17} {'K':>3} {'wall s':>7} {'CPU s':>11} {'wall/sub':>9} "
              f"{'CPU/sub':>11} {'vs stock':>9}")
        runs: dict[tuple[str, int], Cost] = {}
        for k in SIZES:
            for name, command in variants.items():
                course = _subset(made, top / f"{name.replace(' ', '-')}{k}", many[:k])
                cost = runs[(name, k)] = _command_cost(command(course), course, nbgrader)
                stock = runs[("stock nbgrader", k)].wall
                print(f"{name:17} {k:3} {cost.wall:7.1f} {cost.tree:5.1f} /{cost.machine:5.1f}"
                      f" {cost.wall / k:9.2f} {cost.tree / k:5.2f} /{cost.machine / k:5.2f} "
                      f"{stock / cost.wall:8.2f}x")
        small, large = SIZES
        print(f"per submission and start-up, from K={small} and K={large}:")
        per: dict[str, Cost] = {}
        for name in variants:
            if name == "agentlab default" and plan(small, None, None)[0] != plan(large, None,
                                                                                   None)[0]:
                print(f"  {name:17} graded K={small} in its own process and K={large} on a "
                      "cluster (batch.plan): no one cost a submission")
                continue
            few, more = runs[(name, small)], runs[(name, large)]
            step = per[name] = more.minus(few, large - small)
            print(f"  {name:17} {step.wall:5.2f} s wall, {step.tree:5.2f} / {step.machine:5.2f}"
                  f" s CPU a submission; start-up {few.wall - small * step.wall:5.1f} s wall, "
                  f"{few.tree - small * step.tree:5.1f} / "
                  f"{few.machine - small * step.machine:5.1f} s CPU")
        stock, ours = per["stock nbgrader"], per["agentlab -w 2"]
        stock_large = runs[("stock nbgrader", large)]
        default_small = runs[("stock nbgrader", small)].wall / runs[("agentlab default",
                                                                      small)].wall
        print(f"goals on {CORES} cores: default >= 1.0x stock at K={small} (here "
              f"{default_small:.2f}x)"
              f"; --workers 2 >= 1.7x at K={large} (here "
              f"{stock_large.wall / runs[('agentlab -w 2', large)].wall:.2f}x); "
              f"CPU a submission within 1.1x of stock's (here {ours.tree / stock.tree:.2f}x "
              f"of the tree's, {ours.machine / stock.machine:.2f}x of the machine's)")
        print(f"the most any grader could gain at K={large} doing the work stock does (its "
              f"start-up included), every core busy all the time: "
              f"{stock_large.wall * CORES / stock_large.machine:.2f}x (stock's machine CPU "
              f"over {CORES} cores)")


class Cost(NamedTuple):
    """What one command cost: wall seconds, and CPU seconds of its tree and of the machine."""

    wall: float
    tree: float
    machine: float

    def minus(self, other: Cost, count: int) -> Cost:
        """Each figure's difference from `other`'s, divided by `count`."""
        return Cost(*((mine - theirs) / count for mine, theirs in zip(self, other)))


def _command_cost(command: list[str], course: Path, nbgrader: Nbgrader) -> Cost:
    """What `command` costs, run in `course`: the CPU seconds it and every process it started
    and waited for spent (getrusage of this process's children), and the CPU seconds the whole
    machine spent meanwhile (/proc/stat)."""
    began, spent, busy = time.perf_counter(), _children_seconds(), _machine_seconds()
    done = subprocess.run(command, cwd=course, env=nbgrader.environment(), capture_output=True,
                          text=True, check=False)
    cost = Cost(time.perf_counter() - began, _children_seconds() - spent,
                _machine_seconds() - busy)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited {done.returncode}:\n{done.stderr[-2000:]}")
    return cost


def _children_seconds() -> float:
    """The user and system CPU seconds of the children this process has waited for."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _machine_seconds() -> float:
    """The CPU seconds every CPU of the machine has been busy since it booted: user, nice,
    system, irq and softirq time in /proc/stat (idle, iowait and steal left out)."""
    with open("/proc/stat", encoding="ascii") as stat:
        ticks = [int(field) for field in stat.readline().split()[1:8]]
    user, nice, system, _, _, irq, softirq = ticks
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


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
