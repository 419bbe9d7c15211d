"""Confine this process, then become the command it is given: `python -m
agentlab_magics.grading.jail [--uid N] [--scratch DIR] [--hide PATH]... [--expose PATH]...
-- COMMAND...`.

It runs first thing inside the namespaces `sandbox.command` made (a mount, network, pid, IPC
and UTS namespace of its own, with root's powers there). In that mount namespace only, it gives the
run empty temporary folders of its own, keeps the scratch folder at its place, makes every
folder the run may write to refuse to execute or map code, hides each `--hide` path under an
empty unreadable tmpfs, and binds each `--expose` path (the interpreter's folders) back where
a temporary folder or a closed folder above it (such as /root) had to be covered. Then it
sets the resource limits, drops to the unprivileged `--uid` (when given), moves into the
scratch folder and replaces itself with the command, so nothing of the grader is left in the
process the submission runs in.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys

# (limit, soft and hard value): generous for honest notebooks, fatal to runaways.
LIMITS = {
    "RLIMIT_CPU": 900,               # seconds of CPU for the whole notebook
    "RLIMIT_AS": 6 << 30,            # bytes of address space per process
    "RLIMIT_NPROC": 256,             # processes and threads of the grading user
    "RLIMIT_FSIZE": 64 << 20,        # bytes in any one file written
    "RLIMIT_NOFILE": 512,            # open files
}
# The temporary folders every process of a machine shares, each replaced by a tmpfs of this
# size that lives and dies with the run: nothing planted there reaches another run.
TEMPORARY = {"/tmp": "512m", "/var/tmp": "64m", "/dev/shm": "64m", "/run/lock": "1m"}
INERT = "nosuid,nodev,noexec"
PR_SET_PDEATHSIG = 1
# Where the system's own tools are looked for: never the working folder (a run's scratch
# folder, which holds the submission) nor anything else the caller's PATH may name.
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def system_tool(name: str) -> str:
    """The absolute path of the system's `name` (mount, unshare); `name` if it has none."""
    return shutil.which(name, path=SYSTEM_PATH) or name


def trusted_python(module: str) -> list[str]:
    """The command that runs one of the grader's own modules: `-P` puts neither the working
    folder nor a script's folder on sys.path, so nothing a submission left there is imported."""
    return [sys.executable, "-P", "-m", module]


def _mount(*args: str, fds: tuple[int, ...] = ()) -> None:
    subprocess.run([system_tool("mount"), *args], check=True, pass_fds=fds)


def _bind_back(fd: int, path: str, options: str = "") -> None:
    """Bind the folder open as `fd` at `path` (made if missing): the folder is reached through
    the descriptor, so it need not be visible any more where it was."""
    os.makedirs(path, exist_ok=True)
    _mount("--no-canonicalize", "--bind", f"/proc/self/fd/{fd}", path, fds=(fd,))
    if options:
        _mount("-o", f"remount,bind,{options}", path)
    os.close(fd)


def private_temporary(scratch: str, kept: list[str]) -> None:
    """Empty temporary folders of this run's own, with the scratch folder at its usual place
    and each of `kept` (the interpreter's folders) that lived in one of them bound back,
    read-only; nothing the run may write to may hold code that runs (a file written there
    cannot be executed or loaded as a library)."""
    covered = [folder for folder in TEMPORARY if os.path.isdir(folder)]
    inside = [path for path in outermost(kept)
              if os.path.isdir(path) and any(_within(path, folder) for folder in covered)]
    held = {path: os.open(path, os.O_RDONLY | os.O_DIRECTORY) for path in [scratch, *inside]}
    for folder in covered:
        _mount("-t", "tmpfs", "-o", f"mode=1777,size={TEMPORARY[folder]},{INERT}",
               "agentlab-tmp", folder)
    for path, fd in held.items():
        _bind_back(fd, path, INERT if path == scratch else "ro,nosuid,nodev")


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def outermost(paths: list[str]) -> list[str]:
    """`paths` less those inside another of them, sorted."""
    kept: list[str] = []
    for path in sorted(set(paths)):
        if not any(_within(path, other) for other in kept):
            kept.append(path)
    return kept


