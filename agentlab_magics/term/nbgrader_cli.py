"""nbgrader's own command line, run by the Python running agentlab, one process a command.

A command runs nbgrader's entry point (`nbgrader.apps.nbgraderapp.main`, what the `nbgrader`
script and `python -m nbgrader` call) in a process of its own, forked from one that imported
nbgrader once (multiprocessing's fork server, `nbgrader_warm` preloaded): a command starts in
milliseconds, not the second of CPU an interpreter importing nbgrader takes, and each still has
nbgrader's state to itself. The import keeps one module out: `rfc3987_syntax`, which jsonschema
loads, if installed, to check the "iri" formats nbgrader never uses, and which compiles 39
grammars as it loads. The command's environment is the caller's with this Python's scripts
first on PATH (nbgrader runs `alembic` when it makes a gradebook; `tools_on_path` does the same
for nbgrader run in this process) and what the caller adds; it runs in the folder it is given,
where nbgrader reads its configuration, and writes its log (nbgrader logs to stderr) to a file
the caller reads. The configuration alone is read in the caller's process (`configuration`),
which then starts no fork server for it.
"""

from __future__ import annotations

import importlib.util
import multiprocessing
import multiprocessing.context
import multiprocessing.process
import os
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import chdir, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from agentlab_magics.problems import Problem

INSTALL = 'pip install -e ".[course]"'
SLOW_IMPORTS = ("rfc3987_syntax",)
WARM = "agentlab_magics.term.nbgrader_warm"
# Why a command may end having logged nothing: its process imports the running script first
# (multiprocessing's way), and a script that does its work at its top level runs it again there.
UNGUARDED = ("It logged nothing. If a script of yours runs it, put the script's top level under "
             "`if __name__ == \"__main__\":` (each command's process imports the script first).")


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
    with _environment({**os.environ, "PATH": _with_scripts(os.environ.get("PATH", ""))}):
        yield


@contextmanager
def _environment(env: dict[str, str]) -> Iterator[None]:
    """This process's environment exactly `env` while it lasts, then what it was."""
    before = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(before)


@dataclass(frozen=True)
class Nbgrader:
    """Runs nbgrader commands with `env` added to this process's environment."""

    env: dict[str, str] = field(default_factory=dict)

    def environment(self) -> dict[str, str]:
        return {**os.environ, "PATH": _with_scripts(os.environ.get("PATH", "")), **self.env}

    def run(self, *args: str, cwd: Path) -> str:
        """Run `nbgrader ARGS` in `cwd`, in a fork of the warm process and the command's
        environment; its log, or NbgraderFailed ending with the last lines it logged."""
        what = f"`nbgrader {' '.join(args)}`"
        with tempfile.TemporaryDirectory(prefix="agentlab-nbgrader-") as scratch:
            log = Path(scratch) / "log"
            process = _forks().Process(target=_in_fork, args=(
                args, str(cwd), self.environment(), str(log)))
            with _STARTING:
                process.start()
                # Process.start reads every listed process's exit code it finds ready (its
                # _cleanup); a read racing this thread's own join leaves join 255. Unlisted,
                # only this thread ever reads it.
                multiprocessing.process._children.discard(process)  # type: ignore[attr-defined]
            process.join()
            logged = log.read_bytes().decode(errors="replace") if log.exists() else ""
        if process.exitcode != 0:
            tail = "\n".join(logged.strip().splitlines()[-15:]) or UNGUARDED
            raise NbgraderFailed(f"{what} (in {cwd}) exited with {process.exitcode}:\n{tail}")
        return logged

    def configuration(self, cwd: Path) -> dict:
        """The configuration (a traitlets Config) an nbgrader command run in `cwd` would read:
        its nbgrader_config.py and the Jupyter configuration folders'. Read in this process,
        in `cwd` and the command's environment, both given back after."""
        without_slow_imports()
        from nbgrader.apps.autogradeapp import AutogradeApp

        with _environment(self.environment()), chdir(cwd):
            app = AutogradeApp()
            app.load_config_file()
        return app.config


_STARTING = threading.Lock()  # one command's process listed at a time (see Nbgrader.run)


def _forks() -> multiprocessing.context.ForkServerContext:
    """The fork server's context, its server preloading WARM (it starts at the first fork)."""
    context = multiprocessing.get_context("forkserver")
    assert isinstance(context, multiprocessing.context.ForkServerContext)
    context.set_forkserver_preload([WARM])
    return context


def _in_fork(args: tuple[str, ...], cwd: str, env: dict[str, str], log: str) -> None:
    """In the fork: standard output and error go to `log`, the folder is `cwd`, the
    environment `env`, and `nbgrader ARGS` runs; its exit status is the fork's."""
    written = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(written, 1)
    os.dup2(written, 2)
    os.close(written)
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    from nbgrader.apps.nbgraderapp import main

    sys.argv = ["nbgrader", *args]
    sys.exit(main())
