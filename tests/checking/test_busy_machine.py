"""A test's time limit counts the time its code could run: on a machine too busy to give the
student's process a CPU, honest code that needs less than the limit still passes, and code
that hangs is still stopped at the limit (checking/clock.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from agentlab_magics.checking.runner import run
from agentlab_magics.course import find_lab

REFERENCE = find_lab("lesson5").reference
TEST = ["test_max_turns_one_against_a_stuck_model"]
HOGS = 4 * len(os.sched_getaffinity(0))  # busy processes: four to each CPU
LIMIT = 1.0
# CPU seconds the slowed run_agent spends before it goes on: less than the limit, but, with
# four busy processes to each CPU, more than the limit of the wall clock
BUSY = 0.4

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/self/schedstat"),
                                reason="the kernel keeps no run-queue times")


def with_start(line: str) -> str:
    """lesson 5's reference with `line` run first in run_agent."""
    head = "def run_agent(model, system, messages, tools, prompt, *, max_turns=None):\n"
    assert REFERENCE.count(head) == 1
    return "import time\n" + REFERENCE.replace(head, head + f"    {line}\n")


@pytest.fixture
def busy_machine():
    """HOGS processes that keep every CPU busy while the test runs."""
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True)
            for _ in range(HOGS)]
    try:
        yield
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()


def test_honest_code_slowed_by_a_busy_machine_passes(tmp_path, busy_machine):
    path = tmp_path / "harness.py"
    path.write_text(with_start(
        f"t = time.process_time()\n    while time.process_time() - t < {BUSY}: pass"))
    started = time.monotonic()
    report = run("lesson5", path, timeout=LIMIT, only=TEST)
    took = time.monotonic() - started
    assert took > LIMIT, "the machine was not busy enough to slow the run past its limit"
    assert [o.outcome for o in report.outcomes] == ["passed"], report.outcomes[0].message


def test_a_hang_on_a_busy_machine_is_stopped_at_its_limit(tmp_path, busy_machine):
    path = tmp_path / "harness.py"
    path.write_text(with_start("time.sleep(60)"))
    report = run("lesson5", path, timeout=LIMIT, only=TEST)
    (outcome,) = report.outcomes
    assert outcome.outcome == "timeout"
    assert outcome.duration < 2 * LIMIT
