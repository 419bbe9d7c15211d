"""The sandbox every part of a submission runs in: its notebook's kernel and its student
processes. It is bubblewrap (`bwrap`, the sandbox Flatpak runs desktop programs in), given an
allow-list: a run's root is built up from nothing, so whatever the grader forgot to list is
not there.

Inside, a run sees, read-only, nosuid and nodev: /usr (the system's libraries and tools, every
setuid or setgid file in it covered by an empty one), the interpreter's folders, its packages
and agentlab_magics, a few files of /etc (and a passwd of its own); its own /proc, a minimal
/dev; its scratch folder (the submission and all the run writes) and its own /tmp and
/dev/shm, which are the only places it may write. It has its own mount, pid, network (no
interface up), IPC, UTS and cgroup namespaces, NO_NEW_PRIVS, no capabilities, a seccomp filter
(`syscalls.py`), the resource limits of `limits.py`, and it dies with the grader.

Three modes, the strongest the machine allows (`detect`):
- "root": grading runs as root. The scratch folder is a tmpfs of the grader's making, bounded
  in bytes and in files, where nothing may run or be mapped as code (noexec); the run is a
  user of its own (`setpriv` inside the sandbox drops to it; the process count is that
  user's), so no file outside the scratch folder is its own.
- "userns": not root, but bubblewrap may make a user namespace. The same allow-list,
  namespaces and filter under the grader's own user id; the scratch folder is an ordinary
  folder (each file bounded by the limits, not their number), /tmp and /dev/shm tmpfs of a
  fixed size, and code may run from them.
- "none": no bubblewrap, or neither works (AGENTLAB_SANDBOX=none forces it). Only the limits
  and the scratch folder hold; the submission runs as the grader and can reach what the grader
  can. Grading for credit in it takes an explicit flag (docs/instructors.md).
`agentlab course sandbox` says which mode a machine gets (`describe`).
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Literal

from agentlab_magics.checking.runner import copy_runs_text
from agentlab_magics.course.catalog import labs
from agentlab_magics.course.instructor import instructor_package
from agentlab_magics.course.packs import pack_folders, ship_labs
from agentlab_magics.grading.leftovers import make_folder
from agentlab_magics.grading.limits import (
    SYSTEM_PATH,
    home_of,
    prlimit_options,
    system_tool,
    trusted_python,
)
from agentlab_magics.grading.syscalls import compiled

Mode = Literal["root", "userns", "none"]
KEPT_ENV = ("PATH", "LANG", "LC_ALL", "PYTHONPATH", "NBGRADER_EXECUTION")  # a run's environment
FIRST_UID = 200_000  # the grading users' ids: FIRST_UID .. FIRST_UID + UIDS - 1, no login
UIDS = 60_000
SCRATCH_BYTES = "1g"      # the scratch tmpfs (root mode): the submission, /tmp and /dev/shm
SCRATCH_FILES = 20_000    # files and folders it may hold
USERNS_TMP = "256m"       # each of /tmp and /dev/shm in userns mode
INERT = "nosuid,nodev,noexec"
SYSTEM = ("/usr",)        # read-only, less its setuid and setgid files
ETC = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime",
       "/etc/nsswitch.conf", "/etc/host.conf", "/etc/hosts", "/etc/mime.types")
NAMESPACES = ("--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
              "--unshare-cgroup-try")


class SandboxMissing(Exception):
    """Grading was asked for where no sandbox can be made, and not explicitly allowed."""


@cache
def _works(*command: str) -> bool:
    try:
        return subprocess.run(command, capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def detect() -> Mode:
    """The strongest mode this machine allows (AGENTLAB_SANDBOX=none forces the weakest)."""
    bwrap = shutil.which("bwrap", path=SYSTEM_PATH)
    if os.environ.get("AGENTLAB_SANDBOX") == "none" or bwrap is None or not _filter_builds():
        return "none"
    trial = ["--ro-bind", "/usr", "/usr", *_top_links(), "--", "/usr/bin/true"]
    if os.geteuid() == 0 and _works(bwrap, *NAMESPACES, *trial):
        return "root"
    if _works(bwrap, "--unshare-all", *trial):
        return "userns"
    return "none"


@cache
def _filter_builds() -> bool:
    """Whether the seccomp filter can be built here (pyseccomp and libseccomp installed)."""
    try:
        compiled()
    except (ImportError, OSError, RuntimeError):
        return False
    return True


MODES: dict[Mode, str] = {
    "root": ("grading runs as root, in bubblewrap: every submission runs as a user of its "
             "own, sees only an allow-list of the machine (the system's libraries and tools "
             "less every setuid file, the interpreter and its packages), has its own "
             "namespaces (no network, its own processes, IPC and temporary folders), no "
             "capabilities and a seccomp filter, writes only to a scratch folder bounded in "
             "bytes and files where nothing may run, under resource limits; every process it "
             "starts ends with it."),
    "userns": ("bubblewrap in a user namespace: the same allow-list, namespaces, filter and "
               "limits as root's, but under the grader's own user id; the scratch folder is "
               "bounded per file only, and code written there may run. Grade as root for the "
               "strongest sandbox."),
    "none": ("no sandbox: bubblewrap is missing or cannot run here (on Kubernetes, the pod "
             "lacks what docs/instructors.md lists), or AGENTLAB_SANDBOX=none asks for none. "
             "A submission runs as the grader, under resource limits in a scratch folder, and "
             "can read and write whatever the grader can (the grader's own process included); "
             "a process it detaches outlives grading. Never trust this mode's scores."),
}


def describe(mode: Mode) -> str:
    """One paragraph for the instructor: the mode and what it holds."""
    return f"Sandbox mode {mode!r}: {MODES[mode]}"


CAP_SYS_ADMIN = 21


def what_it_gives() -> list[str]:
    """What this machine (or pod) gives the sandbox and what it lacks, a line each: bubblewrap,
    root and its capabilities, user namespaces, a seccomp filter or AppArmor profile already
    on the grader (a container runtime's, which may refuse what bubblewrap needs)."""
    status = dict(line.split(":\t", 1) for line in
                  Path("/proc/self/status").read_text().splitlines() if ":\t" in line)
    bwrap = shutil.which("bwrap", path=SYSTEM_PATH)
    admin = bool(int(status.get("CapEff", "0"), 16) >> CAP_SYS_ADMIN & 1)
    userns = _read("/proc/sys/user/max_user_namespaces") or "unknown"
    apparmor = _read("/proc/self/attr/current") or "none"
    return [
        f"bubblewrap: {bwrap}" if bwrap else "bubblewrap: missing (install Debian's or "
        "Ubuntu's bubblewrap package)",
        f"user: {'root' if os.geteuid() == 0 else f'uid {os.geteuid()}, not root'}; "
        f"CAP_SYS_ADMIN {'held' if admin else 'not held'}"
        + ("" if admin or os.geteuid() != 0 else " (a container without it: root mode needs "
           "it, or user namespaces for userns mode)"),
        f"user namespaces: at most {userns}" + (" (none allowed: userns mode cannot run)"
                                               if userns == "0" else ""),
        "seccomp on the grader: " + {"0": "none", "1": "strict", "2": "a filter (the "
                                     "container runtime's: it must allow unshare, mount and "
                                     "seccomp for bubblewrap)"}.get(
            status.get("Seccomp", "").strip(), "unknown"),
        f"AppArmor: {apparmor}",
        "seccomp filter for the runs: " + ("built" if _filter_builds() else "cannot be built "
                                            "(install libseccomp2, and pyseccomp with "
                                            "agentlab_magics[course])"),
    ]


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8").strip("\0\n ")
    except OSError:
        return ""


@cache
def setuid_files() -> list[str]:
    """Every setuid or setgid file in the system folders a run sees: each is covered by an
    empty file inside (the mounts are nosuid as well). Found once per process, by find (a
    quarter of a second): the grader hands its list to the judge processes it starts."""
    found = subprocess.run([system_tool("find"), *SYSTEM, "-type", "f", "-perm", "/6000"],
                           capture_output=True, text=True, check=False).stdout
    return sorted(found.splitlines())


@dataclass
class Sandbox:
    """One confined run: a scratch folder of its own, a user id of its own (as root), and an
    allow-list of what it sees, less `hidden` (paths inside the allow-list it must not see)."""

    hidden: list[str] = field(default_factory=list)
    mode: Mode = field(default_factory=detect)
    covered: list[str] = field(default_factory=setuid_files)  # the machine's
    uid: int | None = None
    labs: bool = False  # the run reads a student's copy of the course packs' labs
    scratch: Path | None = None   # the run's folder, at the same path inside and out
    root: Path | None = None      # what holds it (and /tmp, /dev/shm and the passwd)
    labs_folder: Path | None = None  # that copy, read-only inside, where the packs have labs

    def __post_init__(self) -> None:
        if self.mode == "root" and self.uid is None:
            self.uid = FIRST_UID + secrets.randbelow(UIDS)
        paths = [*self.hidden, *instructor_paths(), *map(str, pack_folders())]
        self.hidden = sorted({str(Path(p).resolve()) for p in paths if p})

    def make_scratch(self) -> Path:
        """A new, empty scratch folder only this run's user may enter; as root, on a tmpfs
        bounded in bytes and files, where nothing may run, that also holds the run's /tmp and
        /dev/shm: what a run writes cannot fill the grader's disk."""
        self.root = make_folder("grade")  # swept, should this process die before `clean`
        if self.mode == "root":
            subprocess.run([system_tool("mount"), "-t", "tmpfs", "-o",
                            f"size={SCRATCH_BYTES},nr_inodes={SCRATCH_FILES},{INERT},mode=711",
                            "agentlab-scratch", str(self.root)], check=True)
        # the folder is the run's user's alone on the host; inside, its work folder must be
        # passable to bubblewrap's own process (root without capabilities) to start there
        for name, mode in (("work", 0o711), ("tmp", 0o1777), ("shm", 0o1777)):
            (self.root / name).mkdir()
            os.chmod(self.root / name, mode)
            self.give(self.root / name)
        os.chmod(self.root, 0o700)
        if self.uid is not None:
            os.chown(self.root, self.uid, self.uid)
        (self.root / "passwd").write_text(_passwd(self.uid, self.root / "work"), encoding="utf-8")
        (self.root / "group").write_text(_group(self.uid), encoding="utf-8")
        if self.labs and ship_labs(list(labs().values()), self.root / "labs",
                                   copy_runs_text):
            self.labs_folder = self.root / "labs"
        self.scratch = self.root / "work"
        return self.scratch

    def give(self, path: Path) -> None:
        """Hand a file or folder made in the scratch folder over to this run's user."""
        if self.uid is not None:
            own_tree(path, self.uid, self.uid)

    def command(self, argv: list[str]) -> list[str]:
        """`argv` as it runs in this sandbox."""
        scratch = self.scratch or self.make_scratch()
        assert self.root is not None
        if self.mode == "none":
            return [*trusted_python("agentlab_magics.grading.limits"), str(scratch), "--",
                    *argv]
        if self.mode == "root":
            confined = [*NAMESPACES, "--cap-drop", "ALL", "--cap-add", "CAP_SETUID",
                        "--cap-add", "CAP_SETGID"]
            user = [system_tool("setpriv"), f"--reuid={self.uid}", f"--regid={self.uid}",
                    "--clear-groups", "--"]
        else:
            confined, user = ["--unshare-all", "--cap-drop", "ALL"], []
        # the run's pid 1 is bubblewrap's own, as root without capabilities: killed with
        # bubblewrap (it may signal its own user), it takes every process of the run along
        options = [*confined, "--die-with-parent", "--new-session", "--hostname", "agentlab",
                   "--seccomp", "3", *self._view(), "--chdir", str(scratch),
                   *(arg for name, value in home_of(str(scratch)).items()
                     for arg in ("--setenv", name, value))]
        # bubblewrap reads its options from descriptor 4 and the filter from 3, both opened by
        # the shell, so the run's pid 1 shows the command and no other path of the machine;
        # the limits are set before it starts and hold for every process of the run
        listed, rules = self.root / "bwrap-options", self.root / "seccomp.bpf"
        listed.write_bytes(b"".join(os.fsencode(option) + b"\0" for option in options))
        rules.write_bytes(compiled())
        return [system_tool("prlimit"), *prlimit_options(), "--", "/bin/sh", "-c",
                'exec 3<"$0" 4<"$1"; shift; exec "$@"', str(rules), str(listed),
                system_tool("bwrap"), "--args", "4", "--", *user, *argv]

    def _view(self) -> list[str]:
        """bubblewrap's options for what the run sees: each folder above a bound path made
        passable, each path bound where it was."""
        assert self.root is not None and self.scratch is not None
        run = self.root
        mounts: list[tuple[str, list[str]]] = [
            *((path, ["--ro-bind", path, path]) for path in [*SYSTEM, *readable()]),
            *((path, ["--ro-bind", path, path]) for path in ETC if os.path.exists(path)),
            ("/etc/passwd", ["--ro-bind", str(run / "passwd"), "/etc/passwd"]),
            ("/etc/group", ["--ro-bind", str(run / "group"), "/etc/group"]),
            ("/proc", ["--proc", "/proc"]),
            ("/dev", ["--dev", "/dev"]),
            *self._writable(),
            *([(str(self.labs_folder), ["--ro-bind", str(self.labs_folder),
                                         str(self.labs_folder)])] if self.labs_folder else []),
        ]
        options = list(_top_links())
        made = {"/", *_top_link_names()}
        for target, mount in sorted(mounts, key=lambda pair: pair[0]):
            for folder in _ancestors(target):
                if folder not in made:
                    options += ["--perms", "0755", "--dir", folder]
                    made.add(folder)
            options += mount
            made.add(target)
        options += [arg for path in self.covered for arg in ("--ro-bind", "/dev/null", path)]
        options += [arg for path in self.hidden if _within_any(path, readable())
                    for arg in (("--tmpfs", path) if os.path.isdir(path)
                                else ("--ro-bind", "/dev/null", path))]
        return [*options, "--remount-ro", "/"]

    def _writable(self) -> list[tuple[str, list[str]]]:
        assert self.root is not None and self.scratch is not None
        if self.mode == "root":  # all three on the grader's bounded, noexec tmpfs
            tmp = ["--bind", str(self.root / "tmp"), "/tmp"]
            shm = ["--bind", str(self.root / "shm"), "/dev/shm"]
        else:
            tmp = ["--size", str(_bytes(USERNS_TMP)), "--tmpfs", "/tmp"]
            shm = ["--size", str(_bytes(USERNS_TMP)), "--tmpfs", "/dev/shm"]
        return [("/tmp", tmp), ("/dev/shm", shm),
                (str(self.scratch), ["--bind", str(self.scratch), str(self.scratch)])]

    def clean(self) -> None:
        """Remove the scratch folder (its processes are gone with the run's namespace)."""
        if self.root is not None:
            if self.mode == "root":
                subprocess.run([system_tool("umount"), "--lazy", str(self.root)],
                               capture_output=True)
            shutil.rmtree(self.root, ignore_errors=True)
            self.root = self.scratch = None


def _passwd(uid: int | None, home: Path) -> str:
    me = os.getuid() if uid is None else uid
    return f"root:x:0:0:root:/root:/usr/sbin/nologin\nstudent:x:{me}:{me}::{home}:" \
           "/usr/sbin/nologin\n"


def _group(uid: int | None) -> str:
    me = os.getgid() if uid is None else uid
    return f"root:x:0:\nstudent:x:{me}:\n"


def _bytes(size: str) -> int:
    units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
    return int(size[:-1]) * units[size[-1]] if size[-1] in units else int(size)


def _ancestors(path: str) -> list[str]:
    parts = Path(path).parts[1:-1]
    return [os.sep + os.path.join(*parts[:depth]) for depth in range(1, len(parts) + 1)]


def _within_any(path: str, folders: list[str]) -> bool:
    return any(path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)
               for folder in folders)


