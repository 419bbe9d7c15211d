"""The parts that keep one submission's trouble its own: every message weighed before it is
held (`kernel_run`), a memory cap per submission (`memory_cap`), a grading child per
submission that may die alone (`host`), leftovers swept once their maker is gone
(`leftovers`), and odd bytes shown as escapes (`printable`)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from agentlab_magics.course import find_lab
from agentlab_magics.grading.autograde import checks_of
from agentlab_magics.grading.cells import GradeCall
from agentlab_magics.grading.host import GradingHost, NotGraded, RunRequest, sweep
from agentlab_magics.grading.kernel_run import LEFT_OUT, KernelRun
from agentlab_magics.grading.leftovers import make_folder, orphaned, sweep_folders
from agentlab_magics.grading.memory_cap import MemoryCap, kind_here, sweep_cgroups
from agentlab_magics.grading.printable import file_name, odd_names, printable
from agentlab_magics.grading.sandbox import detect
from agentlab_magics.grading.scoring import JudgeProcess

# -- weighing --------------------------------------------------------------------------------


def _run(per_cell: int = 100, per_notebook: int = 250) -> tuple[KernelRun, nbformat.NotebookNode]:
    run = KernelRun(received_limit=per_cell, notebook_received_limit=per_notebook)
    run.nb = new_notebook(cells=[new_code_cell("a"), new_code_cell("b")])
    run.reset_execution_trackers()
    run.clear_before_next_output = False  # as nbclient has it when a cell starts
    return run, run.nb


def _message(kind: str, content: dict) -> dict:
    return {"msg_type": kind, "header": {"msg_type": kind}, "content": content,
            "parent_header": {"msg_id": "cell"}, "metadata": {}}


def _stream(text: str) -> dict:
    return _message("stream", {"name": "stdout", "text": text})


def test_a_cells_outputs_are_held_while_its_share_lasts_and_counted_after():
    run, nb = _run()
    for _ in range(5):
        run.process_message(_stream("x" * 20), nb.cells[0], 0)
    kept = "".join(output.text for output in nb.cells[0].outputs)
    assert 0 < len(kept) < 100 and run.scale.dropped[0] > 0


def test_the_notebooks_share_bounds_every_cell_together():
    run, nb = _run(per_cell=100, per_notebook=120)
    run.process_message(_stream("x" * 60), nb.cells[0], 0)
    run.process_message(_stream("y" * 60), nb.cells[1], 1)
    assert nb.cells[1].outputs == [] and run.scale.dropped[1] > 0


def test_an_error_past_the_share_is_kept_once_cut_and_the_rest_are_dropped():
    run, nb = _run()
    big = {"ename": "Flood", "evalue": "E" * 5_000, "traceback": ["T" * 5_000] * 3}
    for _ in range(3):
        run.process_message(_message("error", dict(big)), nb.cells[0], 0)
    errors = [output for output in nb.cells[0].outputs if output.output_type == "error"]
    assert len(errors) == 1
    assert len(errors[0].evalue) <= 2_000 and len(errors[0].traceback) == 1


def test_a_display_update_counts_once_for_every_output_it_would_change():
    run, nb = _run(per_cell=10_000, per_notebook=10_000)
    shown = {"data": {"text/plain": "s"}, "metadata": {}, "transient": {"display_id": "d"}}
    for _ in range(20):
        run.process_message(_message("display_data", shown), nb.cells[0], 0)
    update = {"data": {"text/plain": "U" * 1_000}, "metadata": {},
              "transient": {"display_id": "d"}}
    run.process_message(_message("update_display_data", update), nb.cells[0], 0)
    assert {output.data["text/plain"] for output in nb.cells[0].outputs} == {"s"}


def test_a_part_too_big_to_decode_is_charged_at_its_size():
    run, nb = _run()
    run.process_message(_message("stream", {LEFT_OUT: 10 << 20, "name": "stdout", "text": ""}),
                        nb.cells[0], 0)
    assert nb.cells[0].outputs == [] and run.scale.dropped[0] == 10 << 20


def test_messages_of_odd_kinds_or_shapes_are_left_out_and_counted_not_logged(caplog):
    run, nb = _run()
    for kind in ("odd-\ud800", "k" * 100_000, "comm_msg"):
        run.process_message(_message(kind, {"data": {}}), nb.cells[0], 0)
    run.process_message(_message("stream", ["not", "a", "dict"]), nb.cells[0], 0)
    run.process_message(_message("status", {"execution_state": "x" * 50}), nb.cells[0], 0)
    run.process_message(_message("execute_result", {
        "data": {"text/plain": "1"}, "metadata": {}, "execution_count": "9" * 1_000}),
        nb.cells[0], 0)
    assert nb.cells[0].execution_count is None and len(nb.cells[0].outputs) == 1
    assert run.notes() == ["the kernel sent 4 message(s) of kinds a notebook does not show; "
                           "they were left out"]
    assert "kkkk" not in caplog.text


# -- odd bytes -------------------------------------------------------------------------------

def test_odd_bytes_are_shown_as_escapes():
    name = os.fsdecode(b"caf\xe9 \x1b[31mred.txt")
    assert file_name(name) == "caf\\xe9 \\x1b[31mred.txt"
    assert printable("a\ud800b\x07c\td\ne") == "a\\ud800b\\x07c\td\ne"
    assert odd_names(["plain.txt", "caf\u00e9.txt", name]) == ["caf\\xe9 \\x1b[31mred.txt"]
    printable(name).encode("utf-8")  # writable to any file


# -- leftovers -------------------------------------------------------------------------------

def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_only_what_a_dead_process_left_is_swept(tmp_path):
    mine = make_folder("job")
    try:
        dead = tmp_path / f"agentlab-grade-{_dead_pid()}.1-x"
        dead.mkdir()
        (dead / "work").mkdir()
        reused = tmp_path / f"agentlab-job-{os.getpid()}.1-x"  # this pid, another start time
        reused.mkdir()
        other = tmp_path / "agentlab-notes"
        other.mkdir()
        assert orphaned(dead.name) and not orphaned(mine.name)
        assert sorted(sweep_folders(str(tmp_path))) == sorted([dead.name, reused.name])
        assert other.exists()
        assert mine.exists() and mine.name not in sweep_folders()
    finally:
        mine.rmdir()


@pytest.mark.skipif(os.geteuid() != 0, reason="mounts a tmpfs")
def test_a_scratch_tmpfs_left_mounted_is_unmounted_and_removed(tmp_path):
    left = tmp_path / f"agentlab-grade-{_dead_pid()}.1-x"
    left.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "agentlab-scratch", str(left)],
                   check=True)
    (left / "work").mkdir()
    assert sweep_folders(str(tmp_path)) == [left.name]
    assert not left.exists() and not os.path.ismount(left)


# -- the memory cap --------------------------------------------------------------------------

HOG = "x = b'h' * ({} << 20); print('held')"
needs_cgroup = pytest.mark.skipif(kind_here() == "rlimit",
                                  reason="needs a memory cgroup")


def _under(cap: MemoryCap, code: str) -> subprocess.CompletedProcess:
    ready = subprocess.Popen([sys.executable, "-c", f"input(); {code}"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    cap.admit(ready.pid)
    out, _ = ready.communicate("go\n", timeout=60)
    return subprocess.CompletedProcess(ready.args, ready.returncode, out)


@needs_cgroup
def test_a_process_past_its_submissions_cap_is_killed_and_the_cap_says_so():
    cap = MemoryCap.make(200 << 20)
    try:
        within = _under(cap, HOG.format(50))
        assert within.stdout.strip() == "held" and not cap.ran_out()
        past = _under(cap, HOG.format(400))
        assert past.returncode == -9 and cap.ran_out()
    finally:
        cap.close()
    assert not Path(cap.path).exists()


@needs_cgroup
def test_a_cap_whose_grader_died_is_swept():
    made = subprocess.run([sys.executable, "-c",
                           "from agentlab_magics.grading.memory_cap import MemoryCap\n"
                           "print(MemoryCap.make(1 << 30).path)"],
                          capture_output=True, text=True, check=True).stdout.strip()
    assert Path(made).is_dir()
    assert Path(made).name in sweep_cgroups()
    assert not Path(made).exists()


def test_without_a_cgroup_the_cap_is_each_processs_address_space(monkeypatch):
    monkeypatch.setattr("agentlab_magics.grading.memory_cap._parents", list)
    cap = MemoryCap.make(300 << 20)
    assert cap.kind == "rlimit"
    past = _under(cap, "x = bytearray(600 << 20); print('held')")
    assert past.returncode != 0 and "held" not in past.stdout


# -- a grading child per submission ------------------------------------------------------------

sandboxed = pytest.mark.skipif(detect() == "none", reason="needs the grading sandbox")


def _request(code: str, cap: MemoryCap, **settings) -> RunRequest:
    nb = new_notebook(cells=[new_code_cell(code)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    return RunRequest(notebook=nbformat.writes(nb), cap=cap,
                      settings={"timeout": None, "kernel_name": "python3", **settings})


@sandboxed
def test_a_grading_that_hangs_or_runs_out_of_memory_takes_only_itself():
    host = GradingHost()
    cap, fresh = MemoryCap.make(600 << 20), MemoryCap.make(1 << 30)
    try:
        with pytest.raises(NotGraded, match="not graded: its grading took longer than 25 s"):
            host.run(_request("import time; time.sleep(600)", cap), seconds=25)
        if cap.kind != "rlimit":
            with pytest.raises(NotGraded, match="not graded: its grading ran out of memory"):
                host.run(_request(HOG.format(900), cap), seconds=120)
        done = host.run(_request("print('after them')", fresh), seconds=120)
    finally:
        cap.close()
        fresh.close()
        host.close()
    assert done.notebook is not None and "after them" in done.notebook
    sweep()  # what the killed children left
    assert [path for path in Path(tempfile.gettempdir()).glob("agentlab-*")
            if orphaned(path.name)] == []


# -- the held-back checks wait for the kernel ------------------------------------------------------

@sandboxed
def test_the_held_back_checks_start_only_once_told_the_kernel_is_gone():
    lab = find_lab("lesson1")
    checks = checks_of([GradeCall(lab.id, "messages", False), GradeCall(lab.id, "messages", True)])
    assert [check.held_back for check in checks] == [False, True]
    with JudgeProcess(checks, {lab.id: lab.reference}, hidden=[]) as judge:
        reports = judge.folder / "reports"
        deadline = time.monotonic() + 120
        while not reports.read_bytes().count(b"\n") and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(2)  # time enough for a held-back check that did not wait
        assert reports.read_bytes().count(b"\n") == 1
        judge.go()
        done = judge.reports()
    assert [report.all_passed for report in done] == [True, True]
