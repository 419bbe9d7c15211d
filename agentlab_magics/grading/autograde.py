"""nbgrader's autograde, made honest: each submission graded in processes of its own, its
kernel in a sandbox, its graded cells scored outside it, and one submission's trouble its own.

`ScoredOutside` takes the place of nbgrader's `Execute` in `c.Autograde.autograde_preprocessors`
(the course's nbgrader_config.py does this). For each submitted notebook it
0. refuses the submission whole if its folder holds a symbolic link or any other entry that
   is not a plain file or folder (`submission.py`): nbgrader would follow it as the grader;
1. makes the submission's memory cap (`memory_cap.py`), which every process below joins;
2. starts the judge (`scoring.JudgeProcess`): each lab cell's source checked with the lab's
   visible tests, in this process's child, against a fresh student process in a sandbox of its
   own; it needs nothing the kernel does, so it runs while the kernel does;
3. runs the notebook in a grading child of its own (`host.py`, `kernel_run.py`), the
   hidden-test blocks taken out of the graded cells: the kernel in a sandbox (`sandbox.py`),
   everything it sends weighed before it is held, the notebook bounded in time. A child that
   runs out of memory or time, or dies, takes only this submission: NotGraded says why, and
   nbgrader goes on with the next;
4. once the kernel and every process of it are gone, lets the judge check the held-back
   tests: no process of the submission is alive while they run;
5. replaces each graded cell's outputs with its report: static HTML and text, then what
   nbgrader scores the cell by (`report_outputs`): its passed tests' share of the cell's
   points. Nothing the other cells did, or printed, can change a score.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import nbformat
from nbformat.v4 import new_output
from nbgrader.coursedir import CourseDirectory
from traitlets import Bool, Integer, List, Unicode

from agentlab_magics.checking.report import CheckReport, TestOutcome
from agentlab_magics.course import UnknownLab, find_lab
from agentlab_magics.grading.cells import (
    GradeCall,
    grade_calls,
    is_graded,
    lab_sources,
    without_hidden,
)
from agentlab_magics.grading.groups import graded_together, group_tests
from agentlab_magics.grading.host import (
    NotGraded,
    RunRequest,
    RunResult,
    host,
    sweep,
    swept_at_start,
)
from agentlab_magics.grading.kernel_run import KernelRun
from agentlab_magics.grading.memory_cap import MemoryCap
from agentlab_magics.grading.printable import printable
from agentlab_magics.grading.sandbox import SandboxMissing, detect
from agentlab_magics.grading.scoring import Check, JudgeProcess
from agentlab_magics.grading.submission import require_plain_files
from agentlab_magics.widgets import ReportView

KERNEL_SLACK = 60.0  # seconds a grading child may take beyond its kernel's limits

# Seconds this process spent on each notebook it graded, by phase ("kernel start", "cells",
# "scoring", which runs alongside those two, and "scoring wait", the part of it left when the
# kernel is done), in the order graded, and what an instructor should know of each (`notes`):
# the batch grader (grading.one_submission) reports them.
timings: list[dict[str, float]] = []
notes: list[str] = []


class ScoredOutside(KernelRun):
    """nbgrader's Execute with each submission graded in a process of its own: the kernel
    sandboxed and its outputs weighed (`KernelRun`, in a grading child), the graded cells
    scored in isolation, both under the submission's memory cap."""

    hidden_paths = List(Unicode(), help="More paths the submission must not see.").tag(config=True)
    without_sandbox = Bool(False, help=(
        "Grade even where no sandbox can be made (`agentlab course sandbox` says 'none'): the "
        "submission then runs as the grader, and its scores are not to be trusted for "
        "credit.")).tag(config=True)
    memory_limit = Integer(2 << 30, help=(
        "Bytes of memory one submission's grading may use in all (its kernel, the process "
        "that runs it, the judge and the student processes): one that needs more is not "
        "graded, and the others are graded as if it were not there.")).tag(config=True)

    def _hidden(self) -> list[str]:
        config = self.config
        paths = [config.CourseDirectory.get("root", os.getcwd()), *self.hidden_paths]
        if "root" in config.get("Exchange", {}):
            paths.append(config.Exchange.root)
        db_url = config.CourseDirectory.get("db_url", "")
        if db_url.startswith("sqlite:///"):
            paths.append(str(Path(db_url.removeprefix("sqlite:///")).parent))
        return [p for p in paths if p and os.path.exists(p)]

    def _submitted_folder(self, resources: dict) -> str:
        """The folder the student handed in (nbgrader runs this on its own copy of it)."""
        course, found = CourseDirectory(config=self.config), resources.get("nbgrader", {})
        return course.format_path(course.submitted_directory, found.get("student", ""),
                                  found.get("assignment", ""))

    def preprocess(self, nb, resources=None, km=None):
        if detect() == "none" and not self.without_sandbox:
            raise SandboxMissing(
                "No grading sandbox can be made on this machine (`agentlab course sandbox` "
                "says why), and a submission graded without one runs as the grader. Grade "
                "where one can, or set c.ScoredOutside.without_sandbox = True (`agentlab "
                "course autograde --without-sandbox`) to grade anyway, not for credit.")
        swept_at_start()
        resources = resources or {}
        require_plain_files(self._submitted_folder(resources))
        graded = [(cell, grade_calls(cell.source)) for cell in nb.cells if is_graded(cell)]
        answers = self._answers(nb)
        jobs = [call for _, calls in graded for call in calls if call.lab in answers]
        host().ready()  # before the judge, whose input a host forked later would hold open
        cap = MemoryCap.make(self.memory_limit)
        try:
            # The visible checks need only the submitted sources, so they run while the
            # kernel does; the held-back ones only once every process of the kernel is gone.
            checks = checks_of(jobs)
            with JudgeProcess(checks, answers, self._hidden(), cap) as judge:
                ran = self._run_kernel(nb, resources, [cell for cell, _ in graded], cap)
                kernel_done = time.monotonic()
                judge.go()
                reports = shares(jobs, checks, judge.reports())
        finally:
            out_of_memory = cap.ran_out()
            cap.close()
            sweep()  # what a process of this grading left when it was killed
        if out_of_memory:
            raise NotGraded(f"not graded: its grading ran out of memory "
                            f"({self.memory_limit >> 20} MiB)")
        reports = iter(reports)
        for cell, calls in graded:
            mine = [next(reports) if call.lab in answers else _missing(call) for call in calls]
            cell.outputs = report_outputs(mine, float(cell.metadata.nbgrader.get("points", 0)),
                                          sum(len(_tests_of(call)) for call in calls))
        started = ran.phases.get("kernel start", 0.0)
        timings.append({"kernel start": started, "cells": ran.phases.get("cells", 0.0),
                        "scoring": judge.seconds, "scoring wait": time.monotonic() - kernel_done})
        notes.extend(ran.notes)
        for note in ran.notes:
            self.log.warning("%s", note)
        return nb, resources

    def _run_kernel(self, nb, resources: dict, graded: list, cap: MemoryCap) -> RunResult:
        """Run the notebook, the hidden tests out of the graded cells, in a grading child of
        its own under `cap`; take its cells' outputs. NotGraded (and what it left swept) if
        the child could not finish."""
        sources = [cell.source for cell in graded]
        for cell in graded:
            cell.source = without_hidden(cell.source)
        request = RunRequest(notebook=nbformat.writes(nb), hidden=self._hidden(), cap=cap,
                             folder=resources.get("metadata", {}).get("path") or None,
                             settings=self._settings())
        for cell, source in zip(graded, sources):
            cell.source = source
        seconds = self.startup_timeout + self.notebook_limit + (self.timeout or 0) + \
            self.iopub_timeout + KERNEL_SLACK
        ran = host().run(request, seconds)
        if ran.log:
            self.log.warning("%s", printable(ran.log))
        if ran.notebook is None:
            raise NotGraded(f"not graded: the notebook could not be run ({ran.problem})")
        for cell, done in zip(nb.cells, nbformat.reads(ran.notebook, as_version=4).cells):
            if cell.cell_type == "code":
                cell.outputs, cell.execution_count = done.outputs, done.get("execution_count")
                cell.metadata = done.metadata
        return ran

    def _settings(self) -> dict[str, Any]:
        """This preprocessor's configuration, as a KernelRun takes it."""
        settings = {}
        for name in KernelRun.class_trait_names(config=True):
            value = getattr(self, name)
            try:
                json.dumps(value)
            except (TypeError, ValueError):
                continue  # a class or a function: the child has its own
            settings[name] = value
        return settings

    @staticmethod
    def _answers(nb) -> dict[str, str]:
        """The source of each lab's `%%check` cell, by lab id (the first, where repeated)."""
        answers: dict[str, str] = {}
        for lab_id, body in lab_sources(nb.cells).items():
            try:
                answers.setdefault(find_lab(lab_id).id, body)
            except UnknownLab:
                continue
        return answers


