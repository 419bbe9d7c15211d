"""Honest styles: the same correct harness, written the many ways students write Python.

A style is a function `(lab_id, reference) -> source`: the lab's reference rewritten in one
style, still correct. Most are generic rewrites of the syntax tree (rewrite.py) that apply to
every lab: hints on every parameter, a decorator on every function, a few statements at the
start of every function, the functions moved into a class, and so on. Each one changes the
code of every lab (`applied` checks it), and none changes what a function returns, raises,
appends or calls, in what order: every style must pass every test the reference passes.

The statements a style adds at the start of a function use these placeholders (rewrite.fill):
{name} the function's name, {args} a list of its parameters, {arg0} its first parameter.
Names a style adds to the module start with an upper-case letter or an underscore, or are
helpers no lab has (step, describe, traced, ...), so they never meet a name of the lab's.

Three styles are here because they fail where the promise says they should not (see the
test report): weakref-registry, parallel-warmup-threads and keeps-last-run-objects. Each is
correct code that passes when run in one process with the tests, as the old checker did.
"""

from __future__ import annotations

import ast
import functools
import keyword
from collections.abc import Callable

from tests.honest.rewrite import (
    FunctionNode,
    add_future_annotations,
    add_imports,
    after_docstring,
    append,
    arguments,
    calls_to,
    decorate,
    expression,
    fill,
    functions,
    has_docstring,
    nested_functions,
    parse,
    prologue,
    replace_functions,
    self_parameter,
    split_definitions,
    statements,
    transform,
    unparse,
    wrap_bodies,
)

Style = Callable[[str, str], str]
STYLES: dict[str, Style] = {}


def style(name: str) -> Callable[[Style], Style]:
    def register(function: Style) -> Style:
        assert name not in STYLES, name
        STYLES[name] = function
        return function
    return register


def describe(name: str) -> str:
    """The first paragraph of a style's docstring, on one line: what the student does."""
    return " ".join((STYLES[name].__doc__ or name).strip().split("\n\n")[0].split())


def applied(name: str, lab_id: str, reference: str) -> str:
    """The lab's harness in style `name`; it must compile and differ from the reference in
    its code, not only in its layout."""
    source = STYLES[name](lab_id, reference)
    compile(source, f"<{name}: {lab_id}>", "exec", dont_inherit=True)
    assert ast.dump(ast.parse(source)) != _dumped(reference), (name, lab_id)
    return source


@functools.cache
def _dumped(reference: str) -> str:
    return ast.dump(ast.parse(reference))


# -- what a parameter holds, by its name (every lab's parameters are named for what they hold)

HINTS: dict[str, tuple[str, str]] = {   # name: (typing's spelling, PEP 585/604 spelling)
    "messages": ("List[Dict[str, Any]]", "list[dict[str, Any]]"),
    "tools": ("List[Dict[str, Any]]", "list[dict[str, Any]]"),
    "lines": ("List[str]", "list[str]"),
    "text": ("str", "str"), "prompt": ("str", "str"), "system": ("str", "str"),
    "name": ("str", "str"),
    "max_turns": ("Optional[int]", "int | None"),
    "max_lines": ("int", "int"), "max_bytes": ("int", "int"), "max_attempts": ("int", "int"),
    "call_cost": ("Union[int, float]", "int | float"), "budget": ("Union[int, float]",
                                                                   "int | float"),
    "default": ("Optional[Any]", "Any | None"),
    "listener": ("Optional[Callable[[Dict[str, Any]], Any]]",
                 "Callable[[dict[str, Any]], Any] | None"),
    "provider": ("Callable[[], Any]", "Callable[[], Any]"),
    **dict.fromkeys(("message", "call", "arguments", "case", "state", "event", "final"),
                    ("Dict[str, Any]", "dict[str, Any]")),
}
# Parameters a function only reads (so a copy reads the same), and the objects of the tests'
# a function is handed that are instances of a class (a listener may be any callable, a
# builtin's bound method included, so it is not one of them).
READ_ONLY = ("message", "call", "arguments", "case", "state", "event", "final")
INSTANCES = ("model", "ws", "shell", "provider")


def annotate(source: str, spelling: int, returns: str = "Any") -> str:
    """Every parameter of every function annotated as HINTS says (`spelling` 0 or 1)."""
    tree = parse(source)
    for function in functions(tree) + nested_functions(tree):
        spec = function.args
        for arg in (*spec.posonlyargs, *spec.args, *spec.kwonlyargs):
            arg.annotation = expression(HINTS.get(arg.arg, ("Any", "Any"))[spelling])
        function.returns = expression(returns)
    return unparse(tree)


def module_defs(source: str) -> set[str]:
    return {function.name for function in functions(parse(source))}


# -- hints and declarations -------------------------------------------------------------------

@style("typing-subscripts")
def typing_subscripts(lab_id: str, source: str) -> str:
    """Every parameter and return hinted with typing's subscripts: Dict[str, Any], Optional[int],
    Callable[..]."""
    source = annotate(source, 0)
    return add_imports(source, "from typing import Any, Callable, Dict, List, Optional, "
                               "Tuple, Union\nMessage = Dict[str, Any]\n"
                               "Transcript = List[Message]\nPair = Tuple[str, int]")


@style("future-annotations-dataclass")
def future_annotations_dataclass(lab_id: str, source: str) -> str:
    """`from __future__ import annotations`, PEP 604 hints, @dataclass (frozen, slots, replace,
    asdict) and a pydantic model."""
    source = annotate(source, 1)
    source = prologue(source, """
_entry = CALL_LOG.setdefault({name!r}, CallLog({name!r}))
_entry.count += 1
_entry.kinds = [type(_a).__name__ for _a in {args}]
_old = VISITS.get({name!r}, Visit({name!r}))
VISITS[{name!r}] = replace(_old, count=_old.count + 1)
_as_dict = asdict(VISITS[{name!r}])
_settings = Settings(turns=_entry.count)
""")
    source = add_imports(source, '''
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Callable

from pydantic import BaseModel


@dataclass
class CallLog:
    """How often a function of this file ran, and with what kinds of arguments."""

    name: str
    count: int = 0
    kinds: list[str] = field(default_factory=list)
    note: str | None = None


@dataclass(frozen=True, slots=True)
class Visit:
    function: str
    count: int = 0


class Settings(BaseModel):
    turns: int | None = None
    label: str = "harness"


CALL_LOG: dict[str, CallLog] = {}
VISITS: dict[str, Visit] = {}
''')
    return add_future_annotations(source)


