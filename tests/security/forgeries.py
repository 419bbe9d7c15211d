"""Code a student who knows the checker's source might add to a lab, hoping for marks it does not
earn. Each is Python text, appended to a lab's starter (or reference) by the attack suites.

Since the judge and the student's code live in two processes, every attack here can only
reach the student's own process: each is written as a student would write it against that
process, doing all it can there (frames, greenlets, ctypes, the collector, finalizers, patches
of the course's modules, the protocol's own server), and must earn exactly what the code
without it earns.
"""



# The protocol's server of this process, found as a student would: the student process runs as
# `python -m ...student_side`, so its module is __main__ (importing it by name makes a copy
# that serves nothing).
_THE_SERVER = '''

def _the_server():
    import sys as _sys

    for _module in list(_sys.modules.values()):
        _found = getattr(_module, "SERVER", None)
        if type(_found).__name__ == "Server":
            return _found
    return None
'''


def _first_calling(name: str) -> str:
    """Code that makes each function the file defined so far call `name()` first."""
    return f'''

def _calling_{name}_first(function):
    def wrapped(*args, **kwargs):
        {name}()
        return function(*args, **kwargs)
    return wrapped


globals().update({{key: _calling_{name}_first(value) for key, value in dict(globals()).items()
                  if callable(value) and not key.startswith("_")
                  and getattr(value, "__module__", None) == __name__}})
'''


# Every frame this process has (each thread's, each greenlet's, the collector's), each local
# that looks like a verdict or a message of the protocol made to say "passed", the frames
# written back through ctypes, and the process's own server patched so an exception is never
# reported. Each student function of the starter forges, then does what the starter does.
FRAME_FORGER = _THE_SERVER + '''
import ctypes as _ctypes, gc as _gc, sys as _sys
try:
    import greenlet as _greenlet
except ImportError:
    _greenlet = None


def _every_frame():
    starts = list(_sys._current_frames().values())
    if _greenlet is not None:
        _here = _greenlet.getcurrent()
        while _here is not None:
            if _here.gr_frame is not None:
                starts.append(_here.gr_frame)
            _here = _here.parent
    starts += [o for o in _gc.get_objects() if type(o).__name__ == "frame"]
    seen = []
    for frame in starts:
        while frame is not None and all(frame is not s for s in seen):
            seen.append(frame)
            frame = frame.f_back
    return seen


def _verdicts_passed(value):
    if type(value) is dict:
        if value.get("k") == "raised":
            value.clear()
            value.update({"k": "value", "v": None})
        for key in ("outcome", "kind", "verdict"):
            if key in value:
                value[key] = "passed"


def _forge():
    for frame in _every_frame():
        try:
            for value in list(frame.f_locals.values()):
                _verdicts_passed(value)
            _ctypes.pythonapi.PyFrame_LocalsToFast(_ctypes.py_object(frame), _ctypes.c_int(0))
        except Exception:
            pass
    for value in _gc.get_objects():
        _verdicts_passed(value)
    server = _the_server()
    if server is not None and not getattr(server, "_forged", False):
        real = server.send
        def send(message, real=real, **values):
            _verdicts_passed(message)
            return real(message, **values)
        server.send, server._forged = send, True


_forge()
''' + _first_calling("_forge")

# A finalizer that patches the course's comparison after the student's function returned: the
# one route docs/security.md listed as open while the checker shared the tests' process. Each
# value the student's functions return carries an object whose __del__ makes `exact` say yes.
FINALIZER_PATCH = '''
import sys as _sys


class _Patcher:
    def __del__(self):
        for name in list(_sys.modules):
            module = _sys.modules[name]
            if name.startswith(("agentlab_magics.course.labtests", "agentlab_labs",
                                 "agentlab_instructor")):
                if "exact" in vars(module):
                    module.exact = lambda *args, **kwargs: True


_patchers = [_Patcher() for _ in range(3)]
import agentlab_magics.course.labtests.kit  # so that there is a module to patch here
del _patchers
'''

# The test module's `exact` made to pass once per student function, putting itself back as it
# returns True (a patch no look after the test could see). The tests' modules are imported
# first, so the patch has something to patch in this process.
RESTORING_EXACT = '''
import importlib as _importlib, sys as _sys

for _name in ("agentlab_labs.lesson1.tests", "agentlab_labs.lesson1.heldback"):
    try:
        _importlib.import_module(_name)
    except ImportError:
        pass


def _exact_passes_once():
    for _name in ("agentlab_labs.lesson1.heldback",
                  "agentlab_labs.lesson1.tests"):
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

# The runtime module's class swapped (`lab.__class__ = Sub`), so that every `lab.NAME` the
# tests read says what the student likes: shape equal to everything, ScriptedModel a model
# with the two requests the chat tests expect.
LAB_MODULE_CLASS = '''
import types as _types
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

_lab.__class__ = _Lab

def chat(model, system, messages, text):
    messages.append(None)
    messages.append(None)
'''

# json patched so that whatever goes through it says every test passed.
JSON_REWRITTEN = '''
import json as _json
_real_dumps, _real_encode = _json.dumps, _json.JSONEncoder.encode


