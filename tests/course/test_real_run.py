"""The optional lab real-run (agentlab_instructor.optional_labs): a real Agents SDK trace with a
dropped result and a retried call, found with %transcript and fixed from a fork. Its own tests
reject every one-edit mutant of its reference; its files are what the traced tool returned; a
student's notebook draws the trace and checks a fix in a real kernel; and a round of nbgrader
grades it through the sandbox, data files and all."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from agentlab_instructor.optional_labs import FOLDER
from agentlab_magics.checking.runner import run as run_check
from agentlab_magics.course.lab_folder import reference_of
from tests.docs.hand_in_answers import hand_in
from tests.traces.test_read_run import assert_notes_app

LAB = FOLDER / "real-run"
BIN = Path(sys.executable).parent
# honest styles of the two answers, each written as a student might (the given code above them)
HONEST = {
    "comprehension": '''
FORK_AT = 1

def fork_at():
    return FORK_AT

def _sent(message, max_chars):
    text = message["content"]
    if message["role"] != "toolResult" or len(text) <= max_chars:
        return message
    return dict(message, content=text[:max_chars] + f"\\n... {len(text) - max_chars} characters cut")

def request_for(messages, max_chars=LIMIT):
    return [_sent(message, max_chars) for message in messages]
''',
    "deep copy, then cut in place": '''
import copy

def fork_at():
    return 2 - 1

def request_for(messages, max_chars=LIMIT):
    request = copy.deepcopy(messages)
    for message in request:
        if message["role"] == "toolResult" and len(message["content"]) > max_chars:
            over = len(message["content"]) - max_chars
            message["content"] = message["content"][:max_chars] + "\\n[cut " + str(over) + " chars]"
    return request
''',
    "generator and keyword": '''
def fork_at():
    calls_before_the_refused_one = 1
    return calls_before_the_refused_one

def _each(messages, limit):
    for message in messages:
        if message.get("role") == "toolResult" and len(message.get("content", "")) > limit:
            kept, gone = message["content"][:limit], len(message["content"]) - limit
            message = {**message, "content": f"{kept}\\n({gone} characters were cut)"}
        yield message

def request_for(messages, max_chars=LIMIT):
    return list(_each(messages, limit=max_chars))
''',
    "index loop over a shallow copy": '''
def fork_at():
    return int("1")

def request_for(messages, max_chars=LIMIT):
    out = list(messages)
    for i in range(len(out)):
        m = out[i]
        if m["role"] == "toolResult":
            c = m["content"]
            if len(c) > max_chars:
                n = len(c) - max_chars
                out[i] = {k: (f"{c[:max_chars]}\\n<{n} characters cut>" if k == "content" else v)
                          for k, v in m.items()}
    return out
''',
    "typed, with logging": '''
import logging
from typing import Any

log = logging.getLogger("notes-app")

def fork_at() -> int:
    return 1

def request_for(messages: list[dict[str, Any]], max_chars: int = LIMIT) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []
    for message in messages:
        if message["role"] == "toolResult" and len(message["content"]) > max_chars:
            log.info("cutting %s", message["tool_call_id"])
            cut = len(message["content"]) - max_chars
            message = {**message, "content": message["content"][:max_chars] + f" [cut {cut}]"}
        sent.append(message)
    return sent
''',
    "a dataclass and a namedtuple": '''
from collections import namedtuple
from dataclasses import dataclass

Answer = namedtuple("Answer", "calls")

@dataclass(frozen=True)
class Budget:
    chars: int

    def fit(self, text):
        over = len(text) - self.chars
        return text if over <= 0 else f"{text[:self.chars]}\\n[{over} characters cut]"

def fork_at():
    return Answer(calls=1).calls

def request_for(messages, max_chars=LIMIT):
    budget = Budget(max_chars)
    return [dict(m, content=budget.fit(m["content"])) if m["role"] == "toolResult" else m
            for m in messages]
''',
}
WRONG = '''
def fork_at():
    return 2


def request_for(messages, max_chars=LIMIT):
    return [message for message in messages
            if not (message["role"] == "toolResult" and len(message["content"]) > max_chars)]
'''
FORK = '''files = {name: open(name).read() for name in ("notes.md", "todo.txt")}
forked = run_app(lab.fork("notes_app.jsonl", at_call=fork_at(),
                          model=lab.ScriptedModel([lab.say("Summary.")])),
                 files, "Summarise notes.md and tell me what is left in todo.txt.")'''


def run(*command: str, cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run([str(BIN / command[0]), *command[1:]], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{command}: {done.stdout[-3000:]}{done.stderr[-3000:]}"
    return done.stdout


@pytest.fixture
def env(tmp_path) -> dict[str, str]:
    return {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
            "AGENTLAB_LABS": str(FOLDER), "HOME": str(tmp_path / "home"),
            "AGENTLAB_EXCHANGE": str(tmp_path / "exchange"),
            "AGENTLAB_PROGRESS": str(tmp_path / "progress.json"),
            "JUPYTER_CONFIG_DIR": str(tmp_path / "jupyter-config")}


def answer(wrong: bool = False, style: str | None = None) -> str:
    """A student's whole cell: the reference, the given code with an honest `style` of the
    answers, or with the app's own bug and a fork one call too late."""
    right = reference_of((LAB / "reference.py").read_text(encoding="utf-8"))
    given = right.split("\ndef fork_at")[0]
    return given + WRONG if wrong else given + HONEST[style] if style else right


