"""How `agentlab course autograde` chooses where to grade, and says so: in this process, one
submission after another, while a local cluster's start-up would cost more than its cores save;
else one worker per submission up to one per core; what it is told, as told."""

from __future__ import annotations

from unittest import mock

from agentlab_magics.grading.batch import plan


def _on(cores: int):
    return mock.patch("os.sched_getaffinity", return_value=set(range(cores)))


def test_one_submission_is_graded_in_this_process_and_the_summary_says_why():
    with _on(2):
        assert plan(1, None, None) == (0, "no cluster: this process graded one submission after "
                                          "another (1 to grade, 2 cores: a local cluster's "
                                          "start-up would cost more than it saves)")


def test_a_class_on_two_cores_is_graded_in_this_process_until_a_cluster_pays():
    """Measured on 2 cores with workers forked: a cluster graded 3 submissions no sooner than
    this process (4.2 s against 4.1-4.4 s), 8 sooner (6.7 s against 7.9-8.1 s)."""
    with _on(2):
        assert plan(3, None, None)[0] == plan(4, None, None)[0] == 0
        assert plan(5, None, None)[0] == plan(8, None, None)[0] == plan(24, None, None)[0] == 2
        workers, said = plan(500, None, None)
    assert workers == 2 and said == ("LocalCluster, 2 workers (one a submission, up to one a "
                                     "core: 500 to grade, 2 cores)")


def test_one_core_never_pays_for_a_cluster_and_many_cores_pay_for_one_sooner():
    with _on(1):
        assert plan(500, None, None)[0] == 0
    with _on(32):
        assert plan(8, None, None) == (8, "LocalCluster, 8 workers (one a submission, up to "
                                          "one a core: 8 to grade, 32 cores)")


def test_workers_asked_for_and_a_scheduler_are_taken_as_given():
    assert plan(1, 3, None) == (3, "LocalCluster, 3 workers (as asked)")
    assert plan(40, None, "tcp://10.0.0.5:8786") == (0, "tcp://10.0.0.5:8786")
