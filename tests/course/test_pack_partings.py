"""A pack lab's failing run is set beside its reference's, as a built-in lab's is: made from the
reference where the lab was written (when a check first needs it, again after an edit), read
from the student copy `agentlab lab ship` writes, and, for a held-back test, said in its
message without its shapes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agentlab_magics.checking.runner import run
from agentlab_magics.course.packs import ENV
from tests.course.test_lab_packs import command

LAB = "ask-again"
LAB_TOML = '''title = "Ask again"

[names]
run_loop = "asks the model until a reply asks for nothing more, answering each call with ok"
'''
REFERENCE = '''"""The loop, once more."""


def run_loop(model, messages, prompt):
    """Add the prompt, then ask the model until a reply asks for nothing more; each call gets
    the result "ok"."""
    ### BEGIN SOLUTION
    messages.append({"role": "user", "content": prompt})
    while True:
        reply = model.complete("", messages, [])
        messages.append(reply)
        calls = [block for block in reply["content"] if block["type"] == "toolCall"]
        if not calls:
            return reply
        for call in calls:
            messages.append({"role": "toolResult", "tool_call_id": call["id"],
                             "tool_name": call["name"], "content": "ok", "is_error": False})
    ### END SOLUTION
'''
TESTS = '''from agentlab_magics import lab


def script():
    return lab.ScriptedModel([lab.reply(lab.call("read", {"path": "a"})),
                              lab.reply(lab.call("read", {"path": "b"})), lab.say("Done.")])


def test_the_loop_asks_until_the_model_answers(harness, record):
    """After each result the loop asks the model again, until a reply asks for nothing more."""
    model = script()
    messages = record([], model)
    harness.run_loop(model, messages, "Read a and b.")
    assert len(model.calls) == 3, f"The model was asked {len(model.calls)} times, not 3."
'''
HELD_BACK = '''from agentlab_magics import lab


def test_a_fourth_call_is_asked_for_too(harness, record):
    """Three calls in a row each get their result and the model is asked again."""
    model = lab.ScriptedModel([lab.reply(lab.call("read", {"path": name})) for name in "abc"]
                              + [lab.say("Done.")])
    messages = record([], model)
    harness.run_loop(model, messages, "Read a, b and c.")
    assert len(model.calls) == 4, f"The model was asked {len(model.calls)} times, not 4."
'''
# stops after the first result: the reference asks again
ONCE = REFERENCE.replace("    while True:\n", "    for _ in range(2):\n").replace(
    "        for call in calls:\n", "        for call in calls[:0] if len(messages) > 2 else calls:\n")


@pytest.fixture
def authored(tmp_path, monkeypatch) -> Path:
    """A pack on $AGENTLAB_LABS holding the lab as its author wrote it."""
    folder = tmp_path / "labs" / LAB
    folder.mkdir(parents=True)
    for name, text in (("lab.toml", LAB_TOML), ("reference.py", REFERENCE),
                       ("tests.py", TESTS), ("heldback.py", HELD_BACK)):
        (folder / name).write_text(text, encoding="utf-8")
    monkeypatch.setenv(ENV, str(folder.parent))
    return folder


def failing(report, name: str):
    outcome = next(outcome for outcome in report.outcomes if outcome.name == name)
    assert not outcome.passed
    return outcome


def test_a_failing_run_is_set_beside_the_references_where_the_lab_was_written(authored):
    assert ONCE != REFERENCE
    assert run(LAB, "", source=REFERENCE).all_passed
    outcome = failing(run(LAB, "", source=ONCE), "test_the_loop_asks_until_the_model_answers")
    assert outcome.parting is not None
    assert outcome.parting["summary"] == ("The reference makes 3 calls; yours stopped after 2.")
    assert outcome.parting["expected"][0] and outcome.parting["yours"][0] == ""


def test_an_edited_reference_is_run_again(authored):
    run(LAB, "", source=ONCE)  # the reference's runs made once
    four = TESTS.replace('lab.say("Done.")', 'lab.reply(lab.call("read", {"path": "c"})), '
                                             'lab.say("Done.")').replace("not 3", "not 4") \
        .replace("== 3", "== 4")
    (authored / "tests.py").write_text(four, encoding="utf-8")
    outcome = failing(run(LAB, "", source=ONCE), "test_the_loop_asks_until_the_model_answers")
    assert outcome.parting["summary"] == "The reference makes 4 calls; yours stopped after 2."


def test_a_held_back_test_says_where_it_parts_in_its_message(authored):
    report = run(LAB, "", source=ONCE, held_back=True)
    outcome = failing(report, "test_a_fourth_call_is_asked_for_too")
    assert outcome.parting is None
    assert outcome.message.endswith("The reference makes 4 calls; yours stopped after 2.")


def test_the_student_copy_carries_the_visible_runs_and_sets_a_failing_run_beside_them(
        authored, tmp_path, monkeypatch):
    code, printed, _ = command("lab", "ship", LAB, "--to", str(tmp_path / "students"))
    assert code == 0, printed
    copy = tmp_path / "students" / LAB
    runs = json.loads((copy / "reference-runs.json").read_text(encoding="utf-8"))
    assert set(runs) == {"test_the_loop_asks_until_the_model_answers"}  # none held back
    assert runs["test_the_loop_asks_until_the_model_answers"]["sent"] == 3
    assert not (copy / "reference.py").exists() and not (copy / "heldback.py").exists()
    shutil.rmtree(authored)
    monkeypatch.setenv(ENV, str(copy.parent))
    outcome = failing(run(LAB, "", source=ONCE), "test_the_loop_asks_until_the_model_answers")
    assert outcome.parting["summary"] == "The reference makes 3 calls; yours stopped after 2."


def test_a_copy_whose_runs_file_is_broken_still_checks(authored, tmp_path, monkeypatch):
    assert command("lab", "ship", LAB, "--to", str(tmp_path / "students"))[0] == 0
    copy = tmp_path / "students" / LAB
    (copy / "reference-runs.json").write_text("[not json", encoding="utf-8")
    monkeypatch.setenv(ENV, str(copy.parent))
    outcome = failing(run(LAB, "", source=ONCE), "test_the_loop_asks_until_the_model_answers")
    assert outcome.parting is None and outcome.message
