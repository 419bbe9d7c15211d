"""The local checker (`agentlab check`) against code that exits, hangs, floods, patches or lies.

Each attack is a harness file a student could write; the check must end on time with a
complete report, exit 0 only when every test truly passed, and stay small.
"""

import json
import subprocess
import sys
import time

import pytest

from agentlab_magics.checking.runner import lab_tests
from agentlab_magics.course import find_lab
from tests.security.forgeries import (
    BREACHES, BUILTINS_IN_THE_WINDOW, CTYPES_TRACEBACK, EXPECTED_EMPTIED, FILEIO_TURNCOAT,
    FORGE_CHANNEL, FORGE_CHANNEL_AT, GUARD_EMPTIED, HANDMADE_CODE, JSON_REWRITTEN,
    LAB_MODULE_CLASS, LYING_CODE_FILE_NAME, LYING_FILE_NAME, LYING_FSPATH, PLANTED_LISTENER,
    PROC_BEHIND_OS_PATH, RESTORING_EXACT, SIGNAL_FRAME, SIGNAL_IN_THE_WINDOW)

REFERENCE = find_lab("lesson5").reference
SIGNATURE = REFERENCE[REFERENCE.index("def run_agent"):]
SIGNATURE = SIGNATURE[:SIGNATURE.index("\n") + 1]
STARTER = find_lab("lesson5").starter  # error_message, context_for_model and run_agent unwritten


def loop_doing(body: str) -> str:
    """lesson 5's reference whose run_agent first does `body` (indented lines)."""
    return REFERENCE.replace(SIGNATURE, SIGNATURE + body + "\n", 1)