def _top_link_names() -> list[str]:
    return [name for name in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
            if os.path.islink(name)]


def _top_links() -> list[str]:
    """The root's links into /usr (/bin -> usr/bin on a merged /usr), made again inside."""
    return [arg for name in _top_link_names() for arg in ("--symlink", os.readlink(name), name)]


def own_tree(path: Path, uid: int, gid: int) -> None:
    """Make `path` and everything under it belong to `uid`:`gid`; a link is changed itself,
    never what it points to."""
    for root, folders, files in os.walk(path):
        for name in [root, *(os.path.join(root, n) for n in folders + files)]:
            os.chown(name, uid, gid, follow_symlinks=False)


def dies_with_parent() -> list[str]:
    """The prefix that has a command killed when the thread that started it ends, where the
    system has util-linux's setpriv."""
    setpriv = shutil.which("setpriv", path=SYSTEM_PATH)
    return [setpriv, "--pdeathsig", "KILL"] if setpriv else []


@cache
def readable() -> list[str]:
    """The folders of the interpreter a run may read, besides the system's: its prefixes,
    its packages, the agentlab_magics package and agentlab_labs beside it (outside /usr; only
    the outermost)."""
    import site
    import sysconfig

    import agentlab_labs

    paths = {sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable)),
             *site.getsitepackages(), sysconfig.get_paths()["purelib"],
             sysconfig.get_paths()["platlib"], str(Path(__file__).resolve().parents[1]),
             str(Path(agentlab_labs.__file__).resolve().parent)}
    resolved = sorted({str(Path(path).resolve()) for path in paths if os.path.isdir(path)})
    outer: list[str] = []
    for path in resolved:
        if not _within_any(path, [*SYSTEM, *outer]):
            outer.append(path)
    return outer


def instructor_paths() -> list[str]:
    """Where the instructor's package lives, if it is installed: never seen by a run."""
    package = instructor_package()
    return [str(Path(package.__file__).parent)] if package is not None and package.__file__ \
        else []