@style("typeddict-protocol-generics")
def typeddict_protocol_generics(lab_id: str, source: str) -> str:
    """A TypedDict builds each message, a runtime Protocol names the model, a Generic box holds
    names."""
    tree = parse(source)
    kinds = {"messages": "list[Message]", "message": "Message", "model": "Model",
             "tools": "list[Tool]"}
    for function in functions(tree):
        for arg in function.args.args + function.args.kwonlyargs:
            if arg.arg in kinds:
                arg.annotation = expression(kinds[arg.arg])

    class Messages(ast.NodeTransformer):
        def visit_Dict(self, node: ast.Dict) -> ast.AST:
            self.generic_visit(node)
            keys = [key.value if isinstance(key, ast.Constant) else None for key in node.keys]
            if "role" in keys and all(isinstance(key, str) and key.isidentifier()
                                      for key in keys):
                return ast.Call(func=ast.Name("Message"), args=[], keywords=[
                    ast.keyword(arg=key, value=value) for key, value in zip(keys, node.values)])
            return node

    source = unparse(Messages().visit(tree))
    source = prologue(source, "_boxed: Box[str] = Box({name!r})\nBOXES.append(_boxed.get())\n"
                              "del BOXES[:-10]")
    return add_imports(source, '''
from typing import Any, Generic, Protocol, TypedDict, TypeVar, runtime_checkable


class Message(TypedDict, total=False):
    role: str
    content: Any
    stop_reason: str
    error_message: str
    tool_call_id: str
    tool_name: str
    is_error: bool


class Tool(TypedDict):
    name: str
    description: str
    parameters: dict[str, Any]


@runtime_checkable
class Model(Protocol):
    def complete(self, system: str, messages: list[Message], tools: list[Tool]) -> Message:
        ...


T = TypeVar("T")


class Box(Generic[T]):
    def __init__(self, item: T) -> None:
        self.item = item

    def get(self) -> T:
        return self.item


BOXES: list[str] = []
''')


@style("import-idioms")
def import_idioms(lab_id: str, source: str) -> str:
    """Star imports (math, typing), optional imports in try/except ImportError, __all__, dunders, a
    module __getattr__."""
    from agentlab_magics.course import find_lab

    source = prologue(source, "_half = ceil(len({args}) / 2)\n"
                              "_size = len({args}) if np is None else int(np.int64(len({args})))")
    return add_imports(source, f'''
from math import *
from typing import *
try:
    import orjson as fastjson
except ImportError:
    fastjson = None
try:
    import numpy as np
except ImportError:
    np = None
try:
    from rich import print as rprint
except ImportError:
    rprint = print
rprint("harness loaded")
__all__ = {list(find_lab(lab_id).names)!r}
__version__ = "0.1.0"
__author__ = "A. Student"


def __getattr__(name):
    """Names this module makes on demand (PEP 562)."""
    if name == "VERSION_INFO":
        return tuple(int(part) for part in __version__.split("."))
    raise AttributeError(f"module {{__name__!r}} has no attribute {{name!r}}")
''')


# -- what every function does first -----------------------------------------------------------

@style("logging-and-warnings")
def logging_and_warnings(lab_id: str, source: str) -> str:
    """`import logging` at DEBUG, logger calls and warnings.warn (filter "always") in every
    function."""
    source = prologue(source, """
logger.debug("%s called with %d arguments", {name!r}, len({args}))
logger.info("entering %s", {name!r})
warnings.warn({name!r} + " is a first draft", UserWarning, stacklevel=2)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    warnings.warn("quiet", DeprecationWarning)
""", nested=True)
    return add_imports(source, """
import logging
import warnings
logger = logging.getLogger(__name__)
logging.basicConfig(level=logging.DEBUG, format="%(levelname)s %(name)s: %(message)s")
logging.getLogger("noisy.library").setLevel(logging.WARNING)
warnings.simplefilter("always")
""")


@style("print-and-stdio-debugging")
def print_and_stdio_debugging(lab_id: str, source: str) -> str:
    """print() of every call's arguments (reprs), sys.stdout/stderr writes, flush, isatty,
    redirect_stdout."""
    source = prologue(source, """
print("->", {name!r}, ", ".join(repr(_a) for _a in {args})[:300])
sys.stdout.write({name!r} + "\\n")
print({name!r}, "called", file=sys.stderr, flush=True)
if sys.stdout.isatty():
    print("(a terminal)")
with contextlib.redirect_stdout(io.StringIO()) as _quiet:
    print("not shown")
""", nested=True)
    return add_imports(source, """
import contextlib
import io
import sys
print("harness loaded")
sys.stderr.write("debug: harness loaded\\n")
ENCODING = sys.stdout.encoding
if sys.__stdout__ is not None:
    sys.__stdout__.flush()
""")


@style("collections-and-enums")
def collections_and_enums(lab_id: str, source: str) -> str:
    """collections.namedtuple, Counter, deque, defaultdict, a functional Enum("Phase", ...) and an
    IntEnum."""
    source = wrap_bodies(source, """
CALLS[{name!r}] += 1
HISTORY.append(Visit({name!r}, CALLS[{name!r}]))
BY_NAME[{name!r}].append(HISTORY[-1].number)
del BY_NAME[{name!r}][:-10]
PHASES.append((Phase.ENTER, {name!r}))
try:
    BODY
finally:
    PHASES.append((Phase.LEAVE, {name!r}))
    del PHASES[:-20]
    if LEVEL >= Level.LOUD:
        print(PHASES[-1])
""", nested=True)
    return add_imports(source, """
from collections import Counter, OrderedDict, defaultdict, deque, namedtuple
from enum import Enum, IntEnum, auto
Visit = namedtuple("Visit", ["function", "number"])
Span = namedtuple("Span", "start end", defaults=(0,))
Phase = Enum("Phase", "ENTER LEAVE")
Colour = Enum("Colour", [("RED", 1), ("GREEN", 2)])


class Level(IntEnum):
    QUIET = auto()
    LOUD = auto()


LEVEL = Level.QUIET
CALLS = Counter()
HISTORY = deque(maxlen=50)
BY_NAME = defaultdict(list)
ORDER = OrderedDict(first=1)
PHASES = []
""")


@style("pydantic-model")
def pydantic_model(lab_id: str, source: str) -> str:
    """A class on pydantic's BaseModel, validated and dumped by every function."""
    source = prologue(source, """
EVENTS.append(Event(function={name!r}, arguments=len({args})))
_dumped = EVENTS[-1].model_dump()
del EVENTS[:-20]
""")
    return add_imports(source, '''
from pydantic import BaseModel, Field


class Event(BaseModel):
    """One call of a function of this file."""

    function: str
    arguments: int = Field(default=0, ge=0)
    tags: list[str] = []


EVENTS: list[Event] = []
''')