def _rewritten(value):
    if type(value) is dict and value.get("k") == "raised":
        return {"k": "value", "v": None, "out": "", "sync": []}
    if type(value) is dict and "outcome" in value:
        return {**value, "outcome": "passed", "message": ""}
    return value


def _dumps(value, *args, **kwargs):
    return _real_dumps(_rewritten(value), *args, **kwargs)


_json.dumps = _dumps
_json.JSONEncoder.encode = lambda self, value: _real_encode(self, _rewritten(value))
'''

# Lesson 2's expected calls emptied in place in the tests' module, so that a tool_calls
# returning two empty dicts would match them.
EXPECTED_EMPTIED = '''
import agentlab_labs.lesson2.tests as _tests


def tool_calls(message):
    _tests.A_CALL.clear()
    _tests.B_CALL.clear()
    return [{}, {}]
'''

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

# Looks everywhere this process can look for the text of a held-back test (the instructor's
# package, the modules loaded, every string the collector can reach, the process's own memory)
# and prints each find, as "FOUND: ...", from every function the lab asks for. Appended to a
# reference, so the held-back tests run it. @NEEDLES@ is the set of the SHA-256 digests of the
# texts to look for (test names, and whole lines of their code, stripped): the hunt carries
# no needle itself, so it cannot find its own.
HELD_BACK_HUNT = '''
import gc as _gc, hashlib as _hashlib, re as _re, sys as _sys

_found = []


def _digest(text):
    return _hashlib.sha256(text.strip().encode("utf-8", "replace")).hexdigest()


def _hunt():
    if _found:  # one look is enough: what was there when the held-back tests began
        return _report(_found[0])
    needles, found, texts_read = @NEEDLES@, set(), []
    try:
        import importlib as _importlib, pathlib as _pathlib
        import agentlab_instructor as _instructor
        _parts = _pathlib.Path(_instructor.__file__).parent / "labs"
        found.add("the instructor package imported from " + str(_parts))
        for _part in sorted(_parts.iterdir()):
            if (_part / "heldback.py").is_file():
                texts_read.append((_part / "heldback.py").read_text())
                _importlib.import_module("agentlab_labs." + _part.name.replace("-", "_")
                                         + ".heldback")
    except Exception:
        pass
    found.update("a module " + name for name in list(_sys.modules) if "heldback" in name)
    texts = texts_read + [o for o in _gc.get_objects() if type(o) is str]
    for holder in _gc.get_objects():
        if type(holder) in (dict, list, tuple):
            texts += [v for v in (holder.values() if type(holder) is dict else holder)
                      if type(v) is str]
    try:
        with open("/proc/self/maps") as maps, open("/proc/self/mem", "rb") as memory:
            for line in maps:
                start, end = (int(x, 16) for x in line.split()[0].split("-"))
                if "r" in line.split()[1] and end - start < 64 << 20:
                    try:
                        memory.seek(start)
                        texts.append(memory.read(end - start).decode("latin-1"))
                    except (OSError, OverflowError, ValueError):
                        pass
    except OSError:
        pass
    for text in texts:
        for piece in [*text.splitlines(), *_re.findall(r"test_\\w+", text)]:
            if len(piece) < 300 and _digest(piece) in needles:
                found.add("held-back text " + _digest(piece)[:12])
    _found.append(sorted(found))
    _report(_found[0])


def _report(found):
    for what in found:
        print("FOUND: " + what)

''' + _first_calling("_hunt")

# Checkpoint A's test lab: a check that never looks at the run it is handed, passing the first
# and failing the rest (the tests hand it the reference loop's run before the buggy loop's).
COUNTING_CHECK = '''
from agentlab_magics import lab


def script():
    return [lab.say("The port is 9090.")]


_SEEN = []


def check(model, messages, final):
    _SEEN.append(1)
    assert len(_SEEN) == 1, "the loop left the call unanswered"
'''

# Checkpoint A's test lab: a script and no check at all (the judge's own "check is not written
# yet" must never pass for a check that failed).
NO_CHECK = '''
from agentlab_magics import lab


def script():
    return [lab.say("The port is 9090.")]
'''

# Lesson 2: a tool_specs that describes nothing and empties the tools it is handed (but for
# the one test that looks at them afterwards), so that an expectation read off those tools
# after the call would be [].
EMPTIED_TOOLS = '''
_CALLS = []


def tool_specs(tools):
    _CALLS.append(1)
    if len(_CALLS) != 2:
        tools.clear()
    return []
'''

# The protocol's syncs made to lie (the student process's own server, patched): every list or
# dict the judge handed over is said to be as the judge holds it, whatever the code did to it;
# or said to keep more items than the judge holds. Saying less only leaves the student's own
# list stale, and a keep the judge cannot honour is refused.
SYNC_UNCHANGED = _THE_SERVER + '''
_the_server().snapshots.kept = lambda ref, container: (-1, None, None)
'''
SYNC_KEEPS_TOO_MUCH = _THE_SERVER + '''
_the_server().snapshots.kept = lambda ref, container: (len(container) + 5, None, None)
'''
