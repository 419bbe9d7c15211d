"""Course packs: lab folders found on $AGENTLAB_LABS or through an installed package's entry
point, read without running them, checked with `%%check` and `agentlab check` like the
built-in labs; a folder that cannot be read is one sentence naming its file and line (exit 2,
nothing written); a student's copy holds no reference and no held-back tests (all a grading
sandbox sees of a pack: tests/security/test_pack_privacy.py)."""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from IPython.core.interactiveshell import InteractiveShell

from agentlab_magics.checking.runner import lab_tests, run
from agentlab_magics.cli import main
from agentlab_magics.course import find_lab, labs
from agentlab_magics.course.packs import ENV
from agentlab_magics.course.questions import find_question, questions_for

LAB = "count-calls"
RIGHT = ('def count_calls(message):\n'
         '    return sum(1 for block in message["content"] if block["type"] == "toolCall")\n')
WRONG = 'def count_calls(message):\n    return len(message["content"])\n'


def command(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def pack(tmp_path, monkeypatch) -> Path:
    """A pack on $AGENTLAB_LABS holding the skeleton lab count-calls."""
    folder = tmp_path / "labs"
    folder.mkdir()
    monkeypatch.setenv(ENV, str(folder))
    assert command("lab", "new", LAB, "--in", str(folder))[0] == 0
    return folder


def test_a_new_lab_is_found_checked_and_verified(pack):
    assert list(labs())[-1] == LAB and find_lab(LAB).folder == pack / LAB
    assert run(LAB, "", source=RIGHT).all_passed
    report = run(LAB, "", source=WRONG)
    assert [outcome.passed for outcome in report.outcomes] == [False, False]
    code, printed, _ = command("lab", "verify", LAB)
    assert code == 0 and re.fullmatch(
        rf"{LAB}: (\d+) mutants, \1 killed, 0 equivalent, 0 survived \(\d+\.\d s\)\n", printed)


def test_a_name_not_written_yet_is_said_with_what_lab_toml_says_it_is_for(pack):
    outcome = run(LAB, "", source="x = 1\n").outcomes[0]
    assert outcome.message == ("count_calls is not written yet: it counts the calls an "
                               "assistant reply asks for."), outcome.message


def test_a_new_labs_files_have_the_mode_an_editor_gives_them(pack):
    """Readable by the grader and a hub's other users as any file the author writes: the
    umask's mode, not a private one."""
    umask = os.umask(0)
    os.umask(umask)
    assert {path.name: path.stat().st_mode & 0o777 for path in (pack / LAB).iterdir()} == \
        dict.fromkeys(("lab.toml", "reference.py", "tests.py", "notebook.md"), 0o666 & ~umask)


def test_the_starter_is_the_reference_as_nbgrader_releases_it(pack):
    lab = find_lab(LAB)
    assert "### BEGIN SOLUTION" in lab.marked and "BEGIN SOLUTION" not in lab.reference
    assert lab.starter.splitlines()[-2:] == ["    # YOUR CODE HERE", "    pass"]
    assert "sum(" in lab.reference and "sum(" not in lab.starter


def test_an_edit_to_a_lab_shows_at_the_next_check_in_the_same_process(pack):
    assert run(LAB, "", source=WRONG).passed == 0
    tests = pack / LAB / "tests.py"
    tests.write_text(tests.read_text(encoding="utf-8").replace(
        'assert exact(counted, 2, "what count_calls returned")', "assert counted >= 2"),
        encoding="utf-8")
    os.utime(tests, ns=(1, 1))  # a time unlike the one read before, however fast the edit
    assert run(LAB, "", source=WRONG).passed == 1


def test_percent_check_checks_a_pack_lab_in_a_real_shell(pack, monkeypatch, tmp_path):
    monkeypatch.setenv("AGENTLAB_PROGRESS", str(tmp_path / "progress.json"))
    shell = InteractiveShell.instance()
    try:
        shell.run_line_magic("load_ext", "agentlab_magics")
        out = io.StringIO()
        with redirect_stdout(out):
            shell.run_cell(f"%%check {LAB} --quiet\n{RIGHT}")
            shell.run_cell(f"%%check {LAB} --quiet\n{WRONG}")
    finally:
        InteractiveShell.clear_instance()
    assert out.getvalue() == "Count calls: 2 of 2 tests passed\nCount calls: 0 of 2 tests passed\n"


def test_held_back_tests_run_only_when_asked_and_never_travel_to_students(pack, tmp_path,
                                                                          monkeypatch):
    (pack / LAB / "heldback.py").write_text(
        '"""Held back."""\n\n\ndef test_a_reply_of_one_call_counts_one(harness):\n'
        '    """One call is one."""\n'
        '    from agentlab_magics import lab\n'
        '    assert harness.count_calls(lab.reply(lab.call("read", id="c1"))) == 1\n',
        encoding="utf-8")
    lab = find_lab(LAB)
    assert [test.held_back for test in lab_tests(lab, held_back=True)] == [False, False, True]
    assert len(lab_tests(lab)) == 2
    code, printed, _ = command("lab", "ship", "--to", str(tmp_path / "students"))
    copy = tmp_path / "students" / LAB
    assert code == 0 and printed == f"wrote {copy}\n"
    assert {path.name for path in copy.iterdir()} == {"lab.toml", "starter.py", "tests.py",
                                                      "notebook.md", "reference-runs.json"}
    monkeypatch.setenv(ENV, str(tmp_path / "students"))
    shipped = find_lab(LAB)
    assert shipped.starter == lab.starter and len(lab_tests(shipped, held_back=True)) == 2
    code, _, said = command("solution", LAB)
    assert code == 1 and "There is no solution to count-calls here" in said


def test_a_lab_builds_on_a_lesson_and_its_tests_still_hold(pack):
    lesson1 = find_lab("lesson1").reference
    (pack / LAB / "reference.py").write_text(
        lesson1 + "\n\n" + (pack / LAB / "reference.py").read_text(encoding="utf-8"),
        encoding="utf-8")
    toml = pack / LAB / "lab.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace(
        "builds_on = []", 'builds_on = ["lesson1"]'), encoding="utf-8")
    report = run(LAB, "", source=find_lab(LAB).reference)
    held = [outcome for outcome in report.outcomes if outcome.group]
    assert report.all_passed and held and {outcome.group for outcome in held} == {
        "Still holds from lesson 1"}


