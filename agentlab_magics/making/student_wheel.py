"""The wheel students install, built from the checkout this package runs from: what a course
hands its students (`agentlab course wheel`), with every starter and no solution in it
(tests/security/test_student_install.py reads it). pip builds it from a copy of the checkout,
so the build writes nothing into the checkout itself."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from agentlab_magics.problems import Problem, UsageProblem

LEFT_OUT = shutil.ignore_patterns(".git", "build", "dist", "*.egg-info", "__pycache__", ".venv",
                                  "node_modules")


def checkout() -> Path:
    """The folder holding this package's pyproject.toml; UsageProblem where it was installed
    from a wheel, with no checkout to build from."""
    root = Path(__file__).resolve().parents[2]
    if not (root / "pyproject.toml").is_file():
        raise UsageProblem(f"This agentlab_magics was installed without its source ({root} holds "
                           "no pyproject.toml): build the wheel from a checkout of the course's "
                           "repository, installed with `pip install -e .`.")
    return root


def build(folder: Path) -> Path:
    """Build the student wheel into `folder` (made if missing); returns the wheel's path."""
    source = checkout()
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="agentlab-wheel-") as work:
        copy = Path(work) / "source"
        shutil.copytree(source, copy, ignore=LEFT_OUT)
        done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet",
                               "--wheel-dir", work, str(copy)],
                              capture_output=True, text=True, stdin=subprocess.DEVNULL)
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["no message"])[-1]
            raise Problem(f"pip could not build the wheel from {source}: {last}")
        (built,) = Path(work).glob("agentlab_magics-*.whl")
        return Path(shutil.copy(built, folder / built.name))
