"""docs/instructors.md, "Try it with fake students": its commands, run as written in an empty
folder, play a round of lesson1 with two fake students on one account, each recorded under
their own name, collected without a warning of cheating, graded, given feedback and exported.
"""

from __future__ import annotations

import csv
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs" / "instructors.md"


def commands() -> list[str]:
    """The section's command lines, comments left out."""
    text = DOCS.read_text(encoding="utf-8")
    section = text[text.index("## Try it with fake students"):]
    section = section[:section.index("\n## ", 1)]
    return [line.removeprefix("    ") for line in section.splitlines()
            if line.startswith("    ") and not line.strip().startswith("#")]


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    folder = tmp_path_factory.mktemp("fake-students")
    scripts = str(Path(sys.executable).parent)  # the environment, as if activated
    env = {k: v for k, v in os.environ.items() if k != "AGENTLAB_EXCHANGE"}
    env.update(PATH=os.pathsep.join([scripts, os.environ.get("PATH", "")]),
               HOME=str(folder), JUPYTER_CONFIG_DIR=str(folder / "jupyter-config"),
               AGENTLAB_PROGRESS=str(folder / "progress.json"))
    done = subprocess.run(["bash", "-ec", "\n".join(commands())], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=1200,
                          stdin=subprocess.DEVNULL)
    return folder, done


def test_the_commands_run_as_written(played):
    _, done = played
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


def test_each_fake_student_is_graded_under_their_own_name(played):
    folder, _ = played
    with open(folder / "course" / "grades.csv", newline="") as handle:
        rows = {row["student_id"]: row for row in csv.DictReader(handle)}
    assert set(rows) == {"ada", "grace"}
    assert all(float(row["max_score"]) == 9 for row in rows.values())
    for student in ("ada", "grace"):
        assert (folder / "course" / "feedback" / student / "lesson1" / "lesson1.html").is_file()


def test_collect_warns_of_no_cheating_and_no_one_is_recorded_as_the_account(played):
    folder, done = played
    said = done.stdout + done.stderr
    assert "cheating attempt" not in said, said[-3000:]
    assert sorted(p.name for p in (folder / "course" / "submitted").iterdir()) == ["ada", "grace"]


def test_the_exchange_is_writable_by_all_and_sticky_after_the_round(played):
    folder, _ = played
    mode = stat.S_IMODE((folder / "course" / "exchange").stat().st_mode)
    assert mode == 0o1777, oct(mode)


def test_feedback_is_made_without_a_warning_and_without_the_hidden_tests(played):
    folder, done = played
    assert "display_data_priority" not in done.stdout + done.stderr
    page = (folder / "course" / "feedback" / "ada" / "lesson1" / "lesson1.html").read_text()
    assert "tests-lesson1-chat" in page  # the graded cell is on it, its hidden half gone
    assert "held_back=True" not in page and "HIDDEN TESTS" not in page
