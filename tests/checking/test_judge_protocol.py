"""The judge against student processes that break the protocol: each test here starts a fake
student process (a few lines of Python speaking the protocol as a hostile student could) and
checks that the judge ends the test with a sentence, on time, and that the next test gets a
fresh process. The protocol's own round trip is checked too: exact types both ways, lists changed in
place, the very objects coming back."""

from __future__ import annotations

import sys
import textwrap
import time

import pytest

from agentlab_magics import lab
from agentlab_magics.checking.process import StudentProcess
from agentlab_magics.checking.protocol import frames
from agentlab_magics.checking.protocol.caps import CALLBACK_CAP, FRAME_CAP
from agentlab_magics.checking.protocol.values import Outbound
from agentlab_magics.checking.runner import run
from agentlab_magics.checking.stand_ins import Foreign, Remote, description_of
from agentlab_magics.checking.stopped import Ended, OutOfTime, Unreadable
from agentlab_magics.course import find_lab
from agentlab_magics.course.labtests.kit import takes_note

FAKE = '''
import io, os, pickle, struct, sys
from agentlab_magics.checking.protocol import VERSION
from agentlab_magics.checking.protocol.frames import Reader, write_frame

class Ids(pickle.Pickler):
    # a tree's {"$tag": ...} objects written as the protocol's ids
    def persistent_id(self, obj):
        if type(obj) is not dict or not obj or not str(next(iter(obj))).startswith("$"):
            return None
        tag = next(iter(obj))
        if tag == "$r" and "v" in obj:
            return ("$r", obj["$r"], obj.get("keep", 0), obj["v"], [])
        return (tag, *[value for key, value in obj.items()])

class Trees(pickle.Unpickler):
    # the judge's ids read as {"$tag": ...} objects
    def persistent_load(self, pid):
        if pid[0] == "$h":
            return {"$h": pid[1], "t": pid[2], "c": pid[3], "m": list(pid[4]), "a": list(pid[5])}
        if pid[0] == "$w":
            return pid[1]
        return {pid[0]: pid[1], "v": pid[2]} if len(pid) > 2 else {pid[0]: pid[1]}

inp, out = Reader(os.dup(0)), os.dup(1)
def say(message):
    message.setdefault("out", ""); message.setdefault("sync", [])
    buffer = io.BytesIO()
    ids = Ids(buffer, protocol=5)
    ids.fast = True
    ids.dump(message)
    write_frame(out, buffer.getvalue())
def hear():
    return Trees(io.BytesIO(inp.frame())).load()
def first_ref(message):
    return next(a["$r"] for a in message["a"] if type(a) is dict and type(a.get("v")) is list)
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


def one_test(lab_id: str, name: str, call: str, timeout: float = 30.0):
    """The report of `lab_id`'s test `name` against a fake student process whose every call
    does `call`."""
    return run(lab_id, "", source="pass\n", timeout=timeout, only=[name],
               launch=lambda: StudentProcess.start(fake(call)))


CHAT = "test_chat_keeps_both_messages_in_the_callers_list"  # lesson1's: a model handed over
EVENTS = "test_two_turns_tell_their_events_in_order"  # lesson7's: a listener handed over


def test_a_frame_over_the_cap_is_refused_in_a_sentence_and_the_next_test_runs():
    report = check(f"""
        os.write(out, struct.pack("<I", {FRAME_CAP + 1}))
        os.write(out, b"x" * 1000)
    """)
    assert report.problem is None and len(report.outcomes) == 7
    assert all(o.outcome == "error" for o in report.outcomes)
    assert "sent something the checker cannot read" in first(report).message
    assert "MB a frame may hold" in first(report).message


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
    assert time.monotonic() - started < 30  # the sleep's 60 s not waited out, however busy


def test_a_process_that_dies_mid_test_fails_that_test_and_a_fresh_one_goes_on():
    report = check("os._exit(7)")
    assert [o.outcome for o in report.outcomes] == ["error"] * 7
    assert "Your code ended the process running this test (it exited with code 7)" in \
        first(report).message


def test_a_flood_of_calls_back_is_cut_with_a_sentence():
    report = chat_check('''
        model = next(a for a in message["a"] if type(a) is dict and "$h" in a)
        while True:
            say({"k": "get", "h": model["$h"], "n": "max_calls"})
            hear()
    ''', timeout=30)
    assert f"{CALLBACK_CAP:,} times in one test" in first(report).message


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

def shown(value):
    return repr(value)

def nap(seconds):
    import time
    time.sleep(seconds)
    return seconds

def unplain(items):
    items.append({1})
    return {2}, [frozenset({3}), bytearray(b"x")]

def noting(listener, items):
    first = listener("a")
    items.append(1)
    listener(event="b")
    try:
        listener(1, 2)
    except TypeError as exc:
        wrong = str(exc)
    listener("c")
    return first, wrong
'''
SPIN_LINE = ECHO.splitlines().index("def spin():") + 2  # its `while True:`