def hide(path: str) -> None:
    """Cover `path` (in this mount namespace only): a folder with an empty tmpfs that nobody
    may read, a file with the empty /dev/null."""
    if os.path.isdir(path):
        _mount("-t", "tmpfs", "-o", "size=4k,mode=000,nosuid,nodev,noexec", "agentlab-hidden",
               path)
    elif os.path.exists(path):
        _mount("--bind", os.devnull, path)


def closed_ancestor(path: str) -> str | None:
    """The highest folder above `path` that other users may not pass through, if any."""
    parts = os.path.abspath(path).split(os.sep)[1:]
    for depth in range(1, len(parts)):
        folder = os.sep + os.path.join(*parts[:depth])
        if not os.stat(folder).st_mode & 0o001:
            return folder
    return None


def expose(paths: list[str]) -> None:
    """Let the unprivileged user reach `paths` (the interpreter, its packages) where a folder
    above them is closed to others, such as /root: that folder is covered with an empty tmpfs
    that others may pass through, and only `paths` are bound back inside it, so the rest of it
    stays out of sight."""
    wanted = {}
    for path in outermost(paths):
        closed = closed_ancestor(path)
        if closed is not None and os.path.isdir(path):
            wanted[path] = (closed, os.open(path, os.O_RDONLY | os.O_DIRECTORY))
    for closed in sorted({closed for closed, _ in wanted.values()}):
        _mount("-t", "tmpfs", "-o", "mode=711,size=4k,nosuid,nodev", "agentlab-expose", closed)
    for path, (closed, fd) in wanted.items():
        for folder in _between(closed, path):
            os.makedirs(folder, exist_ok=True)
            os.chmod(folder, 0o711)
        _bind_back(fd, path)


def _between(top: str, path: str) -> list[str]:
    """The folders from just below `top` down to the parent of `path`."""
    rest = os.path.relpath(os.path.dirname(path), top)
    parts = [] if rest == "." else rest.split(os.sep)
    return [os.path.join(top, *parts[:n]) for n in range(1, len(parts) + 1)]


def limit() -> None:
    for name, value in LIMITS.items():
        resource.setrlimit(getattr(resource, name), (value, value))


def settle_in(scratch: str) -> None:
    """Make the scratch folder this process's working folder, home and temporary folder."""
    os.chdir(scratch)
    os.environ.update(HOME=scratch, IPYTHONDIR=os.path.join(scratch, ".ipython"),
                      JUPYTER_RUNTIME_DIR=scratch, JUPYTER_DATA_DIR=scratch, TMPDIR=scratch,
                      AGENTLAB_PROGRESS=os.path.join(scratch, "progress.json"))


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="agentlab-jail")
    parser.add_argument("--uid", type=int)
    parser.add_argument("--scratch", required=True)
    parser.add_argument("--hide", action="append", default=[])
    parser.add_argument("--expose", action="append", default=[])
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    _mount("--make-rprivate", "/")
    private_temporary(args.scratch, args.expose)
    expose(args.expose)
    for path in sorted(args.hide, key=lambda p: p == "/proc"):  # /proc last: mount needs it
        hide(path)
    limit()
    if args.uid is not None:
        os.setgroups([])
        os.setgid(args.uid)
        os.setuid(args.uid)
        _die_with_parent()  # changing user cleared unshare's --kill-child
    settle_in(args.scratch)
    os.execvp(command[0], command)


def _die_with_parent() -> None:
    """Be killed when the parent (unshare) dies; as the run's pid 1, that ends the run."""
    import ctypes
    import signal

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


if __name__ == "__main__":
    main(sys.argv[1:])
