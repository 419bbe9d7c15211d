"""What the lab tests share: exact comparison, tools the lab supplies, one-call runs, and
awaiting student code.

The tools here belong to the lab, not to the student, so a lesson's tests can use tools
before the lesson that asks the student to build them.

Every value a student's code makes is compared with `exact` (or proven with `plain` first):
an object of the student's own class, or a subclass of dict, list or str, can answer ==,
bool(), len(), `in` and [] however it likes, so it must never reach them.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any

from agentlab_magics import lab
from agentlab_magics.lab.rules import a_type, same

SYSTEM = "You are a careful test."

# The only types a lab's values are made of; a subclass of one of them is not one of them.
PLAIN: frozenset[type] = frozenset({dict, list, tuple, str, int, float, bool, type(None)})
PLAIN_DATA = ("build it from plain dicts, lists, strings, numbers, True, False and None, not "
              "from a class of your own, whose == could claim anything.")
_ABSENT = object()  # no expected value stands at this place


class EventsDiffer(AssertionError):
    """A failure where the events a run told depart from the expected ones: the sentence, and
    both streams, for the report to draw side by side (`TestOutcome.events`)."""

    def __init__(self, message: str, events: dict) -> None:
        super().__init__(message)
        self.events = events


def message_of(exc: BaseException) -> str:
    """What an exception says, from its arguments that are plain strings: read without
    running any code of the student's (its str, repr and class are theirs to define, and a
    test must not run their code between their function's return and its own judgement)."""
    args = BaseException.__dict__["args"].__get__(exc)
    return " ".join(arg for arg in args if type(arg) is str)


def told(exc: BaseException) -> str:
    """'Type: message' for an exception, read as `message_of` reads it."""
    name, message = type.__dict__["__name__"].__get__(type(exc)), message_of(exc)
    return f"{name}: {message}" if message else name


def exact(actual: Any, expected: Any, what: str, should: str = PLAIN_DATA) -> bool:
    """Whether `actual` equals `expected` with the very same type at every depth: "1" is not 1,
    1 is not True, a list is not a tuple, and a dict subclass is not a dict.

    `actual` is first proven plain data (see `plain`); an AssertionError says in one sentence
    what is not. Where `expected` holds a lab object that is not plain data (a tool's execute
    function), `actual` must hold that very object. `expected == actual` is asked only of
    builtin types, so no method the student wrote ever runs.
    """
    plain(actual, what, should, expected)
    return same(actual, expected)


def plain(value: Any, what: str, should: str = PLAIN_DATA, expected: Any = _ABSENT) -> Any:
    """`value` itself, once proven built only of PLAIN types, dict keys included; else an
    AssertionError, one sentence: `what` (a noun phrase), the first stranger found, what
    belongs in its place, and `should`, what the student should do.

    Only type() is asked of a value before its type is proven, so nothing the student wrote
    runs; where `expected` holds a non-plain lab object, that very object is allowed.
    """
    found = _stranger(value, expected, "")
    if found is not None:
        place, thing, wanted = found
        where = f"holds {a_type(thing)} {place}" if place else f"is {a_type(thing)}"
        subject = what[:1].upper() + what[1:]
        raise AssertionError(f"{subject} {where}, not {_wanted(thing, wanted)}: {should}")
    return value


def _wanted(thing: Any, wanted: Any) -> str:
    """What belongs where `thing` stands: the expected value's type, else the plain type `thing`
    imitates, else plain data."""
    if wanted is None:
        return "None"
    if wanted is not _ABSENT:
        if issubclass(type(thing), type(wanted)):
            return f"a plain {type(wanted).__name__}"
        return a_type(wanted)
    imitated = [kind for kind in (bool, int, float, str, tuple, list, dict)
                if issubclass(type(thing), kind)]
    if imitated:
        return f"a plain {imitated[0].__name__}"
    return "plain data (a dict, list, tuple, str, int, float, bool or None)"


def _stranger(value: Any, expected: Any, path: str) -> tuple[str, Any, Any] | None:
    """(where, what stands there, what is expected there) for the first place in `value` that
    is neither plain data nor the lab object `expected` holds there; None when there is none.
    `where` is "" for `value` itself, else "at [0]['content']" or "as a key at [0]"."""
    kind = type(value)
    if kind not in PLAIN:
        if type(expected) not in PLAIN and value is expected:
            return None
        return (f"at {path}" if path else "", value, expected)
    if kind is dict:
        for key, item in value.items():
            if _stranger(key, _ABSENT, "") is not None:
                return (f"as a key at {path}" if path else "as a key", key, _ABSENT)
            inside = expected.get(key, _ABSENT) if type(expected) is dict else _ABSENT
            found = _stranger(item, inside, f"{path}[{key!r}]")
            if found is not None:
                return found
    elif kind in (list, tuple):
        for index, item in enumerate(value):
            inside = (expected[index] if type(expected) is kind and index < len(expected)
                      else _ABSENT)
            found = _stranger(item, inside, f"{path}[{index}]")
            if found is not None:
                return found
    return None


def gave(actual: Any, expected: Any, limit: int = 4) -> str:
    """What a failure message says `actual` was, against `expected`: for two dicts, or two lists
    or tuples of one length, only the places that differ ("a dict whose ['stop_reason'] is
    'stop' (expected 'error')"); else `actual` whole, then `expected`.

    `actual` must be proven plain (`exact` proves it before it says False), so its repr is the
    builtin one; at most `limit` places are named, and how many more there are."""
    if not _comparable(actual, expected):
        return f"{actual!r}; expected {expected!r}"
    places: list[str] = []
    _differences(actual, expected, "", places)
    if not places:
        return repr(actual)
    named = places[:limit]
    if len(places) > limit:
        left = len(places) - limit
        named.append(f"{left} more place{'s' * (left != 1)}")
    return f"{a_type(actual)} whose {_and(named)}"