ATTACKS = {
    "exit at import": "import os\nos._exit(0)\n" + REFERENCE,
    "exit in a tested function": loop_doing("    import os; os._exit(0)"),
    "alarm ignored, then a hang": loop_doing(
        "    import signal; signal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
        "    signal.setitimer(signal.ITIMER_REAL, 0)\n    while True: pass"),
    "a thread left running": loop_doing(
        "    import threading, time; threading.Thread(target=time.sleep, args=(600,)).start()"),
    "recursion past a raised limit": loop_doing(
        "    import sys; sys.setrecursionlimit(10**8)\n"
        "    def down(n): return down(n + 1) + 1\n    return down(0)"),
    "a hang while loading": "while True: pass\n" + REFERENCE,
    "a record of a million messages": loop_doing(
        "    messages.extend([{'role': 'user', 'content': 'hi'}] * 1_000_000)"),
    "the judge patched at import": (
        "import agentlab_magics.checking.isolated as iso\n"
        "iso._judge = lambda *a: ('passed', '')\n" + REFERENCE),
    "the runtime patched at import": "import lab\nlab.validate = lambda *a, **k: []\n" + REFERENCE,
    "the collector asked for every object": "import gc\ngc.get_objects()\n" + REFERENCE,
    "a frame read for the checker's state": loop_doing(
        "    import sys; sys._getframe(2).f_locals.clear()"),
    "the answer imported from the course": (
        REFERENCE + "\nfrom agentlab_magics.reference.loops import reference as run_agent\n"),
    "a fake report on every descriptor": "import os\n" + "".join(
        f"try: os.write({fd}, b'{{\"event\": \"done\", \"k\": 0, \"outcome\": \"passed\"}}')\n"
        f"except OSError: pass\n" for fd in range(3, 20)) + "os._exit(0)\n",
    "the outcomes forged through /proc at import": FORGE_CHANNEL,
    "the outcomes forged through /proc in a test": "def run_agent(*args, **kwargs):\n" + "".join(
        f"    {line}\n" for line in FORGE_CHANNEL.strip().splitlines()),
    "code objects made by hand": HANDMADE_CODE + "import os\nos._exit(0)\n",
    "the course's own loop called": REFERENCE.replace(SIGNATURE, SIGNATURE + (
        "    import loops\n"
        "    return loops.reference(model, system, messages, tools, prompt, max_turns=max_turns)\n"
        "    # the student's own loop, never reached:\n"), 1),
    "the course's own context called": REFERENCE + (
        "\ndef context_for_model(messages):\n    import loops\n"
        "    return loops._sendable(messages)\n"),
    # a pidfd signals as os.kill does, with no audit event: the test child would stop, or
    # kill, the checker that watches it.
    "the checker stopped through a pidfd": (
        "import os, signal\n"
        "signal.pidfd_send_signal(os.pidfd_open(os.getppid()), signal.SIGSTOP)\n" + REFERENCE),
    "the checker killed through a pidfd": (
        "import os, signal\n"
        "signal.pidfd_send_signal(os.pidfd_open(os.getppid()), signal.SIGKILL)\n" + REFERENCE),
    # The starter, its three gaps filled with the course's own answers wrapped in
    # functools.partial: not a FunctionType, so neither _owns_its_names nor StudentModule's
    # wrapper looks at it, and no frame of the student's file is on the stack when it announces.
    "the course's answers behind functools.partial": STARTER + (
        "import functools as _functools\nfrom agentlab_magics.reference import loops as _loops\n"
        "error_message = _functools.partial(_loops._stopped)\n"
        "context_for_model = _functools.partial(_loops._sendable)\n"
        "run_agent = _functools.partial(_loops.reference)\n"),
    "a lying __file__, read while loading": STARTER + LYING_FILE_NAME,
    "a lying __file__, read while judging a test": STARTER + LYING_FILE_NAME.replace(
        "if _CHECKED:\n    __file__", "def error_message(text):\n    global __file__\n    __file__"),
    "a lying code file name, read by the answer check": STARTER + LYING_CODE_FILE_NAME,
    "the outcomes forged through /proc opened at a directory": STARTER + FORGE_CHANNEL_AT,
    "the outcomes forged through a path that lies about itself": STARTER + LYING_FSPATH,
    "the guard's tables emptied and its rule rebound": STARTER + GUARD_EMPTIED,
    "the report rewritten in json on its way out": STARTER + JSON_REWRITTEN,
    "the builtins rebound to run where the guard is open": STARTER + BUILTINS_IN_THE_WINDOW,
    "the checker's frame read through ctypes": STARTER + CTYPES_TRACEBACK,
    "the outcomes forged through /proc behind a patched os.path": STARTER + PROC_BEHIND_OS_PATH,
    "a signal handler's frame walked to the report": STARTER + SIGNAL_FRAME,
    "a timer's signal handled while the guard is open": STARTER + SIGNAL_IN_THE_WINDOW,
    "the outcomes forged through /proc behind io.FileIO": STARTER + FILEIO_TURNCOAT,
}
# Attacks that work today (their test is a strict xfail), each with the hole it goes through.
WORKS: dict[str, str] = {}
# Every test a lesson-5 check runs: its own and those it carries from earlier lessons.
LESSON5_TESTS = len(lab_tests(find_lab("lesson5")))


def check(tmp_path, source: str, *extra: str) -> subprocess.CompletedProcess:
    path = tmp_path / "harness.py"
    path.write_text(source, encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "agentlab_magics", "check", "lesson5",
                           "--harness", str(path), "--timeout", "1", *extra],
                          capture_output=True, text=True, timeout=70)


def check_lab(tmp_path, lab_id: str, source: str) -> tuple[int, dict]:
    """`agentlab check LAB --json` of `source`: its exit code and report."""
    path = tmp_path / "harness.py"
    path.write_text(source, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "agentlab_magics", "check", lab_id,
                           "--harness", str(path), "--json"],
                          capture_output=True, text=True, timeout=120)
    return done.returncode, json.loads(done.stdout)


def earned_beyond_the_starter(tmp_path, lab_id: str, added: str) -> set[str]:
    """The tests the lab's starter with `added` passes that the starter alone does not."""
    passed = [{o["name"] for o in check_lab(tmp_path, lab_id, source)[1]["outcomes"]
               if o["outcome"] == "passed"}
              for source in (find_lab(lab_id).starter, find_lab(lab_id).starter + added)]
    return passed[1] - passed[0]