@style("asyncio-inside")
def asyncio_inside(lab_id: str, source: str) -> str:
    """asyncio.run of a tiny coroutine (gather, sleep(0)) inside every function."""
    source = prologue(source, "_tags = asyncio.run(_gather_tags({name!r}))")
    return add_imports(source, """
import asyncio


async def _tag(value):
    await asyncio.sleep(0)
    return value


async def _gather_tags(name):
    return await asyncio.gather(_tag(name), _tag(len(name)))
""")


@style("thread-pool-each-call")
def thread_pool_each_call(lab_id: str, source: str) -> str:
    """Every function runs in a ThreadPoolExecutor worker, its caller waiting on .result()."""
    source = decorate(source, "in_worker")
    return add_imports(source, '''
import functools
from concurrent.futures import ThreadPoolExecutor


def in_worker(function):
    """Run `function` in a worker thread and wait for it (the caller gets what it returns)."""

    @functools.wraps(function)
    def run_in_worker(*args, **kwargs):
        with ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(function, *args, **kwargs).result()

    return run_in_worker
''')


@style("parallel-warmup-threads")
def parallel_warmup_threads(lab_id: str, source: str) -> str:
    """A ThreadPoolExecutor(max_workers=16) warms a cache in parallel at import (the default pool on
    a 12-core laptop)."""
    source = prologue(source, "_warm = WARM.get(len({args}) % 64, 0)")
    return add_imports(source, '''
import time
from concurrent.futures import ThreadPoolExecutor


def _warm_up(number):
    """Something slow to compute once (here, a pause and a small table)."""
    time.sleep(0.005)
    return number, len([str(i) * 4 for i in range(200)])


with ThreadPoolExecutor(max_workers=16) as _pool:
    WARM = dict(_pool.map(_warm_up, range(64)))
''')


@style("threads-lock-and-logger")
def threads_lock_and_logger(lab_id: str, source: str) -> str:
    """Every body under a threading.RLock with a threading.local depth; a daemon thread drains a
    queue.Queue of events."""
    source = wrap_bodies(source, """
EVENTS.put(({name!r}, len({args})))
with _LOCK:
    _LOCAL.depth = getattr(_LOCAL, "depth", 0) + 1
    try:
        BODY
    finally:
        _LOCAL.depth -= 1
""")
    return add_imports(source, """
import queue
import threading
_LOCK = threading.RLock()
_LOCAL = threading.local()
EVENTS = queue.Queue()
SEEN = []


def _drain():
    while True:
        item = EVENTS.get()
        SEEN.append(item)
        del SEEN[:-100]
        EVENTS.task_done()


threading.Thread(target=_drain, name="harness-log", daemon=True).start()
""")


@style("tempdir-shutil")
def tempdir_shutil(lab_id: str, source: str) -> str:
    """tempfile.mkdtemp and TemporaryDirectory, a log file per
    call, shutil.copy and shutil.rmtree."""
    source = prologue(source, """
with open(SCRATCH / "calls.log", "a", encoding="utf-8") as _log:
    _log.write({name!r} + "\\n")
""")
    return add_imports(source, """
import atexit
import shutil
import tempfile
from pathlib import Path
SCRATCH = Path(tempfile.mkdtemp(prefix="harness-"))
atexit.register(shutil.rmtree, SCRATCH, ignore_errors=True)
with tempfile.TemporaryDirectory() as _probe:
    (Path(_probe) / "hello.txt").write_text("hello", encoding="utf-8")
    shutil.copy(Path(_probe) / "hello.txt", SCRATCH / "hello.txt")
(SCRATCH / "old").mkdir()
shutil.rmtree(SCRATCH / "old")
""")


@style("environment-and-subprocess")
def environment_and_subprocess(lab_id: str, source: str) -> str:
    """`import subprocess`: subprocess.run(["true"]) and a child Python at import; os.environ,
    pathlib, platform."""
    source = prologue(source, "if DEBUG:\n    print({name!r}, os.getpid(), HERE)\n"
                              "_ok = PYTHON_MAJOR == str(sys.version_info[0])")
    return add_imports(source, """
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path
subprocess.run([shutil.which("true") or "/bin/true"], check=True)
PYTHON_MAJOR = subprocess.run([sys.executable, "-c", "import sys; print(sys.version_info[0])"],
                              capture_output=True, text=True, check=True).stdout.strip()
DEBUG = os.environ.get("HARNESS_DEBUG", "") == "1"
HERE = Path(os.getcwd())
FILE_NAME = Path(globals().get("__file__") or "harness.py").name
PYTHON = platform.python_version()
CPUS = os.cpu_count()
""")


@style("measurements")
def measurements(lab_id: str, source: str) -> str:
    """time.perf_counter around every body, statistics, uuid, random.Random, hashlib, datetime,
    IPython.display."""
    source = wrap_bodies(source, """
_started = time.perf_counter()
_digest = hashlib.sha256({name!r}.encode()).hexdigest()[:8]
_jitter = _RNG.random()
try:
    BODY
finally:
    TIMINGS.setdefault({name!r}, []).append(time.perf_counter() - _started)
    del TIMINGS[{name!r}][:-50]
    _mean = statistics.mean(TIMINGS[{name!r}])
""")
    return add_imports(source, """
import datetime
import hashlib
import random
import statistics
import time
import uuid
from IPython.display import HTML, Markdown, display
RUN_ID = uuid.uuid4().hex
_RNG = random.Random(42)
TIMINGS = {}
STARTED = datetime.datetime.now(datetime.timezone.utc).isoformat()
display(Markdown(f"**Harness loaded** (run {RUN_ID[:8]})"))
""")


@style("traceback-reraise")
def traceback_reraise(lab_id: str, source: str) -> str:
    """traceback.format_exc() kept in an except that re-raises, around every function body."""
    source = wrap_bodies(source, """
try:
    BODY
except Exception:
    ERRORS.append(traceback.format_exc())
    del ERRORS[:-5]
    raise
""", nested=True)
    return add_imports(source, "import traceback\nERRORS = []")


