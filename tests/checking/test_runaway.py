"""Runaway code gets its sentence within the time limit: the caps on what a test's run builds
(the record, the model's calls, memory), an interrupt that kills the student process, and the
outcomes handed on one by one as they arrive."""

from __future__ import annotations

import os
import resource
import signal
import threading
import time

import pytest

from agentlab_magics import lab
from agentlab_magics.checking.cell_source import load
from agentlab_magics.checking.diagnosis import causes
from agentlab_magics.checking.process import StudentProcess
from agentlab_magics.checking.protocol.caps import MEMORY_CAP
from agentlab_magics.checking.runner import lab_tests, run
from agentlab_magics.course import find_lab
from agentlab_magics.lab import caps

REFERENCE = find_lab("lesson5").reference
RETURN_ON_ERROR = '        if reply["stop_reason"] == "error":\n            return reply\n'
CONTINUE_ON_ERROR = '        if reply["stop_reason"] == "error":\n            continue\n'
RECORD_SENTENCE = "The run's record grew to"
WENT_ON = "The reply at row {row} failed, and run_agent called the model again."
CALLS_SENTENCE = "after it answered \"max_calls=30 reached\""
LIMIT = 10.0
# a test that runs the loop on a stuck model with max_turns=1 (and a script that never ends)
LOOP_TESTS = ["test_max_turns_one_against_a_stuck_model"]


