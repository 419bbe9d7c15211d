"""docs/write-your-first-lab.md, followed as a new instructor follows it: in a fresh virtual
environment (the course installed from a copy of this checkout by the page's own first block,
pip's index and cache), every command and file of the page in order, in a new folder, with
three fake students handing in just before the page's `nbgrader collect`. Then, in that same
environment, the page's weakened test lets its mutant survive and the restored one does not,
and a student's notebook checks the lab with %%check in a real kernel."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest

from tests.docs import hand_in_answers
from tests.docs.tutorial import script, steps
from tests.test_install_lines import environment

ROOT = Path(__file__).resolve().parents[2]
LAB = "answer-call"
COUNT = re.compile(rf"^{LAB}: (\d+) mutants, (\d+) killed, (\d+) equivalent, (\d+) survived "
                   r"\(\d+\.\d s\)$", re.M)


@dataclass
class Followed:
    room: Path
    env: dict[str, str]
    printed: str

    def run(self, *command: str) -> subprocess.CompletedProcess:
        """A command of the tutorial's environment, in its folder."""
        return subprocess.run([str(self.room / ".venv" / "bin" / command[0]), *command[1:]],
                              cwd=self.room, env=self.env, capture_output=True, text=True,
                              timeout=600)


def checkout_copy(target: Path) -> Path:
    """The checkout's files (committed or not, less what git ignores) copied into `target`."""
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], capture_output=True, check=True).stdout
    for name in filter(None, listed.decode().split("\0")):
        if (ROOT / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, target / name)
    return target


@pytest.fixture(scope="module")
def followed(tmp_path_factory) -> Followed:
    work = tmp_path_factory.mktemp("tutorial")
    room = work / "room"
    room.mkdir()
    env = {**environment(), "COURSE": str(checkout_copy(work / "checkout")),
           "AGENTLAB_EXCHANGE": str(work / "exchange"),
           "AGENTLAB_PROGRESS": str(work / "progress.json"),
           "JUPYTER_CONFIG_DIR": str(work / "jupyter-config"), "HOME": str(work / "home")}
    hand_in = f"python {hand_in_answers.__file__} course {LAB}"
    done = subprocess.run(["bash", "-c", script(steps(), {"nbgrader collect": hand_in})],
                          cwd=room, env=env, capture_output=True, text=True, timeout=1500,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return Followed(room, {**env, "AGENTLAB_LABS": str(room / "labs")}, done.stdout)


def test_verify_proves_the_skeleton_and_then_the_written_lab(followed):
    counts = [tuple(map(int, found)) for found in COUNT.findall(followed.printed)]
    assert len(counts) == 2, followed.printed
    for mutants, killed, equivalent, survived in counts:
        assert survived == 0 and killed + equivalent == mutants > 0


def test_the_starter_fails_the_lab_and_the_page_shows_its_report(followed):
    assert "Answer a tool call, within a budget: 0 of 4 tests passed" in followed.printed


def test_autograde_gives_each_fake_student_the_expected_score(followed):
    """Five points: four visible tests and one held back. The starter keeps the call
    unchanged (the held-back test); `>=` for `>` fails only the test at the budget."""
    scores = dict(re.findall(r"^(right|starter|wrong)\s+graded\s+(\d+/\d+)", followed.printed,
                             re.M))
    assert scores == {"right": "5/5", "starter": "1/5", "wrong": "4/5"}, followed.printed


def test_adding_the_lab_touched_one_folder_of_the_pack(followed):
    assert followed.printed.rstrip().splitlines()[-1] == f"?? {LAB}/"


def test_the_students_copy_holds_no_reference_and_no_held_back_tests(followed):
    shipped = {path.name for path in (followed.room / "student-labs" / LAB).iterdir()}
    assert shipped == {"lab.toml", "starter.py", "tests.py", "questions.toml", "notebook.md",
                       "reference-runs.json"}


def test_the_weakened_test_lets_its_mutant_survive_and_the_restored_one_does_not(followed):
    tests = followed.room / "labs" / LAB / "tests.py"
    written = tests.read_text(encoding="utf-8")
    weakened = re.sub(r"\n\n\ndef test_a_text_of_exactly_the_budget_is_whole.*?(?=\n\n\ndef )",
                      "", written, flags=re.S)
    assert weakened != written
    tests.write_text(weakened, encoding="utf-8")
    try:
        weak = followed.run("agentlab", "lab", "verify", LAB)
    finally:
        tests.write_text(written, encoding="utf-8")
    assert weak.returncode == 1
    assert (f"{LAB}: line 8 (result_for): len(output) > limit -> len(output) >= limit: no "
            "test tells these apart") in weak.stdout
    restored = followed.run("agentlab", "lab", "verify", LAB)
    assert restored.returncode == 0 and ", 0 survived (" in restored.stdout


def test_a_students_notebook_checks_the_lab_with_percent_check(followed):
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("%load_ext agentlab_magics"),
        nbformat.v4.new_code_cell(f"%%check {LAB}\n{hand_in_answers.RIGHT}"),
        nbformat.v4.new_code_cell(f"%%check {LAB}\n{hand_in_answers.WRONG}")])
    path = followed.room / "mine.ipynb"
    nbformat.write(notebook, path)
    ran = followed.run("jupyter", "nbconvert", "--to", "notebook", "--execute", "--inplace",
                       str(path))
    assert ran.returncode == 0, ran.stderr[-2000:]
    said = ["".join(output.get("data", {}).get("text/plain", "") for output in cell.outputs)
            for cell in nbformat.read(path, 4).cells[1:]]
    assert "Answer a tool call, within a budget: 4 of 4 tests passed" in said[0], said
    assert "3 of 4 tests passed" in said[1] and "nothing is cut" in said[1], said
