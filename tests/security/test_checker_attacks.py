"""The local checker (`agentlab check`) against code that exits, hangs, floods, patches, forges
or lies.

Each attack is a harness file a student could write. A disruption (lesson 5's reference that
misbehaves) must end on time with a complete, small report and exit 1; a forgery (appended to
a lab's starter) must earn exactly what the starter earns, however much of its own process it
rewrites: the tests and their verdicts live in another process.
"""

import json
import subprocess
import sys

import pytest

from agentlab_magics.checking.runner import lab_tests
from agentlab_magics.course import find_lab
from tests.security.forgeries import (
    COUNTING_CHECK,
    EMPTIED_TOOLS,
    EXPECTED_EMPTIED,
    FINALIZER_PATCH,
    FRAME_FORGER,
    JSON_REWRITTEN,
    LAB_MODULE_CLASS,
    NO_CHECK,
    PLANTED_LISTENER,
    RESTORING_EXACT,
    SYNC_KEEPS_TOO_MUCH,
    SYNC_UNCHANGED,
)

REFERENCE = find_lab("lesson5").reference
SIGNATURE = REFERENCE[REFERENCE.index("def run_agent"):]
SIGNATURE = SIGNATURE[:SIGNATURE.index("\n") + 1]
STARTER = find_lab("lesson5").starter  # error_message, context_for_model and run_agent unwritten


def loop_doing(body: str) -> str:
    """lesson 5's reference whose run_agent first does `body` (indented lines)."""
    return REFERENCE.replace(SIGNATURE, SIGNATURE + body + "\n", 1)


DISRUPTIONS = {
    "exit at import": "import os\nos._exit(0)\n" + REFERENCE,
    "exit in a tested function": loop_doing("    import os; os._exit(0)"),
    "alarm ignored, then a hang": loop_doing(
        "    import signal; signal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
        "    signal.setitimer(signal.ITIMER_REAL, 0)\n    while True: pass"),
    "a thread left running, then a hang": loop_doing(
        "    import threading, time; threading.Thread(target=time.sleep, args=(600,)).start()\n"
        "    while True: pass"),
    "recursion past a raised limit": loop_doing(
        "    import sys; sys.setrecursionlimit(10**8)\n"
        "    def down(n): return down(n + 1) + 1\n    return down(0)"),
    "a hang while loading": "while True: pass\n" + REFERENCE,
    "a record of a million messages": loop_doing(
        "    messages.extend([{'role': 'user', 'content': 'hi'}] * 1_000_000)"),
    "a child process left running": loop_doing(
        "    import subprocess; subprocess.Popen(['sleep', '600'])\n    raise ValueError('no')"),
    "the checker's process stopped and started": loop_doing(
        "    import os, signal; os.kill(os.getppid(), signal.SIGSTOP)\n"
        "    os.kill(os.getppid(), signal.SIGCONT)\n    raise ValueError('no')"),
    "the answer imported from the course": (
        REFERENCE + "\nfrom agentlab_magics.reference.loops import reference as run_agent\n"),
    "a fake answer written to every descriptor": "import os\n" + "".join(
        f"try: os.write({fd}, b'\\x10\\x00\\x00\\x00{{\"k\": \"value\"}}')\n"
        "except OSError: pass\n" for fd in range(20)) + loop_doing("    raise ValueError('no')"),
}
# Every test a lesson-5 check runs: its own and those it carries from earlier lessons.
LESSON5_TESTS = len(lab_tests(find_lab("lesson5")))

