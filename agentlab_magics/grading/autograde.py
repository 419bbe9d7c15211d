"""nbgrader's autograde, made honest: the kernel in a sandbox, graded cells scored outside it.

`ScoredOutside` takes the place of nbgrader's `Execute` in `c.Autograde.autograde_preprocessors`
(the course's nbgrader_config.py does this). For each submitted notebook it
0. refuses the submission whole if its folder holds a symbolic link or any other entry that
   is not a plain file or folder (`submission.py`): nbgrader would follow it as the grader;
1. takes the hidden-test blocks out of the graded cells, so the kernel never holds them;
2. runs the notebook as nbgrader does, but with the kernel in a sandbox (`sandbox.py`): a
   scratch folder holding only this submission, a user of its own, the course, exchange,
   gradebook and instructor package hidden, no network, limits, and every process gone after;
   what the kernel sends is weighed before it is decoded, a cell's output is cut as it
   arrives, widget messages are not followed, and the notebook has `notebook_limit` seconds;
3. scores every graded cell here, with the judge (`checking.runner`): the cell's tests,
   visible and held back, run in this process, against a fresh student process in a sandbox
   of its own that loads only the lab cell's source; it needs nothing the kernel does, so it
   runs while the kernel does;
4. puts the sources back and replaces each graded cell's outputs with that report: static
   HTML and text, then what nbgrader scores the cell by (`report_outputs`): its passed tests'
   share of the cell's points. Nothing the other cells did, or printed, can change a score.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from queue import Empty
from typing import Any

import zmq
import zmq.asyncio
from jupyter_client.asynchronous import AsyncKernelClient
from jupyter_client.manager import AsyncKernelManager
from nbformat.v4 import new_output
from nbgrader.preprocessors import Execute
from traitlets import Bool, Float, Integer, List, Type, Unicode

from agentlab_magics.checking.report import CheckReport, TestOutcome
from agentlab_magics.checking.runner import lab_tests
from agentlab_magics.course import UnknownLab, find_lab
from agentlab_magics.course.assignments import graded_together, group_tests
from agentlab_magics.grading import TIMEOUT
from agentlab_magics.grading.cells import (
    GradeCall,
    grade_calls,
    is_graded,
    lab_sources,
    without_hidden,
)
from agentlab_magics.grading.limits import trusted_python
from agentlab_magics.grading.output import DROPPED
from agentlab_magics.grading.sandbox import (
    KEPT_ENV,
    Sandbox,
    SandboxMissing,
    detect,
    dies_with_parent,
    setuid_files,
)
from agentlab_magics.grading.submission import require_plain_files

MESSAGE_CAP = 256 << 20  # bytes of one message from the kernel
GRACE = 1.0  # seconds a test's check may take past its limit (a student process killed)
JUDGE_START = 60.0  # seconds for the judge process to start and check each lab's loading
DECODE_CAP = 4 << 20  # bytes of one part of it that are decoded
LEFT_OUT = "agentlab_left_out"  # in place of a part that was not: its size

# Seconds this process spent on each notebook it graded, by phase ("kernel start", "cells",
# "scoring", which runs alongside those two, and "scoring wait", the part of it left when the
# kernel is done), in the order graded: the batch grader (grading.one_submission) reports them.
timings: list[dict[str, float]] = []


class ReadyClient(AsyncKernelClient):
    """jupyter_client's client, ready as soon as the kernel has answered on both channels:
    stock waits a further 0.2 s of silence on IOPub before the first cell, which is idle
    time on every notebook graded (what it would flush carries no cell's parent header,
    so nbclient ignores it anyway)."""

    async def wait_for_ready(self, timeout: float | None = None) -> None:
        deadline = time.monotonic() + (timeout if timeout is not None else float("inf"))
        while True:
            self.kernel_info()
            reply = await self._next(self.shell_channel)
            if reply and reply["msg_type"] == "kernel_info_reply" and \
                    await self._next(self.iopub_channel):
                self._handle_kernel_info_reply(reply)
                return
            if not await self.is_alive():
                raise RuntimeError("Kernel died before replying to kernel_info")
            if time.monotonic() > deadline:
                raise RuntimeError(f"Kernel didn't respond in {timeout:.0f} seconds")

    @staticmethod
    async def _next(channel) -> dict | None:
        """The next message on `channel`, if one comes within a second."""
        try:
            return await channel.get_msg(timeout=1)
        except Empty:
            return None


class SandboxedKernelManager(AsyncKernelManager):
    """A kernel that starts inside `self.sandbox`, talking over Unix sockets in its scratch
    folder (its network namespace has no usable loopback), interrupted by message. The kernel
    is the student's, so what it sends is weighed before it is decoded: a message over
    MESSAGE_CAP bytes drops the connection, and a part over DECODE_CAP bytes (which could be
    crafted to decode into gigabytes here) is read as a notice that it was left out."""

    sandbox: Sandbox | None = None
    client_factory = Type(ReadyClient, klass=AsyncKernelClient)

    def client(self, **kwargs):
        context = zmq.asyncio.Context()
        context.setsockopt(zmq.MAXMSGSIZE, MESSAGE_CAP)
        return super().client(context=context, **kwargs)

    def prepare(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox
        self.session.unpack = _weighed(self.session.unpack)
        scratch = sandbox.scratch or sandbox.make_scratch()
        self.transport, self.ip = "ipc", str(scratch / "kernel")
        self.connection_file = str(scratch / "kernel.json")

    def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
        assert self.sandbox is not None, "prepare() gives the kernel its sandbox first"
        # its parent is the sandbox's pid 1, not the grader: no polling for the parent (the
        # kernel ends with the sandbox)
        return self.sandbox.command([*super().format_kernel_cmd(extra_arguments),
                                     "--IPKernelApp.parent_handle=0"])

    async def _async_pre_start_kernel(self, **kw):
        self.kernel_spec.interrupt_mode = "message"
        kw["cwd"] = str(self.sandbox.scratch)
        kw["env"] = {k: v for k, v in (kw.get("env") or os.environ).items() if k in KEPT_ENV}
        # What the kernel writes to its own stdout and stderr (ipykernel's banner, or a
        # submission writing to its file descriptors) is nobody's to read: never the grader's
        # terminal. The notebook's outputs travel over the kernel's messages.
        kw["stdout"] = kw["stderr"] = subprocess.DEVNULL
        command, kw = await super()._async_pre_start_kernel(**kw)
        self.sandbox.give(self.sandbox.scratch)
        return command, kw


def _weighed(unpack: Callable[[bytes], Any]) -> Callable[[bytes], Any]:
    """`unpack`, for message parts up to DECODE_CAP bytes; a bigger part becomes an empty
    content of every kind of message, marked LEFT_OUT with its size (counted where the cell's
    output is cut, by ScoredOutside.output)."""
    def weighed(data: bytes) -> Any:
        if len(data) <= DECODE_CAP:
            return unpack(data)
        return {LEFT_OUT: len(data), "name": "stdout", "text": "", "data": {}, "metadata": {},
                "transient": {}, "execution_count": None, "status": "ok",
                "execution_state": "busy", "ename": "", "evalue": "", "traceback": []}

    return weighed


class ScoredOutside(Execute):
    """nbgrader's Execute with the kernel sandboxed and the graded cells scored in isolation."""

    hidden_paths = List(Unicode(), help="More paths the submission must not see.").tag(config=True)
    notebook_limit = Float(120.0, help=(
        "Seconds the kernel may spend on the whole notebook: cells not begun by then are not "
        "run (their scores do not depend on it), so no submission holds up the others for "
        "long.")).tag(config=True)
    without_sandbox = Bool(False, help=(
        "Grade even where no sandbox can be made (`agentlab course sandbox` says 'none'): the "
        "submission then runs as the grader, and its scores are not to be trusted for "
        "credit.")).tag(config=True)
    received_limit = Integer(1_000_000, help=(
        "Characters of output kept per cell while the kernel runs it: what comes after is "
        "dropped as it arrives (and counted for CapOutput's notice), so a flood never fills "
        "the grader's memory.")).tag(config=True)

    def __init__(self, **kwargs):
        kwargs.setdefault("kernel_manager_class", SandboxedKernelManager)
        # The kernel is the student's and its outputs are in: waiting for it to exit
        # gracefully (up to shutdown_wait_time) would idle the grader on every notebook.
        kwargs.setdefault("shutdown_kernel", "immediate")
        super().__init__(**kwargs)

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
        from nbgrader.coursedir import CourseDirectory

        course, found = CourseDirectory(config=self.config), resources.get("nbgrader", {})
        return course.format_path(course.submitted_directory, found.get("student", ""),
                                  found.get("assignment", ""))

    def create_kernel_manager(self):
        km = super().create_kernel_manager()
        if isinstance(km, SandboxedKernelManager):
            self._kernel_sandbox = Sandbox(hidden=self._hidden())
            km.prepare(self._kernel_sandbox)
            folder = self.resources.get("metadata", {}).get("path") if self.resources else None
            if folder and os.path.isdir(folder):
                shutil.copytree(folder, self._kernel_sandbox.scratch, symlinks=True,
                                dirs_exist_ok=True)
        return km

    def output(self, outs, msg, display_id, cell_index):
        """Take an output from the kernel while the cell's share lasts (errors always), and
        never one too big to have been decoded."""
        content = msg.get("content", {})
        left_out = content.get(LEFT_OUT, 0) if isinstance(content, dict) else 0
        size = left_out or len(json.dumps(content))
        taken = self._received.get(cell_index, 0)
        if left_out or (taken + size > self.received_limit and msg.get("msg_type") != "error"):
            self._dropped[cell_index] = self._dropped.get(cell_index, 0) + size
            return None
        self._received[cell_index] = taken + size
        return super().output(outs, msg, display_id, cell_index)

    def handle_comm_msg(self, outs, msg, cell_index):
        """Widget messages are not followed: no widget state is kept (c.Execute.
        store_widget_state is off), and a kernel that opens comms by the million makes no
        objects here."""

    def preprocess_cell(self, cell, resources, index):
        self._phases.setdefault("kernel start", time.monotonic() - self._began)
        if cell.cell_type == "code" and time.monotonic() > self._run_until:
            cell.outputs = [new_output("stream", name="stdout", text=(
                f"[agentlab: not run: the notebook used up its {self.notebook_limit:g} s]\n"))]
            return cell, resources
        cell, resources = super().preprocess_cell(cell, resources, index)
        if self._dropped.get(index):
            cell.metadata.setdefault("agentlab", {})[DROPPED] = self._dropped[index]
        return cell, resources

    def preprocess(self, nb, resources=None, km=None):
        if detect() == "none" and not self.without_sandbox:
            raise SandboxMissing(
                "No grading sandbox can be made on this machine (`agentlab course sandbox` "
                "says why), and a submission graded without one runs as the grader. Grade "
                "where one can, or set c.ScoredOutside.without_sandbox = True (`agentlab "
                "course autograde --without-sandbox`) to grade anyway, not for credit.")
        require_plain_files(self._submitted_folder(resources or {}))
        graded = [(cell, grade_calls(cell.source)) for cell in nb.cells if is_graded(cell)]
        answers = self._answers(nb)
        jobs = [call for _, calls in graded for call in calls if call.lab in answers]
        self._kernel_sandbox, self._received, self._dropped = None, {}, {}
        self._began, self._phases = time.monotonic(), {}
        self._run_until = self._began + self.notebook_limit
        # Scoring needs only the submitted sources, so it runs while the kernel does.
        with ThreadPoolExecutor(1) as pool:
            scored = pool.submit(_timed, score_jobs, jobs, answers, self._hidden())
            self._run_kernel(nb, resources, km, [cell for cell, _ in graded])
            ran = time.monotonic()
            reports, scoring = scored.result()
        reports = iter(reports)
        for cell, calls in graded:
            mine = [next(reports) if call.lab in answers else _missing(call) for call in calls]
            cell.outputs = report_outputs(mine, float(cell.metadata.nbgrader.get("points", 0)),
                                          sum(len(_tests_of(call)) for call in calls))
        started = self._phases.get("kernel start", ran - self._began)
        timings.append({"kernel start": started, "cells": ran - self._began - started,
                        "scoring": scoring, "scoring wait": time.monotonic() - ran})
        return nb, resources

    def _run_kernel(self, nb, resources, km, graded: list) -> None:
        """Run the notebook as nbgrader does, the hidden tests out of the graded cells."""
        sources = [cell.source for cell in graded]
        for cell in graded:
            cell.source = without_hidden(cell.source)
        try:
            super().preprocess(nb, resources, km)
        finally:
            for cell, source in zip(graded, sources):
                cell.source = source
            if self._kernel_sandbox is not None:
                self._kernel_sandbox.clean()

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


