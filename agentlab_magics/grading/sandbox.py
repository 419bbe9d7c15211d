"""The sandbox every part of a submission runs in: its notebook's kernel and its scoring.

Three modes, the strongest the machine allows (`Sandbox.detect`):
- "root": grading runs as root and `unshare` works. Each run gets new mount, network and pid
  namespaces, an unprivileged user id of its own, the course folder, the exchange, the
  gradebook and the instructor's package hidden under empty tmpfs mounts, resource limits,
  and no network but a loopback that is down. When the run ends its pid namespace ends, and
  with it every process the submission started.
- "userns": not root, but user namespaces are allowed: the same namespaces and hiding, under
  the grader's own user id (files outside the hidden paths that the grader may write, the
  submission may write too).
- "none": neither. Only the resource limits and the scratch folder hold; the submission runs
  as the grader and can reach what the grader can. `agentlab course sandbox` says which mode
  a machine gets; docs/security.md says what each defends.
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Literal

Mode = Literal["root", "userns", "none"]
NAMESPACES = ["--mount", "--net", "--pid", "--fork", "--kill-child", "--mount-proc"]
FIRST_UID = 200_000  # the grading users' ids: FIRST_UID .. FIRST_UID + UIDS - 1, no login
UIDS = 60_000


@cache
def _works(*prefix: str) -> bool:
    try:
        return subprocess.run([*prefix, "true"], capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def detect() -> Mode:
    """The strongest mode this machine allows (AGENTLAB_SANDBOX=none forces the weakest)."""
    if os.environ.get("AGENTLAB_SANDBOX") == "none" or not shutil.which("unshare"):
        return "none"
    if os.geteuid() == 0 and _works("unshare", *NAMESPACES):
        return "root"
    if _works("unshare", "--user", "--map-root-user", *NAMESPACES):
        return "userns"
    return "none"


@dataclass
class Sandbox:
    """One confined run: a scratch folder of its own, a user id of its own, paths it cannot see."""

    hidden: list[str] = field(default_factory=list)
    mode: Mode = field(default_factory=detect)
    uid: int | None = None
    scratch: Path | None = None

    def __post_init__(self) -> None:
        if self.mode == "root" and self.uid is None:
            self.uid = FIRST_UID + secrets.randbelow(UIDS)
        self.hidden = [str(Path(p).resolve()) for p in self.hidden if p]

    def make_scratch(self) -> Path:
        """A new, empty folder only this run's user may enter."""
        self.scratch = Path(tempfile.mkdtemp(prefix="agentlab-grade-"))
        os.chmod(self.scratch, 0o700)
        if self.uid is not None:
            os.chown(self.scratch, self.uid, self.uid)
        return self.scratch

    def give(self, path: Path) -> None:
        """Hand a file or folder made in the scratch folder over to this run's user."""
        if self.uid is None:
            return
        for root, folders, files in os.walk(path):
            for name in [root, *(os.path.join(root, n) for n in folders + files)]:
                os.chown(name, self.uid, self.uid)

    def command(self, argv: list[str]) -> list[str]:
        """`argv` as it runs in this sandbox."""
        scratch = str(self.scratch or self.make_scratch())
        jail = [sys.executable, "-m", "agentlab_magics.grading.jail", "--scratch", scratch,
                *(arg for path in self.hidden for arg in ("--hide", path))]
        if self.mode == "root":
            exposed = [arg for path in interpreter_paths() for arg in ("--expose", path)]
            return ["unshare", *NAMESPACES, *jail, *exposed, "--uid", str(self.uid), "--",
                    *argv]
        if self.mode == "userns":
            return ["unshare", "--user", "--map-root-user", *NAMESPACES, *jail, "--", *argv]
        return [sys.executable, "-m", "agentlab_magics.grading.limits", scratch, "--", *argv]

    def clean(self) -> None:
        """Remove the scratch folder (its processes are gone with the run's namespace)."""
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)
            self.scratch = None


def interpreter_paths() -> list[str]:
    """The folders the submission's Python must read: its prefixes and its packages."""
    import site

    import agentlab_magics

    return sorted({sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable)),
                   *site.getsitepackages(),
                   str(Path(agentlab_magics.__file__).resolve().parent.parent)})


def instructor_paths() -> list[str]:
    """Where the instructor's package lives, if it is installed: hidden from every run."""
    try:
        import agentlab_instructor
    except ImportError:
        return []
    return [str(Path(agentlab_instructor.__file__).parent)]
