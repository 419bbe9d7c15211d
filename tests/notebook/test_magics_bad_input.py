"""Bad input to the magics, in a real IPython InteractiveShell: every case is a sentence.

Unclosed quotes, impossible time limits, a progress file that cannot be read, an export to
a place that cannot be written: the cell runs without an exception and prints what to do.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentlab_magics.course import find_lab
from agentlab_magics.progress import ProgressStore


def said(shell, source, capsys) -> str:
    """What the cell printed; it must have run without an exception or a traceback."""
    result = shell.run_cell(source)
    out, err = capsys.readouterr()
    assert result.success, (out, err, result.error_in_exec)
    assert "Traceback" not in out + err and "Error" not in err, (out, err)
    return out


def stored(tmp_path) -> ProgressStore:
    return ProgressStore(tmp_path / "progress.json")


@pytest.mark.parametrize("line, sentence", [
    ('%question a8-own-words --answer "it\'s',
     '%question: the line opens a " quote and never closes it: put the closing " after the '
     'last word.'),
    ("%question a8-own-words --answer it's",
     "%question: the line opens a ' quote and never closes it: close it, or, if it is an "
     "apostrophe, put the words in double quotes (\"it's\")"),
    ('%%check lesson1 --timeout "3\nx = 1\n',
     '%%check: the line opens a " quote and never closes it'),
    ('%progress export "my progress.json',
     '%progress: the line opens a " quote and never closes it'),
    ("%question a8-own-words --answer words\\",
     "%question: the line ends with a backslash (\\) that escapes nothing"),
])
def test_an_unclosed_quote_is_a_sentence_with_the_usage(shell, capsys, tmp_path, line, sentence):
    out = said(shell, line, capsys)
    assert sentence in out and "Usage: %" in out
    assert "No closing quotation" not in out
    assert stored(tmp_path).lab("checkpoint-a").questions == {}


def test_a_closed_quote_still_carries_an_apostrophe(shell, capsys, tmp_path):
    out = said(shell, '%question a8-own-words --answer "it\'s a reply whose label lies"', capsys)
    assert "Your answer" in out
    answer = stored(tmp_path).lab("checkpoint-a").questions["a8-own-words"].answer
    assert answer == "it's a reply whose label lies"


@pytest.mark.parametrize("timeout", ["0", "-1", "nan", "inf", "soon", "100000"])
def test_an_impossible_time_limit_is_a_sentence(shell, capsys, timeout):
    """The magic reads the limit as `agentlab check` and the checker do (one reading of it):
    a day at most, so 100000 is refused at the line, not by a traceback from the checker."""
    out = said(shell, f"%%check lesson1 --timeout {timeout}\nx = 1\n", capsys)
    assert "argument --timeout: The time limit must be a number of seconds above 0 and at " \
           f"most 86400 (a day), such as 10; '{timeout}' is not." in out
    assert "Usage: %%check" in out and "Traceback" not in out


def test_transcript_reads_its_expression_as_python(shell, capsys):
    said(shell, "from agentlab_magics import lab\n"
                "runs = {'first run': [lab.user(\"it's me\"), lab.fail('503')]}", capsys)
    out = said(shell, "%transcript runs['first run'] --static", capsys)
    assert "it's me" in out
    assert "there is no option --statik" in said(shell, "%transcript runs --statik", capsys)
    assert "give the messages to draw" in said(shell, "%transcript --static", capsys)


def test_an_unreadable_progress_file_is_told_once_and_kept(shell, capsys, tmp_path):
    path = tmp_path / "progress.json"
    path.write_bytes(b"\xff\xfe not a progress file")
    first = said(shell, "%progress", capsys)
    [backup] = tmp_path.glob("progress.json.corrupt-*")
    assert f"Your progress file {path} was unreadable" in first and str(backup) in first
    assert backup.read_bytes() == b"\xff\xfe not a progress file"
    assert "unreadable" not in said(shell, "%progress", capsys)


def test_check_and_question_tell_of_a_file_set_aside_and_still_record(shell, capsys, tmp_path):
    path = tmp_path / "progress.json"
    path.write_text("[" * 100_000)
    out = said(shell, "%%check lesson5 --quiet\n" + find_lab("lesson5").reference, capsys)
    assert "was unreadable: it is not a progress file (its JSON is nested too deeply" in out
    assert "40 of 40 tests passed" in out and stored(tmp_path).lab("lesson5").passed
    path.write_text(json.dumps({"version": 3}))
    out = said(shell, "%question a4-jumbled-order --answer C --static", capsys)
    assert "was unreadable: it is not a progress file (version" in out and "Your answer" in out
    assert len(list(tmp_path.glob("progress.json.corrupt-*"))) == 2


def test_progress_that_cannot_be_saved_is_said_and_the_solution_stays_closed(
        shell, capsys, tmp_path):
    (tmp_path / "progress.json").mkdir()  # the store's path is a folder: nothing can be saved
    out = said(shell, "%solution lesson3", capsys)
    assert "is a folder: set AGENTLAB_PROGRESS" in out and "def run_agent" not in out
    out = said(shell, "%question a4-jumbled-order --answer C --static", capsys)
    assert "Your answer was not committed" in out and "Right:" not in out
    out = said(shell, "%%check lesson5 --quiet\n" + find_lab("lesson5").reference, capsys)
    assert "40 of 40 tests passed" in out and "is a folder: set AGENTLAB_PROGRESS" in out


def test_export_and_import_problems_are_sentences(shell, capsys, tmp_path):
    said(shell, "%question a4-jumbled-order --answer C --static", capsys)
    cases = {
        "%progress export /": "/ is a folder: give a file name in it",
        f"%progress export {tmp_path}/no/such/folder/p.json": "There is no folder",
        f"%progress export {tmp_path}/progress.json/x.json": "is a file, not a folder",
        f"%progress import {tmp_path}/missing.json": "There is no progress file at",
        f"%progress import {tmp_path}": "is a folder: give the progress file in it",
        "%progress export": "Usage: %progress",
    }
    if Path("/sys").is_dir():
        cases["%progress export /sys/agentlab.json"] = "could not be written to /sys/agentlab.json"
    for line, sentence in cases.items():
        assert sentence in said(shell, line, capsys), line
    garbage = tmp_path / "garbage.json"
    garbage.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    out = said(shell, f"%progress import {garbage}", capsys)
    assert "is not UTF-8 text (byte 0x89 at position 0). Nothing was imported" in out
    assert garbage.read_bytes() == b"\x89PNG\r\n\x1a\n\x00\x00"
    assert list(stored(tmp_path).data.labs) == ["checkpoint-a"]
