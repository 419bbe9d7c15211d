"""The grader's judge, a process of its own: `python -P -m agentlab_magics.grading.scoring`.

It reads one request on standard input, {"checks": [{"lab", "held_back", "only"}], "answers":
{lab id: the lab cell's source}, "hidden": [paths], "covered": [setuid files]}, checks each lab
cell's source as asked (the tests run here; the student's code in a fresh student process in a
sandbox of its own, made ahead by `Spares`; once a lab's code ran out of time on a line, the
lab's later checks glance for that line from their first test), and writes one CheckReport per
check, a JSON line each, in the request's order. The grader (`autograde.score_jobs`) starts it
under a memory cap and waits for it no longer than the checks' time: whatever a submission
makes the judge do, no grader waits on it past that, and a report it did not write scores 0
with a sentence.
"""

from __future__ import annotations

import json
import os
import resource
import sys

from agentlab_magics.checking.judge import STUDENT_ENV, STUDENT_MODULE, StudentProcess
from agentlab_magics.checking.runner import Launch, run
from agentlab_magics.checking.spares import Spares
from agentlab_magics.grading import TIMEOUT
from agentlab_magics.grading.limits import trusted_python
from agentlab_magics.grading.sandbox import KEPT_ENV, Sandbox

MEMORY = 3 << 30   # bytes of address space the judge may use


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
    request = json.loads(sys.stdin.read())
    spares = Spares(sandboxed(request["hidden"], request["covered"]), eager=True)
    spun: dict[str, int] = {}  # by lab: the line its code first ran out of time on
    try:
        for check in request["checks"]:
            lab = check["lab"]
            report = run(lab, "", source=request["answers"][lab], timeout=TIMEOUT,
                         held_back=check["held_back"], only=check["only"],
                         launch=spares.take, spinning=spun.get(lab))
            if report.spun_on is not None:
                spun.setdefault(lab, report.spun_on)
            sys.stdout.write(report.model_dump_json() + "\n")
            sys.stdout.flush()
    finally:
        spares.close()


if __name__ == "__main__":
    main()