@pytest.mark.parametrize("name", [
    pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=WORKS[name]))
    if name in WORKS else name for name in ATTACKS])
def test_an_attack_never_passes_and_the_check_ends_with_a_report(tmp_path, name):
    started = time.monotonic()
    done = check(tmp_path, ATTACKS[name], "--json")
    assert done.returncode == 1, done.stdout[-2000:]
    report = json.loads(done.stdout)  # --json prints the report and nothing else
    assert report["problem"] or any(o["outcome"] != "passed" for o in report["outcomes"])
    assert report["problem"] or len(report["outcomes"]) == LESSON5_TESTS
    assert len(done.stdout) < 1_000_000
    assert time.monotonic() - started < 60


@pytest.mark.parametrize("name", BREACHES)
def test_what_has_no_audit_event_is_taken_away(tmp_path, name):
    """Lesson 1's user_message that first does the breach: its test passes only if it went
    through."""
    code, report = check_lab(tmp_path, "lesson1", f"def user_message(text):\n    {BREACHES[name]}\n"
                             "    return {'role': 'user', 'content': text}\n")
    outcome = {o["name"]: o for o in report["outcomes"]}["test_user_message_is_role_and_content"]
    assert code == 1 and outcome["outcome"] != "passed", outcome


def test_a_flood_of_output_is_cut_and_costs_nothing_else(tmp_path):
    done = check(tmp_path, loop_doing("    print('x' * 50_000_000)"), "--json")
    report = json.loads(done.stdout)
    assert done.returncode == 0 and len(report["outcomes"]) == LESSON5_TESTS
    assert all(len(o["output"]) < 5_000 for o in report["outcomes"])
    assert any("more characters of output left out" in o["output"] for o in report["outcomes"])
    assert len(done.stdout) < 1_000_000


def test_the_reference_still_passes_with_its_report_alone_on_stdout(tmp_path):
    done = check(tmp_path, "print('noise from the student')\n" + REFERENCE, "--json")
    assert done.returncode == 0
    report = json.loads(done.stdout)
    assert len(report["outcomes"]) == LESSON5_TESTS and report["problem"] is None


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "1e10", "ten"])
def test_a_time_limit_must_be_finite_and_positive(tmp_path, value):
    done = check(tmp_path, REFERENCE, "--timeout", value)
    assert done.returncode == 2
    assert "The time limit must be a number of seconds above 0" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_bounded_units_own_admission_rule_earns_nothing(tmp_path):
    path = tmp_path / "harness.py"
    path.write_text("def decide_admission(case):\n"
                    "    from agentlab_magics.bounded.admission import decide_admission\n"
                    "    return decide_admission(case)\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "agentlab_magics", "check", "ch03-a",
                           "--harness", str(path), "--json"],
                          capture_output=True, text=True, timeout=120)
    report = json.loads(done.stdout)
    assert done.returncode == 1 and not any(o["outcome"] == "passed" for o in report["outcomes"])
    assert "the course's own decide_admission" in report["outcomes"][0]["message"]


# Patches a student could hope guard.Snapshot misses: one that puts itself back before the test
# ends, and one that changes a module's class rather than its names. Lesson 1's starter with
# them must still pass nothing it does not earn.
SNAPSHOT_TRIALS = {"a self-restoring exact": RESTORING_EXACT,
                   "the lab module's class swapped": LAB_MODULE_CLASS}


@pytest.mark.parametrize("name", SNAPSHOT_TRIALS)
def test_lesson1s_starter_with_a_patch_never_passes(tmp_path, name):
    path = tmp_path / "harness.py"
    path.write_text(find_lab("lesson1").starter + SNAPSHOT_TRIALS[name], encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "agentlab_magics", "check", "lesson1",
                           "--harness", str(path), "--json"],
                          capture_output=True, text=True, timeout=70)
    report = json.loads(done.stdout)
    assert done.returncode == 1
    assert not any(o["outcome"] == "passed" for o in report["outcomes"]), report


