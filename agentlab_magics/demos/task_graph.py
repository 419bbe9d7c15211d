"""Run tasks on a few threads, each once every task it needs has finished.

A task starts as soon as all its `needs` are done and a worker is free, earlier-added tasks
first. The first task that raises stops the run: no task starts after it, the running ones
finish, and its exception is raised again.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field


@dataclass
class Task:
    """One unit of work: a label for the progress line, what it runs, the tasks it needs."""

    label: str
    run: Callable[[], object]
    needs: list[Task] = field(default_factory=list)


def run_tasks(tasks: list[Task], workers: int,
              finished: Callable[[Task], None] = lambda task: None) -> None:
    """Run every task, each after all its needs (which must be in `tasks` too), at most
    `workers` at a time; `finished` is told of each task as it ends."""
    waiting = list(tasks)
    done: set[int] = set()
    running: dict[Future, Task] = {}
    with ThreadPoolExecutor(max_workers=workers) as pool:
        while waiting or running:
            for task in [t for t in waiting if all(id(n) in done for n in t.needs)]:
                if len(running) == workers:
                    break
                waiting.remove(task)
                running[pool.submit(task.run)] = task
            if not running:
                raise ValueError("Some tasks need tasks that are not in the graph: "
                                 + ", ".join(task.label for task in waiting))
            ended, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in ended:
                task = running.pop(future)
                error = future.exception()
                if error is not None:
                    wait(running)
                    raise error
                done.add(id(task))
                finished(task)