# Forgeries: each appended to a lab's starter, each must earn exactly what the same code earns
# without its forging (the starter, or the functions it defines as a student would write them:
# HONEST_PART).
FORGERIES = {
    ("lesson1", "frames, greenlets, ctypes and the collector"): FRAME_FORGER,
    ("lesson5", "frames, greenlets, ctypes and the collector"): FRAME_FORGER,
    ("lesson7", "frames, greenlets, ctypes and the collector"): FRAME_FORGER,
    ("checkpoint-a-test", "frames, greenlets, ctypes and the collector"): FRAME_FORGER,
    ("ch03-b", "frames, greenlets, ctypes and the collector"): FRAME_FORGER,
    ("lesson1", "a finalizer that patches exact"): FINALIZER_PATCH,
    ("lesson1", "a self-restoring exact"): RESTORING_EXACT,
    ("lesson1", "the lab module's class swapped"): LAB_MODULE_CLASS,
    ("lesson1", "json rewritten"): JSON_REWRITTEN,
    ("lesson2", "the tests' expected values emptied in place"): EXPECTED_EMPTIED,
    ("lesson2", "the tools handed over emptied"): EMPTIED_TOOLS,
    ("checkpoint-a-test", "a check that counts instead of looking"): COUNTING_CHECK,
    ("checkpoint-a-test", "no check at all"): NO_CHECK,
    ("lesson1", "syncs that say the caller's list is unchanged"): SYNC_UNCHANGED,
    ("lesson1", "syncs that keep more than the judge holds"): SYNC_KEEPS_TOO_MUCH,
    ("lesson3", "syncs that say the caller's list is unchanged"): SYNC_UNCHANGED,
    ("lesson3", "syncs that keep more than the judge holds"): SYNC_KEEPS_TOO_MUCH,
    ("lesson5", "the judge patched in the student's process"): (
        "import agentlab_magics.checking.runner as _runner\n"
        "_runner.Trial.judged = lambda *args: ('passed', '')\n"),
}


# Seconds after which a check is taken never to end: each of its tests is stopped after a
# second at most, so this only fails a check that hangs, however busy the machine.
NEVER_ENDS = 600
# The disruptions that only spin are stopped sooner: each of lesson 5's 40 tests spins to its
# limit (40 s of CPU at 1 s), and what they prove (the judge's clock, not the student's alarm or
# threads, ends the test) holds at any limit. Recursion keeps 1 s, long enough to reach the
# memory cap.
SPINNING = {"alarm ignored, then a hang", "a thread left running, then a hang"}
SPIN_LIMIT = "0.3"


def check(tmp_path, source: str, *extra: str, timeout: str = "1"
          ) -> subprocess.CompletedProcess:
    """`agentlab check lesson5` of `source`, each test given `timeout` seconds."""
    path = tmp_path / "harness.py"
    path.write_text(source, encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "agentlab_magics", "check", "lesson5",
                           "--harness", str(path), "--timeout", timeout, *extra],
                          capture_output=True, text=True, timeout=NEVER_ENDS)


def check_lab(tmp_path, lab_id: str, source: str) -> tuple[int, dict]:
    """`agentlab check LAB --json` of `source`: its exit code and report."""
    path = tmp_path / f"{find_lab(lab_id).module}.py"
    path.write_text(source, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "agentlab_magics", "check", lab_id,
                           "--harness", str(path), "--json"],
                          capture_output=True, text=True, timeout=120)
    return done.returncode, json.loads(done.stdout)


HONEST_PART = {
    EXPECTED_EMPTIED: "def tool_calls(message):\n    return [{}, {}]\n",
    EMPTIED_TOOLS: "def tool_specs(tools):\n    return []\n",
    # a blind check can only always pass (the reference's test) or always fail
    COUNTING_CHECK: ("from agentlab_magics import lab\n\ndef script():\n"
                     "    return [lab.say('The port is 9090.')]\n\n"
                     "def check(model, messages, final):\n    pass\n"),
    NO_CHECK: ("from agentlab_magics import lab\n\ndef script():\n"
               "    return [lab.say('The port is 9090.')]\n"),
    LAB_MODULE_CLASS: ("def chat(model, system, messages, text):\n"
                       "    messages.append(None)\n    messages.append(None)\n"),
}


def earned_beyond_the_starter(tmp_path, lab_id: str, added: str) -> set[str]:
    """The tests the lab's starter with `added` passes that the starter with only the honest
    part of `added` (HONEST_PART, or nothing) does not."""
    starter = find_lab(lab_id).starter
    passed = [{o["name"] for o in check_lab(tmp_path, lab_id, source)[1]["outcomes"]
               if o["outcome"] == "passed"}
              for source in (starter + HONEST_PART.get(added, ""), starter + added)]
    return passed[1] - passed[0]


@pytest.mark.parametrize("name", DISRUPTIONS)
def test_a_disruption_never_passes_and_the_check_ends_with_a_report(tmp_path, name):
    done = check(tmp_path, DISRUPTIONS[name], "--json",
                 timeout=SPIN_LIMIT if name in SPINNING else "1")
    report = json.loads(done.stdout)  # --json prints the report and nothing else
    # 1: a test failed; 2: the code could not be checked at all; never 0
    assert done.returncode == (2 if report["problem"] else 1), done.stdout[-2000:]
    assert report["problem"] or any(o["outcome"] != "passed" for o in report["outcomes"])
    assert report["problem"] or len(report["outcomes"]) == LESSON5_TESTS
    assert len(done.stdout) < 1_000_000


