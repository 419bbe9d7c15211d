"""Each submission's notebook run in a process of its own, under its own memory cap, without
paying an interpreter's start each time.

The host is one warm process per grader (`python -P -m agentlab_magics.grading.host`): it
imports what running a notebook takes (nbclient, nbgrader, jupyter_client) once, stays single
threaded, and forks a grading child per job it reads on standard input. The child joins the
submission's memory cap, runs the notebook (`kernel_run.KernelRun`) and writes the result to a
file; the host writes one line when the child starts ({"pid": N}) and one when it ends
({"status": exit code, negative for a signal}). So a grading that runs out of memory, hangs or
crashes takes only its own child: the grader (`GradingHost`, in nbgrader's process) reads a
status, says in a sentence why the submission was not graded, sweeps what the child left
(`sweep`) and goes on with the next.
"""

from __future__ import annotations

import contextlib
import ctypes
import io
import json
import logging
import os
import select
import signal
import subprocess
import sys
import threading
import time
from functools import cache
from pathlib import Path
from typing import Any, BinaryIO

import nbformat
from pydantic import BaseModel

from agentlab_magics.atomic import write_text_atomically
from agentlab_magics.grading.kernel_run import KernelRun
from agentlab_magics.grading.leftovers import folder, sweep_folders
from agentlab_magics.grading.limits import trusted_python
from agentlab_magics.grading.memory_cap import MemoryCap, sweep_cgroups
from agentlab_magics.grading.sandbox import detect, dies_with_parent, setuid_files

OUT_OF_MEMORY = 3       # the child's exit code when Python ran out of memory (rlimit caps)
RESULT_CAP = 64 << 20   # bytes of a child's result the grader reads
LOG_CAP = 100_000       # characters of a child's log it returns
HELLO_SECONDS = 120.0   # for the host to import what it needs and say it is ready
PR_SET_PDEATHSIG = 1


class RunRequest(BaseModel):
    """What a grading child needs to run one notebook."""

    notebook: str  # nbformat JSON, the hidden tests already taken out
    folder: str | None = None  # the submitted folder, copied into the kernel's scratch folder
    hidden: list[str] = []
    settings: dict[str, Any] = {}  # KernelRun's configurable traits
    cap: MemoryCap


class RunResult(BaseModel):
    """What it gave: the notebook as run, or why not."""

    notebook: str | None = None
    phases: dict[str, float] = {}
    notes: list[str] = []
    log: str = ""
    problem: str | None = None


class NotGraded(Exception):
    """The submission's grading could not finish; the message says why, in a sentence."""


def sweep() -> list[str]:
    """Every orphaned leftover of a grading removed: folders and memory cgroups."""
    return [*sweep_folders(), *sweep_cgroups()]


@cache
def swept_at_start() -> list[str]:
    """`sweep`, once in this process: what a grader killed earlier left behind."""
    return sweep()


# -- the grader's side -----------------------------------------------------------------------