def _missing(call: GradeCall) -> CheckReport:
    lab = find_lab(call.lab)
    return CheckReport(lab_id=lab.id, title=lab.title, problem=(
        f"There is no `%%check {lab.id}` cell in this notebook, so there is no code to grade."))


def checks_of(calls: list[GradeCall]) -> list[Check]:
    """The judge's checks for `calls`: each lab's code checked twice, each time in a fresh
    student process in a sandbox of its own (`graded_together`): once with the lab's own
    visible tests, which `%%check` runs first and in the same order, so a graded cell scores
    what the student's check said; then, after every visible check (and only once the kernel
    is gone: `JudgeProcess.go`), with the lab's held-back tests, so nothing a held-back test
    hands the code can reach a report that is shown in full, or a process of the submission
    that is still running."""
    for call in calls:
        _tests_of(call)  # HeldBackMissing before anything starts
    wanted = dict.fromkeys((call.lab, call.held_back) for call in calls)
    return [Check(lab=lab_id, held_back=held_back, only=graded_together(lab_id, held_back))
            for lab_id, held_back in sorted(wanted, key=lambda key: key[1])]


def shares(calls: list[GradeCall], checks: list[Check], reports: list[CheckReport]
           ) -> list[CheckReport]:
    """Each call's report: its tests' outcomes from its lab's check."""
    by_check = dict(zip([(check.lab, check.held_back) for check in checks], reports))
    return [_private(by_check[(call.lab, call.held_back)].share(_tests_of(call)), call)
            for call in calls]


