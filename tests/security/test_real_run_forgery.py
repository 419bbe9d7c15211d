"""Forged forks of the optional lab real-run: a student's `run_app` (their cell holds it, so it
is theirs to rewrite) that returns the run a fixed app would make without driving the fork, or
drives it only in part, or sends the model the buggy app's request and returns a fixed run. The fork test
earns no point for any of them, and the tests they leave alone still pass."""

from __future__ import annotations

import pytest

from agentlab_instructor.optional_labs import FOLDER
from agentlab_magics.checking.runner import run
from agentlab_magics.course.lab_folder import reference_of

FORK_TEST = "test_the_fork_with_your_fix_is_accepted_from_the_turn_it_went_wrong"
# the run a fixed app makes, written out; each forgery returns it, and does or asks what it says
RUN_WRITTEN_OUT = '''
def _written_out(files, prompt, max_chars):
    notes = lab.call("read_file", {"path": "notes.md"}, id="call_notes_001")
    todo = lab.call("read_file", {"path": "todo.txt"}, id="call_todo_002")
    return [lab.user(prompt), lab.reply(notes, todo),
            lab.tool_result(notes, files["notes.md"]), lab.tool_result(todo, files["todo.txt"]),
            lab.say("notes.md covers eighteen weeks of meetings; todo.txt has two open items.")]
'''
FORGERIES = {
    "never asks the model": '''
def run_app(model, files, prompt, max_chars=LIMIT):
    return _written_out(files, prompt, max_chars)
''',
    "asks the recorded call only": '''
def run_app(model, files, prompt, max_chars=LIMIT):
    model.complete(SYSTEM, [lab.user(prompt)], [READ_FILE])
    return _written_out(files, prompt, max_chars)
''',
    "sends the app's own request and returns a fixed run": '''
def run_app(model, files, prompt, max_chars=LIMIT):
    run = _written_out(files, prompt, max_chars)
    model.complete(SYSTEM, [lab.user(prompt)], [READ_FILE])
    model.complete(SYSTEM, [run[0], run[1], run[3]], [READ_FILE])
    return run
''',
}


@pytest.mark.parametrize("forgery", list(FORGERIES))
def test_a_forged_fork_earns_no_point(monkeypatch, forgery):
    monkeypatch.setenv("AGENTLAB_LABS", str(FOLDER))
    reference = reference_of((FOLDER / "real-run" / "reference.py").read_text(encoding="utf-8"))
    report = run("real-run", "", source=reference + RUN_WRITTEN_OUT + FORGERIES[forgery])
    failed = {outcome.name for outcome in report.outcomes if not outcome.passed}
    assert failed == {FORK_TEST}, [(o.name, o.message) for o in report.outcomes]
