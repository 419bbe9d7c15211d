"""The local Dask cluster `agentlab course autograde` starts: on Linux its workers are forked
from the command's process, so they hold what it imported and start without importing it
again; everywhere each has imported what grading needs before its first submission."""

from __future__ import annotations

import sys

from distributed import Client

from agentlab_magics.grading.batch import FORKS, WARM, local_cluster


def _held() -> tuple[bool, bool]:
    """In a worker: whether it holds pytest (imported by this test's process only) and what
    grading needs."""
    return "pytest" in sys.modules, WARM in sys.modules


def test_workers_are_forked_from_this_process_where_fork_is_the_systems_way():
    with local_cluster(2) as cluster, Client(cluster) as client:
        held = client.run(_held)
    assert list(held.values()) == [(FORKS, True)] * 2
    assert sys.platform.startswith("linux") == FORKS