@pytest.fixture
def student():
    process = StudentProcess.local()
    process.load(ECHO, "<echo>", "echo",
                 ["echo", "appender", "maker", "unplain", "noting", "caller", "spin", "shown",
                  "nap"], [], 10.0)
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

# -- a list changed in place, synced back ----------------------------------------------------

EDITS = '''
def edits(items, look):
    """Change the list handed over in place in every way, the judge looking after each."""
    import copy
    states = []

    def step():
        look()
        states.append(copy.deepcopy(items))

    class Text(str):
        pass

    items.append({"role": "user", "content": "a", "n": [1]}); step()
    items[0]["content"] += "!"; step()         # the judge's own dict, edited
    items[-1]["n"].append(2); step()           # a dict edited deep inside
    items[-1]["n"][0] = True; step()           # 1 to True, which == calls equal
    items[-1]["n"][1] = 2.0; step()            # 2 to 2.0, likewise
    items.append((1, 2)); step()
    items[-1] = [1, 2]; step()                 # a tuple replaced by an equal list
    items[0] = {"replaced": 1}; step()         # an item replaced
    items.append("s"); del items[0]; step()    # an item removed
    items.reverse(); step()                    # reordered
    items.clear(); step()
    items.extend([{"x": 1}, {"x": 1}]); step()  # cleared and refilled
    items.append(b"b"); step()
    items[-1] = bytearray(b"b"); step()        # bytes to an object that is not data
    items.append("t"); step()
    items[-1] = Text("t"); step()              # a str to a str subclass
    items[0]["s"] = "u"; step()
    items[0]["s"] = Text("u"); step()          # likewise, inside a dict kept in the list
    items.append(items); step()                # the list inside itself: a stranger
    items.pop(); items.append(items[0]); step()  # one dict twice: two equal copies there
    return states

def doubled(items, look):
    look()
    items.append(items[0])
    look()

def twice(first, second, look):
    first.append(1); look()
    second.append(2); look()

def grows(items, look, times):
    for number in range(times):
        items.append({"role": "user", "content": f"message {number:04} " + "x" * 100})
        look()
    items[0]["content"] = "edited"; look()     # an early item edited after many were kept
    items[-1]["content"] = True; look()        # an item's str to a bool
    del items[1:]; look()                      # cut back to its first item
'''


def shape(value):
    """`value` with every type named, so True and 1, a tuple and a list, a str and its
    subclass are told apart."""
    if type(value) in (list, tuple):
        return (type(value).__name__, [shape(item) for item in value])
    if type(value) is dict:
        return ("dict", [(shape(key), shape(item)) for key, item in value.items()])
    if isinstance(value, (str, int, float, bytes)) or value is None:
        return (type(value).__name__, value)
    return (type(value).__name__,)


@pytest.fixture
def editor():
    process = StudentProcess.local()
    process.load(EDITS, "<edits>", "edits", ["edits", "doubled", "twice", "grows"], [],
                 10.0)
    process.begin(10.0)
    yield process
    process.kill()


def test_a_list_changed_in_place_in_every_way_reaches_the_judge_as_it_is_there(editor):
    """After every message the judge's list is the student's list, exact types and all,
    however the code changed it: appended to, edited deep inside, replaced, removed,
    reordered, cleared and refilled, given a value equal but of another type."""
    items = [{"role": "system", "content": "s"}]
    looks = []
    states = editor.call("edits", (items, lambda: looks.append(shape(items))), {})
    assert len(looks) == len(states) == 20
    for number, (look, state) in enumerate(zip(looks, states)):
        assert look == shape(state), f"after step {number + 1}"
    assert shape(items) == shape(states[-1])


def test_one_list_handed_over_twice_ends_as_its_last_sync_says(editor):
    items = []
    looks = []
    editor.call("twice", (items, items, lambda: looks.append(list(items))), {})
    assert looks == [[], [2]] and items == [2]


