"""nbgrader's own command line, run by the Python running agentlab, one process a command.

A command runs nbgrader's entry point (`nbgrader.apps.nbgraderapp.main`, what the `nbgrader`
script and `python -m nbgrader` call) with one import kept out: `rfc3987_syntax`, which
jsonschema loads, if installed, to check the "iri" formats nbgrader never uses, and which
compiles 39 grammars as it loads: 2 of the 3.5 s of CPU a command takes to start.
The command's environment puts this Python's scripts first on PATH (nbgrader runs `alembic`
when it makes a gradebook; `tools_on_path` does the same for nbgrader run in this process)
and adds what the caller gives; nbgrader reads its configuration from the working folder.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from agentlab_magics.problems import Problem

INSTALL = 'pip install -e ".[course]"'
SLOW_IMPORTS = ("rfc3987_syntax",)
KEEP_OUT = "import sys; " + "".join(f"sys.modules[{name!r}] = None; " for name in SLOW_IMPORTS)
LAUNCH = KEEP_OUT + "from nbgrader.apps.nbgraderapp import main; sys.exit(main())"
# Prints, pickled, the configuration an nbgrader command started in the working folder reads.
CONFIGURATION = (KEEP_OUT + "import pickle; from nbgrader.apps.autogradeapp import AutogradeApp; "
                 "app = AutogradeApp(); app.load_config_file(); "
                 "sys.stdout.buffer.write(pickle.dumps(app.config))")


def without_slow_imports() -> None:
    """Keep SLOW_IMPORTS out of this process (an import of one then fails, and jsonschema
    goes without it): call before nbgrader is first imported."""
    for name in SLOW_IMPORTS:
        # None in sys.modules means "this cannot be imported"
        sys.modules.setdefault(name, None)  # type: ignore[arg-type]


class NbgraderMissing(Problem):
    """nbgrader is not installed in this Python."""


class NbgraderFailed(Problem):
    """An nbgrader command exited with an error; the message ends with its last log lines."""


def require_nbgrader() -> None:
    """Raise NbgraderMissing, saying how to install it, unless nbgrader can be imported."""
    if importlib.util.find_spec("nbgrader") is None:
        raise NbgraderMissing(f"nbgrader is not installed; install the course extra with "
                              f"{INSTALL}.")


def _with_scripts(path: str) -> str:
    """`path` (a PATH) with this Python's scripts folder first: nbgrader's tools (`alembic`)
    are there, whether or not its environment is activated."""
    return os.pathsep.join([str(Path(sys.executable).parent), path])


@contextmanager
def tools_on_path() -> Iterator[None]:
    """This process's PATH with this Python's scripts first while it lasts, for nbgrader run
    in this process (and in the processes it starts)."""
    before = os.environ.get("PATH")
    os.environ["PATH"] = _with_scripts(before or "")
    try:
        yield
    finally:
        if before is None:
            del os.environ["PATH"]
        else:
            os.environ["PATH"] = before


@dataclass(frozen=True)
class Nbgrader:
    """Runs nbgrader commands with `env` added to this process's environment."""

    env: dict[str, str] = field(default_factory=dict)

    def environment(self) -> dict[str, str]:
        return {**os.environ, "PATH": _with_scripts(os.environ.get("PATH", "")), **self.env}

    def run(self, *args: str, cwd: Path) -> str:
        """Run `nbgrader ARGS` in `cwd`; its log (nbgrader logs to stderr), or NbgraderFailed."""
        done = self._python(LAUNCH, *args, cwd=cwd, what=f"`nbgrader {' '.join(args)}`")
        return (done.stdout + done.stderr).decode(errors="replace")

    def configuration(self, cwd: Path) -> dict:
        """The configuration (a traitlets Config) an nbgrader command run in `cwd` would read:
        its nbgrader_config.py and the Jupyter configuration folders'."""
        import pickle

        done = self._python(CONFIGURATION, cwd=cwd, what="reading nbgrader's configuration")
        return pickle.loads(done.stdout)

    def _python(self, code: str, *args: str, cwd: Path, what: str
                ) -> subprocess.CompletedProcess:
        """This Python running `code` with `args` in `cwd`, or NbgraderFailed ending with the
        last lines it wrote."""
        done = subprocess.run([sys.executable, "-c", code, *args], cwd=cwd,
                              env=self.environment(), capture_output=True,
                              stdin=subprocess.DEVNULL, check=False)
        if done.returncode != 0:
            log = (done.stdout + done.stderr).decode(errors="replace")
            tail = "\n".join(log.strip().splitlines()[-15:])
            raise NbgraderFailed(f"{what} (in {cwd}) exited with {done.returncode}:\n{tail}")
        return done
