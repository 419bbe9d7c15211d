"""Confine this process, then become the command it is given: `python -m
agentlab_magics.grading.jail [--uid N] [--scratch DIR] [--hide PATH]... -- COMMAND...`.

It runs first thing inside the namespaces `sandbox.command` made (a mount, network and pid
namespace of its own, with root's powers there): it hides each `--hide` path under an empty,
unreadable tmpfs, sets the resource limits, drops to the unprivileged `--uid` (when given),
moves into the scratch folder and replaces itself with the command, so nothing of the
grader is left in the process the submission runs in.
"""

from __future__ import annotations

import argparse
import os
import resource
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


def hide(path: str) -> None:
    """Put an empty tmpfs that nobody may read over `path` (in this mount namespace only)."""
    if os.path.exists(path):
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4k,mode=000,nosuid,nodev",
                        "agentlab-hidden", path], check=True)


def _closed_ancestor(path: str) -> str | None:
    """The highest folder above `path` that other users may not pass through, if any."""
    parts = os.path.abspath(path).split(os.sep)[1:]
    for depth in range(1, len(parts)):
        folder = os.sep + os.path.join(*parts[:depth])
        if not os.stat(folder).st_mode & 0o001:
            return folder
    return None


def expose(paths: list[str]) -> None:
    """Let the unprivileged user reach `paths` (the interpreter, its packages) where a folder
    above them is closed to others, such as /root: that folder is covered with an empty
    tmpfs that others may pass through, and only `paths` are bound back inside it, so the rest
    of it stays out of sight."""
    for path in sorted(set(paths)):
        closed = _closed_ancestor(path)
        if closed is None or not os.path.isdir(path):
            continue
        staging = f"/tmp/.agentlab-expose-{os.getpid()}"
        os.makedirs(staging, exist_ok=True)
        subprocess.run(["mount", "--bind", path, staging], check=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", "mode=711,size=4k", "agentlab-expose",
                        closed], check=True)
        os.makedirs(path, exist_ok=True)
        for folder in _between(closed, path):
            os.chmod(folder, 0o711)
        subprocess.run(["mount", "--move", staging, path], check=True)
        os.rmdir(staging)


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
    subprocess.run(["mount", "--make-rprivate", "/"], check=True)
    expose(args.expose)
    for path in args.hide:
        hide(path)
    limit()
    if args.uid is not None:
        os.setgroups([])
        os.setgid(args.uid)
        os.setuid(args.uid)
    settle_in(args.scratch)
    os.execvp(command[0], command)


if __name__ == "__main__":
    main(sys.argv[1:])