def test_a_list_that_grows_crosses_as_its_new_items_and_stays_the_students(editor,
                                                                           monkeypatch):
    """A list the code appends to call after call sends the judge only the items it lacks (so
    a long run's syncs grow with the run, not with its square), and the judge's list is the
    student's after every message, an early item edited and the list cut back included."""
    received = []
    frame = frames.Reader.frame
    monkeypatch.setattr(frames.Reader, "frame",
                        lambda self, *args: received.append(len(body := frame(self, *args)))
                        or body)
    items: list = []
    looks = []
    editor.call("grows", (items, lambda: looks.append(shape(items)), 300), {})
    assert len(looks) == 303
    assert [look[1][-1] for look in looks[:300]] == [
        ("dict", [(("str", "role"), ("str", "user")),
                  (("str", "content"), ("str", f"message {number:04} " + "x" * 100))])
        for number in range(300)]
    assert looks[300][1][0][1][1] == (("str", "content"), ("str", "edited"))
    assert looks[301][1][-1][1][1] == (("str", "content"), ("bool", True))
    assert len(looks[302][1]) == 1 and shape(items) == looks[302]
    item = {"role": "user", "content": "message 0000 " + "x" * 100}
    whole = sum(len(Outbound().dumps({"v": [item] * number})) for number in range(1, 301))
    assert sum(received) < whole / 20  # each sync whole: 6.3 MB in all; as sent: 0.1 MB


@pytest.mark.parametrize("keep", ["2", "True", "1.0"])
def test_a_list_told_to_keep_items_it_lacks_is_refused(keep):
    report = chat_check(f'''
        ref = first_ref(message)
        say({{"k": "value", "v": None, "sync": [{{"$r": ref, "keep": {keep}, "v": []}}]}})
    ''')
    assert "sent something the checker cannot read" in first(report).message


def test_a_dict_of_the_judges_appended_again_to_a_list_synced_before_is_refused(editor):
    """Appended again to a list whose first items were synced back already, the judge's own
    dict would stand in two places: refused, and the list left as it was."""
    items = [{"role": "system", "content": "s"}]
    with pytest.raises(Unreadable):
        editor.call("doubled", (items, lambda: None), {})
    assert items == [{"role": "system", "content": "s"}]


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


def test_a_set_a_frozenset_and_a_bytearray_stand_here_by_their_types(student):
    """CPython's pickler writes these three without asking anyone, and the judge reads none of
    them: they cross as the student's objects, returned or put in a list handed over, and the
    process goes on."""
    items = ["a"]
    top, inside = student.call("unplain", (items,), {})
    strangers = [top, *inside, items[1]]
    assert [type(value).__name__ for value in strangers] == ["set", "frozenset", "bytearray",
                                                              "set"]
    assert all(isinstance(value, Foreign) for value in strangers)
    assert student.call("echo", (1,), {}) == ((1,), {})


def test_a_function_that_only_takes_note_is_told_one_way(student, monkeypatch):
    """The code calls a test's function that only takes note (`takes_note`) without waiting:
    the judge answers none of its calls, and they reach it with the call's answer, in one
    read, yet it hears each in order with the lists as they stood; it returns None, and a
    call its parameters do not take raises their TypeError in the code."""
    items: list = []
    heard = []

    def listener(event):
        heard.append((event, list(items)))

    sent, reads = [], []
    send, fill = StudentProcess.send, frames.Reader._fill
    monkeypatch.setattr(StudentProcess, "send", lambda self, body: sent.append(1) or send(
        self, body))
    monkeypatch.setattr(frames.Reader, "_fill", lambda self, deadline: reads.append(1) or fill(
        self, deadline))
    first, wrong = student.call("noting", (takes_note(listener), items), {})
    assert heard == [("a", []), ("b", [1]), ("c", [1])]
    assert first is None and wrong == "listener() takes 1 positional argument but 2 were given"
    assert len(sent) == 1  # the call itself: no call of the listener was answered
    assert len(reads) == 1  # the three told came with the answer


def test_a_call_that_only_takes_note_to_an_object_that_does_not_is_refused():
    report = chat_check('''
        model = next(a for a in message["a"] if type(a) is dict and "$h" in a)
        say({"k": "tell", "h": model["$h"], "a": []})
        hear()
    ''')
    assert first(report).outcome == "error"
    assert "something without waiting for its answer, which that object does not take" in \
        first(report).message