def _comparable(actual: Any, expected: Any) -> bool:
    """Two values compared place by place: dicts, or lists or tuples of the same type and size."""
    if type(actual) is not type(expected):
        return False
    return type(expected) is dict or (type(expected) in (list, tuple)
                                      and len(actual) == len(expected))


def _differences(actual: Any, expected: Any, path: str, places: list[str]) -> None:
    """Append to `places` a clause for each place under `path` where `actual` departs."""
    if not _comparable(actual, expected):
        if not same(actual, expected):
            places.append(f"{path} is {_value(actual, expected)} (expected "
                          f"{_value(expected, actual)})")
        return
    if type(expected) is dict:
        for key, item in expected.items():
            if key in actual:
                _differences(actual[key], item, f"{path}[{key!r}]", places)
            else:
                places.append(f"{path}[{key!r}] is missing (expected {item!r})")
        places.extend(f"{path}[{key!r}] should not be there (it is {item!r})"
                      for key, item in actual.items() if key not in expected)
    else:
        for index, (mine, theirs) in enumerate(zip(actual, expected)):
            _differences(mine, theirs, f"{path}[{index}]", places)


def _value(value: Any, other: Any) -> str:
    """`value` as a failure message shows it; with its type where the two look alike (1, True)."""
    shown = repr(value) if type(value) in PLAIN else f"<{type(value).__name__}>"
    if shown == repr(other) or (type(value) is not type(other) and str(value) == str(other)):
        return f"{a_type(value)} {shown}"
    return shown


def _and(clauses: list[str]) -> str:
    return clauses[0] if len(clauses) == 1 else f"{', '.join(clauses[:-1])} and {clauses[-1]}"


def settle(value: Any) -> Any:
    """value itself, or its result when it is awaitable, even inside a running event loop.
    asyncio is imported only here, for the harness that needs it: a check loads no more."""
    if not isinstance(value, Awaitable):
        return value
    import asyncio
    import concurrent.futures

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(lab.drive(value))
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, lab.drive(value)).result()


def takes_note(function: Callable[..., None]) -> Callable[..., None]:
    """`function`, marked as one that only takes note: it returns None and raises for no call
    its parameters accept (plain ones: no default, no *args, none keyword-only). The checker
    then lets the student's code call it without waiting for an answer (a message one way,
    not a round trip); a call its parameters do not take still raises their TypeError in the
    code."""
    parameters = inspect.signature(function).parameters.values()
    if any(parameter.kind is not parameter.POSITIONAL_OR_KEYWORD
           or parameter.default is not parameter.empty for parameter in parameters):
        raise ValueError(f"{function.__name__} takes parameters a call told one way cannot")
    function.__takes_note__ = (  # type: ignore[attr-defined]
        function.__name__, tuple(parameter.name for parameter in parameters))
    return function


def files_tool(files: dict[str, str], name: str = "read") -> dict:
    """A read tool over `files`, kept simple: the whole file, or an error naming what exists."""

    def execute(arguments: dict) -> str:
        path = arguments.get("path")
        if path not in files:
            raise FileNotFoundError(f"File not found: {path}. Files here: {', '.join(files)}")
        return files[path]

    return {"name": name, "description": "Read a whole text file.",
            "parameters": {"type": "object", "required": ["path"],
                           "properties": {"path": {"type": "string"}}},
            "execute": execute}


def failing_tool(name: str, message: str) -> dict:
    """A tool that always raises ValueError(message)."""

    def execute(arguments: dict) -> str:
        raise ValueError(message)

    return {"name": name, "description": "Always fails.",
            "parameters": {"type": "object", "properties": {}}, "execute": execute}


def run(harness: Any, steps: list, *, tools: list | None = None, prompt: str = "Find the port.",
        messages: list | None = None, max_calls: int | None = 30, record: Any = None,
        **options: Any) -> tuple[lab.ScriptedModel, list, Any]:
    """One run of the student's run_agent: (model, the caller's list, what it returned)."""
    model = lab.ScriptedModel(steps, max_calls=max_calls)
    messages = [] if messages is None else messages
    if record is not None:
        record(messages, model)
    final = agent(harness, model, messages, tools or [], prompt, **options)
    return model, messages, final


def agent(harness: Any, model: lab.ScriptedModel, messages: list, tools: list, prompt: str,
          **options: Any) -> Any:
    """What the student's run_agent returned for one prompt, once it and the caller's list,
    with everything run_agent appended to it, are proven plain data."""
    final = harness.run_agent(model, SYSTEM, messages, tools, prompt, **options)
    plain(messages, "the caller's list after run_agent")
    return plain(final, "what run_agent returned")


def shapes(model: lab.ScriptedModel) -> list[str]:
    """The shape of every request the model was sent, in order, each proven plain data: the
    model keeps a copy of what the student's code sent it."""
    return [lab.shape(plain(request.messages, f"the messages of request {number}"))
            for number, request in enumerate(model.calls, start=1)]


def said(model: lab.ScriptedModel, messages: list) -> str:
    """A one-line account of a run for failure messages: model calls made (requests sent, the
    words the report's panel uses too) and the record's shape."""
    record = f"record {lab.shape(messages)!r}" if messages else "an empty record"
    return f"{model_calls(len(model.calls))}, {record}"


def model_calls(count: int) -> str:
    """"1 model call", "31 model calls": requests sent to the model, as every text counts them."""
    return f"{count} model call{'s' * (count != 1)}"
