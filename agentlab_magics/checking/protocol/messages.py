"""The messages between the judge and a student process: what the judge says, made by the
functions here, and what a student process may say, checked here before anything reads it.

    judge -> student  {"k": "load", "source", "filename", "module", "names", "path"}
                      {"k": "call", "f": a name of the module or an object of the student's,
                      "a": [...], "kw": {...}, "m": a method or None, "whole": true when it
                      named one of its lists or dicts twice among the calls running}
                      {"k": "reset"}: forget the objects of the test that ended (no answer)
                      {"k": "warm"}: a process made ahead of its check imports, while it
                      waits, what checks of the later labs load; it answers once it has
                      {"k": "value", "v"} / {"k": "raised", "e"}: the answer to a call back
    student -> judge  {"k": "hello", "version", "pid"} once, first
                      {"k": "loaded", "names": {name: callable}, "elsewhere"} /
                      {"k": "value", "v"} / {"k": "raised", "e"}: the answer to a load or call
                      {"k": "call", "h", "m", "a", "kw"} / {"k": "get", "h", "n"}: the code
                      used a handle (an object of the judge's), and waits for the answer
                      {"k": "tell", "h", "a"}: the code called a handle whose object only
                      takes note (`bridge.notes_only`), its arguments bound to its
                      parameters; nothing is answered, and the code goes on at once
                      {"k": "cap", "length", "edges"}: a list the judge handed over grew past
                      RECORD_CAP; the student process then exits
                      {"k": "spun", "line"}: on SIGUSR1 (a glance's question), the line of
                      the student's file the code is running; on SIGUSR2 (the test is being
                      stopped) the same with "final": true, and "out" and "sync" as they stand

Every message from a student process also carries "out" (what the code printed since its last
message, capped: `printed`) and "sync" (each list or dict the judge handed to a call still
running, as it is now: `student_side`, `unchanged`). A student process is the student's, so
each of its messages is validated here (strict types, no other fields); its values were already
made, as data or as stand-ins, by the judge's `Inbound` while the frame was read. The judge
imports this module; the student process does not (it needs pydantic).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter


class _FromStudent(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True,
                              arbitrary_types_allowed=True)

    out: str = ""
    """What the code printed since its last message."""
    sync: list[Any] = Field(default_factory=list)
    """The lists and dicts the judge handed over, already put back in the judge's own."""


class Described(BaseModel):
    """An exception of the student's code, as data."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    type: str
    module: str = ""
    bases: list[str] = Field(default_factory=list)
    """The builtin exception classes it is an instance of, most specific first."""
    args: list[str | int | float | bool | None] = Field(default_factory=list)
    """Its arguments that are plain scalars (the rest are described by their type)."""
    text: str = ""
    lines: list[int] = Field(default_factory=list)
    """The lines of the student's file its traceback went through, outermost first."""


class Hello(_FromStudent):
    k: Literal["hello"]
    version: int
    pid: int


class Loaded(_FromStudent):
    k: Literal["loaded"]
    names: dict[str, bool]
    """Each name the lab asks for that the code defines, and whether it is callable."""
    elsewhere: dict[str, str] = Field(default_factory=dict)
    """Those whose code is not the file's own, and where it is from."""


class Value(_FromStudent):
    k: Literal["value"]
    v: Any = None


class Raised(_FromStudent):
    k: Literal["raised"]
    e: Described


class Ask(_FromStudent):
    """The code calls a method of one of the judge's objects (`m` "__call__": the object)."""

    k: Literal["call"]
    h: int
    m: str
    a: list[Any]
    kw: dict[str, Any]


class Tell(_FromStudent):
    """The code calls one of the judge's objects that only takes note: no answer is awaited."""

    k: Literal["tell"]
    h: int
    a: list[Any]


class Read(_FromStudent):
    """The code reads an attribute of one of the judge's objects."""

    k: Literal["get"]
    h: int
    n: str


class Cap(_FromStudent):
    """A list the judge handed over grew past the record's cap: its length and its ends."""

    k: Literal["cap"]
    length: int
    edges: list[Any]


class Spun(_FromStudent):
    """The line of the student's file the code was running when the judge asked (SIGUSR1 for
    a look, SIGUSR2 as it stops the test: `final`, with the output and the syncs as they
    stand): the student's word, which only names a line in a sentence."""

    k: Literal["spun"]
    line: int
    final: bool = False


FromStudent = Annotated[Hello | Loaded | Value | Raised | Ask | Tell | Read | Cap | Spun,
                        Field(discriminator="k")]
FROM_STUDENT: TypeAdapter[Any] = TypeAdapter(FromStudent)


def load(source: str, filename: str, module: str, names: list[str], path: list[str]) -> dict:
    """Run `source` as the module `module` (compiled as `filename`); answer with the `names`
    it defines. `path` is added to the end of sys.path first."""
    return {"k": "load", "source": source, "filename": filename, "module": module,
            "names": names, "path": path}


def call(target: Any, args: list, kwargs: dict, method: str | None = None,
         whole: Any = False) -> dict:
    """Call `target` (a name of the module, or one of the student's objects), or its
    `method`; `whole` when one list or dict of the judge's is named twice among the calls
    running (every sync then goes whole: each name's last sync decides). It is written last,
    after the arguments that name them."""
    return {"k": "call", "f": target, "a": args, "kw": kwargs, "m": method, "whole": whole}


def value(tree: Any) -> dict:
    """The answer to the student's call: what it returned."""
    return {"k": "value", "v": tree}


def raised(description: dict) -> dict:
    """The answer to the student's call: what it raised (`described.rebuilt`)."""
    return {"k": "raised", "e": description}


RESET = {"k": "reset"}
"""The test is over: forget its objects."""

WARM = {"k": "warm"}
"""Made ahead of its check: import now what a check may need (`student_side.warm`)."""
