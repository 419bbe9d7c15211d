"""What every graded run gets, whatever sandbox holds it: resource limits, the scratch folder
as its home, and the system's own tools found where a submission cannot plant one.

`python -m agentlab_magics.grading.limits SCRATCH -- COMMAND...` is the weakest sandbox, where
no namespace can be made: it sets the limits, a session of its own and the scratch folder as
home, then becomes the command.
"""

from __future__ import annotations

import os
import resource
import shutil
import sys

# (limit, soft and hard value): generous for honest notebooks, fatal to runaways.
LIMITS = {
    "RLIMIT_CPU": 900,               # seconds of CPU for the whole notebook
    "RLIMIT_AS": 6 << 30,            # bytes of address space per process
    "RLIMIT_NPROC": 256,             # processes and threads of the grading user
    "RLIMIT_FSIZE": 64 << 20,        # bytes in any one file written
    "RLIMIT_NOFILE": 512,            # open files
}
# Where the system's own tools are looked for: never the working folder (a run's scratch
# folder, which holds the submission) nor anything else the caller's PATH may name.
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def system_tool(name: str) -> str:
    """The absolute path of the system's `name` (mount, bwrap); `name` if it has none."""
    return shutil.which(name, path=SYSTEM_PATH) or name


def trusted_python(module: str) -> list[str]:
    """The command that runs one of the grader's own modules: `-P` puts neither the working
    folder nor a script's folder on sys.path, so nothing a submission left there is imported."""
    return [sys.executable, "-P", "-m", module]


def prlimit_options() -> list[str]:
    """LIMITS as util-linux prlimit's options (`--cpu=900`, ...)."""
    return [f"--{name.removeprefix('RLIMIT_').lower()}={value}"
            for name, value in LIMITS.items()]


def home_of(scratch: str) -> dict[str, str]:
    """The environment that makes the scratch folder a run's home and temporary folder."""
    return {"HOME": scratch, "IPYTHONDIR": os.path.join(scratch, ".ipython"),
            "JUPYTER_RUNTIME_DIR": scratch, "JUPYTER_DATA_DIR": scratch, "TMPDIR": scratch,
            "AGENTLAB_PROGRESS": os.path.join(scratch, "progress.json")}


def closed_ancestor(path: str) -> str | None:
    """The highest folder above `path` that other users may not pass through, if any."""
    parts = os.path.abspath(path).split(os.sep)[1:]
    for depth in range(1, len(parts)):
        folder = os.sep + os.path.join(*parts[:depth])
        if not os.stat(folder).st_mode & 0o001:
            return folder
    return None


def _limit() -> None:
    for name, value in LIMITS.items():
        resource.setrlimit(getattr(resource, name), (value, value))


if __name__ == "__main__":
    scratch, command = sys.argv[1], sys.argv[3:]
    if os.getsid(0) != os.getpid():  # a session of its own, unless it leads one already
        os.setsid()
    _limit()
    os.chdir(scratch)
    os.environ.update(home_of(scratch))
    os.execvp(command[0], command)
