"""The runner survives whatever student code does, and says what happened in a sentence."""

from __future__ import annotations

import threading
import time

import pytest

from agentlab_magics.checking.cell_source import load
from agentlab_magics.checking.runner import run
from agentlab_magics.course import UnknownLab, find_lab, labs

REFERENCE = find_lab("lesson5").reference


def write(tmp_path, text, name="harness.py"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def with_loop(body: str) -> str:
    """lesson 5's reference with run_agent's body replaced by `body`."""
    start = REFERENCE.index("def run_agent")
    end = REFERENCE.index("def context_for_model")
    signature = "def run_agent(model, system, messages, tools, prompt, *, max_turns=None):\n"
    return REFERENCE[:start] + signature + body + "\n\n\n" + REFERENCE[end:]


def test_unknown_lab_lists_the_known_ones():
    with pytest.raises(UnknownLab) as caught:
        find_lab("lesson99")
    assert "There is no lab called 'lesson99'" in str(caught.value)
    assert all(lab_id in str(caught.value) for lab_id in labs())


@pytest.mark.parametrize("alias", ["lesson06", "6", "Lesson 6", " LESSON6 "])
def test_aliases_name_lesson6(alias):
    assert find_lab(alias).id == "lesson6"


def test_a_syntax_error_names_the_students_line(tmp_path):
    report = run("lesson5", write(tmp_path, "def run_agent(:\n    pass\n"))
    assert report.outcomes == [] and not report.all_passed
    assert report.problem.startswith("Line 1 of harness.py is not valid Python")
    assert "def run_agent(:" in report.problem


def test_an_exception_while_loading_names_the_students_line(tmp_path):
    report = run("lesson5", write(tmp_path, "x = 1\ny = {}['missing']\n"))
    assert report.problem == ("Running harness.py raised KeyError: 'missing', at line 2: "
                              "y = {}['missing']")


def test_sys_exit_while_loading_is_reported(tmp_path):
    report = run("lesson5", write(tmp_path, "import sys\nsys.exit(3)\n"))
    assert report.problem == "Running harness.py raised SystemExit: 3, at line 2: sys.exit(3)"


def test_a_missing_file_is_a_sentence(tmp_path):
    report = run("lesson5", tmp_path / "nowhere.py")
    assert report.problem.startswith("There is no file") and "harness.py" in report.problem


def test_student_exceptions_and_exits_inside_tests_are_outcomes(tmp_path):
    raising = with_loop("    raise KeyError('oops')")
    report = run("lesson5", write(tmp_path, raising))
    loop_tests = [o for o in report.outcomes if o.outcome == "error"]
    assert loop_tests and all("Your code raised KeyError: 'oops', at line" in o.message
                              for o in loop_tests)
    exiting = with_loop("    import sys\n    sys.exit(1)")
    report = run("lesson5", write(tmp_path, exiting))
    assert any("SystemExit" in o.message for o in report.outcomes)


def test_printing_student_code_does_not_reach_our_output(tmp_path, capsys):
    noisy = REFERENCE.replace('    messages.append(user_message(prompt))\n    turn = 0',
                              '    print("DEBUG", prompt)\n    messages.append(user_message(prompt))\n'
                              '    turn = 0')
    report = run("lesson5", write(tmp_path, noisy))
    assert report.all_passed
    assert "DEBUG" not in capsys.readouterr().out


def test_a_hang_becomes_a_timeout_naming_the_test(tmp_path):
    hanging = with_loop("    while True:\n        pass")
    started = time.monotonic()
    report = run("checkpoint-a", write(tmp_path, hanging), timeout=0.2)
    elapsed = time.monotonic() - started
    timed_out = [o for o in report.outcomes if o.outcome == "timeout"]
    # the 20 tests that run the loop time out; on a busy machine one that does not may too
    assert len(timed_out) >= 20 and elapsed < 45  # no test waits much past its 0.2 s
    assert {o.outcome for o in report.outcomes} <= {"timeout", "passed", "failed"}
    assert "did not finish within 0.2 s" in timed_out[0].message
    assert timed_out[0].sentence.startswith("A job that needs three files")


def test_a_hang_that_swallows_exceptions_still_times_out(tmp_path):
    stubborn = with_loop("    while True:\n        try:\n            time.sleep(10)\n"
                         "        except Exception:\n            pass")
    report = run("lesson5", write(tmp_path, "import time\n" + stubborn), timeout=0.2)
    assert any(o.outcome == "timeout" for o in report.outcomes)


def test_the_deadline_works_off_the_main_thread(tmp_path):
    hanging = with_loop("    while True:\n        pass")
    reports = []
    worker = threading.Thread(target=lambda: reports.append(
        run("lesson5", write(tmp_path, hanging), timeout=0.2)))
    worker.start()
    worker.join(60)
    assert reports and any(o.outcome == "timeout" for o in reports[0].outcomes)


def test_a_student_that_mutates_its_input_is_caught_not_crashing(tmp_path):
    mutating = REFERENCE.replace(
        '    return [message for message in messages',
        '    messages[:] = [m for m in messages if m.get("stop_reason") != "error"]\n'
        '    return [message for message in messages')
    report = run("lesson5", write(tmp_path, mutating))
    failed = {o.name for o in report.outcomes if o.outcome == "failed"}
    assert "test_context_for_model_drops_only_empty_failures" in failed


def test_every_starter_fails_its_lab_with_sentences_not_tracebacks(tmp_path):
    for lab_id, lab in labs().items():
        report = run(lab_id, write(tmp_path, lab.starter, f"{lab.module}.py"))
        assert report.problem is None, (lab_id, report.problem)
        assert not report.all_passed and report.outcomes, lab_id
        for outcome in report.outcomes:
            assert "Traceback" not in outcome.message and outcome.sentence, (lab_id, outcome)


def test_a_failing_test_keeps_the_record_its_run_left(tmp_path):
    believing = with_loop(
        "    messages.append(user_message(prompt))\n"
        "    while True:\n"
        "        reply = model.complete(system, context_for_model(messages), tool_specs(tools))\n"
        "        messages.append(reply)\n"
        "        if reply['stop_reason'] != 'toolUse':\n"
        "            return reply\n"
        "        for call in tool_calls(reply):\n"
        "            messages.append(run_tool(tools, call))")
    report = run("checkpoint-a", write(tmp_path, believing))
    labelled = next(o for o in report.outcomes if o.name == "test_a_call_labelled_stop_is_still_run")
    assert labelled.outcome == "failed" and "labelled 'stop'" in labelled.message
    assert [m["role"] for m in labelled.record] == ["user", "assistant"]


def test_only_runs_the_named_tests(tmp_path):
    report = run("lesson5", write(tmp_path, REFERENCE), only=["test_error_message_shape"])
    assert [o.name for o in report.outcomes] == ["test_error_message_shape"]


def test_a_module_can_be_checked_directly():
    module = load(REFERENCE, "<cell>")
    assert run("lesson5", module).all_passed
