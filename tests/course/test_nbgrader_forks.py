"""nbgrader's commands, each forked from the warm fork server (term/nbgrader_cli.py), run from
many threads at once as the demo runs them: every one ends with its own exit code and log."""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from agentlab_magics.term.nbgrader_cli import Nbgrader, NbgraderFailed

THREADS = 8
COMMANDS = 80


def test_commands_from_many_threads_each_get_their_own_exit_code(tmp_path):
    nbgrader = Nbgrader({"JUPYTER_CONFIG_DIR": str(tmp_path / "config")})

    def one(number: int) -> str:
        if number % 4:
            return nbgrader.run("--version", cwd=tmp_path)
        with pytest.raises(NbgraderFailed, match="exited with 1"):
            nbgrader.run("release_assignment", f"missing-{number}", cwd=tmp_path)
        return "failed as it should"

    with ThreadPoolExecutor(THREADS) as pool:
        said = list(pool.map(one, range(COMMANDS)))
    assert all("nbgrader version" in text for number, text in enumerate(said) if number % 4)


def test_a_script_without_a_main_guard_is_told_what_to_do(tmp_path):
    script = tmp_path / "unguarded.py"
    script.write_text("from pathlib import Path\n"
                      "from agentlab_magics.term.nbgrader_cli import Nbgrader\n"
                      "Nbgrader().run('--version', cwd=Path('.'))\n")
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode != 0
    assert 'put the script\'s top level under `if __name__ == "__main__":`' in done.stderr
