"""The README's lines for a student working alone, run as written in one fresh virtual
environment (no system site-packages; pip's own index and cache): the wheel `agentlab course
wheel` builds, the notebooks, JupyterLab on them, then the line for a checkout. The main job's
and the tests' lines are the ones .ci/run itself runs, and the instructors' `pip install
".[course]" ./instructor` is the main job's without `-e`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agentlab_magics.cli import main
from agentlab_magics.making.student_wheel import LEFT_OUT, checkout

README = Path(__file__).resolve().parents[1] / "README.md"


def lines_after(paragraph: str) -> list[str]:
    """The indented command lines of the README's first block after the paragraph that
    starts with `paragraph`."""
    text = README.read_text(encoding="utf-8")
    rest = text[text.index(paragraph):]
    block = re.search(r"\n\n((?:    .+\n)+)", rest)
    assert block, f"no command block after {paragraph!r}"
    return [line.removeprefix("    ") for line in block.group(1).splitlines()]


def environment() -> dict[str, str]:
    """This machine's environment with no Python environment of the tests' in it."""
    path = [part for part in os.environ.get("PATH", "").split(os.pathsep)
            if not part.startswith(sys.prefix)]
    return {**{k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")},
            "PATH": os.pathsep.join(path)}


def shell(line: str, cwd: Path) -> None:
    done = subprocess.run(["bash", "-c", line], cwd=cwd, env=environment(), capture_output=True,
                          text=True, timeout=1200, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, f"{line}\n{done.stdout[-2000:]}{done.stderr[-2000:]}"


STUDENT = lines_after("Working through the course on your own")


@pytest.fixture(scope="module")
def student(tmp_path_factory) -> Path:
    """The folder where the wheel was built and the first two lines ran."""
    work = tmp_path_factory.mktemp("student")
    assert main(["course", "wheel", "--to", str(work)]) == 0
    for line in STUDENT[:2]:
        shell(line, work)
    return work


def test_the_wheels_name_in_the_readme_is_the_one_the_course_builds(student):
    (wheel,) = student.glob("agentlab_magics-*.whl")
    assert wheel.name in STUDENT[0]


def test_the_student_lines_install_the_wheel_and_write_the_notebooks(student):
    assert (student / "agentlab-course" / "lesson1" / "lesson1.ipynb").is_file()
    found = subprocess.run([str(student / ".venv" / "bin" / "python"), "-c",
                            "import agentlab_magics; print(agentlab_magics.__file__)"],
                           capture_output=True, text=True, env=environment(), cwd=student)
    assert found.stdout.startswith(str(student / ".venv")), found


def test_jupyter_lab_starts_on_the_notebooks_as_written(student, tmp_path):
    """As the student runs it, but under a home of the test's, with no browser to open and,
    where the tests run as root (CI), root allowed."""
    config = tmp_path / "jupyter-config"
    config.mkdir()
    (config / "jupyter_server_config.json").write_text(json.dumps({"ServerApp": {
        "open_browser": False, "allow_root": os.geteuid() == 0}}))
    env = {**environment(), "HOME": str(tmp_path), "JUPYTER_CONFIG_DIR": str(config)}
    lab = subprocess.Popen(["bash", "-c", STUDENT[2]], cwd=student, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           start_new_session=True, stdin=subprocess.DEVNULL)
    said, deadline = [], time.monotonic() + 180
    try:
        assert lab.stdout is not None
        while time.monotonic() < deadline and lab.poll() is None:
            said.append(lab.stdout.readline())
            if re.search(r"http://(localhost|127\.0\.0\.1):\d+/lab", said[-1]):
                break
        else:
            pytest.fail("JupyterLab did not start:\n" + "".join(said)[-3000:])
    finally:
        if lab.poll() is None:
            os.killpg(lab.pid, signal.SIGTERM)  # the server this test started, and its group
        try:  # read what it says as it stops: a full pipe would hold it in a write forever
            lab.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(lab.pid, signal.SIGKILL)
            lab.communicate()


def test_the_checkout_line_installs_the_checkout(student, tmp_path):
    copy = tmp_path / "checkout"
    shutil.copytree(checkout(), copy, ignore=LEFT_OUT)
    (copy / ".venv").symlink_to(student / ".venv")
    line = re.search(r"\(From a checkout of this repository, `([^`]+)`", README.read_text())
    assert line, "the README names the line for a checkout"
    shell(line.group(1), copy)
    shell(".venv/bin/agentlab labs", copy)