def test_questions_of_a_pack_lab_are_asked_like_the_courses(pack):
    (pack / LAB / "questions.toml").write_text('''
[[question]]
id = "cc-count"
kind = "choice"
prompt = "A reply holds words and two calls. How many calls?"
answer = "Two: words are not calls."

[[question.option]]
text = "Two"
correct = true
why = "Only toolCall blocks are calls."

[[question.option]]
text = "Three"
why = "The text block asks for nothing."
''', encoding="utf-8")
    assert [question.id for question in questions_for(LAB)] == ["cc-count"]
    assert find_question("cc-count").options[0].correct


def test_an_installed_package_declaring_a_pack_is_found(pack, tmp_path):
    site = tmp_path / "site"
    shutil.copytree(pack, site / "mylabs")
    (site / "mylabs" / "__init__.py").write_text("", encoding="utf-8")
    info = site / "mylabs-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mylabs\nVersion: 1.0\n",
                                   encoding="utf-8")
    (info / "entry_points.txt").write_text("[agentlab_magics.labs]\nmylabs = mylabs\n",
                                           encoding="utf-8")
    environment = {**os.environ, "PYTHONPATH": str(site)}
    environment.pop(ENV)
    done = subprocess.run([sys.executable, "-m", "agentlab_magics", "labs"], env=environment,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.splitlines()[-1].startswith(LAB), done


# -- bad input: one sentence naming the file (and line), exit 2, nothing written --------------

def _drop(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8").replace(text, "", 1), encoding="utf-8")


def _prepend(path: Path, text: str) -> None:
    path.write_text(text + path.read_text(encoding="utf-8"), encoding="utf-8")


def _add(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


BROKEN = {
    "a missing file": (lambda lab: (lab / "tests.py").unlink(),
                       r"count-calls/tests.py: missing: a lab folder holds"),
    "a TOML error": (lambda lab: _add(lab / "lab.toml", "title = \n"),
                     r"count-calls/lab\.toml, line 13: is not valid TOML"),
    "a setting lab.toml does not have": (
        lambda lab: _prepend(lab / "lab.toml", 'tittle = "x"\n'),
        r"count-calls/lab\.toml, line 1: `tittle` is not a setting here"),
    "no title": (lambda lab: _drop(lab / "lab.toml", 'title = "Count calls"'),
                 r"count-calls/lab\.toml: sets no `title`, which every lab needs"),
    "a test with no docstring": (
        lambda lab: _drop(lab / "tests.py",
                          '"""A reply holding only words asks for no call: count_calls '
                          'gives 0."""'),
        r"count-calls/tests\.py, line 17: test_a_reply_of_words_asks_for_nothing has no "
        r"docstring"),
    "a reference without markers": (
        lambda lab: [_drop(lab / "reference.py", marker) for marker in
                     ("    ### BEGIN SOLUTION\n", "    ### END SOLUTION\n")],
        r"count-calls/reference\.py: marks nothing for the student to write"),
    "a region never closed": (lambda lab: _drop(lab / "reference.py", "### END SOLUTION"),
                              r"count-calls/reference\.py, line 6: this solution region is "
                              r"never closed"),
    "a reference that is not Python": (lambda lab: _add(lab / "reference.py", "def (:\n"),
                                       r"count-calls/reference\.py, line 9: is not valid "
                                       r"Python"),
    "tests that raise on import": (lambda lab: _add(lab / "tests.py", "\n1 / 0\n"),
                                   r"count-calls/tests\.py, line 23: importing it raised "
                                   r"ZeroDivisionError"),
    "a data file that is not there": (
        lambda lab: _prepend(lab / "lab.toml", 'files = ["trace.jsonl"]\n'),
        r"count-calls/lab\.toml, line 1: lists 'trace\.jsonl' under files, but .*count-calls "
        r"holds no such file"),
    "a data file outside the folder": (
        lambda lab: _prepend(lab / "lab.toml", 'files = ["../reference.py"]\n'),
        r"count-calls/lab\.toml, line 1: '\.\./reference\.py' cannot be a data file of the "
        r"lab"),
    "no builds_on": (lambda lab: _drop(lab / "lab.toml", "builds_on = []"), None),
    "a lab of an id the course has": (
        lambda lab: lab.rename(lab.parent / "lesson3"),
        r"lesson3: a lab called 'lesson3' is already in the course: rename the folder"),
    "a folder name that cannot be an id": (
        lambda lab: lab.rename(lab.parent / "Count_Calls"),
        r"Count_Calls: 'count_calls' cannot be a lab id|Count_Calls: 'Count_Calls' cannot be "
        r"a lab id"),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_a_lab_folder_that_cannot_be_read_is_one_sentence_naming_the_file(pack, case):
    breaking, sentence = BROKEN[case]
    breaking(pack / LAB)
    before = sorted(pack.rglob("*"))
    harness = pack.parent / "harness.py"
    harness.write_text(RIGHT, encoding="utf-8")
    code, printed, said = command("check", LAB, "--harness", str(harness))
    if sentence is None:
        assert code == 0, said  # builds_on is optional
        return
    assert code == 2 and printed == "" and len(said.splitlines()) == 1, said
    assert said.startswith("agentlab: ") and re.search(sentence, said), said
    assert sorted(pack.rglob("*")) == before


def test_two_labs_of_one_id_name_both_folders(pack, tmp_path, monkeypatch):
    other = tmp_path / "other"
    shutil.copytree(pack, other)
    monkeypatch.setenv(ENV, os.pathsep.join([str(pack), str(other)]))
    code, _, said = command("labs")
    assert code == 2 and said == (f"agentlab: {other / LAB}: a second lab called '{LAB}' (the "
                                  f"first is {pack / LAB}): rename one of the folders.\n")


def test_a_builds_on_naming_no_lab_says_which(pack):
    toml = pack / LAB / "lab.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace(
        "builds_on = []", 'builds_on = ["lesson9"]'), encoding="utf-8")
    code, _, said = command("labs")
    assert code == 2 and "builds_on names lesson9, which no lab before count-calls is" in said


def test_a_folder_on_the_path_that_is_not_there_is_a_sentence(monkeypatch, tmp_path):
    monkeypatch.setenv(ENV, str(tmp_path / "nowhere"))
    code, _, said = command("labs")
    assert code == 2 and said == (f"agentlab: ${ENV} names {tmp_path / 'nowhere'}, which is "
                                  "not a folder: name the folders that hold your lab folders.\n")


def test_lab_new_writes_nothing_over_a_folder_that_is_there(pack):
    before = {path: path.read_bytes() for path in (pack / LAB).iterdir()}
    code, printed, said = command("lab", "new", LAB, "--in", str(pack))
    assert code == 2 and printed == "" and "is there already" in said
    assert {path: path.read_bytes() for path in (pack / LAB).iterdir()} == before
    code, _, said = command("lab", "new", "Bad_Id", "--in", str(pack))
    assert code == 2 and "cannot be a lab id" in said and not (pack / "Bad_Id").exists()


def test_percent_check_says_a_broken_pack_in_a_sentence(pack, monkeypatch, tmp_path):
    monkeypatch.setenv("AGENTLAB_PROGRESS", str(tmp_path / "progress.json"))
    (pack / LAB / "tests.py").unlink()
    shell = InteractiveShell.instance()
    try:
        shell.run_line_magic("load_ext", "agentlab_magics")
        out = io.StringIO()
        with redirect_stdout(out):
            result = shell.run_cell(f"%%check {LAB}\n{RIGHT}")
    finally:
        InteractiveShell.clear_instance()
    assert result.success and "tests.py: missing: a lab folder holds" in out.getvalue()


def test_a_pack_toml_orders_the_packs_labs_and_names_a_folder_it_lacks(pack):
    assert command("lab", "new", "add-one", "--in", str(pack))[0] == 0
    assert list(labs())[-2:] == ["add-one", LAB]  # by name
    (pack / "pack.toml").write_text(f'labs = ["{LAB}", "add-one"]\n', encoding="utf-8")
    assert list(labs())[-2:] == [LAB, "add-one"]  # as listed, read again once it changed
    (pack / "pack.toml").write_text(f'labs = [\n  "{LAB}",\n  "add-two",\n]\n',
                                    encoding="utf-8")
    code, printed, said = command("check", LAB, "--harness", str(pack / "nothing.py"))
    assert (code, printed) == (2, "")
    assert said == (f"agentlab: {pack / 'pack.toml'}, line 3: lists 'add-two' under labs, but "
                    f"{pack} holds no lab folder of that name.\n"), said


def test_the_built_in_course_is_read_from_its_folders_in_the_order_its_pack_toml_gives():
    from agentlab_magics.course.catalog import built_in_labs
    from agentlab_magics.course.packs import BUILT_IN, lab_folders

    assert [folder.name for folder in lab_folders(BUILT_IN)] == list(built_in_labs()) == [
        "lesson1", "lesson2", "lesson3", "lesson4", "lesson5", "lesson6", "checkpoint-a",
        "checkpoint-a-test", "lesson7", "ch03-a", "ch03-a-transfer", "ch03-b"]
    lesson7 = built_in_labs()["lesson7"]
    assert lesson7.names == ["emit", "run_agent"] and lesson7.builds_on[-1] == "lesson6"
    assert built_in_labs()["checkpoint-a-test"].fresh_per_test
