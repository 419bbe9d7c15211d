"""The judge against student processes that break the protocol: each test here starts a fake
student process (a few lines of Python speaking `wire` as a hostile student could) and checks
that the judge ends the test with a sentence, on time, and that the next test gets a fresh
process. The protocol's own round trip is checked too: exact types both ways, lists changed in
place, the very objects coming back."""

from __future__ import annotations

import sys
import textwrap
import time

import pytest

from agentlab_magics import lab
from agentlab_magics.checking.judge import (
    CROSSING_CAP, Ended, Foreign, OutOfTime, Remote, StudentProcess, Unreadable, crossing_of)
from agentlab_magics.checking.runner import run
from agentlab_magics.checking.wire import FRAME_CAP
from agentlab_magics.course import find_lab

FAKE = '''
import json, os, struct, sys
from agentlab_magics.checking.wire import VERSION, Reader, write_frame

inp, out = Reader(os.dup(0)), os.dup(1)
def say(message):
    message.setdefault("out", ""); message.setdefault("sync", [])
    write_frame(out, message)
def hear():
    return inp.frame()
say({"k": "hello", "version": VERSION, "pid": os.getpid()})
while True:
    message = hear()
    if message["k"] == "load":
        say({"k": "loaded", "names": {name: True for name in message["names"]}})
    elif message["k"] == "call":
        CALL
'''


def fake(call: str, hello: str | None = None) -> list[str]:
    """The command of a fake student process that answers every call with `call` (Python
    lines, `message` the judge's call, `say` and `hear` the conversation)."""
    script = FAKE.replace("CALL", textwrap.indent(textwrap.dedent(call), " " * 8).strip())
    if hello is not None:
        script = script.replace('say({"k": "hello", "version": VERSION, "pid": os.getpid()})',
                                hello)
    return [sys.executable, "-c", script]


def check(call: str, lab_id: str = "lesson1", timeout: float = 2.0, hello: str | None = None):
    """The report of `lab_id`'s visible tests against the fake student process."""
    return run(lab_id, "", source="pass\n", timeout=timeout,
               launch=lambda: StudentProcess.start(fake(call, hello)))


def first(report):
    return report.outcomes[0]


def test_a_frame_over_the_cap_is_refused_in_a_sentence_and_the_next_test_runs():
    report = check(f"""
        os.write(out, struct.pack("<I", {FRAME_CAP + 1}))
        os.write(out, b"x" * 1000)
    """)
    assert report.problem is None and len(report.outcomes) == 7
    assert all(o.outcome == "error" for o in report.outcomes)
    assert "sent something the checker cannot read" in first(report).message
    assert "MB a frame may hold" in first(report).message


def test_json_nested_past_the_interpreters_limit_is_refused():
    report = check('''os.write(out, struct.pack("<I", 200_001) + b"[" * 100_000 + b"]" * 100_001)''')
    assert "sent something the checker cannot read" in first(report).message


def test_a_message_the_protocol_does_not_know_is_refused():
    for said in ('say({"k": "value", "v": 1, "extra": True})', 'say({"k": "teleport"})',
                 'say({"k": "raised", "e": {"type": 5}})', 'say({"k": "call", "h": "1"})'):
        report = check(said)
        assert first(report).outcome == "error", said
        assert "a message the checker does not know" in first(report).message, said


def test_a_handle_never_lent_is_refused():
    report = check('say({"k": "call", "h": 999, "m": "__call__", "a": [], "kw": {}})')
    assert "named an object the checker never handed it" in first(report).message


def test_a_reference_to_a_list_of_a_call_that_returned_is_refused():
    """The lists handed to a call come back only while that call runs: a student process
    cannot rewrite, later, a list the test keeps from an earlier call."""
    process = StudentProcess.start(fake('''
        refs = [a["$r"] for a in message["a"] if type(a) is dict and "$r" in a]
        if refs and refs[0] != 1:  # the second call: write into the first call's list
            say({"k": "value", "v": {"$r": 1, "v": ["forged"]}})
        else:
            say({"k": "value", "v": None})
    '''))
    kept = ["mine"]
    process.begin(5.0)
    process.call("f", ([1],), {})  # the list [1] is reference 1, good for that call only
    with pytest.raises(Unreadable):
        process.call("f", (kept,), {})
    assert kept == ["mine"] and not process.alive


def test_a_process_that_never_answers_times_out_within_the_limit():
    started = time.monotonic()
    report = check("import time; time.sleep(60)", timeout=0.3)
    assert all(o.outcome == "timeout" for o in report.outcomes)
    assert "did not finish within 0.3 s" in first(report).message
    assert time.monotonic() - started < 7 * 0.3 + 10


def test_a_process_that_dies_mid_test_fails_that_test_and_a_fresh_one_goes_on():
    report = check("os._exit(7)")
    assert [o.outcome for o in report.outcomes] == ["error"] * 7
    assert "Your code ended the process running this test (it exited with code 7)" in \
        first(report).message


