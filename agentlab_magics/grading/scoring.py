"""The grader's judge, a process of its own: `python -P -m agentlab_magics.grading.scoring`.

It reads one request on its first line of standard input, {"checks": [{"lab", "held_back",
"only"}], "answers": {lab id: the lab cell's source}, "hidden": [paths], "covered": [setuid
files]}, checks each lab cell's source as asked (the tests run here; the student's code in a
fresh student process in a sandbox of its own, made ahead by `Spares`; once a lab's code ran
out of time on a line, the lab's later checks glance for that line from their first test),
and writes one CheckReport per check, a JSON line each, in the request's order. Before its
first held-back check it waits for a second line (or the end of its input): the grader sends
it once every process of the submission's kernel is gone (`JudgeProcess.go`).

The grader (`JudgeProcess`) starts it under the submission's memory cap, with its own
address-space limit, and waits for it no longer than the checks' time: whatever a submission
makes the judge do, no grader waits on it past that, and a report it did not write scores 0
with a sentence.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from types import TracebackType

from pydantic import BaseModel

from agentlab_magics.checking.process import STUDENT_ENV, STUDENT_MODULE, StudentProcess
from agentlab_magics.checking.report import CheckReport
from agentlab_magics.checking.runner import Launch, lab_tests, run, time_limit_of
from agentlab_magics.checking.spares import Spares
from agentlab_magics.course import find_lab
from agentlab_magics.grading.leftovers import make_folder
from agentlab_magics.grading.limits import trusted_python
from agentlab_magics.grading.memory_cap import MemoryCap
from agentlab_magics.grading.sandbox import KEPT_ENV, Sandbox, dies_with_parent, setuid_files

MEMORY = 3 << 30   # bytes of address space the judge may use
GRACE = 1.0  # seconds a test's check may take past its limit (a student process killed)
JUDGE_START = 60.0  # seconds for the judge process to start and check each lab's loading
REPORTS_CAP = 64 << 20  # bytes of the judge's reports read


class Check(BaseModel):
    """One check the judge runs: a lab cell's source against some of the lab's tests."""

    lab: str
    held_back: bool
    only: list[str] | None = None


# -- the grader's side -----------------------------------------------------------------------

class JudgeProcess:
    """The judge of one submission, started on entering: the visible checks at once, the
    held-back ones after `go`; `reports` are the checks' reports, in order."""

    def __init__(self, checks: list[Check], answers: dict[str, str], hidden: list[str],
                 cap: MemoryCap | None = None) -> None:
        self.checks, self.answers, self.hidden, self.cap = checks, answers, hidden, cap
        self.budget = JUDGE_START + sum(
            (len(lab_tests(find_lab(check.lab), held_back=check.held_back,
                           only=check.only)) + 1) * (time_limit_of(find_lab(check.lab)) + GRACE)
            for check in checks)
        self.process: subprocess.Popen | None = None
        self.began = time.monotonic()
        self.seconds = 0.0

    def __enter__(self) -> JudgeProcess:
        if not self.checks:
            return self
        self.folder = make_folder("job")
        # its reports and its complaints go to files: a judge never waits on a full pipe
        # while a test's time runs
        with open(self.folder / "reports", "wb") as out, open(self.folder / "errors", "wb") as err:
            self.process = subprocess.Popen(
                [*dies_with_parent(), *trusted_python("agentlab_magics.grading.scoring")],
                stdin=subprocess.PIPE, stdout=out, stderr=err)
        if self.cap is not None:
            self.cap.admit(self.process.pid)
        assert self.process.stdin is not None
        request = {"checks": [check.model_dump() for check in self.checks],
                   "answers": self.answers, "hidden": self.hidden, "covered": setuid_files()}
        self.process.stdin.write(json.dumps(request).encode() + b"\n")
        self.process.stdin.flush()
        return self

    def go(self) -> None:
        """Let the held-back checks start: no process of the submission's kernel is left."""
        if self.process is not None and self.process.stdin is not None:
            try:
                self.process.stdin.write(b"go\n")
                self.process.stdin.close()
            except BrokenPipeError:  # it had ended already: its reports say why
                pass

    def reports(self) -> list[CheckReport]:
        """Each check's report, given no longer than its checks' tests could take from `go`;
        a check it did not report says why, and scores 0."""
        if self.process is None:
            return []
        why = f"it took longer than {self.budget:.0f} s"
        try:
            code = self.process.wait(timeout=self.budget)
            errors = (self.folder / "errors").read_bytes()[-2_000:].decode(errors="replace")
            why = (errors.strip().splitlines() or [f"it exited with code {code}"])[-1][:300]
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        with open(self.folder / "reports", "rb") as out:
            lines = out.read(REPORTS_CAP).decode(errors="replace").splitlines()
        self.seconds = time.monotonic() - self.began
        return [_read(line, check.lab, why) for check, line in
                zip(self.checks, lines + [""] * len(self.checks))]

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 traceback: TracebackType | None) -> None:
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        for name in ("reports", "errors"):
            (self.folder / name).unlink(missing_ok=True)
        self.folder.rmdir()


def _read(line: str, lab_id: str, why: str) -> CheckReport:
    """The judge's report, or one saying the cell could not be scored."""
    try:
        return CheckReport.model_validate_json(line)
    except ValueError:
        lab = find_lab(lab_id)
        return CheckReport(lab_id=lab.id, title=lab.title, problem=(
            f"The grader could not score this cell ({why}); tell your instructor."))


# -- the judge's side ------------------------------------------------------------------------

def sandboxed(hidden: list[str], covered: list[str]) -> Launch:
    """Starts student processes, each in a sandbox of its own that hides `hidden` (and what
    every sandbox hides: the instructor's package) and covers `covered` (the grader's list
    of the machine's setuid files)."""
    def launch() -> StudentProcess:
        sandbox = Sandbox(hidden=hidden, covered=covered)
        command = sandbox.command(trusted_python(STUDENT_MODULE))
        return StudentProcess.start(
            command, cwd=str(sandbox.scratch), cleanup=sandbox.clean,
            env={**{k: v for k, v in os.environ.items() if k in KEPT_ENV}, **STUDENT_ENV})

    return launch


def main() -> None:
    # the soft limit only: the sandboxes this process starts set their own
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, resource.getrlimit(resource.RLIMIT_AS)[1]))
    request = json.loads(sys.stdin.readline())
    spares = Spares(sandboxed(request["hidden"], request["covered"]), eager=True)
    spun: dict[str, int] = {}  # by lab: the line its code first ran out of time on
    waited = False
    try:
        for check in map(Check.model_validate, request["checks"]):
            if check.held_back and not waited:
                sys.stdin.readline()  # the kernel is gone
                waited = True
            report = run(check.lab, "", source=request["answers"][check.lab], timeout=None,
                         held_back=check.held_back, only=check.only, launch=spares.take,
                         spinning=spun.get(check.lab))
            if report.spun_on is not None:
                spun.setdefault(check.lab, report.spun_on)
            sys.stdout.write(report.model_dump_json() + "\n")
            sys.stdout.flush()
    finally:
        spares.close()


if __name__ == "__main__":
    main()