@style("contextlib-and-own-exceptions")
def contextlib_and_own_exceptions(lab_id: str, source: str) -> str:
    """Every body inside a @contextmanager step; the student's own exception classes,
    contextlib.suppress, raise from."""
    source = wrap_bodies(source, """
with contextlib.suppress(NotReady):
    _ensure(False, {name!r} + " is not ready")
try:
    _ensure(True, "ready")
except HarnessError as _exc:
    raise RuntimeError("the harness is broken") from _exc
with step({name!r}) as _depth:
    BODY
""", nested=True)
    return add_imports(source, '''
import contextlib
DEPTH = [0]


class HarnessError(Exception):
    """Something the harness itself got wrong."""


class NotReady(HarnessError):
    pass


def _ensure(condition, message):
    if not condition:
        raise NotReady(message)


@contextlib.contextmanager
def step(name):
    """Count how deep the calls of this file go while `name` runs."""
    DEPTH[0] += 1
    try:
        yield DEPTH[0]
    finally:
        DEPTH[0] -= 1
''')


@style("weakref-registry")
def weakref_registry(lab_id: str, source: str) -> str:
    """weakref.ref and WeakValueDictionary of its own objects; a WeakKeyDictionary counting uses of
    each model, workspace, shell or provider."""
    def lines(function: FunctionNode) -> str:
        text = "assert _REF() is _KEEP\n"
        for name in arguments(function):
            if name in INSTANCES:
                text += f"USES[{name}] = USES.get({name}, 0) + 1\n"
        return text

    source = prologue(source, lines)
    return add_imports(source, """
import weakref


class _Marker:
    pass


_KEEP = _Marker()
_REF = weakref.ref(_KEEP)
MARKERS = weakref.WeakValueDictionary(main=_KEEP)
USES = weakref.WeakKeyDictionary()
""")


@style("low-level-modules")
def low_level_modules(lab_id: str, source: str) -> str:
    """`import ctypes` (libc through CDLL, buffers), gc.collect and thresholds,
    sys.setrecursionlimit and a recursive helper."""
    source = prologue(source, """
_length = ctypes.c_size_t(len({name!r})).value
_buffer = ctypes.create_string_buffer({name!r}.encode())
assert _buffer.value.decode() == {name!r} and _length == len(_buffer.value)
DEPTHS.append(_depth({args}))
del DEPTHS[:-20]
gc.collect(0)
""")
    return add_imports(source, '''
import ctypes
import gc
import sys
LIBC = ctypes.CDLL(None)
PID = LIBC.getpid()
WORD = ctypes.sizeof(ctypes.c_void_p)
sys.setrecursionlimit(max(sys.getrecursionlimit(), 5000))
gc.collect()
gc.set_threshold(1000, 20, 20)
DEPTHS = []


def _depth(value, level=0):
    """How deeply `value` nests lists and dicts (a recursive helper)."""
    if level > 40:
        return level
    if isinstance(value, dict):
        return max([_depth(item, level + 1) for item in value.values()], default=level + 1)
    if isinstance(value, (list, tuple)):
        return max([_depth(item, level + 1) for item in value], default=level + 1)
    return level
''')


@style("introspection-and-profiling")
def introspection_and_profiling(lab_id: str, source: str) -> str:
    """A decorator binding each call with inspect.signature(...).bind; cProfile around each
    outermost call."""
    source = decorate(source, "profiled")
    return append(add_imports(source, '''
import cProfile
import functools
import inspect
import io
import pstats
PROFILES = []
_ACTIVE = []


def profiled(function):
    """Check each call against the signature, and profile the outermost one."""
    signature = inspect.signature(function)

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        if _ACTIVE:
            return function(*bound.args, **bound.kwargs)
        profile = cProfile.Profile()
        _ACTIVE.append(profile)
        try:
            return profile.runcall(function, *bound.args, **bound.kwargs)
        finally:
            _ACTIVE.pop()
            text = io.StringIO()
            pstats.Stats(profile, stream=text).sort_stats("cumulative").print_stats(3)
            PROFILES.append(text.getvalue())
            del PROFILES[:-3]

    return wrapper
'''), """
SIGNATURES = {name: str(inspect.signature(value))
              for name, value in list(globals().items())
              if inspect.isfunction(value) and not name.startswith("_")}
""")


@style("copies-of-inputs")
def copies_of_inputs(lab_id: str, source: str) -> str:
    """copy.deepcopy and pickle round trips of every input a function only reads; a pickled record
    of its own class."""
    def lines(function: FunctionNode) -> str:
        mutated = {node.func.value.id for node in ast.walk(function)
                   if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                   and isinstance(node.func.value, ast.Name) and node.func.attr == "append"}
        text = fill("_seen = copy.copy({args})\n"
                    "_note = pickle.loads(pickle.dumps(Note({name!r}, len({args}))))\n",
                    function)
        for number, name in enumerate(arguments(function)):
            if name in READ_ONLY:
                text += (f"{name} = copy.deepcopy({name})\n" if number % 2 == 0 else
                         f"{name} = pickle.loads(pickle.dumps({name}))\n")
            elif name == "messages" and name not in mutated:
                text += "messages = copy.deepcopy(messages)\n"
            elif name == "tools":
                text += "tools = list(tools)\n"
        return text

    source = prologue(source, lines, nested=True)
    return add_imports(source, '''
import copy
import pickle
from dataclasses import dataclass


@dataclass
class Note:
    """A record that goes through pickle, so its class must be found by its module's name."""

    function: str
    arguments: int
''')


@style("json-roundtrip")
def json_roundtrip(lab_id: str, source: str) -> str:
    """json.loads(json.dumps(...)) of the JSON a function reads (a call, its arguments), and a JSON
    audit log of each call."""
    def lines(function: FunctionNode) -> str:
        text = fill("AUDIT.append(json.loads(json.dumps({{'function': {name!r}, "
                    "'arguments': [type(_a).__name__ for _a in {args}]}})))\n"
                    "del AUDIT[:-20]\n", function)
        for name in arguments(function):
            if name in ("arguments", "call"):
                text += f"{name} = json.loads(json.dumps({name}))\n"
        return text

    return add_imports(prologue(source, lines, nested=True), "import json\nAUDIT = []")


