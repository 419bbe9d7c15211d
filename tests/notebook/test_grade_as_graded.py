"""A graded cell in the student's notebook checks the code as the grader does: every test of
the lab's check in one student process, in `%%check`'s order, the cell's group cut from it. So
code that keeps something from one test to the next (here `chat` sends the whole list only once
`text_of` has run in the process) gets in the graded cell what `%%check` said and what the
grader scores, not another verdict because the group's tests ran alone."""

from __future__ import annotations

from agentlab_magics.checking.runner import run
from agentlab_magics.grading.groups import group_tests

KEEPS_STATE = '''
SYSTEM = "You are a helpful assistant."
_text_read = []


def user_message(text):
    return {"role": "user", "content": text}


def text_of(message):
    _text_read.append(True)
    return "".join(b["text"] for b in message["content"] if b["type"] == "text")


def chat(model, system, messages, text):
    messages.append(user_message(text))
    reply = model.complete(system, messages if _text_read else messages[-1:], [])
    messages.append(reply)
    return reply
'''


def test_the_chat_tests_alone_would_fail_this_code():
    """The premise: run alone, in a process where text_of never ran, two chat tests fail."""
    alone = run("lesson1", "", source=KEEPS_STATE, only=group_tests("lesson1", "chat"))
    assert [outcome.outcome for outcome in alone.outcomes] == [
        "passed", "failed", "failed", "passed"]


def test_a_graded_cell_says_what_check_said_of_code_that_keeps_state(shell, capsys):
    shell.run_cell(f"%%check lesson1 --quiet\n{KEEPS_STATE}")
    assert capsys.readouterr().out.strip() == "01 The conversation is a list: 7 of 7 tests passed"
    result = shell.run_cell('from agentlab_magics.grading import grade\ngrade("lesson1", "chat")')
    assert result.error_in_exec is None, capsys.readouterr().out
    assert "4 of 4 tests passed" in capsys.readouterr().out


def test_the_grader_scores_that_code_as_check_said():
    """The grader's scoring (`score_jobs`: the judge apart, a sandboxed student process) gives
    each graded cell of lesson1 full marks, as %%check and the graded cell say."""
    from agentlab_magics.grading.autograde import score_jobs
    from agentlab_magics.grading.cells import GradeCall

    calls = [GradeCall("lesson1", "messages", False), GradeCall("lesson1", "chat", False)]
    reports = score_jobs(calls, {"lesson1": KEEPS_STATE}, hidden=[])
    assert [(report.passed, report.total) for report in reports] == [(3, 3), (4, 4)]
