"""The sandbox every part of a submission runs in: its notebook's kernel and its scoring.

Three modes, the strongest the machine allows (`Sandbox.detect`):
- "root": grading runs as root and `unshare` works. Each run gets new mount, network, pid,
  IPC and UTS namespaces, an unprivileged user id of its own, a scratch folder of its own (a
  tmpfs of SCRATCH_SIZE), empty /tmp, /var/tmp, /dev/shm and /run/lock of its own, nothing it
  may write to that may hold code that runs (noexec), the course folder, the exchange, the
  gradebook, the instructor's package and any source checkout agentlab_magics is imported
  from hidden under empty mounts, resource limits, and no network but a loopback that is
  down. When the run ends its pid namespace ends, and with it every process the submission
  started.
- "userns": not root, but user namespaces are allowed: the same namespaces and hiding, under
  the grader's own user id (files outside the hidden paths that the grader may write, the
  submission may write too).
- "none": neither. Only the resource limits and the scratch folder hold; the submission runs
  as the grader and can reach what the grader can. `agentlab course sandbox` says which mode
  a machine gets (`describe`); docs/security.md says what each defends.
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

from agentlab_magics.grading.jail import SYSTEM_PATH, system_tool, trusted_python

Mode = Literal["root", "userns", "none"]
KEPT_ENV = ("PATH", "LANG", "LC_ALL", "PYTHONPATH", "NBGRADER_EXECUTION")  # a run's environment
NAMESPACES = ["--mount", "--net", "--pid", "--ipc", "--uts", "--fork", "--kill-child",
              "--mount-proc"]
FIRST_UID = 200_000  # the grading users' ids: FIRST_UID .. FIRST_UID + UIDS - 1, no login
UIDS = 60_000
SCRATCH_SIZE = "1g"  # a root-mode scratch folder's tmpfs: the submission and all it writes


@cache
def _works(*prefix: str) -> bool:
    try:
        return subprocess.run([*prefix, "true"], capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def detect() -> Mode:
    """The strongest mode this machine allows (AGENTLAB_SANDBOX=none forces the weakest)."""
    unshare = shutil.which("unshare", path=SYSTEM_PATH)
    if os.environ.get("AGENTLAB_SANDBOX") == "none" or unshare is None:
        return "none"
    if os.geteuid() == 0 and _works(unshare, *NAMESPACES):
        return "root"
    if _works(unshare, "--user", "--map-root-user", *NAMESPACES):
        return "userns"
    return "none"


MODES: dict[Mode, str] = {
    "root": ("grading runs as root: every submission runs as a user of its own, in namespaces "
             "of its own (no network, its own processes, its own temporary folders), with the "
             "course, the gradebook, the exchange, the instructor package and any source "
             "checkout out of sight, in a scratch folder of its own, under resource limits; "
             "every process it starts ends with it."),
    "userns": ("user namespaces: the same namespaces, hidden paths and limits as root's, but "
               "under the grader's own user id, so whatever the grader may write outside the "
               "hidden paths a submission may write too. Grade as root (or from a dedicated "
               "account with nothing else in it) for the strongest sandbox."),
    "none": ("no sandbox: neither root's namespaces nor user namespaces are in use (the machine "
             "allows neither, or AGENTLAB_SANDBOX=none asks for none). A submission runs as "
             "the grader, under resource limits in a scratch folder, and can read and write "
             "whatever the grader can (the grader's own process included); a process it "
             "detaches outlives grading. Grade only from a dedicated account with nothing "
             "else in it, and never trust this mode's scores."),
}


def describe(mode: Mode) -> str:
    """One paragraph for the instructor: the mode and what it holds."""
    return f"Sandbox mode {mode!r}: {MODES[mode]}"


@dataclass
class Sandbox:
    """One confined run: a scratch folder of its own, a user id of its own, paths it cannot see."""

    hidden: list[str] = field(default_factory=list)  # besides the grader's own secrets
    mode: Mode = field(default_factory=detect)
    uid: int | None = None
    scratch: Path | None = None

    def __post_init__(self) -> None:
        if self.mode == "root" and self.uid is None:
            self.uid = FIRST_UID + secrets.randbelow(UIDS)
        paths = [*self.hidden, *instructor_paths(), *checkout_paths()]
        self.hidden = sorted({str(Path(p).resolve()) for p in paths if p})

    def make_scratch(self) -> Path:
        """A new, empty folder only this run's user may enter; as root, a tmpfs of
        SCRATCH_SIZE, so what a run writes there cannot fill the grader's disk."""
        self.scratch = Path(tempfile.mkdtemp(prefix="agentlab-grade-"))
        if self.mode == "root":
            subprocess.run([system_tool("mount"), "-t", "tmpfs", "-o",
                            f"size={SCRATCH_SIZE},nosuid,nodev", "agentlab-scratch",
                            str(self.scratch)], check=True)
        os.chmod(self.scratch, 0o700)
        if self.uid is not None:
            os.chown(self.scratch, self.uid, self.uid)
        return self.scratch

    def give(self, path: Path) -> None:
        """Hand a file or folder made in the scratch folder over to this run's user."""
        if self.uid is not None:
            own_tree(path, self.uid, self.uid)

    def command(self, argv: list[str]) -> list[str]:
        """`argv` as it runs in this sandbox."""
        scratch = str(self.scratch or self.make_scratch())
        jail = [*trusted_python("agentlab_magics.grading.jail"), "--scratch", scratch,
                *(arg for path in self.hidden for arg in ("--hide", path)),
                *(arg for path in interpreter_paths() for arg in ("--expose", path))]
        # The run ends with the grader process that started it, even one killed outright (a
        # Dask worker that dies mid-task): setpriv's parent-death signal takes unshare, and
        # unshare's --kill-child takes the run's pid namespace.
        unshare = [*dies_with_parent(), system_tool("unshare")]
        if self.mode == "root":
            return [*unshare, *NAMESPACES, *jail, "--uid", str(self.uid), "--", *argv]
        if self.mode == "userns":
            return [*unshare, "--user", "--map-root-user", *NAMESPACES, *jail, "--", *argv]
        return [*trusted_python("agentlab_magics.grading.limits"), scratch, "--", *argv]

    def clean(self) -> None:
        """Remove the scratch folder (its processes are gone with the run's namespace)."""
        if self.scratch is not None:
            if self.mode == "root":
                subprocess.run([system_tool("umount"), "--lazy", str(self.scratch)],
                               capture_output=True)
            shutil.rmtree(self.scratch, ignore_errors=True)
            self.scratch = None