def test_a_flood_of_calls_back_is_cut_with_a_sentence():
    report = run("lesson1", "", source="pass\n", timeout=30, only=[
        "test_chat_keeps_both_messages_in_the_callers_list"], launch=lambda: StudentProcess.start(
            fake('''
        model = next(a for a in message["a"] if type(a) is dict and "$h" in a)
        while True:
            say({"k": "get", "h": model["$h"], "n": "max_calls"})
            hear()
    ''')))
    assert f"{CROSSING_CAP:,} times in one test" in first(report).message


def test_printed_output_is_cut():
    report = check('say({"k": "value", "v": None, "out": "x" * 1_000_000})')
    assert len(first(report).output) < 5_000
    assert "more characters of output left out" in first(report).output


def test_a_wrong_version_at_hello_is_a_sentence_not_a_traceback():
    report = check("pass", hello='say({"k": "hello", "version": 999, "pid": 1})')
    assert report.problem.startswith("The checker could not start the process")
    assert "reinstall agentlab_magics" in report.problem


# -- the round trip --------------------------------------------------------------------------

ECHO = '''
def echo(*args, **kwargs):
    return args, kwargs

def appender(items):
    items.append(len(items))
    return items

def maker():
    class Reply(dict):
        pass
    class Opaque:
        pass
    return [Reply(role="assistant"), Opaque(), lambda x: x + 1, (1, True, 1.0, "1", b"1", None)]

def caller(handle, *args):
    return handle(*args)

def spin():
    while True:
        pass
'''


@pytest.fixture
def student():
    process = StudentProcess.local()
    process.load(ECHO, "<echo>", "echo", ["echo", "appender", "maker", "caller", "spin"], [], 10.0)
    process.begin(10.0)
    yield process
    process.kill()


def test_values_cross_with_their_exact_types(student):
    value = (1, True, 1.0, "1", b"1", None, [1], {"a": 1}, {1: "int key", (2, 3): "tuple"},
             float("nan"), float("inf"), 10**40, "é\ud800")
    args, kwargs = student.call("echo", value, {"k": [(1,)]})
    assert [type(x) for x in args] == [type(x) for x in value]
    assert args[:9] == value[:9] and args[10:] == value[10:] and args[9] != args[9]
    assert kwargs == {"k": [(1,)]} and type(kwargs["k"][0]) is tuple


def test_a_list_handed_over_is_changed_in_place_and_comes_back_itself(student):
    items = ["a"]
    returned = student.call("appender", (items,), {})
    assert returned is items and items == ["a", 1]


def test_what_is_not_data_stands_here_by_its_type_and_goes_back_as_itself(student):
    reply, opaque, function, plain = student.call("maker", (), {})
    assert type(reply).__name__ == "Reply" and isinstance(reply, dict) and type(reply) is not dict
    assert reply == {"role": "assistant"}
    assert isinstance(opaque, Foreign) and type(opaque).__name__ == "Opaque"
    assert isinstance(function, Remote) and function(41) == 42
    assert plain == (1, True, 1.0, "1", b"1", None)
    assert student.call("caller", (function, 1), {}) == 2  # the very function, called there
    (back,), _ = student.call("echo", (opaque,), {})
    assert back is opaque


def test_the_judges_objects_cross_as_handles_whose_methods_call_back(student):
    model = lab.ScriptedModel([lab.say("hi")])
    heard = []
    reply = student.call("caller", (model.complete, "system", [lab.user("Hi.")], []), {})
    assert reply == lab.say("hi") and len(model.calls) == 1
    assert student.call("caller", (heard.append, {"type": "x"}), {}) is None
    assert heard == [{"type": "x"}]


def test_an_exception_crosses_as_its_class_with_the_students_line(student):
    with pytest.raises(TypeError) as caught:
        student.call("caller", (None,), {})
    crossed = crossing_of(caught.value)
    assert type(caught.value) is TypeError and crossed.lines == [17]
    assert "'NoneType' object is not callable" in crossed.text


def test_a_judge_exception_reaches_the_students_code_as_its_class(student):
    def failing(arguments):
        raise FileNotFoundError("File not found: x")

    with pytest.raises(FileNotFoundError, match="File not found: x"):
        student.call("caller", (failing, {}), {})


def test_a_student_process_that_outlives_its_turn_is_killed(student):
    student.begin(0.2)
    with pytest.raises(OutOfTime):
        student.call("spin", (), {})
    assert not student.alive


def test_a_process_killed_from_outside_is_a_sentence(student):
    import os
    import signal

    os.kill(student.pid, signal.SIGKILL)
    with pytest.raises(Ended) as caught:
        student.call("echo", (), {})
    assert "stopped by SIGKILL" in caught.value.args[0]


def test_the_reference_checked_twice_in_a_row_passes_both_times():
    source = find_lab("lesson7").reference
    assert run("lesson7", "", source=source).all_passed
    assert run("lesson7", "", source=source).all_passed
