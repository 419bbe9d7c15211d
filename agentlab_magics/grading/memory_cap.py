"""One submission's grading under one memory limit: a memory cgroup where the machine allows,
resource limits otherwise.

- "cgroup2" (a unified hierarchy whose root offers the memory controller, as root): a cgroup of
  the submission's own beside the grader's, `memory.max` the limit, no swap, and the whole
  group killed together when it runs out (`memory.oom.group`);
- "cgroup1" (a memory hierarchy of the older kind, as root): a cgroup below the grader's own,
  `memory.limit_in_bytes` the limit, no swap where the kernel counts it;
- "rlimit" (neither can be made: a container without cgroup rights, or not root): each
  process admitted gets the limit as its address-space limit.

Every process that grades the submission is admitted (the grading child, its kernel's sandbox,
the judge and its student processes are its descendants, and follow it into the cgroup), so
nothing the submission does can take memory from another's grading. The cgroup is named as a
leftover (`leftovers.py`): one whose grader died is removed by `sweep_cgroups`.
"""

from __future__ import annotations

import itertools
import os
import resource
import signal
import time
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from agentlab_magics.grading.leftovers import orphaned, prefix

Kind = Literal["cgroup2", "cgroup1", "rlimit"]
ROOT = Path("/sys/fs/cgroup")
_made = itertools.count()


class MemoryCap(BaseModel):
    """A memory limit shared by one submission's grading processes (`kind` says how)."""

    limit: int  # bytes
    kind: Kind = "rlimit"
    path: str = ""  # the cgroup's folder, for the cgroup kinds

    @classmethod
    def make(cls, limit: int) -> MemoryCap:
        """A new cap of `limit` bytes, of the strongest kind this machine allows."""
        for kind, parent in _parents():
            group = parent / f"{prefix('cap')}{next(_made)}"
            try:
                group.mkdir()
            except OSError:
                continue
            cap = cls(limit=limit, kind=kind, path=str(group))
            try:
                cap._limit()
            except OSError:
                cap.close()
                continue
            return cap
        return cls(limit=limit)

    def _limit(self) -> None:
        group = Path(self.path)
        if self.kind == "cgroup2":
            _write(group / "memory.max", self.limit)
            _write(group / "memory.oom.group", 1)
            if (group / "memory.swap.max").exists():
                _write(group / "memory.swap.max", 0)
        else:
            _write(group / "memory.limit_in_bytes", self.limit)
            if (group / "memory.memsw.limit_in_bytes").exists():
                _write(group / "memory.memsw.limit_in_bytes", self.limit)

    def admit(self, pid: int = 0) -> None:
        """Put process `pid` (0: this one) under the cap; the processes it starts later
        follow it."""
        if self.kind == "rlimit":
            hard = resource.getrlimit(resource.RLIMIT_AS)[1]
            resource.prlimit(pid or os.getpid(), resource.RLIMIT_AS, (self.limit, hard))
        else:
            _write(Path(self.path) / "cgroup.procs", pid or os.getpid())

    def ran_out(self) -> bool:
        """Whether the kernel killed a process of the group for want of memory (a cgroup's
        count; under rlimit a process that runs out says so itself)."""
        if self.kind == "rlimit":
            return False
        name = "memory.events" if self.kind == "cgroup2" else "memory.oom_control"
        counts = dict(line.split() for line in _read(Path(self.path) / name).splitlines()
                      if len(line.split()) == 2)
        return int(counts.get("oom_kill", "0")) > 0

    def kill(self) -> None:
        """End every process under the cap (a cgroup's; under rlimit there is no group)."""
        if self.kind != "rlimit":
            _kill_group(Path(self.path))

    def close(self) -> None:
        """End the processes under the cap and remove its cgroup."""
        if self.kind != "rlimit":
            _remove(Path(self.path))


def kind_here() -> Kind:
    """The kind of cap this process can make (one is made and removed to find out)."""
    probe = MemoryCap.make(1 << 30)
    probe.close()
    return probe.kind


def _parents() -> list[tuple[Kind, Path]]:
    """Where a cap's cgroup can go, strongest first."""
    found: list[tuple[Kind, Path]] = []
    if "memory" in _read(ROOT / "cgroup.subtree_control").split():
        found.append(("cgroup2", ROOT))
    v1 = _v1_memory()
    if v1 is not None:
        found.append(("cgroup1", v1))
    return found


def _v1_memory() -> Path | None:
    """This process's own cgroup in a memory hierarchy of the older kind, if mounted."""
    for line in _read(Path("/proc/self/cgroup")).splitlines():
        _, controllers, path = line.split(":", 2)
        if "memory" in controllers.split(","):
            folder = ROOT / "memory" / path.lstrip("/")
            return folder if folder.is_dir() else None
    return None


def sweep_cgroups() -> list[str]:
    """Remove the caps whose grader is no longer running; the names removed."""
    swept = []
    for _, parent in _parents():
        for group in sorted(parent.glob("agentlab-cap-*")):
            if orphaned(group.name) and _remove(group):
                swept.append(group.name)
    return swept


def _kill_group(group: Path) -> None:
    if (group / "cgroup.kill").exists():
        _write(group / "cgroup.kill", 1)
        return
    for pid in _read(group / "cgroup.procs").split():
        try:
            os.kill(int(pid), signal.SIGKILL)
        except OSError:
            pass


def _remove(group: Path) -> bool:
    """Kill what runs in `group` and remove it (a killed process takes a moment to leave)."""
    deadline = time.monotonic() + 10
    while True:
        _kill_group(group)
        try:
            group.rmdir()
            return True
        except FileNotFoundError:
            return True
        except OSError:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.02)


def _write(path: Path, value: int) -> None:
    with open(path, "w", encoding="ascii") as handle:
        handle.write(f"{value}\n")


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="ascii", errors="replace")
    except OSError:
        return ""
