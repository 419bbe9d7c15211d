"""nbgrader's own command line, run by the Python running agentlab, one process a command.

A command runs nbgrader's entry point (`nbgrader.apps.nbgraderapp.main`, what the `nbgrader`
script and `python -m nbgrader` call) with one import kept out: `rfc3987_syntax`, which
jsonschema loads, if installed, to check the "iri" formats nbgrader never uses, and which
compiles 39 grammars as it loads: 2 of the 3.5 s of CPU a command takes to start.
The command's environment puts this Python's scripts first on PATH (nbgrader runs `alembic`
when it makes a gradebook) and adds what the caller gives; nbgrader reads its configuration
from the working folder.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

INSTALL = 'pip install -e ".[course]"'
LAUNCH = ("import sys; sys.modules['rfc3987_syntax'] = None; "
          "from nbgrader.apps.nbgraderapp import main; sys.exit(main())")


class NbgraderMissing(RuntimeError):
    """nbgrader is not installed in this Python."""


class NbgraderFailed(RuntimeError):
    """An nbgrader command exited with an error; the message ends with its last log lines."""


def require_nbgrader() -> None:
    """Raise NbgraderMissing, saying how to install it, unless nbgrader can be imported."""
    if importlib.util.find_spec("nbgrader") is None:
        raise NbgraderMissing(f"nbgrader is not installed; install the course extra with "
                              f"{INSTALL}.")


@dataclass(frozen=True)
class Nbgrader:
    """Runs nbgrader commands with `env` added to this process's environment."""

    env: dict[str, str] = field(default_factory=dict)

    def environment(self) -> dict[str, str]:
        scripts = str(Path(sys.executable).parent)
        path = os.pathsep.join([scripts, os.environ.get("PATH", "")])
        return {**os.environ, "PATH": path, **self.env}

    def run(self, *args: str, cwd: Path) -> str:
        """Run `nbgrader ARGS` in `cwd`; its log (nbgrader logs to stderr), or NbgraderFailed."""
        command = [sys.executable, "-c", LAUNCH, *args]
        done = subprocess.run(command, cwd=cwd, env=self.environment(), capture_output=True,
                              text=True, stdin=subprocess.DEVNULL, check=False)
        log = done.stdout + done.stderr
        if done.returncode != 0:
            tail = "\n".join(log.strip().splitlines()[-15:])
            raise NbgraderFailed(f"`nbgrader {' '.join(args)}` (in {cwd}) exited with "
                                 f"{done.returncode}:\n{tail}")
        return log