def _timed(function: Callable, *args) -> tuple[Any, float]:
    """What `function(*args)` returns, and the seconds it took."""
    began = time.monotonic()
    return function(*args), time.monotonic() - began


def _missing(call: GradeCall) -> CheckReport:
    lab = find_lab(call.lab)
    return CheckReport(lab_id=lab.id, title=lab.title, problem=(
        f"There is no `%%check {lab.id}` cell in this notebook, so there is no code to grade."))


def score_jobs(calls: list[GradeCall], answers: dict[str, str], hidden: list[str]
               ) -> list[CheckReport]:
    """The report of each call. Each lab's code is checked twice by the judge (`scoring`, a
    process of its own), each time in a fresh student process in a sandbox of its own
    (`graded_together`): once with the lab's own visible tests, which `%%check` runs first and
    in the same order, so a graded cell scores what the student's check said; then, after
    every visible check, with the lab's held-back tests, so nothing a held-back test hands the
    code can reach a report that is shown in full. A call's report is its tests' outcomes
    from those checks."""
    if not calls:
        return []
    names = {call: _tests_of(call) for call in calls}
    checks = [{"lab": lab_id, "held_back": held_back,
               "only": graded_together(lab_id, held_back)}
              for lab_id, held_back in sorted(dict.fromkeys((call.lab, call.held_back)
                                                            for call in calls),
                                              key=lambda key: key[1])]
    reports = dict(zip([(check["lab"], check["held_back"]) for check in checks],
                       judged(checks, answers, hidden)))
    return [_private(reports[(call.lab, call.held_back)].part(names[call]), call)
            for call in calls]


