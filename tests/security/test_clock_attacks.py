"""Code that tries to buy time from the clock that forgives a busy machine (checking/clock.py):
it hangs while the processes it forked keep every CPU busy, so the waiting the clock counts
grows as fast as the time passes. The test is still stopped, within the clock's cap, and what
the code forked goes with it."""

from __future__ import annotations

import time
from pathlib import Path

from agentlab_magics.checking.clock import EXTRA_CAP
from agentlab_magics.checking.runner import run
from agentlab_magics.course import find_lab

LIMIT = 1.0
TEST = ["test_max_turns_one_against_a_stuck_model"]
HEAD = "def run_agent(model, system, messages, tools, prompt, *, max_turns=None):\n"
STALL = """    import os, time
    for _ in range(4 * len(os.sched_getaffinity(0))):
        if os.fork() == 0:
            open(os.environ["PIDS"], "a").write(f"{os.getpid()}\\n")
            while True:
                pass
    time.sleep(3600)
"""


def test_a_hang_beside_busy_children_is_stopped_within_the_cap(tmp_path, monkeypatch):
    pids = tmp_path / "pids"
    monkeypatch.setenv("PIDS", str(pids))
    reference = find_lab("lesson5").reference
    assert reference.count(HEAD) == 1
    path = tmp_path / "harness.py"
    path.write_text(reference.replace(HEAD, HEAD + STALL))
    started = time.monotonic()
    report = run("lesson5", path, timeout=LIMIT, only=TEST)
    took = time.monotonic() - started
    (outcome,) = report.outcomes
    assert outcome.outcome == "timeout"
    assert took < (1 + EXTRA_CAP) * LIMIT + 3.0, took
    forked = [int(line) for line in pids.read_text().split()]
    assert forked
    time.sleep(0.2)
    assert [pid for pid in forked if _running(pid)] == [], "the forked processes outlived it"


def _running(pid: int) -> bool:
    """Whether `pid` is a process that has not ended (a zombie has ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"