class GradingHost:
    """The grader's handle on its host process, started when first needed and again if it
    died; one job at a time."""

    def __init__(self) -> None:
        self.process: subprocess.Popen | ForkedHost | None = None
        self.pending = b""
        self.lock = threading.Lock()

    def run(self, request: RunRequest, seconds: float) -> RunResult:
        """Run `request` in a grading child given `seconds`; NotGraded, with the reason, if
        it ran out of memory or time, or died."""
        with self.lock, folder("job") as job:
            (job / "request.json").write_text(request.model_dump_json(), encoding="utf-8")
            status = self._job(job, request.cap, seconds)
            result = job / "result.json"
            if request.cap.ran_out() or status == OUT_OF_MEMORY:
                raise NotGraded("not graded: its grading ran out of memory "
                                f"({request.cap.limit >> 20} MiB)")
            if status is None:
                raise NotGraded(f"not graded: its grading took longer than {seconds:.0f} s")
            if status != 0 or not result.is_file():
                raise NotGraded(f"not graded: its grading process ended ({_ending(status)})")
            if result.stat().st_size > RESULT_CAP:
                raise NotGraded("not graded: its grading gave more than "
                                f"{RESULT_CAP >> 20} MiB of output")
            return RunResult.model_validate_json(result.read_bytes())

    def _job(self, job: Path, cap: MemoryCap, seconds: float) -> int | None:
        """Start the job's child and wait for its status (None: it ran out of time, and was
        killed with everything under its cap)."""
        process = self.ready()
        assert process.stdin is not None
        process.stdin.write(json.dumps({"folder": str(job)}).encode() + b"\n")
        process.stdin.flush()
        pid = self._line(HELLO_SECONDS)["pid"]
        try:
            return self._line(seconds)["status"]
        except TimeoutError:
            _kill(pid)
            cap.kill()
            self._line(HELLO_SECONDS)
            return None

    def ready(self) -> subprocess.Popen | ForkedHost:
        """The host, started (and said ready) if it is not running: forked from this process
        where it has one thread (it holds all a host needs already, and a fork of one thread
        is safe), else started afresh. A forked host holds every descriptor this process had
        when it was forked: start it before any process whose pipe must end (the judge's)."""
        if self.process is None or self.process.poll() is not None:
            if threading.active_count() == 1:
                self.process = ForkedHost()
            else:
                self.process = subprocess.Popen(
                    [*dies_with_parent(), *trusted_python("agentlab_magics.grading.host")],
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                    cwd="/")  # not the grader's: a scratch course goes with its submission
            self.pending = b""
            self._line(HELLO_SECONDS)
        return self.process

    def _line(self, seconds: float) -> dict:
        """The host's next line, waited for at most `seconds`: TimeoutError, or NotGraded if
        the host ended."""
        assert self.process is not None and self.process.stdout is not None
        deadline = time.monotonic() + seconds
        out = self.process.stdout.fileno()
        while b"\n" not in self.pending:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            if select.select([out], [], [], left)[0]:
                chunk = os.read(out, 4096)
                if not chunk:
                    self.process.wait()
                    self.process = None
                    raise NotGraded("not graded: the grading host ended; grade it again")
                self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        return json.loads(line)

    def close(self) -> None:
        """End the host (a child at work dies with it)."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


class ForkedHost:
    """A host forked from the grader, with the pipes and the few ways of a Popen the grader
    uses."""

    def __init__(self) -> None:
        jobs, self.stdin = _pipe()
        self.stdout, said = _pipe()
        self.pid = os.fork()
        if self.pid == 0:
            try:
                self.stdin.close()
                self.stdout.close()
                os.chdir("/")
                serve(jobs, said)
            finally:
                os._exit(0)
        jobs.close()
        said.close()
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self) -> int:
        if self.returncode is None:
            self.returncode = os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])
        return self.returncode

    def kill(self) -> None:
        if self.returncode is None:
            _kill(self.pid)


def _pipe() -> tuple[BinaryIO, BinaryIO]:
    read, write = os.pipe()
    return os.fdopen(read, "rb", buffering=0), os.fdopen(write, "wb")


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass


def _ending(status: int | None) -> str:
    if status is None or status >= 0:
        return f"exit code {status}"
    return f"killed by {signal.Signals(-status).name}"


_host: GradingHost | None = None


def host() -> GradingHost:
    """This process's grading host."""
    global _host
    if _host is None:
        _host = GradingHost()
    return _host


# -- the host's side -------------------------------------------------------------------------

def main() -> None:
    """The host started afresh: it serves its standard input."""
    serve(sys.stdin.buffer, sys.stdout.buffer)


def serve(jobs: BinaryIO, say: BinaryIO) -> None:
    """Serve `jobs` until they end: fork a child for each, report its pid and its status."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the grader's to act on
    detect()
    setuid_files()
    say.write(b'{"ready": true}\n')
    say.flush()
    for line in iter(jobs.readline, b""):
        job = Path(json.loads(line)["folder"])
        pid = os.fork()
        if pid == 0:
            _child(job)
        say.write(json.dumps({"pid": pid}).encode() + b"\n")
        say.flush()
        _, status = os.waitpid(pid, 0)
        say.write(json.dumps({"status": os.waitstatus_to_exitcode(status)}).encode() + b"\n")
        say.flush()


def _child(job: Path) -> None:
    """Run the job's notebook and write its result; never returns."""
    code = 0
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        _quiet()
        request = RunRequest.model_validate_json((job / "request.json").read_bytes())
        request.cap.admit()
        result = _run(request)
        write_text_atomically(job / "result.json", result.model_dump_json())
    except MemoryError:
        code = OUT_OF_MEMORY
    except BaseException as exc:  # the grader reads why in the status
        with contextlib.suppress(BaseException):
            write_text_atomically(job / "result.json", RunResult(
                problem=f"{type(exc).__name__}: {exc}"[:2_000]).model_dump_json())
    os._exit(code)


def _quiet() -> None:
    """Nothing of the child's reaches the host's pipes."""
    devnull = os.open(os.devnull, os.O_RDWR)
    for descriptor in (0, 1, 2):
        os.dup2(devnull, descriptor)


def _run(request: RunRequest) -> RunResult:
    """Run the request's notebook, its warnings and errors kept (the first LOG_CAP
    characters)."""
    log = io.StringIO()
    handler = logging.StreamHandler(log)
    handler.setLevel(logging.WARNING)  # nbclient's debug lines hold every message in full
    logging.getLogger().handlers[:] = [handler]
    nb = nbformat.reads(request.notebook, as_version=4)
    run = KernelRun(**request.settings)
    run.log.handlers[:] = [handler]
    try:
        phases = run.run(nb, request.folder, request.hidden)
    except Exception as exc:
        return RunResult(problem=f"{type(exc).__name__}: {exc}"[:2_000],
                         log=log.getvalue()[:LOG_CAP])
    return RunResult(notebook=nbformat.writes(nb), phases=phases, notes=run.notes(),
                     log=log.getvalue()[:LOG_CAP])


if __name__ == "__main__":
    main()
