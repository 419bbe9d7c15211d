"""No channel between two runs graded at once: what one sandbox does to a file both see (lock
it, watch it) reaches no other.

Every sandbox sees the same system files (the stdlib's `this.py`), the same /dev/null, the one
inode behind every eventfd, and its user namespace's file; a lock on any of them is visible
from any other process of the machine. Each test runs two sandboxes side by side, one doing
what a sender would, the other what a receiver would, beside a control in the same round: a
process of the grader's own, outside any sandbox, holding the same kind of lock, which the
receiver must see (so a receiver that sees nothing proves the channel closed, not the probe
blind). The last test is the other side: honest code that locks its own files, and sqlite3,
works in the sandbox as it does anywhere.
"""

from __future__ import annotations

import fcntl
import json
import os
import struct
import subprocess
import sys

import pytest

from agentlab_magics.course import find_lab
from agentlab_magics.course.assignments import ASSIGNMENTS
from agentlab_magics.grading.autograde import score_jobs
from agentlab_magics.grading.cells import GradeCall
from agentlab_magics.grading.sandbox import Sandbox, detect

pytestmark = pytest.mark.skipif(detect() == "none", reason="needs the grading sandbox")

SHARED = """
import os
SHARED = {"this.py": os.path.join(os.path.dirname(os.__file__), "this.py"),
          "/dev/null": "/dev/null", "user namespace": "/proc/self/ns/user"}
def opened():
    handles = {name: os.open(path, os.O_RDONLY) for name, path in SHARED.items()}
    handles["eventfd"] = os.eventfd(0)
    return handles
"""
SENDER = SHARED + """
import fcntl, struct, sys, time
for name, handle in opened().items():
    fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
    fcntl.fcntl(handle, fcntl.F_SETLK, struct.pack("hhqqi", fcntl.F_RDLCK, 0, 7, 1, 0))
    fcntl.fcntl(handle, fcntl.F_OFD_SETLK, struct.pack("hhqqi", fcntl.F_RDLCK, 0, 9, 1, 0))
print("holding", flush=True)
sys.stdin.read()
"""
RECEIVER = SHARED + """
import fcntl, json, struct
def seen(handle, command, start):
    asked = struct.pack("hhqqi", fcntl.F_WRLCK, 0, start, 1, 0)
    return struct.unpack("hhqqi", fcntl.fcntl(handle, command, asked))[0] != fcntl.F_UNLCK
def flocked(handle):
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    fcntl.flock(handle, fcntl.LOCK_UN)
    return False
found = {name: {"posix": seen(handle, fcntl.F_GETLK, 7),
                "ofd": seen(handle, fcntl.F_OFD_GETLK, 9), "flock": flocked(handle)}
         for name, handle in opened().items()}
print(json.dumps(found))
"""


def _python(sandbox: Sandbox, code: str, **options) -> subprocess.Popen:
    return subprocess.Popen(sandbox.command([sys.executable, "-c", code]), cwd=sandbox.scratch,
                            text=True, stdout=subprocess.PIPE, **options)


def _received(sandbox: Sandbox) -> dict:
    done = _python(sandbox, RECEIVER)
    out, _ = done.communicate(timeout=60)
    assert done.returncode == 0, out
    return json.loads(out.splitlines()[-1])


def test_a_lock_taken_in_one_sandbox_is_seen_in_no_other():
    this = os.path.join(os.path.dirname(os.__file__), "this.py")
    sender, receiver, control = Sandbox(), Sandbox(), Sandbox()
    held = _python(sender, SENDER, stdin=subprocess.PIPE)
    try:
        assert held.stdout is not None and held.stdout.readline().strip() == "holding"
        quiet = _received(receiver)
        # the control: the grader's own process holds the same locks on this.py
        with open(this, "rb") as handle:
            fcntl.flock(handle, fcntl.LOCK_SH)
            fcntl.fcntl(handle, fcntl.F_SETLK, struct.pack("hhqqi", fcntl.F_RDLCK, 0, 7, 1, 0))
            fcntl.fcntl(handle, fcntl.F_OFD_SETLK, struct.pack("hhqqi", fcntl.F_RDLCK, 0, 9, 1,
                                                               0))
            loud = _received(control)
    finally:
        held.communicate("", timeout=30)
        for sandbox in (sender, receiver, control):
            sandbox.clean()
    # (a flock probe is granted in any sandbox, so only the fcntl probes can see the control)
    assert loud["this.py"] == {"posix": True, "ofd": True, "flock": False}
    assert quiet == {name: {"posix": False, "ofd": False, "flock": False}
                     for name in ("this.py", "/dev/null", "user namespace", "eventfd")}