@style("functools-and-re-helpers")
def functools_and_re_helpers(lab_id: str, source: str) -> str:
    """Helpers on functools.lru_cache, functools.cache and functools.singledispatch, and compiled
    `re` patterns."""
    source = prologue(source, """
TITLES.append(_title({name!r}))
DESCRIBED.append([describe(_a) for _a in {args}])
del TITLES[:-10], DESCRIBED[:-10]
assert re.fullmatch(r"[a-z_]+", {name!r})
""")
    source = source.replace('("name", "description", "parameters")', "_spec_keys()")
    return add_imports(source, '''
import functools
import re
_WORDS = re.compile(r"[A-Za-z]+")
TITLES = []
DESCRIBED = []


@functools.lru_cache(maxsize=None)
def _title(name):
    return " ".join(_WORDS.findall(re.sub(r"_+", " ", name))).title()


@functools.cache
def _spec_keys():
    """What the model is told about a tool."""
    return ("name", "description", "parameters")


@functools.singledispatch
def describe(value) -> str:
    return type(value).__name__


@describe.register
def _(value: dict) -> str:
    return f"dict of {len(value)}"


@describe.register
def _(value: list) -> str:
    return f"list of {len(value)}"


@describe.register(str)
def _(value) -> str:
    return f"str of {len(value)}"
''')


@style("operator-itertools-generators")
def operator_itertools_generators(lab_id: str, source: str) -> str:
    """Every `x["key"]` read as operator.getitem(x, "key"); calls numbered by itertools.count;
    generators with `yield from`."""
    class Getitem(ast.NodeTransformer):
        def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
            self.generic_visit(node)
            if isinstance(node.ctx, ast.Load) and isinstance(node.slice, ast.Constant) \
                    and isinstance(node.slice.value, str):
                return ast.Call(func=expression("operator.getitem"),
                                args=[node.value, node.slice], keywords=[])
            return node

    source = transform(source, Getitem())
    source = prologue(source, "NUMBERS[{name!r}] = next(_TICKS)\n"
                              "_parts = sum(1 for _ in itertools.islice(_walk({args}), 1000))")
    return add_imports(source, '''
import itertools
import operator
_TICKS = itertools.count(1)
NUMBERS = {}


def _walk(value):
    """Every value inside `value`, depth first."""
    yield value
    if isinstance(value, dict):
        for item in value.values():
            yield from _walk(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _walk(item)
''')


@style("match-statements")
def match_statements(lab_id: str, source: str) -> str:
    """Structural pattern matching (`match`/`case` on shapes and types) in
    a helper of every call."""
    source = prologue(source, "SHAPES.append([_shape(_a) for _a in {args}])\n"
                              "del SHAPES[:-10]")
    return add_imports(source, '''
SHAPES = []


def _shape(value):
    match value:
        case None:
            return "none"
        case bool():
            return "flag"
        case int() | float():
            return "number"
        case str() if not value:
            return "empty text"
        case str():
            return "text"
        case {"role": str(role)}:
            return role
        case {"type": "toolCall", "name": name}:
            return f"call to {name}"
        case dict():
            return "dict"
        case [first, *rest]:
            return f"list of {1 + len(rest)}"
        case []:
            return "empty list"
        case _:
            return type(value).__name__
''')