def own_tree(path: Path, uid: int, gid: int) -> None:
    """Make `path` and everything under it belong to `uid`:`gid`; a link is changed itself,
    never what it points to."""
    for root, folders, files in os.walk(path):
        for name in [root, *(os.path.join(root, n) for n in folders + files)]:
            os.chown(name, uid, gid, follow_symlinks=False)


def dies_with_parent() -> list[str]:
    """The prefix that has a command killed when the thread that started it ends, where the
    system has util-linux's setpriv (beside its unshare)."""
    setpriv = shutil.which("setpriv", path=SYSTEM_PATH)
    return [setpriv, "--pdeathsig", "KILL"] if setpriv else []


def interpreter_paths() -> list[str]:
    """The folders the submission's Python must read: its prefixes, its packages, and the
    agentlab_magics package itself."""
    import agentlab_magics

    return sorted({sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable)),
                   *_site_folders(), str(Path(agentlab_magics.__file__).resolve().parent)})


def _site_folders() -> list[str]:
    import site
    import sysconfig

    return [*site.getsitepackages(), sysconfig.get_paths()["purelib"],
            sysconfig.get_paths()["platlib"]]


def instructor_paths() -> list[str]:
    """Where the instructor's package lives, if it is installed: hidden from every run."""
    from agentlab_magics.course.instructor import instructor_package

    package = instructor_package()
    return [str(Path(package.__file__).parent)] if package is not None and package.__file__ \
        else []


def checkout_paths() -> list[str]:
    """Where agentlab_magics is imported from a source checkout (an editable install),
    everything beside the package there: the checkout's course with its solutions, its git
    history, the instructor package and the tests. Folders the interpreter lives in (a
    virtual environment inside the checkout) stay. Hidden from every run."""
    import agentlab_magics

    package = Path(agentlab_magics.__file__).resolve().parent
    checkout = package.parent
    if str(checkout) in {str(Path(p).resolve()) for p in _site_folders()}:
        return []
    needed = [Path(p).resolve() for p in interpreter_paths()]
    return [str(entry) for entry in sorted(checkout.iterdir())
            if entry != package and not any(entry == p or entry in p.parents for p in needed)]