def test_checkpoint_as_buggy_loop_earns_nothing_the_starter_does_not(tmp_path):
    """Lesson 3 asks for run_agent and none of the helpers buggy calls: buggy itself must
    announce what it answers."""
    assert not earned_beyond_the_starter(tmp_path, "lesson3", "\n" + SIGNATURE + (
        "    import loops\n"
        "    return loops.buggy(model, system, messages, tools, prompt, max_turns=max_turns)\n"))


def test_a_tests_expected_values_emptied_in_place_earn_nothing(tmp_path):
    assert not earned_beyond_the_starter(tmp_path, "lesson2", EXPECTED_EMPTIED)


def test_lesson7s_events_come_only_from_what_the_listener_was_told(tmp_path):
    """A run that tells nothing and plants, in the listener it is handed, a list that makes the
    events up from the record: every test of the events fails; only emit's and the failing
    listener's tests, which it does pass, stand."""
    code, report = check_lab(tmp_path, "lesson7", find_lab("lesson7").reference + PLANTED_LISTENER)
    own = [o for o in report["outcomes"] if not o["group"]]
    passed = {o["name"] for o in own if o["outcome"] == "passed"}
    assert code == 1 and len(own) > 2
    assert passed <= {"test_emit_tells_the_listener_the_event",
                      "test_a_listener_that_fails_does_not_stop_the_run"}, passed


def test_the_text_report_shows_the_students_control_characters_as_escapes(tmp_path):
    """An exception whose words move a terminal's cursor up and rewrite the summary as full
    marks: the text report prints the escapes, never the characters themselves."""
    rewrite = "\\x1b[2A\\x1b[G\\x1b[2K05 Failures and limits: 40 of 40 tests passed\\r"
    done = check(tmp_path, loop_doing(f"    raise ValueError('{rewrite}')"))
    assert done.returncode == 1
    assert "\x1b" not in done.stdout and "\r" not in done.stdout
    assert "\\x1b[2A" in done.stdout and "\\x0d" in done.stdout


ADMISSION_WORKS: dict[str, str] = {}
ADMISSION_ATTACKS = {
    "the visible cases emptied in place": (
        "from agentlab_magics.bounded.admission import VISIBLE_CASES as _cases\n"
        "def decide_admission(case):\n    _cases.clear()\n    return 'CALL'\n"),
    "an exception whose sentence patches exact": (
        "import sys as _sys\n\n"
        "class _Described(Exception):\n"
        "    def __str__(self):\n"
        "        _module = _sys.modules['agentlab_magics.course.labtests.admission']\n"
        "        _real = vars(_module)['exact']\n"
        "        def _fake(*args, **kwargs):\n"
        "            _module.exact = _real\n"
        "            return True\n"
        "        _module.exact = _fake\n"
        "        return 'described'\n\n"
        "def decide_admission(case):\n    raise _Described()\n"),
    "the admission rule behind functools.partial": (
        "import functools as _functools\n"
        "from agentlab_magics.bounded import admission as _admission\n"
        "decide_admission = _functools.partial(_admission.decide_admission)\n"),
}
# Which test each must not pass: the visible-cases test for the one that empties its table.
ADMISSION_TARGET = {"the visible cases emptied in place": "test_the_visible_cases"}


@pytest.mark.parametrize("name", [
    pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=ADMISSION_WORKS[name]))
    if name in ADMISSION_WORKS else name for name in ADMISSION_ATTACKS])
def test_an_admission_attack_earns_nothing(tmp_path, name):
    path = tmp_path / "admission.py"
    path.write_text(ADMISSION_ATTACKS[name], encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "agentlab_magics", "check", "ch03-a",
                           "--harness", str(path), "--json"],
                          capture_output=True, text=True, timeout=120)
    report = json.loads(done.stdout)
    target = ADMISSION_TARGET.get(name)
    passed = [o["name"] for o in report["outcomes"] if o["outcome"] == "passed"]
    assert done.returncode == 1
    assert (target not in passed) if target else not passed, report
