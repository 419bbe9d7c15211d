"""The magics in a real IPython InteractiveShell: every magic and option, and bad input."""

from __future__ import annotations

from agentlab_magics import lab
from agentlab_magics.course import find_lab
from agentlab_magics.progress import ProgressStore
from tests.two_runs import QUESTION, THEIRS, YOURS


def cell(shell, source, capsys):
    shell.run_cell(source)
    return capsys.readouterr().out


def test_loading_twice_is_harmless(shell, capsys):
    shell.run_line_magic("load_ext", "agentlab_magics")
    assert "check" in shell.magics_manager.magics["cell"]


def test_check_cell_registers_the_module_and_records_progress(shell, capsys, tmp_path):
    out = cell(shell, "%%check lesson5 --quiet\n" + find_lab("lesson5").reference, capsys)
    assert out.strip() == "05 Failures and limits: 40 of 40 tests passed"
    assert cell(shell, "import harness\nprint(harness.error_message('x')['stop_reason'])",
                capsys).strip() == "error"
    assert "run_agent" in shell.user_ns
    assert ProgressStore(tmp_path / "progress.json").lab("lesson5").passed


def test_check_line_magic_checks_the_notebooks_names(shell, capsys):
    cell(shell, find_lab("lesson5").reference, capsys)
    assert "40 of 40 tests passed" in cell(shell, "%check lesson5 --quiet", capsys)


def test_check_shows_the_report_view(shell, capsys):
    out = cell(shell, "%%check lesson5\n" + find_lab("lesson5").starter, capsys)
    assert "0 of its 10 own tests passed; 18 of 30 from earlier" in out
    assert "is not written yet" in out


def test_an_interrupt_during_check_keeps_the_results_that_finished(shell, capsys, tmp_path):
    """The student presses Interrupt while lesson 3's run_agent spins on its first run with no
    tools: the tests that finished before it stay in the report, nothing is recorded. The
    spinning code sends the SIGINT itself, so it comes exactly while that test runs."""
    import re
    import signal

    reference = find_lab("lesson3").reference
    start = "    messages.append(user_message(prompt))\n"
    interrupt = ("    if not tools:\n        import os, signal\n"
                 "        os.kill(os.getppid(), signal.SIGINT)\n"
                 "        while True:\n            pass\n")
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        out = cell(shell, "%%check lesson3 --timeout 60\n"
                   + reference.replace(start, interrupt + start, 1), capsys)
    finally:
        signal.signal(signal.SIGINT, previous)
    stopped = re.search(r"You stopped the check \(Interrupt\) after (\d+) of \d+ tests had "
                        r"finished: their results are below", out)
    assert stopped and int(stopped.group(1)) >= 3, out
    assert sum(line.startswith("✓ ") for line in out.splitlines()) == int(stopped.group(1))
    assert not ProgressStore(tmp_path / "progress.json").lab("lesson3").tests_passed


def test_check_reports_a_syntax_error_with_the_students_line(shell, capsys):
    out = cell(shell, "%%check lesson5 --quiet\nx = 1\ndef run_agent(:\n    pass\n", capsys)
    assert "Line 3 of your cell is not valid Python" in out  # line 1 is %%check and "def run_agent(:" in out
    assert "Traceback" not in out


def test_an_interrupt_before_any_test_finished_says_nothing_is_below():
    """Stopped before a test finished, the sentence keeps no promise of results below."""
    from agentlab_magics.notebook import _stopped, _test_count

    problem = _stopped("lesson3", []).problem
    assert problem == (f"You stopped the check (Interrupt) before any of its "
                       f"{_test_count('lesson3')} tests had finished: nothing was recorded. "
                       "Run the cell again to check your code.")


def test_check_reports_an_exception_with_the_students_line(shell, capsys):
    out = cell(shell, "%%check lesson5 --quiet\nx = 1\ny = undefined_name\n", capsys)
    assert "NameError: name 'undefined_name' is not defined, at line 3: y = undefined_name" in out


def test_check_timeout_option_turns_a_hang_into_a_sentence(shell, capsys):
    hanging = find_lab("lesson5").reference.replace(
        "    messages.append(user_message(prompt))\n    turn = 0",
        "    while True:\n        pass")
    out = cell(shell, "%%check lesson5 --timeout 0.2\n" + hanging, capsys)
    assert "did not finish within 0.2 s" in out


def test_bad_lab_ids_and_options_are_sentences(shell, capsys):
    assert "There is no lab called 'lesson99'" in cell(shell, "%%check lesson99\nx = 1\n", capsys)
    assert "Usage:" in cell(shell, "%%check\nx = 1\n", capsys)
    assert "Usage:" in cell(shell, "%%check lesson1 --timeout soon\nx = 1\n", capsys)


def test_an_unknown_lab_leaves_no_empty_output_behind(shell, capsys, monkeypatch):
    published = []
    publish = shell.display_pub.publish
    monkeypatch.setattr(shell.display_pub, "publish",
                        lambda data, *args, **kw: (published.append(data),
                                                   publish(data, *args, **kw)))
    said = cell(shell, "%%check lesson99\nx = 1\n", capsys)
    assert "There is no lab called 'lesson99'" in said
    assert {} not in published


