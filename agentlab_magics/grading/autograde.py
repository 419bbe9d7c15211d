"""nbgrader's autograde, made honest: the kernel in a sandbox, graded cells scored outside it.

`ScoredOutside` takes the place of nbgrader's `Execute` in `c.Autograde.autograde_preprocessors`
(the course's nbgrader_config.py does this). For each submitted notebook it
1. takes the hidden-test blocks out of the graded cells, so the kernel never holds them;
2. runs the notebook as nbgrader does, but with the kernel in a sandbox (`sandbox.py`): a
   scratch folder holding only this submission, a user of its own, the course, exchange,
   gradebook and instructor package hidden, no network, limits, and every process gone after;
3. scores every graded cell in a fresh sandboxed process that loads only its lab cell's
   source and runs that cell's tests, visible and held back (`score.py`);
4. puts the sources back and replaces each graded cell's outputs with that report: static
   HTML and text, and an error output when any test failed, which is how nbgrader takes the
   cell's points away. Nothing the other cells did, or printed, can change a score.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager
from nbgrader.preprocessors import Execute
from traitlets import List, Unicode

from agentlab_magics.checking.isolated import GRACE, cap
from agentlab_magics.checking.report import CheckReport, TestOutcome
from agentlab_magics.course import UnknownLab, find_lab
from agentlab_magics.course.assignments import group_tests
from agentlab_magics.grading.cells import (
    GradeCall, grade_calls, is_graded, lab_sources, without_hidden)
from agentlab_magics.grading.sandbox import Sandbox, instructor_paths
from agentlab_magics.grading import TIMEOUT

KEPT_ENV = ("PATH", "LANG", "LC_ALL", "PYTHONPATH", "NBGRADER_EXECUTION")


class SandboxedKernelManager(AsyncKernelManager):
    """A kernel that starts inside `self.sandbox`, talking over Unix sockets in its scratch
    folder (its network namespace has no usable loopback), interrupted by message."""

    sandbox: Sandbox | None = None

    def prepare(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox
        scratch = sandbox.scratch or sandbox.make_scratch()
        self.transport, self.ip = "ipc", str(scratch / "kernel")
        self.connection_file = str(scratch / "kernel.json")

    def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
        return self.sandbox.command(super().format_kernel_cmd(extra_arguments))

    async def _async_pre_start_kernel(self, **kw):
        self.kernel_spec.interrupt_mode = "message"
        kw["cwd"] = str(self.sandbox.scratch)
        kw["env"] = {k: v for k, v in (kw.get("env") or os.environ).items() if k in KEPT_ENV}
        command, kw = await super()._async_pre_start_kernel(**kw)
        self.sandbox.give(self.sandbox.scratch)
        return command, kw


class ScoredOutside(Execute):
    """nbgrader's Execute with the kernel sandboxed and the graded cells scored in isolation."""

    hidden_paths = List(Unicode(), help="More paths the submission must not see.").tag(config=True)

    def __init__(self, **kwargs):
        kwargs.setdefault("kernel_manager_class", SandboxedKernelManager)
        super().__init__(**kwargs)

    def _hidden(self) -> list[str]:
        config = self.config
        paths = [config.CourseDirectory.get("root", os.getcwd()), *instructor_paths(),
                 *self.hidden_paths]
        if "root" in config.get("Exchange", {}):
            paths.append(config.Exchange.root)
        db_url = config.CourseDirectory.get("db_url", "")
        if db_url.startswith("sqlite:///"):
            paths.append(str(Path(db_url.removeprefix("sqlite:///")).parent))
        return [p for p in paths if p and os.path.exists(p)]

    def create_kernel_manager(self):
        km = super().create_kernel_manager()
        if isinstance(km, SandboxedKernelManager):
            self._kernel_sandbox = Sandbox(hidden=self._hidden())
            km.prepare(self._kernel_sandbox)
            folder = self.resources.get("metadata", {}).get("path") if self.resources else None
            if folder and os.path.isdir(folder):
                shutil.copytree(folder, self._kernel_sandbox.scratch, dirs_exist_ok=True)
        return km

    def preprocess(self, nb, resources=None, km=None):
        graded = [(cell, cell.source) for cell in nb.cells if is_graded(cell)]
        for cell, source in graded:
            cell.source = without_hidden(source)
        self._kernel_sandbox = None
        try:
            nb, resources = super().preprocess(nb, resources, km)
        finally:
            for cell, source in graded:
                cell.source = source
            if self._kernel_sandbox is not None:
                self._kernel_sandbox.clean()
        self._score(nb, [cell for cell, _ in graded])
        return nb, resources

    def _score(self, nb, graded: list) -> None:
        """Replace each graded cell's outputs with the report of its isolated scoring."""
        answers = {}
        for lab_id, body in lab_sources(nb.cells).items():
            try:
                answers.setdefault(find_lab(lab_id).id, body)
            except UnknownLab:
                continue
        cells = [(cell, grade_calls(cell.source)) for cell in graded]
        jobs = [call for _, calls in cells for call in calls if call.lab in answers]
        reports = iter(score_jobs(jobs, answers, self._hidden()))
        for cell, calls in cells:
            mine = [next(reports) if call.lab in answers else _missing(call) for call in calls]
            cell.outputs = report_outputs(mine)