@style("module-state")
def module_state(lab_id: str, source: str) -> str:
    """`global` counters in every function, `nonlocal` ones in every closure; SimpleNamespace,
    MappingProxyType, a __slots__ class with a @property."""
    tree = parse(source)
    for function in functions(tree):
        inner = [node for node in ast.walk(function) if node is not function
                 and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
        for nested in inner:
            nested.body[after_docstring(nested.body):after_docstring(nested.body)] = \
                statements("nonlocal uses\nuses += 1")
        start = after_docstring(function.body)
        function.body[start:start] = statements(
            "global CALLS\nCALLS += 1\nSETTINGS.calls += 1\nCOUNTER.bump()\n"
            "assert LIMITS['turns'] > 0 and COUNTER.count > 0" + ("\nuses = 0" if inner else ""))
    return add_imports(unparse(tree), '''
from types import MappingProxyType, SimpleNamespace
CALLS = 0
SETTINGS = SimpleNamespace(verbose=False, calls=0)
LIMITS = MappingProxyType({"turns": 100})


class Tally:
    __slots__ = ("_count",)

    def __init__(self):
        self._count = 0

    @property
    def count(self):
        return self._count

    def bump(self):
        self._count += 1
        return self._count


COUNTER = Tally()
''')


@style("signal-alarm-timeout")
def signal_alarm_timeout(lab_id: str, source: str) -> str:
    """A SIGALRM handler and signal.alarm(60) around each outermost call, as a tool timeout."""
    source = wrap_bodies(source, """
_outer = _DEPTH[0] == 0
_DEPTH[0] += 1
if _outer:
    _previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.alarm(60)
try:
    BODY
finally:
    _DEPTH[0] -= 1
    if _outer:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, _previous)
""")
    return add_imports(source, '''
import signal
_DEPTH = [0]


class TookTooLong(Exception):
    pass


def _on_alarm(signum, frame):
    raise TookTooLong("a call took longer than a minute")
''')


@style("lazy-imports")
def lazy_imports(lab_id: str, source: str) -> str:
    """Imports inside every function body (json, re, textwrap, collections), used there."""
    return prologue(source, """
import json
import re
import textwrap
from collections import Counter
_short = textwrap.shorten({name!r}, 20)
_counts = Counter(re.findall(r"[a-z]", json.dumps({name!r})))
""", nested=True)


@style("windows-file-unicode")
def windows_file_unicode(lab_id: str, source: str) -> str:
    """A file saved on Windows: CRLF line endings, tab indentation, a coding line, non-ASCII
    identifiers and text (größe, 名前, ✓)."""
    import io
    import tokenize

    source = prologue(source, "größe = len({args})\n名前 = {name!r}\nZÄHLER[名前] = größe")
    source = add_imports(source, "GRÜSSE = 'héllo wörld ✓ — 你好'\nZÄHLER = {}")
    text = "# -*- coding: utf-8 -*-\n# Geprüft ✓ (vérifié)\n" + source
    inside_strings: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.STRING and token.end[0] > token.start[0]:
            inside_strings.update(range(token.start[0] + 1, token.end[0] + 1))
    lines = []
    for number, line in enumerate(text.splitlines(), start=1):
        if number not in inside_strings:
            stripped = line.lstrip(" ")
            line = "\t" * ((len(line) - len(stripped)) // 4) + stripped
        lines.append(line)
    return "\r\n".join(lines) + "\r\n"


# -- how a function is made -------------------------------------------------------------------

@style("wraps-decorator")
def wraps_decorator(lab_id: str, source: str) -> str:
    """Every function, closures included, wrapped by a functools.wraps
    decorator that counts calls."""
    source = decorate(source, "traced", nested=True)
    return add_imports(source, '''
import functools
TRACE = []


def traced(function):
    """Note every call of `function` in TRACE."""

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        TRACE.append(function.__name__)
        del TRACE[:-100]
        return function(*args, **kwargs)

    return wrapper
''')


@style("class-bound-methods")
def class_bound_methods(lab_id: str, source: str) -> str:
    """The functions are methods of one object; the module's names are its bound methods (`run_agent
    = _harness.run_agent`)."""
    rest, defs = split_definitions(source)
    methods = [self_parameter(function) for function in defs]
    for method in methods:
        start = after_docstring(method.body)
        method.body[start:start] = statements("self.calls += 1")
    init = statements("def __init__(self):\n    self.calls = 0")
    harness = ast.ClassDef(name="Harness", bases=[], keywords=[], decorator_list=[],
                           body=[*statements('"""The lab\'s functions, as one object."""'),
                                 *init, *methods])
    rest.body += [harness, *statements("_harness = Harness()")]
    rest.body += statements("\n".join(f"{f.name} = _harness.{f.name}" for f in defs))
    return unparse(rest)


@style("abc-base-class")
def abc_base_class(lab_id: str, source: str) -> str:
    """An abc.ABC with an @abstractmethod per function, a subclass implementing them, its bound
    methods exported."""
    rest, defs = split_definitions(source)
    abstract = "\n".join(f"    @abstractmethod\n    def {f.name}(self, *args, **kwargs):\n"
                         "        ...\n" for f in defs)
    base = statements(f"class HarnessBase(ABC):\n{abstract}\n"
                      "    def describe(self):\n        return type(self).__name__\n")
    concrete = ast.ClassDef(name="MyHarness", bases=[ast.Name("HarnessBase")], keywords=[],
                            decorator_list=[], body=[self_parameter(f) for f in defs])
    rest.body[after_docstring(rest.body):after_docstring(rest.body)] = statements(
        "from abc import ABC, abstractmethod")
    rest.body += [*base, concrete, *statements("_mine = MyHarness()")]
    rest.body += statements("\n".join(f"{f.name} = _mine.{f.name}" for f in defs))
    return unparse(rest)


@style("callable-instances")
def callable_instances(lab_id: str, source: str) -> str:
    """Each function is an instance of a class of its own with __call__."""
    def instance(node: FunctionNode) -> list[ast.stmt]:
        method = self_parameter(node)
        method.name = "__call__"
        kind = "_" + "".join(part.title() for part in node.name.split("_")) + "Call"
        return [ast.ClassDef(name=kind, bases=[], keywords=[], decorator_list=[],
                             body=[method]), *statements(f"{node.name} = {kind}()")]

    return replace_functions(source, instance)


@style("functools-partial")
def functools_partial(lab_id: str, source: str) -> str:
    """Each function is written as _name_impl and bound with functools.partial."""
    def bound(node: FunctionNode) -> list[ast.stmt]:
        name = node.name
        node.name = f"_{name}_impl"
        return [node, *statements(f"{name} = functools.partial({node.name})")]

    return add_imports(replace_functions(source, bound), "import functools")


@style("closure-factories")
def closure_factories(lab_id: str, source: str) -> str:
    """Each function is made by a factory function that returns it (a closure)."""
    def made(node: FunctionNode) -> list[ast.stmt]:
        factory = statements(f"def _make_{node.name}():\n    made = 0\n")[0]
        factory.body = [*factory.body, node, *statements(f"return {node.name}")]
        return [factory, *statements(f"{node.name} = _make_{node.name}()")]

    return replace_functions(source, made)


@style("lambda-assignments")
def lambda_assignments(lab_id: str, source: str) -> str:
    """One-expression functions (and if/return chains) written as lambdas assigned to names."""
    tree = parse(source)

    def as_expression(body: list[ast.stmt]) -> ast.expr | None:
        """`if a: return x` ... `return z` as `x if a else (... z)`; None if it is not that."""
        if len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None:
            return body[0].value
        if len(body) >= 2 and isinstance(body[0], ast.If) and not body[0].orelse \
                and len(body[0].body) == 1 and isinstance(body[0].body[0], ast.Return):
            rest = as_expression(body[1:])
            if rest is not None and body[0].body[0].value is not None:
                return ast.IfExp(test=body[0].test, body=body[0].body[0].value, orelse=rest)
        return None

    converted = False
    new_body = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and not node.decorator_list:
            value = as_expression(node.body[after_docstring(node.body):])
            if value is not None:
                converted = True
                new_body += statements(f"{node.name} = None")
                new_body[-1].value = ast.Lambda(args=node.args, body=value)
                if has_docstring(node.body):
                    new_body += statements(f"{node.name}.__doc__ = "
                                           f"{node.body[0].value.value!r}")
                continue
        new_body.append(node)
    tree.body = new_body
    source = unparse(tree)
    if not converted:
        source = prologue(source, "_kind = _describe({arg0})")
        source = add_imports(source, "_describe = lambda value: type(value).__name__")
    return source


@style("dynamic-dispatch")
def dynamic_dispatch(lab_id: str, source: str) -> str:
    """Calls between the file's functions go through globals()[...] and
    getattr(sys.modules[__name__], ...)."""
    own = module_defs(source)
    turn = [0]

    class Dispatch(ast.NodeTransformer):
        def visit_Call(self, node: ast.Call) -> ast.AST:
            self.generic_visit(node)
            if isinstance(node.func, ast.Name) and node.func.id in own:
                turn[0] += 1
                node.func = expression(
                    f"globals()[{node.func.id!r}]" if turn[0] % 2
                    else f"getattr(sys.modules[__name__], {node.func.id!r})")
            return node

    source = transform(source, Dispatch())
    source = prologue(source, "assert callable(REGISTRY()[{name!r}])")
    return add_imports(source, '''
import sys


def REGISTRY():
    """The functions of this module, by name."""
    return {name: value for name, value in vars(sys.modules[__name__]).items()
            if callable(value)}
''')


@style("keyword-arguments")
def keyword_arguments(lab_id: str, source: str) -> str:
    """Every call of the file's own functions, and model.complete, made with keyword arguments."""
    tree = parse(source)
    params = {function.name: [a.arg for a in function.args.args] for function in functions(tree)}
    params["complete"] = ["system", "messages", "tools"]  # the lab model's own names

    class Keywords(ast.NodeTransformer):
        def visit_Call(self, node: ast.Call) -> ast.AST:
            self.generic_visit(node)
            func = node.func
            name = func.id if isinstance(func, ast.Name) and func.id in params else (
                "complete" if isinstance(func, ast.Attribute) and func.attr == "complete"
                else None)
            if name and node.args and not any(isinstance(a, ast.Starred) for a in node.args):
                names = params[name]
                node.keywords = [ast.keyword(names[i], value)
                                 for i, value in enumerate(node.args)] + node.keywords
                node.args = []
            return node

    source = unparse(Keywords().visit(tree))
    source = prologue(source, "_note(function={name!r}, count=len({args}))")
    return add_imports(source, "NOTES = []\n\n\ndef _note(*, function, count):\n"
                               "    NOTES.append((function, count))\n    del NOTES[:-10]")


@style("async-defs")
def async_defs(lab_id: str, source: str) -> str:
    """`async def` for every function no closure calls, awaited inside the file; model and tool
    calls through asyncio.to_thread."""
    tree = parse(source)
    top = {function.name: function for function in functions(tree)}
    synchronous: set[str] = set()
    for nested in nested_functions(tree):
        synchronous |= calls_to(nested, top)
    while True:  # what a synchronous function calls must be synchronous too
        more = set().union(*(calls_to(top[name], top) for name in synchronous)) - synchronous
        if not more:
            break
        synchronous |= more
    asynchronous = set(top) - synchronous
    if not asynchronous:
        raise AssertionError(f"{lab_id}: no function can be async")

    class Await(ast.NodeTransformer):
        def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
            return node  # a closure stays synchronous: nothing is awaited in it

        def visit_Call(self, node: ast.Call) -> ast.AST:
            self.generic_visit(node)
            if isinstance(node.func, ast.Name) and node.func.id in asynchronous:
                return ast.Await(value=node)
            blocking = isinstance(node.func, ast.Subscript) or (
                isinstance(node.func, ast.Attribute) and node.func.attr == "complete")
            if blocking:  # the model, or a tool's function: in a worker thread
                return ast.Await(value=ast.Call(expression("asyncio.to_thread"),
                                                [node.func, *node.args], node.keywords))
            return node

    for index, node in enumerate(tree.body):
        if isinstance(node, ast.FunctionDef) and node.name in asynchronous:
            node.body = [Await().visit(statement) for statement in node.body]
            tree.body[index] = ast.AsyncFunctionDef(
                name=node.name, args=node.args, body=node.body,
                decorator_list=node.decorator_list, returns=node.returns,
                type_comment=node.type_comment)
    return add_imports(unparse(tree), "import asyncio")


# -- how the file reads -----------------------------------------------------------------------

@style("script-conventions")
def script_conventions(lab_id: str, source: str) -> str:
    """Google-style docstrings (Args:, Returns:) on every function, and a `__main__` block that
    would call a real LLM client."""
    tree = parse(source)
    for function in functions(tree) + nested_functions(tree):
        lines = [function.body[0].value.value.strip() if has_docstring(function.body)
                 else f"The {function.name} function."]
        params = arguments(function)
        if params:
            lines += ["", "Args:"] + [f"    {name}: the {name.replace('_', ' ')}."
                                      for name in params]
        lines += ["", "Returns:", "    What the lab asks for."]
        docstring = ast.Expr(ast.Constant("\n".join(lines)))
        function.body[:after_docstring(function.body)] = [docstring]
    return append(unparse(tree), '''
def main():
    """Try the harness against a real model, from the command line."""
    from openai import OpenAI

    client = OpenAI()
    print(client.models.list())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
''')


@style("notebook-demo-cells")
def notebook_demo_cells(lab_id: str, source: str) -> str:
    """Module-level demo code after the functions, as a notebook cell tries them out (the course's
    `import lab`, `import loops`)."""
    own = module_defs(source)
    demos = {
        "user_message": 'print(user_message("Hello"))',
        "text_of": 'print(text_of({"role": "assistant", "content": [{"type": "text", '
                   '"text": "Hi"}]}))',
        "tool_calls": 'print(tool_calls(lab.reply(lab.call("read", {"path": "a.py"}))))',
        "tool_specs": 'print(tool_specs([{"name": "read", "description": "Read.", '
                      '"parameters": {}, "execute": print}]))',
        "chat": "_demo = []\nchat(lab.ScriptedModel([lab.say('Hi!')]), SYSTEM, _demo, 'Hello')\n"
                "print(lab.shape(_demo))",
        "run_agent": "_demo = []\nrun_agent(lab.ScriptedModel([lab.say('Hi!')]), SYSTEM, "
                     "_demo, [], 'Hello')\nprint(lab.shape(_demo))",
        "str_arg": 'print(str_arg({"path": "a.py"}, "path"))',
        "int_arg": 'print(int_arg({}, "offset", 1))',
        "run_tool": 'print(run_tool([], {"id": "c1", "name": "nope", "arguments": {}}))',
        "error_message": 'print(error_message("503 overloaded"))',
        "context_for_model": "print(context_for_model([lab.user('Hi'), lab.fail('503')]))",
        "truncate_head": 'print(truncate_head("a\\nb\\nc\\n", 2))',
        "truncate_tail": 'print(truncate_tail("a\\nb\\nc\\n", 2))',
        "make_read_tool": 'print(make_read_tool(lab.Workspace({"a.py": "A = 1\\n"}))'
                          '["execute"]({"path": "a.py"}))',
        "make_write_tool": 'print(make_write_tool(lab.Workspace({}))["name"])',
        "make_bash_tool": 'print(make_bash_tool(None)["name"])',
        "emit": "emit(print, {'type': 'demo'})",
        "check": "_model = lab.ScriptedModel(script())\n_messages = []\n"
                 "_final = loops.reference(_model, 'Be careful.', _messages, [{'name': 'read', "
                 "'description': 'Read a file.', 'parameters': {}, 'execute': lambda arguments: "
                 "'PORT = 9090'}], 'Find the port.')\ncheck(_model, _messages, _final)\n"
                 "print('my check passes the reference loop')",
        "decide_admission": 'print(decide_admission({"used_calls": 0, "max_calls": 3, '
                            '"spent": 0, "next_cost": 1, "budget": 5}))',
        "transfer_check": 'print(transfer_check({"calls": 0, "max_calls": 3, "spent": 0, '
                          '"next_cost": 1, "budget": 5}))',
        "attempt": 'print(attempt(lambda: "ok", max_attempts=2, call_cost=1, budget=3))',
    }
    cells = [text for name, text in demos.items() if name in own]
    return append(source, "import lab\nimport loops\n\n" + "\n\n".join(cells))


@style("keeps-last-run-objects")
def keeps_last_run_objects(lab_id: str, source: str) -> str:
    """Print-debugging that compares with the previous run: the last model, workspace or provider is
    kept and shown on the next call."""
    def lines(function: FunctionNode) -> str:
        text = fill("LAST_ARGUMENTS[{name!r}] = len({args})\n", function)
        for name in arguments(function):
            if name in INSTANCES:
                text += (f"if {name!r} in LAST and LAST[{name!r}] is not {name}:\n"
                         f"    print('the previous {name} was', repr(LAST[{name!r}]))\n"
                         f"LAST[{name!r}] = {name}\n")
        return text

    return add_imports(prologue(source, lines), "LAST = {}\nLAST_ARGUMENTS = {}")


@style("walrus")
def walrus(lab_id: str, source: str) -> str:
    """Assignment expressions: `x = f(); if x:` written `if (x :=
    f()):`, and a walrus in a guard."""
    class Merge(ast.NodeTransformer):
        def generic_visit(self, node: ast.AST) -> ast.AST:
            super().generic_visit(node)
            for field in ("body", "orelse", "finalbody"):
                block = getattr(node, field, None)
                if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                    setattr(node, field, merged(block))
            return node

    def merged(block: list) -> list:
        out: list = []
        for statement in block:
            previous = out[-1] if out else None
            if isinstance(statement, ast.If) and isinstance(previous, ast.Assign) \
                    and len(previous.targets) == 1 and isinstance(previous.targets[0], ast.Name):
                target = previous.targets[0].id
                uses = [node for node in ast.walk(statement.test)
                        if isinstance(node, ast.Name) and node.id == target]
                if len(uses) == 1:
                    walrus_node = ast.NamedExpr(target=ast.Name(target, ast.Store()),
                                                value=previous.value)
                    statement.test = _replace(statement.test, uses[0], walrus_node)
                    out[-1] = statement
                    continue
            out.append(statement)
        return out

    source = transform(source, Merge())
    return prologue(source, "if (_count := len({args})) < 0:\n    raise AssertionError(_count)")


def _replace(tree: ast.expr, old: ast.AST, new: ast.AST) -> ast.expr:
    class Swap(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.AST:
            return new if node is old else node

    return Swap().visit(tree)


def _single_generator(node: ast.AST) -> bool:
    return isinstance(node, (ast.ListComp, ast.GeneratorExp)) and len(node.generators) == 1 \
        and not node.generators[0].is_async and isinstance(node.generators[0].target, ast.Name)


@style("explicit-loops")
def explicit_loops(lab_id: str, source: str) -> str:
    """`return [... for ...]` and `"".join(... for ...)` written as for loops that append."""
    class Loops(ast.NodeTransformer):
        def visit_Return(self, node: ast.Return) -> ast.AST | list:
            value = node.value
            joined = None
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
                    and value.func.attr == "join" and len(value.args) == 1 \
                    and _single_generator(value.args[0]):
                joined, value = value, value.args[0]
            if not _single_generator(value):
                return node
            generator = value.generators[0]
            append_item = statements("_items.append(ITEM)")[0]
            append_item.value.args = [value.elt]
            inner: list = [append_item]
            for condition in reversed(generator.ifs):
                inner = [ast.If(test=condition, body=inner, orelse=[])]
            loop = ast.For(target=generator.target, iter=generator.iter, body=inner, orelse=[])
            result: ast.expr = ast.Name("_items")
            if joined is not None:
                joined.args = [result]
                result = joined
            return [*statements("_items = []"), loop, ast.Return(value=result)]

    changed = transform(source, Loops())
    return prologue(changed, "_count = 0\nfor _a in {args}:\n    _count += 1")


@style("map-filter-lambda")
def map_filter_lambda(lab_id: str, source: str) -> str:
    """List comprehensions and generator expressions written with map, filter and lambda."""
    class Functional(ast.NodeTransformer):
        def visit(self, node: ast.AST) -> ast.AST:
            node = super().visit(node)
            if _single_generator(node):
                generator = node.generators[0]
                name = generator.target.id
                iterable = generator.iter
                for condition in generator.ifs:
                    iterable = ast.Call(ast.Name("filter"), [_lambda(name, condition), iterable],
                                        [])
                mapped = ast.Call(ast.Name("map"), [_lambda(name, node.elt), iterable], [])
                return ast.Call(ast.Name("list"), [mapped], []) \
                    if isinstance(node, ast.ListComp) else mapped
            return node

    source = transform(source, Functional())
    return prologue(source, "_kinds = list(map(lambda _a: type(_a).__name__, {args}))")


def _lambda(name: str, body: ast.expr) -> ast.Lambda:
    return ast.Lambda(args=ast.arguments(posonlyargs=[], args=[ast.arg(name)], kwonlyargs=[],
                                         kw_defaults=[], defaults=[]), body=body)


_KEYWORDS = frozenset(keyword.kwlist)


@style("old-fashioned-builders")
def old_fashioned_builders(lab_id: str, source: str) -> str:
    """No f-strings (str.format and %-formatting instead), dicts built with dict(key=value) and **
    unpacking."""
    class Builders(ast.NodeTransformer):
        def visit_JoinedStr(self, node: ast.JoinedStr) -> ast.AST:
            template, values = "", []
            for part in node.values:
                if isinstance(part, ast.Constant):
                    template += part.value.replace("{", "{{").replace("}", "}}")
                    continue
                if part.format_spec is not None:
                    return node
                value = part.value
                if part.conversion in (ord("r"), ord("a")):
                    value = ast.Call(ast.Name("repr" if part.conversion == ord("r")
                                              else "ascii"), [value], [])
                template += "{}"
                values.append(value)
            return ast.Call(ast.Attribute(ast.Constant(template), "format", ast.Load()),
                            values, [])

        def visit_Dict(self, node: ast.Dict) -> ast.AST:
            self.generic_visit(node)
            keys = [key.value if isinstance(key, ast.Constant) else None for key in node.keys]
            if node.keys and all(isinstance(key, str) and key.isidentifier()
                                 and not key.startswith("_") and key not in _KEYWORDS
                                 for key in keys):
                return ast.Call(ast.Name("dict"), [], [ast.keyword(key, value)
                                                        for key, value in zip(keys, node.values)])
            return node

    source = transform(source, Builders())
    source = prologue(source, 'NOTES.append("%s took %d arguments" % ({name!r}, len({args})))\n'
                              "del NOTES[:-10]\n"
                              "_call = {{**dict(function={name!r}), **dict(count=len({args}))}}")
    return add_imports(source, "NOTES = []")
