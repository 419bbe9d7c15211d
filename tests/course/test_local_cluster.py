"""The local Dask cluster `agentlab course autograde` starts: on Linux its workers are forked
from the command's process, so they hold what it imported and start without importing it
again; everywhere each has imported what grading needs before its first submission."""

from __future__ import annotations

import logging
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


def test_no_dask_record_reaches_a_handler_of_this_process_while_workers_are_forked():
    """A handler on the root logger (pytest's, a notebook's) writing a Dask record on Dask's
    thread as a worker is forked would leave its stream's lock held in the worker, which then
    hangs at its first line of log: while the cluster lives, Dask's records stay Dask's."""
    taken: list[str] = []
    noting = logging.Handler()
    noting.emit = lambda record: taken.append(record.name)  # type: ignore[method-assign]
    root = logging.getLogger()
    root.addHandler(noting)
    level, root.level = root.level, logging.DEBUG
    try:
        with local_cluster(2) as cluster, Client(cluster) as client:
            assert client.submit(int, "5").result() == 5
    finally:
        root.removeHandler(noting)
        root.setLevel(level)
    assert not [name for name in taken if name.startswith("distributed")], taken