def _missing(call: GradeCall) -> CheckReport:
    lab = find_lab(call.lab)
    return CheckReport(lab_id=lab.id, title=lab.title, problem=(
        f"There is no `%%check {lab.id}` cell in this notebook, so there is no code to grade."))


def score_jobs(calls: list[GradeCall], answers: dict[str, str], hidden: list[str]
               ) -> list[CheckReport]:
    """The report of each call, from one sandboxed scoring process; a call it could not
    score gets a report whose problem says so (and scores 0)."""
    if not calls:
        return []
    jobs = [{"lab": c.lab, "source": answers[c.lab], "held_back": c.held_back,
             "tests": group_tests(c.lab, c.group, held_back=c.held_back)} for c in calls]
    request = {"jobs": jobs, "held_back": _held_back_sources(calls)}
    limit = 30 + sum(len(job["tests"]) + 1 for job in jobs) * (TIMEOUT + GRACE + 0.5)
    sandbox = Sandbox(hidden=hidden)
    lines: list[str] = []
    try:
        done = subprocess.run(
            sandbox.command([sys.executable, "-m", "agentlab_magics.grading.score"]),
            input=json.dumps(request), capture_output=True, text=True, timeout=limit,
            env={k: v for k, v in os.environ.items() if k in KEPT_ENV}, cwd=sandbox.scratch)
        lines = done.stdout.splitlines()
        why = cap(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else
                  f"it exited with code {done.returncode}", 300)
    except subprocess.TimeoutExpired:
        why = f"it took longer than {limit:.0f} s"
    finally:
        sandbox.clean()
    reports = []
    for call, line in zip(calls, lines + [""] * len(calls)):
        try:
            reports.append(CheckReport.model_validate_json(line))
        except ValueError:
            lab = find_lab(call.lab)
            reports.append(CheckReport(lab_id=lab.id, title=lab.title, problem=(
                f"The grader could not score this cell ({why}); tell your instructor.")))
    return [_private(report, call) for report, call in zip(reports, calls)]


def _held_back_sources(calls: list[GradeCall]) -> dict[str, str]:
    """The text of the held-back tests the calls need, read here, outside the sandbox."""
    from agentlab_magics.course.heldback import held_back_module, held_back_name

    sources = {}
    for call in calls:
        if call.held_back:
            module = held_back_module(find_lab(call.lab))
            if module is not None:
                sources[held_back_name(find_lab(call.lab))] = Path(module.__file__).read_text(
                    encoding="utf-8")
    return sources


def _private(report: CheckReport, call: GradeCall) -> CheckReport:
    """A held-back report keeps each test's sentence and mark, nothing the run produced."""
    if not call.held_back:
        return report
    report.outcomes = [TestOutcome(name=o.name, sentence=o.sentence, outcome=o.outcome)
                       for o in report.outcomes]
    return report


def report_outputs(reports: list[CheckReport]) -> list:
    """A graded cell's outputs: each report drawn statically, then one error output naming
    every failed test when any failed (nbgrader then gives the cell no points)."""
    from nbformat.v4 import new_output

    from agentlab_magics.widgets import ReportView

    outputs, failed = [], []
    for report in reports:
        view = ReportView(report, static=True)
        outputs.append(new_output("display_data", data={
            "text/plain": view.to_text(), "text/html": view.to_html()}))
        if not report.all_passed:
            failed.append(report.summary())
            failed += [f"{o.mark} {o.sentence}" for o in report.outcomes if not o.passed]
    if failed:
        outputs.append(new_output("error", ename="AssertionError", evalue="\n".join(failed),
                                  traceback=["AssertionError: " + "\n".join(failed)]))
    return outputs