WATCHER = """
import ctypes, errno, fcntl, json, os
libc = ctypes.CDLL(None, use_errno=True)
found = {"inotify": libc.inotify_init1(0), "inotify errno": ctypes.get_errno()}
folder = os.open(os.path.dirname(os.__file__), os.O_RDONLY)
for name, command in (("dnotify", fcntl.F_NOTIFY), ("lease", fcntl.F_SETLEASE)):
    try:
        fcntl.fcntl(folder, command, fcntl.DN_ACCESS if name == "dnotify" else fcntl.F_RDLCK)
        found[name] = "allowed"
    except OSError as error:
        found[name] = errno.errorcode[error.errno]
print(json.dumps(found))
"""


def test_no_sandbox_can_watch_a_file_another_may_touch():
    """inotify, dnotify and leases would tell one run when another opens or reads a file they
    both see; the filter refuses them (the control: inotify works outside)."""
    sandbox = Sandbox()
    try:
        done = _python(sandbox, WATCHER)
        out, _ = done.communicate(timeout=60)
    finally:
        sandbox.clean()
    found = json.loads(out.splitlines()[-1])
    assert found == {"inotify": -1, "inotify errno": 1, "dnotify": "EPERM", "lease": "EPERM"}
    outside = subprocess.run([sys.executable, "-c", WATCHER], capture_output=True, text=True)
    assert json.loads(outside.stdout.splitlines()[-1])["inotify"] >= 0


HONEST_LOCKS = """
import fcntl, json, multiprocessing, os, sqlite3
found = {}
with open("notes.lock", "w") as handle:
    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    fcntl.lockf(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    found["lockf test"] = fcntl.lockf(handle, fcntl.LOCK_UN) is None
    fcntl.flock(handle, fcntl.LOCK_UN)
db = sqlite3.connect("memory.db")
db.execute("create table turns (n integer, text text)")
db.executemany("insert into turns values (?, ?)", [(1, "hello"), (2, "again")])
db.commit()
other = sqlite3.connect("memory.db", timeout=1)
found["second connection"] = other.execute("select count(*) from turns").fetchone()[0]
db.execute("pragma journal_mode=wal")
with db:
    db.execute("insert into turns values (3, 'wal')")
found["after wal"] = other.execute("select max(n) from turns").fetchone()[0]
def write(n):
    with sqlite3.connect("memory.db", timeout=5) as mine:
        mine.execute("insert into turns values (?, 'child')", (n,))
for n in range(3):  # one after another (locks keep no two processes of a run apart)
    worker = multiprocessing.Process(target=write, args=(10 + n,))
    worker.start()
    worker.join()
found["children wrote"] = other.execute(
    "select count(*) from turns where text = 'child'").fetchone()[0]
print(json.dumps(found))
"""


def test_honest_code_locks_its_own_files_and_uses_sqlite():
    sandbox = Sandbox()
    try:
        done = _python(sandbox, HONEST_LOCKS, stderr=subprocess.PIPE)
        out, err = done.communicate(timeout=60)
    finally:
        sandbox.clean()
    assert done.returncode == 0, err[-2000:]
    assert json.loads(out.splitlines()[-1]) == {"lockf test": True, "second connection": 2,
                                                 "after wal": 3, "children wrote": 3}


