"""A process and what runs under it, read off Linux's /proc: its descendants, their threads,
and the pid, as this machine sees it, of a process that knows itself by a pid of its own pid
namespace (a sandbox's). Every read tolerates a process that ended meanwhile."""

from __future__ import annotations

import os
from pathlib import Path

TREE_CAP = 4_096  # processes looked at, at most, under one root


def threads(pid: int) -> list[str]:
    """The /proc/<pid>/task/<tid> folders of `pid`'s threads (none once it ended), as text:
    a clock reads them at every test's start, and a Path costs more than the read."""
    folder = f"/proc/{pid}/task"
    try:
        return [f"{folder}/{tid}" for tid in os.listdir(folder)]
    except OSError:
        return []


def descendants(pid: int) -> list[int]:
    """`pid` and every process under it, as now, parents before their children."""
    found: list[int] = []
    pending = [pid]
    while pending and len(found) < TREE_CAP:
        process = pending.pop(0)
        found.append(process)
        for task in threads(process):
            try:
                pending += [int(child) for child in Path(task, "children").read_text().split()]
            except (OSError, ValueError):
                pass
    return found


def host_pid(root: int, inner: int) -> int | None:
    """The pid, on this machine, of the process under `root` that its own pid namespace calls
    `inner` (the innermost pid of its NSpid line), if exactly one process there is so called."""
    matches = [pid for pid in descendants(root) if _namespace_pids(pid)[-1:] == [inner]]
    return matches[0] if len(matches) == 1 else None


def _namespace_pids(pid: int) -> list[int]:
    """`pid`'s pid in each pid namespace it is in, outermost first ([] once it ended)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("NSpid:"):
                return [int(field) for field in line.split()[1:]]
    except (OSError, ValueError):
        pass
    return []


__all__ = ["descendants", "host_pid", "threads"]