def test_a_call_that_only_takes_note_with_other_arguments_is_refused():
    report = one_test("lesson7", EVENTS, '''
        listener = message["kw"]["listener"]["$h"]
        say({"k": "tell", "h": listener, "a": [1, 2]})  # not one for each parameter
        hear()
    ''')
    assert "which that object does not take" in first(report).message


def test_a_flood_of_calls_that_only_take_note_is_cut_with_a_sentence():
    report = one_test("lesson7", EVENTS, '''
        listener = message["kw"]["listener"]["$h"]
        while True:
            say({"k": "tell", "h": listener, "a": [{"type": "run_start"}]})
    ''')
    assert f"{CALLBACK_CAP:,} times in one test" in first(report).message


def test_a_test_that_ended_leaves_the_student_process_none_of_its_objects(student):
    """The objects the student's code made in one test are forgotten before the next test's
    first call arrives (the reset goes with that call): one kept from the test before names
    nothing there, and the process ends rather than hand it back."""
    _, opaque, _, _ = student.call("maker", (), {})
    student.end()
    student.begin(10.0)
    with pytest.raises(Ended):
        student.call("echo", (opaque,), {})


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
    described = description_of(caught.value)
    assert type(caught.value) is TypeError and described.lines == [17]
    assert "'NoneType' object is not callable" in described.text


def test_a_judge_exception_reaches_the_students_code_as_its_class(student):
    def failing(arguments):
        raise FileNotFoundError("File not found: x")

    with pytest.raises(FileNotFoundError, match="File not found: x"):
        student.call("caller", (failing, {}), {})


def test_a_student_process_that_outlives_its_turn_is_killed_saying_the_line_it_spun_on(student):
    student.begin(0.2)
    with pytest.raises(OutOfTime) as caught:
        student.call("spin", (), {})
    assert not student.alive
    assert caught.value.line == SPIN_LINE and not caught.value.early


def test_a_glance_stops_a_test_only_when_it_is_on_the_line_an_earlier_test_spun_on(student):
    student.begin(5.0, glance=(0.05, SPIN_LINE))
    assert student.call("nap", (0.3,), {}) == 0.3  # asked while asleep on another line: goes on
    student.end()
    student.begin(5.0, glance=(0.05, SPIN_LINE))
    with pytest.raises(OutOfTime) as caught:
        student.call("spin", (), {})
    assert caught.value.early and caught.value.line == SPIN_LINE and not student.alive


def test_a_line_said_unasked_during_a_test_is_passed_over():
    answer = 'say({"k": "value", "v": None, "out": "", "sync": []})'
    unasked = check('say({"k": "spun", "line": 1, "out": "", "sync": []})\n' + answer)
    plain = check(answer)
    assert first(unasked).outcome == "failed" and first(unasked).message == first(plain).message


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


# -- what the red team sent (each a fake student process, or a harness) ---------------------

def chat_check(call: str, timeout: float = 5.0):
    """lesson 1's chat test against a fake whose chat does `call`."""
    return one_test("lesson1", CHAT, call, timeout)


def test_a_list_made_to_hold_itself_is_refused_and_left_as_it_was():
    report = chat_check('''
        ref = first_ref(message)
        say({"k": "value", "v": None, "sync": [{"$r": ref, "v": [{"$r": ref} for _ in range(200)]}]})
    ''')
    (outcome,) = report.outcomes
    assert "a value that holds itself, or one list or dict in two places" in outcome.message
    assert outcome.record == []  # the caller's list is as it was: empty


def test_a_list_shared_twice_over_many_messages_is_refused():
    """Each message a tree is not enough: lists written by one message and shared by the
    next make the test's own list a graph whose walk would never end."""
    report = run("lesson1", "", source="pass\n", timeout=5, only=[
        "test_chat_goes_on_from_an_earlier_conversation"],
        launch=lambda: StudentProcess.start(fake('''
        outer = first_ref(message)
        inner = [a["$r"] for a in message["a"][2]["v"]]  # the two messages' dicts
        say({"k": "get", "h": 10**6, "n": "x",
             "sync": [{"$r": outer, "v": [{"$r": inner[0], "v": {}}, {"$r": inner[1], "v": {}}]}]})
    ''')))
    (outcome,) = report.outcomes
    assert outcome.outcome == "error"


def test_contents_given_twice_for_one_reference_are_refused():
    report = chat_check('''
        ref = first_ref(message)
        say({"k": "value", "v": {"$r": ref, "v": [1]}, "sync": [{"$r": ref, "v": [2]}]})
    ''')
    assert "sent something the checker cannot read" in first(report).message