@pytest.mark.parametrize("style", list(HONEST))
def test_every_honest_style_passes_every_test_held_back_or_not(tmp_path, monkeypatch, style):
    monkeypatch.setenv("AGENTLAB_LABS", str(FOLDER))
    harness = tmp_path / "harness.py"
    harness.write_text(answer(style=style), encoding="utf-8")
    for held_back, count in ((False, 6), (True, 8)):
        report = run_check("real-run", harness, held_back=held_back)
        assert report.passed == count and not report.problem, report.model_dump()


def test_the_lab_rejects_every_mutant_of_its_reference(env, tmp_path):
    said = run("agentlab", "lab", "verify", str(LAB), cwd=tmp_path, env=env)
    assert re.search(r"^real-run: (\d+) mutants, \1 killed, 0 equivalent, 0 survived", said,
                     re.M), said
    assert "fails" not in said


def test_the_trace_is_the_apps_and_its_files_are_what_its_tool_returned():
    from agentlab_magics import lab

    assert_notes_app(lab.read_run(LAB / "notes_app.jsonl"))
    returned = {json.loads(span["span_data"]["input"])["path"]: span["span_data"]["output"]
                for span in map(json.loads, (LAB / "notes_app.jsonl").read_text().splitlines())
                if span.get("span_data", {}).get("type") == "function" and not span.get("error")}
    assert returned == {name: (LAB / name).read_text() for name in ("notes.md", "todo.txt")}


def test_a_students_notebook_draws_the_trace_and_checks_the_fix(env, tmp_path, monkeypatch):
    """The assignment's notebook, built as students get it, run in a real kernel beside its
    files: the transcript flags the dropped result and the retry; the starter's check fails,
    a fix's passes, and the fork's diff parts at the turn it went wrong."""
    run("agentlab", "notebooks", str(tmp_path / "mine"), cwd=tmp_path, env=env)
    folder = tmp_path / "mine" / "real-run"
    assert {"notes_app.jsonl", "notes.md", "todo.txt"} <= {p.name for p in folder.iterdir()}
    notebook = nbformat.read(folder / "real-run.ipynb", as_version=4)
    added = ["%transcript notes_app.jsonl --static", f"%%check real-run\n{answer()}", FORK,
             "%transcript notes_app.jsonl --diff forked --static"]
    notebook.cells += [nbformat.v4.new_code_cell(source) for source in added]
    for key in ("AGENTLAB_LABS", "AGENTLAB_PROGRESS"):
        monkeypatch.setenv(key, env[key])
    NotebookClient(notebook, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(folder)}}).execute()
    printed = ["".join(output.get("text", "") or output.get("data", {}).get("text/plain", "")
                       for output in cell.get("outputs", [])) for cell in notebook.cells]
    checks = [text for cell, text in zip(notebook.cells, printed)
              if cell.source.startswith("%%check real-run")]
    drawn, _, _, diffed = printed[-4:]
    assert "toolCall call_notes_001 has no toolResult" in drawn
    assert "request sent 2 times, each one billed" in drawn
    assert "1 of 6 tests passed" in checks[0] and "6 of 6 tests passed" in checks[-1]
    assert "The runs part at turn 2" in diffed


def test_a_round_of_nbgrader_grades_it_in_the_sandbox(env, tmp_path):
    """Eight points: six visible tests and two held back. The starter keeps the record as it
    was; the app's own bug, forked a call late, keeps only what it leaves alone. In the
    sandbox, the kernel's magics read the students' copy of the lab, data files and all."""
    run("agentlab", "course", "init", "course", cwd=tmp_path, env=env)
    course = tmp_path / "course"
    assert {"notes_app.jsonl", "notes.md", "todo.txt"} <= {
        path.name for path in (course / "source" / "real-run").iterdir()}
    run("nbgrader", "generate_assignment", "real-run", cwd=course, env=env)
    run("nbgrader", "release_assignment", "real-run", cwd=course, env=env)
    hand_in(course, "real-run", {"right": answer(), "starter": None,
                                 "wrong": answer(wrong=True)})
    said = run("agentlab", "course", "autograde", "real-run", cwd=course, env=env)
    scores = dict(re.findall(r"^(right|starter|wrong)\s+graded\s+(\d+/\d+)", said, re.M))
    assert scores == {"right": "8/8", "starter": "1/8", "wrong": "3/8"}, said
    graded = nbformat.read(course / "autograded" / "right" / "real-run" / "real-run.ipynb",
                           as_version=4)
    checked = next(cell for cell in graded.cells if cell.source.startswith("%%check real-run"))
    assert "not checked. Checked by the grader" in json.dumps(checked.outputs), checked.outputs