def test_transcript_static_and_request(shell, capsys):
    cell(shell, "from agentlab_magics import lab\n"
                "msgs = [lab.user('hi'), lab.fail('503'), lab.user('again')]", capsys)
    out = cell(shell, "%transcript msgs --static", capsys)
    assert "assistant message has empty content" in out
    assert "request" in cell(shell, "%transcript msgs --request --static", capsys)
    assert "could not evaluate 'nope'" in cell(shell, "%transcript nope", capsys)


def test_the_magic_draws_two_runs_or_a_record_beside_its_request(shell, capsys):
    shell.user_ns.update(theirs=THEIRS, yours=YOURS,
                         outage=[QUESTION, lab.fail("503 overloaded"), lab.user("Again?")])
    shell.run_cell("%transcript theirs --diff yours")
    out = capsys.readouterr().out
    assert "The runs part at turn 2: theirs and yours hold different messages" in out
    shell.run_cell("%transcript outage --diff")
    out = capsys.readouterr().out
    assert "The runs part at turn 2" in out and "its request" in out
    shell.run_cell("%transcript theirs --diff 42")
    assert capsys.readouterr().out.startswith("%transcript --diff: Give two lists of messages")
    shell.run_cell("%transcript theirs --diff nope")
    assert "could not evaluate 'nope'" in capsys.readouterr().out


def test_the_magic_draws_a_bounded_unit_run_with_what_it_cost(shell, capsys):
    shell.run_cell("""\
from agentlab_magics.bounded import Limits, ScriptedModel, run_loop, scripted_turn
from agentlab_magics.bounded.shop import SHOP, build_tools

def unit_run(answer):
    model = ScriptedModel([scripted_turn(calls=[{"name": "list_stock"}], output_tokens=12),
                           scripted_turn(answer, output_tokens=9)])
    return run_loop(model, build_tools(SHOP), [{"role": "user", "content": "Stock?"}],
                    limits=Limits())

before, after = unit_run("Order vanilla."), unit_run("Order strawberry.")""")
    capsys.readouterr()
    drawn = cell(shell, "%transcript after --static", capsys)
    assert "COMPLETED · 2 of 8 model calls · 1 of 16 tool calls · 4 of 20 cents" in drawn
    assert "(2 cents · 9 output tokens)" in drawn and "Read as a chat-completions" in drawn
    compared = cell(shell, "%transcript before --diff after --static", capsys)
    assert "The runs part at turn 3: the same kind of messages" in compared


def test_question_commits_once_and_shows_the_commitment_again(shell, capsys, tmp_path):
    before = cell(shell, "%question a4-jumbled-order --static", capsys)
    assert "Commit an answer with %question a4-jumbled-order --answer B" in before
    assert "Right:" not in before
    committed = cell(shell, "%question a4-jumbled-order --answer 3", capsys)
    assert "Your answer" in committed and "Right: Each result right after the reply" in committed
    rerun = cell(shell, "%question a4-jumbled-order", capsys)
    assert "Your answer" in rerun and "> C." in rerun
    assert "so that one stands" in cell(shell, "%question a4-jumbled-order --answer A", capsys)
    stored = ProgressStore(tmp_path / "progress.json").lab("checkpoint-a").questions
    assert stored["a4-jumbled-order"].answer == "C"


def test_question_answers_in_own_words_and_bad_input(shell, capsys):
    out = cell(shell, '%question a8-own-words --answer "a reply whose label lies"', capsys)
    assert "Your answer" in out and "a reply whose label lies" in out
    assert "There is no question called 'nope'" in cell(shell, "%question nope", capsys)
    assert "Did you mean `%question a5-outage`?" in cell(shell, "%question a5_outage", capsys)
    assert "answer with A, B or C" in cell(shell, "%question a5-outage --answer Q", capsys)
    assert "Usage:" in cell(shell, "%question", capsys)


def test_solution_shows_the_reference_and_marks_help(shell, capsys, tmp_path):
    out = cell(shell, "%solution lesson3", capsys)
    assert out.startswith("Solution: 03 The loop\n⚠ This is the graded reference solution")
    assert '"built with help" for lesson3' in out and "def run_agent" in out
    assert ProgressStore(tmp_path / "progress.json").lab("lesson3").solution_opened
    assert "There is no lab" in cell(shell, "%solution nope", capsys)


def test_progress_map_export_and_import(shell, capsys, tmp_path):
    checked = cell(shell, "%%check lesson5 --quiet\n" + find_lab("lesson5").reference, capsys)
    shown = cell(shell, "%progress", capsys)
    assert "40 of 40 tests passed" in checked and "%%check lesson5 runs 40" in shown
    assert "in progress" in shown and "Left: answer %question l5-outage" in shown
    cell(shell, "%question l5-outage --answer A", capsys)
    assert "mastered" in cell(shell, "%progress", capsys)
    target = tmp_path / "export.json"
    assert "exported" in cell(shell, f"%progress export {target}", capsys)
    assert "Imported progress for 1 lab(s)" in cell(shell, f"%progress import {target}", capsys)
    assert "Usage" in cell(shell, "%progress sideways", capsys)
    assert "There is no progress file" in cell(shell, f"%progress import {tmp_path}/no.json", capsys)
