"""What a grading leaves on the machine, named for the process that made it, and swept once
that process is gone.

A grading that is killed (out of memory, or the command stopped) runs no cleanup: its sandbox's
scratch tmpfs stays mounted in the temporary folder, its scratch course and job folders stay,
its memory cgroup stays. Each is therefore named `agentlab-KIND-OWNER-...`, OWNER being the
process that made it (its pid and start time, so a reused pid is no owner), and `sweep` removes
those whose owner is no longer running: graders at work beside it keep theirs.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from agentlab_magics.grading.limits import system_tool

NAMED = re.compile(r"agentlab-(?:grade|course|job|cap)-(\d+)\.(\d+)-")


def _started(pid: int) -> str | None:
    """When process `pid` started (clock ticks since boot), or None if there is none."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    return stat.rsplit(")", 1)[-1].split()[19]


def owner() -> str:
    """This process, as leftovers name their owner."""
    return f"{os.getpid()}.{_started(os.getpid())}"


def prefix(kind: str) -> str:
    """The start of the name of a `kind` of leftover this process makes."""
    return f"agentlab-{kind}-{owner()}-"


def orphaned(name: str) -> bool:
    """Whether `name` is a leftover whose owner is no longer running."""
    found = NAMED.match(name)
    return found is not None and _started(int(found[1])) != found[2]


def make_folder(kind: str) -> Path:
    """A new private folder in the temporary folder, named as this process's leftover."""
    return Path(tempfile.mkdtemp(prefix=prefix(kind)))


@contextmanager
def folder(kind: str) -> Iterator[Path]:
    """A private folder for the block, removed after it (or swept, if this process dies)."""
    made = make_folder(kind)
    try:
        yield made
    finally:
        shutil.rmtree(made, ignore_errors=True)


def sweep_folders(where: str | None = None) -> list[str]:
    """Remove the orphaned leftovers in the temporary folder (unmounting a sandbox's scratch
    tmpfs first); the names removed."""
    top = Path(where or tempfile.gettempdir())
    swept = []
    for path in sorted(top.glob("agentlab-*")):
        if not orphaned(path.name):
            continue
        if os.path.ismount(path):
            subprocess.run([system_tool("umount"), "--lazy", str(path)], capture_output=True)
        shutil.rmtree(path, ignore_errors=True)
        swept.append(path.name)
    return swept
