"""The student's objects as the judge holds them while a test runs: stand-ins that run nothing
of theirs here. An object that is not data stands as a `Foreign` of its class's name; one that
can be called as a `Remote` (a step of theirs as a `RemoteStep`), whose calls run in the student
process; a subclass of a plain type as a copy in a class of its name (`imitation`); an
exception as the builtin class it was, or a `ForeignError` of its name (`Strangers.exception`).
The classes are made per student process (`Strangers`), at most STRANGERS_CAP.
"""

from __future__ import annotations

import builtins
from typing import Any, Protocol

from agentlab_magics.checking.protocol.caps import STRANGERS_CAP
from agentlab_magics.checking.protocol.messages import Described
from agentlab_magics.checking.stopped import Stopped
from agentlab_magics.lab.steps import Step

SAFE_BUILTINS = frozenset(
    name for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, Exception)
    and not issubclass(value, (StopIteration, StopAsyncIteration)))


class Peer(Protocol):
    """What the bridge asks of the student process it serves: to run a call there, and to be
    killed, with the sentence that says why, when it breaks the protocol."""

    def call(self, target: Any, args: tuple, kwargs: dict, method: str | None = None) -> Any:
        ...

    def broken(self, stop: Stopped) -> Stopped:
        ...


class ForeignError(Exception):
    """An exception of the student's code whose class is not a builtin one: it stands here as
    a class of its name, deriving from the builtin classes it derives from."""


class Foreign:
    """An object of the student's that is not data, as the judge holds it: its class's name
    and the number that brings the very object back; nothing of it runs here."""

    __slots__ = ("ident",)

    def __init__(self, ident: int) -> None:
        self.ident = ident

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object>"


class RemoteStep(Step):
    """A step of the student's own (a lab.steps.Step subclass of theirs): the judge's model
    plays it like any step, and each answer is asked of the student's object, there."""

    def __init__(self, process: Peer, ident: int, name: str) -> None:
        self.process, self.ident, self.name = process, ident, name
        self.rules = (f"answers as the student's {name} does;",)

    def describe(self) -> str:
        return f"{self.name}()"

    def answer(self, request: Any) -> Any:
        return self.process.call(self, (request,), {}, method="answer")


class Remote:
    """A function (or other callable) of the student's: calling it runs it in the student
    process, with this test's time."""

    __slots__ = ("ident", "process")

    def __init__(self, process: Peer, ident: int | str) -> None:
        self.process, self.ident = process, ident

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # one of the module's functions goes by its name: a message that names no object of
        # the student's lets the student process snapshot the lists it hands over as they come
        return self.process.call(self.ident if type(self.ident) is str else self, args, kwargs)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of the student's code>"


class Strangers:
    """The classes the student's objects and exceptions stand here as, made for one student
    process (so no check's names cost another's anything), at most STRANGERS_CAP."""

    def __init__(self) -> None:
        self.made: dict[tuple[str, Any], type] = {}

    def cls(self, name: str, base: type) -> type:
        """The class a student's object of class `name` stands here as: `base` (Foreign,
        Remote, or the plain type a subclass of theirs imitated), under their class's name."""
        if len(self.made) >= STRANGERS_CAP - 1 and (name, base) not in self.made:
            name = "object"  # the one class past the cap, for every name
        if (name, base) not in self.made:
            shown = name if name.isidentifier() and len(name) <= 80 else "object"
            namespace = ({"__module__": "student", "__slots__": ()}
                         if base in (Foreign, Remote) else {"__module__": "student"})
            self.made[(name, base)] = type(shown, (base,), namespace)
        return self.made[(name, base)]

    def exception_class(self, name: str, bases: tuple[type, ...]) -> type:
        """The class an exception of the student's class `name` stands here as: ForeignError
        and `bases` (builtin exception classes), under their class's name; ForeignError
        itself when those cannot be combined, or past the cap."""
        key = (name, bases)
        if key not in self.made:
            if len(self.made) >= STRANGERS_CAP - 1:
                return ForeignError
            shown = name if name.isidentifier() and len(name) <= 80 else "Exception"
            try:
                self.made[key] = type(shown, (ForeignError, *bases), {"__module__": "student"})
            except TypeError:  # builtin bases whose layouts conflict
                return ForeignError
        return self.made[key]

    def exception(self, description: Described) -> Exception:
        """The student's exception as an exception here, its description as `.described`: the
        builtin class itself when it was exactly one (so a test may ask `type(exc) is
        ValueError`), else a class of its name deriving from the builtin classes it derived
        from (`exception_class`), or from as many of them as take its arguments; never one
        that would stop the judge (SystemExit, KeyboardInterrupt)."""
        args = tuple(description.args)
        if description.module == "builtins" and description.type in SAFE_BUILTINS:
            exc = _made(getattr(builtins, description.type), args)
        else:
            exc = None
        bases = tuple(getattr(builtins, base) for base in description.bases
                      if base in SAFE_BUILTINS and base != "Exception")
        for tried in (bases, bases[:1], ()):
            if exc is None:
                exc = _made(self.exception_class(description.type, tried), args)
        made = exc if exc is not None else ForeignError(*args)
        setattr(made, "described", description)  # noqa: B010 (an attribute of ours on theirs)
        return made


def _made(kind: type, args: tuple) -> Exception | None:
    """`kind(*args)`, or None when `kind` does not take those arguments (a UnicodeDecodeError
    wants five of given types, an ExceptionGroup a list of exceptions)."""
    try:
        made = kind(*args)
        str(made)
    except Exception:
        return None
    return made if isinstance(made, Exception) else None


def description_of(exc: BaseException) -> Described | None:
    """The description an exception carries when it came from the student's code."""
    found = getattr(exc, "described", None)
    return found if isinstance(found, Described) else None


PLAIN_BASES = {kind.__name__: kind for kind in (dict, list, tuple, str, int, float, bytes)}


def imitation(strangers: Strangers, name: str, base: str, value: Any, ident: Any) -> Any:
    """A copy of a student's subclass of a plain type: its data, in a class of its name, with
    the number that brings the student's very object back."""
    kind = PLAIN_BASES[base]
    if type(value) is not kind or type(ident) is not int:
        raise TypeError(f"a {name} imitating {base} sent as {type(value).__name__}")
    copy = strangers.cls(name, kind)(value)
    copy.student_ident = ident
    return copy
