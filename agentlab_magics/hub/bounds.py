"""What holds a student's server to its memory and CPU limits on this machine.

A student's server, its kernels and everything they start share one memory limit and one CPU
limit (JupyterHub's `Spawner.mem_limit` and `Spawner.cpu_limit`, which every spawner reads).
The hub holds them with the strongest thing the machine gives, in this order:

- "systemd": systemd runs the machine (PID 1): each server is a systemd unit of its own with
  MemoryMax and CPUQuota, started by SystemdSpawner, as The Littlest JupyterHub does;
- "cgroup": the cgroup v1 memory and cpu controllers are mounted and root may write them: each
  server runs in a cgroup of its own, made below the hub's own, whose memory.limit_in_bytes and
  cpu.cfs_quota_us the server cannot change (BoundedSpawner);
- "rlimit": neither: each process of the server may hold at most the memory limit of data
  (RLIMIT_DATA); nothing bounds CPU.

Within any of them each kernel holds its own data to a share of the server's limit
(kernel_memory.py), so a kernel that allocates past it ends with a sentence in the notebook
before the kernel's OOM killer would choose a process.
"""

from __future__ import annotations

import os
import resource
import signal
import time
from dataclasses import dataclass
from pathlib import Path

CGROUPS = Path("/sys/fs/cgroup")
SYSTEMD = Path("/run/systemd/system")  # there when systemd is PID 1 (sd_booted's own test)
CPU_PERIOD_US = 100_000
EMPTYING_S = 5  # how long a stopped server's last processes may take to go


def mechanism(cgroups: Path = CGROUPS, systemd: Path = SYSTEMD) -> str:
    """"systemd", "cgroup" or "rlimit": what holds a server's limits here (the module's
    docstring says why each)."""
    if systemd.is_dir():
        return "systemd"
    if all(os.access(cgroups / controller, os.W_OK) for controller in ("memory", "cpu")):
        return "cgroup"
    return "rlimit"


def limits(mem_limit: int | None, cpu_limit: float | None) -> dict[str, dict[str, str]]:
    """The cgroup v1 files, per controller, that hold a server to `mem_limit` bytes and
    `cpu_limit` CPUs (None: no limit, -1 to the kernel)."""
    quota = round(cpu_limit * CPU_PERIOD_US) if cpu_limit else -1
    return {"memory": {"memory.limit_in_bytes": str(mem_limit or -1)},
            "cpu": {"cpu.cfs_period_us": str(CPU_PERIOD_US), "cpu.cfs_quota_us": str(quota)}}


@dataclass(frozen=True)
class ServerGroup:
    """One server's cgroup: a folder named for its user in each controller, below the
    hub's own cgroup there."""

    user: str
    cgroups: Path = CGROUPS

    def folder(self, controller: str) -> Path:
        return self.cgroups / controller / _own(controller) / f"agentlab-{self.user}"

    def make(self, mem_limit: int | None, cpu_limit: float | None) -> None:
        """Make the server's cgroup with its limits (as root, in the hub)."""
        for controller, files in limits(mem_limit, cpu_limit).items():
            self.folder(controller).mkdir(exist_ok=True)
            for name, value in files.items():
                (self.folder(controller) / name).write_text(value)

    def join(self) -> None:
        """Put the calling process in the cgroup (as root, in the server's process before it
        becomes its user): everything it starts is held there too."""
        for controller in ("memory", "cpu"):
            (self.folder(controller) / "cgroup.procs").write_text(str(os.getpid()))

    def remove(self) -> None:
        """Stop whatever the server left running in its cgroup and remove the cgroup."""
        for controller in ("memory", "cpu"):
            folder = self.folder(controller)
            deadline = time.monotonic() + EMPTYING_S
            while folder.exists():
                for pid in (folder / "cgroup.procs").read_text().split():
                    try:
                        os.kill(int(pid), signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                try:
                    folder.rmdir()
                except OSError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.05)


def hold_data(limit: int) -> None:
    """Hold this process's data (and what it starts) to `limit` bytes, or less where it was
    held lower already."""
    _, hard = resource.getrlimit(resource.RLIMIT_DATA)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_DATA, (limit, hard))


def _own(controller: str) -> str:
    """This process's cgroup in `controller`, relative to its mount."""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, names, path = line.split(":", 2)
        if controller in names.split(","):
            return path.lstrip("/")
    return ""