def score_jobs(calls: list[GradeCall], answers: dict[str, str], hidden: list[str]
               ) -> list[CheckReport]:
    """The report of each call, from the judge (`checks_of` says how each lab is checked),
    with no kernel to wait for."""
    if not calls:
        return []
    checks = checks_of(calls)
    with JudgeProcess(checks, answers, hidden) as judge:
        judge.go()
        return shares(calls, checks, judge.reports())


class HeldBackMissing(RuntimeError):
    """The notebook asks for held-back tests this machine does not have."""


def _tests_of(call: GradeCall) -> list[str]:
    """The names of the tests `call` runs. A notebook calls held-back tests only where its lab
    has some, so finding none means the grader lacks the instructor package: HeldBackMissing,
    which nbgrader reports for the submission, rather than a score of 0 nobody explains."""
    names = group_tests(call.lab, call.group, held_back=call.held_back)
    if call.held_back and not names:
        raise HeldBackMissing(
            f"The held-back tests of {call.lab} are not installed where this notebook is "
            "graded: install the instructor package (pip install ./instructor) on the grading "
            "machine, then autograde again.")
    return names


def _private(report: CheckReport, call: GradeCall) -> CheckReport:
    """A held-back report keeps each test's sentence and mark, nothing the run produced: not
    its messages, records or output, and not its problem (the visible report of the same cell
    shows why the code could not be checked)."""
    if not call.held_back:
        return report
    report.outcomes = [TestOutcome(name=o.name, sentence=o.sentence, outcome=o.outcome)
                       for o in report.outcomes]
    if report.problem is not None:
        report.problem = ("The held-back tests could not run on this code: the report of the "
                          "visible tests above says why.")
    return report


def report_outputs(reports: list[CheckReport], points: float, tests: int) -> list:
    """A graded cell's outputs: each report drawn statically, then what nbgrader's
    `determine_grade` scores the cell by, so that it earns `points` times the share of its
    `tests` that passed: nothing more when all passed (full points), an error output naming
    every failed test when none did (no points), and otherwise the cell's value: that share of
    its points as a number (nbgrader's partial credit), drawn as a sentence saying so."""
    outputs, failed = [], []
    for report in reports:
        view = ReportView(report, static=True)
        outputs.append(new_output("display_data", data={
            "text/plain": view.to_text(), "text/html": view.to_html()}))
        if not report.all_passed:
            failed.append(report.summary())
            failed += [f"{o.mark} {o.sentence}" for o in report.outcomes if not o.passed]
    passed = sum(report.passed for report in reports)
    if not failed:
        return outputs
    if not passed:
        outputs.append(new_output("error", ename="AssertionError", evalue="\n".join(failed),
                                  traceback=["AssertionError: " + "\n".join(failed)]))
        return outputs
    score = round(points * passed / tests, 2)
    outputs.append(new_output("execute_result", execution_count=None, data={
        "text/plain": f"{score:g}",
        "text/html": f"<p>{score:g} of {points:g} points: {passed} of this cell's {tests} tests "
                     "passed.</p>"}))
    return outputs