def judged(checks: list[dict], answers: dict[str, str], hidden: list[str]
           ) -> list[CheckReport]:
    """Each check's report from the judge process (`scoring`), given no longer than its
    checks' tests could take; a check it did not report says why, and scores 0."""
    budget = JUDGE_START + sum(
        (len(lab_tests(find_lab(check["lab"]), held_back=check["held_back"],
                       only=check["only"])) + 1) * (TIMEOUT + GRACE) for check in checks)
    lines: list[str] = []
    why = f"it took longer than {budget:.0f} s"
    try:
        done = subprocess.run(
            [*dies_with_parent(), *trusted_python("agentlab_magics.grading.scoring")],
            input=json.dumps({"checks": checks, "answers": answers, "hidden": hidden,
                              "covered": setuid_files()}),
            capture_output=True, text=True, timeout=budget)
        lines = done.stdout.splitlines()
        why = (done.stderr.strip().splitlines() or [f"it exited with code {done.returncode}"]
               )[-1][:300]
    except subprocess.TimeoutExpired:
        pass
    return [_read(line, check["lab"], why) for check, line in
            zip(checks, lines + [""] * len(checks))]


def _read(line: str, lab_id: str, why: str) -> CheckReport:
    """The judge's report, or one saying the cell could not be scored."""
    try:
        return CheckReport.model_validate_json(line)
    except ValueError:
        lab = find_lab(lab_id)
        return CheckReport(lab_id=lab.id, title=lab.title, problem=(
            f"The grader could not score this cell ({why}); tell your instructor."))


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
    from agentlab_magics.widgets import ReportView

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
