"""How `agentlab course autograde` chooses its local cluster, and says so: one worker per
submission up to one per core, unless told; a scheduler's cluster as it is."""

from __future__ import annotations

import os

from agentlab_magics.grading.batch import plan

CORES = len(os.sched_getaffinity(0))


def test_a_class_smaller_than_the_cores_starts_a_worker_a_submission():
    assert plan(1, None, None) == (1, f"LocalCluster, 1 worker (one a submission, up to one a "
                                      f"core: 1 to grade, {CORES} cores)")


def test_a_class_larger_than_the_cores_gets_a_worker_a_core():
    workers, said = plan(CORES * 10, None, None)
    assert workers == CORES and said.startswith(f"LocalCluster, {CORES} worker")
    assert f"{CORES * 10} to grade, {CORES} cores" in said


def test_workers_asked_for_and_a_scheduler_are_taken_as_given():
    assert plan(1, 3, None) == (3, "LocalCluster, 3 workers (as asked)")
    assert plan(40, None, "tcp://10.0.0.5:8786") == (0, "tcp://10.0.0.5:8786")