@pytest.mark.parametrize("lab_id, name", FORGERIES,
                         ids=[f"{lab_id}: {name}" for lab_id, name in FORGERIES])
def test_a_forgery_earns_exactly_what_the_starter_earns(tmp_path, lab_id, name):
    assert not earned_beyond_the_starter(tmp_path, lab_id, FORGERIES[(lab_id, name)])


def test_the_frame_forger_does_reach_its_own_frames(tmp_path):
    """The forger is no dud: in the student's process it finds and rewrites frames (a
    reference with it still passes, since there is nothing of the judge's to rewrite)."""
    code, report = check_lab(tmp_path, "lesson1", find_lab("lesson1").reference + FRAME_FORGER
                             + "\nprint('frames seen:', len(_every_frame()))\n")
    assert code == 0 and report["problem"] is None


@pytest.mark.parametrize("lie", [SYNC_UNCHANGED, SYNC_KEEPS_TOO_MUCH],
                         ids=["unchanged", "keeps too much"])
def test_lying_syncs_do_reach_the_judge_and_cost_the_reference_its_list_tests(tmp_path, lie):
    """The sync liars are no duds: lesson1's reference with one fails the tests that look at
    the caller's list (the judge holds what the process said, or refuses it), and passes the
    rest."""
    failed = {o["name"] for o in check_lab(tmp_path, "lesson1", find_lab("lesson1").reference
                                           + lie)[1]["outcomes"] if o["outcome"] != "passed"}
    assert "test_chat_keeps_both_messages_in_the_callers_list" in failed
    assert "test_user_message_is_role_and_content" not in failed


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
    done = check(tmp_path, REFERENCE, timeout=value)
    assert done.returncode == 2
    assert "The time limit must be a number of seconds above 0" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("lab_id, name, added", [
    ("ch03-a", "decide_admission",
     "from agentlab_magics.bounded.admission import decide_admission\n"),
    ("ch03-a", "decide_admission",
     "import functools\nfrom agentlab_magics.bounded import admission\n"
     "decide_admission = functools.partial(admission.decide_admission)\n"),
    ("checkpoint-a", "run_agent", "import loops\nrun_agent = loops.reference\n"),
    ("checkpoint-a", "error_message", "import loops\nerror_message = loops._stopped\n")])
def test_a_name_the_lab_asks_for_must_be_written_in_the_file(tmp_path, lab_id, name, added):
    """The course's own answers ship in the student package (checkpoint A's loops, the
    bounded unit's admission rule): bound to a lab's name, they are refused in a sentence."""
    code, report = check_lab(tmp_path, lab_id, find_lab(lab_id).starter + added)
    assert code == 2 and report["problem"].startswith(
        f"{name} is not written in your code: it is agentlab_magics."), report["problem"]


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


ADMISSION_ATTACKS = {
    "the visible cases emptied in place": (
        "from agentlab_magics.bounded.admission import VISIBLE_CASES as _cases\n"
        "def decide_admission(case):\n    _cases.clear()\n    return 'CALL'\n"),
    "an exception whose sentence patches exact": (
        "import agentlab_magics.course.labtests.admission as _module\n\n"
        "class _Described(Exception):\n"
        "    def __str__(self):\n"
        "        _real = vars(_module)['exact']\n"
        "        def _fake(*args, **kwargs):\n"
        "            _module.exact = _real\n"
        "            return True\n"
        "        _module.exact = _fake\n"
        "        return 'described'\n\n"
        "def decide_admission(case):\n    raise _Described()\n"),
}
# Which test each must not pass: the visible-cases test for the one that empties its table.
ADMISSION_TARGET = {"the visible cases emptied in place": "test_the_visible_cases"}


@pytest.mark.parametrize("name", ADMISSION_ATTACKS)
def test_an_admission_attack_earns_nothing(tmp_path, name):
    code, report = check_lab(tmp_path, "ch03-a", ADMISSION_ATTACKS[name])
    target = ADMISSION_TARGET.get(name)
    passed = [o["name"] for o in report["outcomes"] if o["outcome"] == "passed"]
    assert code == 1
    assert (target not in passed) if target else not passed, report