def write(tmp_path, text, name="harness.py"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def with_loop(body: str, top: str = "") -> str:
    """lesson 5's reference with run_agent's body replaced by `body` (and `top` at the top)."""
    start = REFERENCE.index("def run_agent")
    end = REFERENCE.index("def context_for_model")
    signature = "def run_agent(model, system, messages, tools, prompt, *, max_turns=None):\n"
    return top + REFERENCE[:start] + signature + body + "\n\n\n" + REFERENCE[end:]


def check(tmp_path, source: str, only: list[str] | None = None, timeout: float = LIMIT,
          on_outcome=None):
    return run("lesson5", write(tmp_path, source), timeout=timeout, only=only,
               on_outcome=on_outcome)


def not_passed(report):
    return [o for o in report.outcomes if not o.passed]


def test_retrying_a_failed_reply_with_continue_is_stopped_with_a_sentence(tmp_path):
    assert RETURN_ON_ERROR in REFERENCE
    report = check(tmp_path, REFERENCE.replace(RETURN_ON_ERROR, CONTINUE_ON_ERROR))
    failed = not_passed(report)
    assert report.problem is None and failed
    assert all(o.outcome == "error" for o in failed), [(o.name, o.outcome) for o in failed]
    assert any(o.record_omitted > caps.RECORD_CAP - 100 for o in failed)  # cut at the cap
    assert failed[0].message == WENT_ON.format(row=3)
    largest_child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    assert largest_child < MEMORY_CAP + (1 << 30)  # no multi-GB student process


def test_a_loop_that_appends_the_max_turns_stop_and_goes_on_is_stopped(tmp_path):
    source = REFERENCE.replace(
        '            reply = error_message(f"Agent stopped after max_turns={max_turns}")\n',
        '            messages.append(error_message(f"Agent stopped after max_turns={max_turns}"))\n'
        '            continue\n')
    report = check(tmp_path, source, only=LOOP_TESTS)
    (outcome,) = report.outcomes
    assert outcome.outcome == "error" and outcome.message == WENT_ON.format(row=3)
    assert outcome.record and outcome.record_omitted > caps.RECORD_CAP - 100


def test_a_loop_calling_the_model_past_max_calls_is_stopped(tmp_path):
    body = ("    messages.append(user_message(prompt))\n"
            "    while True:\n"
            "        model.complete(system, [user_message(prompt)], [])\n")
    report = check(tmp_path, with_loop(body), only=LOOP_TESTS)
    (outcome,) = report.outcomes
    assert outcome.outcome == "error" and CALLS_SENTENCE in outcome.message, outcome


@pytest.mark.parametrize("handler", ["except:", "except BaseException:"])
def test_code_that_catches_every_exception_and_retries_cannot_escape_a_cap(tmp_path, handler):
    calls = ("    while True:\n"
             "        try:\n"
             "            model.complete(system, [user_message(prompt)], [])\n"
             f"        {handler}\n"
             "            continue\n")
    appends = ("    while True:\n"
               "        try:\n"
               "            messages.append(user_message(prompt))\n"
               f"        {handler}\n"
               "            pass\n")
    for body, sentence in ((calls, CALLS_SENTENCE), (appends, RECORD_SENTENCE)):
        report = check(tmp_path, with_loop(body), only=LOOP_TESTS)
        (outcome,) = report.outcomes
        assert outcome.outcome == "error" and sentence in outcome.message, outcome


@pytest.mark.parametrize("allocation", ["[0] * 10**9", "bytearray(10**10)", "b'x' * 10**10",
                                        "[str(n) for n in range(10**9)]"])
def test_memory_asked_for_at_once_or_bit_by_bit_is_refused_with_a_sentence(tmp_path,
                                                                             allocation):
    body = f"    kept = {allocation}\n    return kept\n"
    report = check(tmp_path, with_loop(body), only=LOOP_TESTS)
    (outcome,) = report.outcomes
    assert outcome.outcome == "error", outcome
    assert outcome.message == caps.memory_ran_out(MEMORY_CAP >> 20)


def test_a_model_without_max_calls_stops_a_loop_after_call_cap_calls():
    model = lab.ScriptedModel([lab.forever(lambda request: lab.say("again"))])
    request = [{"role": "user", "content": "Hi."}]
    for _ in range(caps.CALL_CAP):
        model.complete("", request, [])
    for _ in range(3):  # raised again at every later call, nothing more recorded
        with pytest.raises(caps.CapReached, match="called the model 1,000 times"):
            model.complete("", request, [])
    assert len(model.calls) == caps.CALL_CAP


def test_a_model_copies_nothing_past_its_copy_cap():
    model = lab.ScriptedModel([lab.say("hello")], max_calls=None)
    huge = [{"role": "user", "content": "Hi."}] * (caps.COPY_CAP + 1)
    with pytest.raises(caps.CapReached, match="sending 200,001 messages"):
        model.complete("", huge, [])
    assert model.calls == []


def test_a_model_keeps_its_documented_in_band_error_past_max_calls():
    model = lab.ScriptedModel([lab.forever(lambda request: lab.say("again"))], max_calls=2)
    request = [{"role": "user", "content": "Hi."}]
    replies = [model.complete("", request, []) for _ in range(2 + caps.CALLS_PAST_MAX)]
    assert replies[2]["error_message"] == "ScriptedModel stopped the run: max_calls=2 reached"
    assert model.cut_off and len(model.calls) == 2 + caps.CALLS_PAST_MAX
    with pytest.raises(caps.CapReached):
        model.complete("", request, [])


@pytest.mark.parametrize("lab_id", ["lesson5", "checkpoint-a"])
def test_the_references_still_pass(tmp_path, lab_id):
    path = write(tmp_path, find_lab(lab_id).reference, f"{find_lab(lab_id).module}.py")
    report = run(lab_id, path, timeout=LIMIT)
    assert report.all_passed, [(o.name, o.message) for o in not_passed(report)]


def test_an_interrupt_kills_the_student_process_and_goes_on_up(tmp_path, monkeypatch):
    """Even a student process that holds SIGINT off is gone once KeyboardInterrupt leaves the
    check."""
    children = []
    made = StudentProcess.__init__

    def remembered(self, pid, *args, **kwargs):
        children.append(pid)
        made(self, pid, *args, **kwargs)

    monkeypatch.setattr(StudentProcess, "__init__", remembered)
    hang = "    while True:\n        pass\n"
    top = "import signal\nsignal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})\n"
    path = write(tmp_path, with_loop(hang, top))
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(1.5, os.kill, (os.getpid(), signal.SIGINT))
    try:
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            run("lesson5", path, timeout=60, only=LOOP_TESTS)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    (pid,) = children
    with pytest.raises(ChildProcessError):  # killed and reaped: no such child any more
        os.waitpid(pid, os.WNOHANG)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_a_loop_that_spins_names_its_line_and_only_the_first_test_is_waited_out():
    """Lesson 3's run_agent spinning in `while True: pass`: one cause naming the line, the first
    test waited out, every later one stopped at a glance and saying so."""
    reference = find_lab("lesson3").reference
    loop = "    while True:\n        reply = model.complete("
    assert loop in reference
    source = reference.replace(loop, "    while True:\n        pass\n" + loop, 1)
    line = source.splitlines().index("        pass")  # 1-based, the `while True:` above it
    report = run("lesson3", "", source=source, timeout=2.0)
    (cause,) = causes(report)
    assert cause.lead == (f"{len(cause.tests)} tests fail for one reason: the time ran out while "
                          f"your code was on line {line} of your cell (`while True:`): that "
                          "line never lets the run finish.")
    spun = [o for o in report.outcomes if o.name in cause.tests]
    assert len(spun) >= 8 and all(o.spun_on == line for o in spun)
    waited, *glanced = spun
    assert waited.message.startswith("This test did not finish within 2 s")
    assert all(o.message.startswith("Stopped after about 1 s, not waited out") for o in glanced)


def test_every_outcome_is_handed_on_in_order_as_it_arrives(tmp_path):
    source = REFERENCE.replace(RETURN_ON_ERROR, CONTINUE_ON_ERROR)
    seen = []
    report = check(tmp_path, source, on_outcome=seen.append)
    assert seen == report.outcomes and len(seen) == len(lab_tests(find_lab("lesson5")))
    assert {o.group for o in seen} == {"", *(test.group for test in lab_tests(find_lab("lesson5")))}
    module = load(REFERENCE, "<your cell>", "harness")
    direct = []
    report = run("lesson5", module, timeout=LIMIT, on_outcome=direct.append)
    assert direct == report.outcomes and report.all_passed


def test_the_live_line_shows_each_mark_and_the_count():
    from agentlab_magics.checking.report import MARKS, TestOutcome
    from agentlab_magics.notebook import LiveMarks

    shown = []
    marks = LiveMarks("lesson5", shown.append, every=0)
    total = len(lab_tests(find_lab("lesson5")))
    for outcome in ("passed", "failed", "timeout"):
        marks(TestOutcome(name="t", sentence="s", outcome=outcome))
    passed, failed, timeout = MARKS["passed"], MARKS["failed"], MARKS["timeout"]
    assert shown == [f"05 Failures and limits: … 0 of {total} done",
                     f"05 Failures and limits: {passed} … 1 of {total} done",
                     f"05 Failures and limits: {passed} {failed} … 2 of {total} done",
                     f"05 Failures and limits: {passed} {failed} {timeout} … 3 of {total} done"]
    marks(TestOutcome(name="t", sentence="s", outcome="passed", group="Still holds from lesson 4"))
    assert shown[-1] == (f"05 Failures and limits: {passed} {failed} {timeout} | Still holds "
                         f"from lesson 4: {passed} … 4 of {total} done")


def test_the_live_line_is_drawn_a_few_times_a_second_and_never_lags_a_slow_test():
    from agentlab_magics.checking.report import TestOutcome
    from agentlab_magics.notebook import DRAW_EVERY, LiveMarks

    shown = []
    marks = LiveMarks("lesson5", shown.append)
    started = time.monotonic()
    for _ in range(2_000):
        marks(TestOutcome(name="t", sentence="s", outcome="passed"))
    took = time.monotonic() - started
    assert 1 <= len(shown) <= 2 + took / DRAW_EVERY
    time.sleep(3 * DRAW_EVERY)  # a slow test runs: the marks before it are drawn meanwhile
    assert shown[-1].endswith(f"… 2000 of {marks.total} done")
    marks(TestOutcome(name="t", sentence="s", outcome="failed"))
    marks.close()  # the report takes the line's place: nothing is drawn after
    drawn = len(shown)
    time.sleep(2 * DRAW_EVERY)
    assert len(shown) == drawn


def test_a_loop_that_keeps_calling_a_correct_function_is_blamed_not_the_function():
    """`while tool_calls(reply): pass` spins in run_agent while tool_calls (given, correct)
    comes and goes: the line blamed is the loop's, never tool_calls's (the issue's case: the
    innermost frame at the moment the time ran out was the correct function's)."""
    reference = find_lab("lesson3").reference
    given = "        calls = tool_calls(reply)\n"
    assert given in reference
    source = reference.replace(given, "        while tool_calls(reply):\n            pass\n"
                               + given, 1)
    line = source.splitlines().index("        while tool_calls(reply):") + 1
    report = run("lesson3", "", source=source, timeout=2.0)
    spun = [o for o in report.outcomes if o.spun_on is not None]
    assert spun and all(o.spun_on == line for o in spun), [o.spun_on for o in spun]
    (cause, *_) = causes(report)
    assert (f"the time ran out while your code was on line {line} of your cell "
            "(`while tool_calls(reply):`)") in cause.lead
    said = [o.parting["summary"] for o in spun if o.parting]
    assert said and all("when the test stopped it" in summary for summary in said), said


def test_a_run_stopped_for_its_time_draws_the_record_it_had_made():
    """The record under a timeout is the record as it stood when the test stopped the run: the
    reply the loop appended before it spun is on it (it was "Record 1 message")."""
    reference = find_lab("lesson3").reference
    given = "        calls = tool_calls(reply)\n"
    source = reference.replace(given, "        print('spinning now')\n"
                               "        while tool_calls(reply):\n            pass\n" + given, 1)
    report = run("lesson3", "", source=source, timeout=2.0)
    stopped = [o for o in report.outcomes if o.spun_on is not None]
    assert stopped
    for outcome in stopped:
        roles = [message["role"] for message in outcome.record or []]
        assert roles[:2] == ["user", "assistant"], (outcome.name, roles)
    assert "spinning now" in stopped[0].output