def test_an_exception_whose_arguments_are_not_plain_is_refused():
    report = chat_check('''
        ref = first_ref(message)
        say({"k": "raised", "e": {"type": "ValueError", "args": [{"$r": ref, "v": []}]}})
    ''')
    assert "a message the checker does not know" in first(report).message


def test_a_student_process_that_stops_reading_is_stopped_on_time():
    started = time.monotonic()
    report = chat_check('''
        model = next(a for a in message["a"] if type(a) is dict and "$h" in a)
        say({"k": "call", "h": model["$h"], "m": "complete", "kw": {},
             "a": ["s", [{"role": "user", "content": "x" * 1_000_000}], []]})
        hear()
        say({"k": "get", "h": model["$h"], "n": "calls"})  # a megabyte back; never read
        import time; time.sleep(600)
    ''', timeout=1.0)
    assert first(report).outcome == "timeout" and time.monotonic() - started < 60


def test_a_cap_said_while_loading_is_a_sentence():
    script = FAKE.replace('''    if message["k"] == "load":''', '''    if message["k"] == "load":
        say({"k": "cap", "length": 10_001, "edges": []})''')
    report = run("lesson1", "", source="pass\n", timeout=5,
                 launch=lambda: StudentProcess.start([sys.executable, "-c", script.replace(
                     "CALL", "pass")]))
    assert report.problem and "Traceback" not in report.problem


@pytest.mark.parametrize("source, said", [
    ('b"\\xff".decode("utf-8")\n', "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff"),
    ("raise ExceptionGroup('two', [ValueError('a'), KeyError('b')])\n", "ExceptionGroup: two"),
    ("print('\\ud800')\n", None),
    ("x = '\ud800'\n", "holds a character that is not text"),
])
def test_loading_what_python_itself_chokes_on_is_a_sentence(source, said):
    report = run("lesson1", "", source=source)
    if said is None:
        assert report.problem is None
    else:
        assert said in report.problem and "Traceback" not in report.problem


def test_printed_and_raised_lone_surrogates_reach_the_report_as_escapes():
    source = ("def user_message(text):\n    print('\\ud800 hello')\n"
              "    raise ValueError('\\udfff')\n")
    report = run("lesson1", "", source=source, only=["test_user_message_is_role_and_content"])
    (outcome,) = report.outcomes
    assert "\\ud800 hello" in outcome.output and "\\udfff" in outcome.message
    report.model_dump_json()  # every text is UTF-8


def test_the_classes_made_for_a_students_names_are_the_checks_own():
    names = "[type(f'C{n}', (Exception,), {})('x') for n in range(3000)]"
    crowded = StudentProcess.local()
    crowded.load(f"def many():\n    return {names}\n", "<c>", "c", ["many"], [], 10.0)
    crowded.begin(30.0)
    made = crowded.call("many", (), {})
    crowded.kill()
    assert len(crowded.bridge.strangers.made) <= 1_000 and len(made) == 3000
    fresh = StudentProcess.local()
    fresh.load("class CheckFailed(AssertionError):\n    pass\n\ndef fail():\n"
               "    raise CheckFailed('no')\n", "<f>", "f", ["fail"], [], 10.0)
    fresh.begin(10.0)
    with pytest.raises(AssertionError) as caught:
        fresh.call("fail", (), {})
    fresh.kill()
    assert type(caught.value).__name__ == "CheckFailed"


def test_a_handle_shows_only_its_kind(student):
    model = lab.ScriptedModel([lab.say("hi")])
    assert student.call("shown", (model,), {}) == "<ScriptedModel>"


def test_a_student_process_dies_with_its_judge():
    import os
    import signal
    import subprocess

    judge = subprocess.Popen([sys.executable, "-c", (
        "import sys, time\n"
        "from agentlab_magics.checking.process import StudentProcess\n"
        "process = StudentProcess.local()\n"
        "process.load('def spin():\\n    while True:\\n        pass\\n', '<s>', 's', ['spin'],"
        " [], 10.0)\n"
        "print(process.pid, flush=True)\n"
        "process.begin(600.0)\n"
        "process.call('spin', (), {})\n")], stdout=subprocess.PIPE, text=True)
    pid = int(judge.stdout.readline())
    time.sleep(0.3)
    os.kill(judge.pid, signal.SIGKILL)
    judge.wait()
    for _ in range(50):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)
    raise AssertionError("the student process outlived its judge")

