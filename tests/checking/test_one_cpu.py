"""While a check runs, the judge's thread and the student process share one CPU, and the
judge's thread gets its own CPU set back after (checking/one_cpu.py)."""

from __future__ import annotations

import os
import threading

import pytest

from agentlab_magics.checking.one_cpu import current_cpu, join, judge_here
from agentlab_magics.checking.process import StudentProcess
from agentlab_magics.checking.runner import run
from agentlab_magics.checking.spares import Spares
from agentlab_magics.course import find_lab

pytestmark = pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2,
                                reason="a check is held on one CPU only where it had more")

REPORTS_ITS_CPUS = "import os\n\ndef cpus():\n    return sorted(os.sched_getaffinity(0))\n"


def test_the_judge_is_held_on_the_cpu_it_was_on_and_let_go_after():
    before = os.sched_getaffinity(0)
    with judge_here():
        held = os.sched_getaffinity(0)
        assert len(held) == 1
        assert held == {current_cpu()}
    assert os.sched_getaffinity(0) == before


def test_the_judge_gets_its_cpus_back_when_the_check_raises():
    before = os.sched_getaffinity(0)
    with pytest.raises(RuntimeError), judge_here():
        raise RuntimeError("a test's own error")
    assert os.sched_getaffinity(0) == before


def test_only_the_judges_thread_is_held():
    seen: list[set[int]] = []
    asked = threading.Event()

    def look() -> None:
        asked.wait(10)
        seen.append(os.sched_getaffinity(0))

    other = threading.Thread(target=look)
    other.start()
    with judge_here():
        asked.set()
        other.join()
    assert seen == [os.sched_getaffinity(0)]


def test_the_spares_thread_is_never_held_on_a_checks_cpu():
    """The thread that starts student processes exists before any check, so what it starts
    is never made on the check's one CPU."""
    spares = Spares(StudentProcess.local)
    try:
        with judge_here():
            process = spares.take()
        cpus = os.sched_getaffinity(process.pid)
        process.kill()
    finally:
        spares.close()
    assert cpus == os.sched_getaffinity(0)


def test_a_student_process_joins_the_judge_on_its_cpu():
    with judge_here():
        process = StudentProcess.local()
        try:
            join(process.pid)
            process.load(REPORTS_ITS_CPUS, "<cpus>", "cpus", ["cpus"], [], 10.0)
            process.begin(10.0)
            assert process.call("cpus", (), {}) == sorted(os.sched_getaffinity(0))
        finally:
            process.kill()


def test_a_process_that_is_gone_is_left_alone():
    process = StudentProcess.local()
    process.kill()
    join(process.pid)  # no error: it is reaped already
    join(None)


def test_a_check_runs_on_one_cpu_and_leaves_the_thread_as_it_was():
    before = os.sched_getaffinity(0)
    during: list[set[int]] = []
    report = run("lesson1", "", source=find_lab("lesson1").reference,
                 on_outcome=lambda outcome: during.append(os.sched_getaffinity(0)))
    assert report.passed == len(report.outcomes) > 0
    assert during and all(len(cpus) == 1 for cpus in during)
    assert os.sched_getaffinity(0) == before
