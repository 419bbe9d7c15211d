"""Run a command with /tmp, /var/tmp and /dev/shm of its own: `unshare --mount --propagation
private python private_tmp.py --keep DIR --report FILE -- COMMAND...`.

The autograde round of test_autograde_attacks.py runs under this, so that what a submission
leaves in the shared temporary folders (a planted file, a disk filled up) reaches only the
graders started by that round, never another process of this machine. Each `--keep` folder (the
round's own folder, which lives under /tmp) is bound back at its place with the folders above
it closed (mode 700), as pytest leaves them. With `--memory BYTES`, the command and every
process it starts share that much memory (a cgroup, `grading.memory_cap`), as on a grading
machine whose memory is meant for grading. After the command ends, FILE gets a JSON object:
"left_over", what is left in the three folders other than the kept folders ([path, owner uid,
size] each), "max_rss_kib", the largest resident size of any process of the command's tree
(its own, the kernels', the scoring processes'), "ran_out", whether the memory cap killed
any process of it, "cgroups_left", the cgroups left inside the cap's, and "processes_left",
the processes still in them (after `--settle` seconds): what outlived the command, whatever
else runs on the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from agentlab_magics.grading.memory_cap import MemoryCap
from agentlab_magics.grading.sandbox import instructor_paths, readable

SCRATCHES = ("/tmp", "/var/tmp", "/dev/shm")


def keep_arguments(folder: Path) -> list[str]:
    """The `--keep` arguments a round in `folder` needs: that folder, and the interpreter's and
    the instructor package's folders, where they lie in a scratch folder (a checkout under
    /tmp); a folder inside another kept one is not named again."""
    paths = [path for path in sorted({str(folder), *readable(), *instructor_paths()})
             if path.startswith(tuple(scratch + "/" for scratch in SCRATCHES))]
    outermost = [path for path in paths
                 if not any(path.startswith(other.rstrip("/") + "/") for other in paths)]
    return [argument for path in outermost for argument in ("--keep", path)]


def _mount(*args: str) -> None:
    subprocess.run(["mount", *args], check=True)


def _private(keep: list[str]) -> None:
    _mount("--make-rprivate", "/")
    staged = []
    for number, path in enumerate(keep):
        staging = f"/run/agentlab-redteam-keep-{os.getpid()}-{number}"
        os.makedirs(staging)
        _mount("--bind", path, staging)
        staged.append((staging, path))
    for folder in SCRATCHES:
        _mount("-t", "tmpfs", "-o", "mode=1777,size=3g", "agentlab-redteam-tmp", folder)
    for staging, path in staged:
        os.makedirs(path, exist_ok=True)
        parent = os.path.dirname(path)
        while parent not in ("/", *SCRATCHES):
            os.chmod(parent, 0o700)
            parent = os.path.dirname(parent)
        _mount("--move", staging, path)
        os.rmdir(staging)


def _left_over(keep: list[str]) -> list[list]:
    found = []
    for folder in SCRATCHES:
        for root, folders, files in os.walk(folder):
            if any(os.path.commonpath([root, k]) == k for k in keep):
                folders[:] = []
                continue
            for name in folders + files:
                path = os.path.join(root, name)
                if any(k.startswith(path + os.sep) or k == path for k in keep):
                    continue
                try:
                    info = os.lstat(path)
                except OSError:
                    continue
                found.append([path, info.st_uid, info.st_size])
    return found


def _processes(group: Path) -> list[str]:
    """Every process in `group` and the cgroups below it but this one, with its command."""
    found = []
    for procs in group.rglob("cgroup.procs"):
        for pid in procs.read_text().split():
            if int(pid) == os.getpid():
                continue
            try:
                command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
            except OSError:
                continue
            found.append(f"{pid} {command.decode(errors='replace')}")
    return found


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--keep", action="append", default=[])
    parser.add_argument("--report", required=True)
    parser.add_argument("--memory", type=int, default=0)
    parser.add_argument("--settle", type=float, default=0.0)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    keep = [os.path.realpath(k) for k in args.keep]
    _private(keep)
    cap = MemoryCap.make(args.memory) if args.memory else None
    if cap is not None:
        assert cap.kind != "rlimit", "a memory cap for a whole round needs a memory cgroup"
        cap.admit()
    code = subprocess.run(command).returncode
    if args.settle:
        time.sleep(args.settle)  # a detached process would have had time to settle
    with open(args.report, "w", encoding="utf-8") as out:
        json.dump({"left_over": _left_over(keep),
                   "max_rss_kib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
                   "ran_out": cap is not None and cap.ran_out(),
                   "cgroups_left": sorted(path.name for path in Path(cap.path).iterdir()
                                          if path.is_dir()) if cap is not None else [],
                   "processes_left": _processes(Path(cap.path)) if cap is not None else []},
                  out)
    if cap is not None:  # back to where it was started, and the round's cgroup removed
        Path(cap.path).parent.joinpath("cgroup.procs").write_text(f"{os.getpid()}\n")
        cap.close()
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
