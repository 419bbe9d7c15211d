"""`agentlab course autograde --scheduler` on a real Dask cluster: a `dask scheduler` and two
`dask worker`s started as separate processes on 127.0.0.1, as they would run on separate
machines. One worker is killed while it grades; every submission is still graded, once.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from distributed import Client
from nbgrader.api import Gradebook

from agentlab_magics.checking.process_tree import descendants
from agentlab_magics.term.nbgrader_cli import Nbgrader
from tests.handed_in import handed_in

COURSE = Path(__file__).resolve().parents[2] / "nbgrader_course"
ASSIGNMENT = "lesson1"
STUDENTS = [f"{persona}{n}" for n in range(1, 4) for persona in ("reference", "wrong")]
DASK = str(Path(sys.executable).parent / "dask")


@pytest.fixture
def cluster(tmp_path):
    """A scheduler and two single-threaded workers without nannies (a killed worker stays
    dead), each its own process; yields the scheduler's address and the workers' processes."""
    scheduler_file = tmp_path / "scheduler.json"
    started = [subprocess.Popen([DASK, "scheduler", "--host", "127.0.0.1", "--port", "0",
                                 "--no-dashboard", "--scheduler-file", str(scheduler_file)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        deadline = time.monotonic() + 60
        while not scheduler_file.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        address = json.loads(scheduler_file.read_text())["address"]
        workers = [subprocess.Popen([DASK, "worker", address, "--nthreads", "1", "--no-nanny",
                                     "--host", "127.0.0.1", "--no-dashboard",
                                     "--name", f"worker{n}"],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                   for n in (1, 2)]
        started += workers
        with Client(address, timeout=30) as client:
            client.wait_for_workers(2, timeout=60)
        yield address, workers
    finally:
        for process in started:
            process.kill()
            process.wait()


def _grades(course: Path) -> dict[str, list[tuple]]:
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", "agentlab") as gb:
        return {s.student.id: sorted((g.name, g.auto_score) for nb in s.notebooks
                                     for g in nb.grades)
                for s in gb.find_assignment(ASSIGNMENT).submissions}


def test_a_worker_killed_mid_run_loses_nothing_and_counts_nothing_twice(cluster, tmp_path):
    address, workers = cluster
    (tmp_path / "exchange").mkdir()
    nbgrader = Nbgrader({"AGENTLAB_EXCHANGE": str(tmp_path / "exchange"),
                         "JUPYTER_CONFIG_DIR": str(tmp_path / "jupyter-config")})
    course = handed_in(COURSE, tmp_path, [ASSIGNMENT], STUDENTS, nbgrader)
    run = subprocess.Popen(
        [sys.executable, "-m", "agentlab_magics.cli", "course", "autograde", ASSIGNMENT,
         "--course", str(course), "--scheduler", address],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, **nbgrader.env})
    killed, orphaned = _kill_a_busy_worker(address, workers)
    out = run.communicate(timeout=600)[0]
    assert killed is not None, out
    assert run.returncode == 0, out
    summary = json.loads((course / ".agentlab" / "autograde" /
                          f"{ASSIGNMENT}-summary.json").read_text())
    records = summary["records"]
    assert sorted(r["student"] for r in records) == sorted(STUDENTS)
    assert {r["status"] for r in records} == {"graded"}
    grades = _grades(course)
    assert sorted(grades) == sorted(STUDENTS)
    for persona in ("reference", "wrong"):
        assert len({str(grades[f"{persona}{n}"]) for n in range(1, 4)}) == 1
    assert grades["reference1"] != grades["wrong1"]
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", "agentlab") as gb:
        assert len(gb.find_assignment(ASSIGNMENT).submissions) == len(STUDENTS)
    # This cluster's kernels only: other tests may be grading on this machine meanwhile.
    left = {**orphaned, **{pid: started for worker in workers if worker.poll() is None
                           for pid, started in _kernels_under(worker.pid).items()}}
    assert _gone(left), "a kernel outlived the worker that started it"


def _kernels_under(root: int) -> dict[int, bytes]:
    """The grading kernels (sandboxed ipykernels) in `root`'s process tree, each with its
    start time, which tells it from a later process given the same pid."""
    return {pid: _started(pid) for pid in descendants(root)
            if b"agentlab-grade-" in _cmdline(pid) and b"ipykernel" in _cmdline(pid)}


def _gone(kernels: dict[int, bytes]) -> bool:
    """Whether every one of `kernels` has ended, within 10 s."""
    deadline = time.monotonic() + 10
    while any(_started(pid) == started for pid, started in kernels.items()):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.5)
    return True


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def _started(pid: int) -> bytes:
    """When `pid` started (field 22 of /proc/<pid>/stat); empty once it ended."""
    try:
        return Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[19]
    except (OSError, IndexError):
        return b""


def _kill_a_busy_worker(address: str, workers: list[subprocess.Popen]
                        ) -> tuple[str | None, dict[int, bytes]]:
    """SIGKILL the first worker seen grading a submission, once its kernel runs; its address
    and the kernels it leaves behind."""
    with Client(address, timeout=30) as client:
        by_name = {f"worker{n}": process for n, process in enumerate(workers, 1)}
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            for worker, keys in client.processing().items():
                known = client.scheduler_info()["workers"].get(worker)
                # the client's view of the workers is refreshed every few seconds: a worker
                # it has not caught up with yet is looked at on a later pass
                if known and any(str(key).startswith("agentlab-autograde-") for key in keys):
                    process = by_name[known["name"]]
                    kernels = _kernels_under(process.pid)
                    if kernels:  # well into the task: its kernel is running
                        os.kill(process.pid, signal.SIGKILL)
                        process.wait()
                        return worker, kernels
            time.sleep(0.2)
    return None, {}