def test_a_lock_is_granted_in_the_sandbox_however_it_is_held_outside():
    """A lock another process holds neither blocks nor refuses the sandbox's (so neither is a
    signal)."""
    this = os.path.join(os.path.dirname(os.__file__), "this.py")
    code = SHARED + """
import fcntl
fcntl.flock(opened()["this.py"], fcntl.LOCK_EX | fcntl.LOCK_NB)
print("granted")
"""
    sandbox = Sandbox()
    with open(this, "rb") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            done = _python(sandbox, code, stderr=subprocess.PIPE)
            out, err = done.communicate(timeout=60)
        finally:
            sandbox.clean()
    assert done.returncode == 0 and out.split() == ["granted"], err[-2000:]


# Checkpoint A's test-writing lab gives each test a fresh student process, so a check that
# counts its calls instead of reading the run it is handed earns nothing. Through a shared
# lock it could count anyway: a process of the submission alive in another sandbox (its
# kernel, while the grader scores) keeps the count in locks, and each check reads it and ticks.
TICK, COUNT = 6999, 7000
COUNTER = SHARED + f"""
import fcntl, struct, time
handle = opened()["this.py"]
def held(offset):
    probe = struct.pack("hhqqi", fcntl.F_WRLCK, 0, offset, 1, 0)
    return struct.unpack("hhqqi", fcntl.fcntl(handle, fcntl.F_GETLK, probe))[0] != fcntl.F_UNLCK
def show(count):
    for bit in range(4):
        kind = fcntl.F_RDLCK if count >> bit & 1 else fcntl.F_UNLCK
        fcntl.fcntl(handle, fcntl.F_SETLK, struct.pack("hhqqi", kind, 0, {COUNT} + bit, 1, 0))
count, deadline = 0, time.monotonic() + 120
print("counting", flush=True)
while time.monotonic() < deadline:
    if held({TICK}):
        count += 1
        show(count)
        while held({TICK}) and time.monotonic() < deadline:
            time.sleep(0.002)
    time.sleep(0.002)
"""
COUNTING_CHECK = f'''

import fcntl as _fcntl, os as _os, struct as _struct, time as _time

def _checks_before():
    handle = _os.open(_os.path.join(_os.path.dirname(_os.__file__), "this.py"), _os.O_RDONLY)
    seen = 0
    for bit in range(4):
        probe = _struct.pack("hhqqi", _fcntl.F_WRLCK, 0, {COUNT} + bit, 1, 0)
        if _struct.unpack("hhqqi", _fcntl.fcntl(handle, _fcntl.F_GETLK, probe))[0] != \\
                _fcntl.F_UNLCK:
            seen |= 1 << bit
    _fcntl.fcntl(handle, _fcntl.F_SETLK, _struct.pack("hhqqi", _fcntl.F_RDLCK, 0, {TICK}, 1, 0))
    _time.sleep(0.3)
    _os.close(handle)
    return seen


def check(model, messages, final):
    """Passes the first run it is handed and fails every later one, reading none."""
    if _checks_before():
        raise AssertionError("the loop stopped before it read the file the model asked for")
'''


def test_a_check_cannot_count_its_calls_through_another_sandbox():
    lab = find_lab("checkpoint-a-test")
    reference = lab.reference
    source = reference[:reference.index("def check(")] + COUNTING_CHECK
    counter = Sandbox()
    kernel = _python(counter, COUNTER)
    try:
        assert kernel.stdout is not None and kernel.stdout.readline().strip() == "counting"
        calls = [GradeCall(lab.id, group, False) for group in _groups(lab.id)]
        reports = score_jobs(calls, {lab.id: source}, hidden=[])
    finally:
        kernel.kill()
        kernel.wait()
        counter.clean()
    passed = sum(report.passed for report in reports)
    tests = sum(len(report.outcomes) for report in reports)
    # a check that reads nothing earns at most what failing every run earns: all but the test
    # that hands it the reference loop (with the count, all four)
    assert tests == 4 and passed <= 3, [o.sentence for r in reports for o in r.outcomes]


def _groups(lab_id: str) -> list[str]:
    return [group.id for assignment in ASSIGNMENTS for assigned in assignment.labs
            if assigned.lab == lab_id for group in assigned.groups]
