"""The labs as data: what each asks the student to write, its starter, its reference, its tests.

Lab ids are lesson1 … lesson6, checkpoint-a and checkpoint-a-test; "lesson06", "6" and
"Lesson 6" name lesson6 too. An unknown id is an UnknownLab whose message lists them all.
"""

from __future__ import annotations

import re
from functools import cache

from pydantic import BaseModel

from agentlab_magics.course.harness_file import Piece, lesson_file, pieces


class UnknownLab(LookupError):
    """No lab has that id; the message lists the ones there are."""


class Lab(BaseModel):
    """One lab: the names a student writes, the files they start from and end at, the tests."""

    id: str
    title: str
    lesson: str
    module: str = "harness"
    names: list[str]
    purposes: dict[str, str]
    tests: str
    starter: str
    reference: str
    marked: str
    """The reference with what the student writes between nbgrader's solution markers."""


PURPOSES = {
    "user_message": "wraps what the user typed as a message",
    "text_of": "reads the words out of an assistant message",
    "chat": "sends the whole conversation and keeps the reply",
    "tool_calls": "lists the calls a reply asks for, in order",
    "tool_specs": "tells the model about the tools, without their functions",
    "str_arg": "reads a string argument, checked",
    "int_arg": "reads an optional whole-number argument, checked",
    "run_tool": "turns one call into exactly one result, whatever happens",
    "error_message": "builds a failed reply, with the reason in its own field",
    "context_for_model": "makes the request from the record, leaving out empty failed replies",
    "run_agent": "runs the loop, turn after turn, until a reply asks for nothing more",
    "truncate_head": "keeps the start of a text that fits the budget, whole lines only",
    "truncate_tail": "keeps the end of a text that fits the budget, whole lines only",
    "make_read_tool": "builds the read tool, with its budget and its notice",
    "make_write_tool": "builds the write tool",
    "make_bash_tool": "builds the bash tool, keeping the tail and the exit code",
    "script": "returns the fake model's steps, one per model call",
    "check": "asserts one thing about what the run left behind",
}

EARLY = "agentlab_magics.reference.early."
# (id, title, names added or revised (name or name@early-module), names retired, gaps)
LESSONS = [
    ("lesson1", "01 The conversation is a list", ["SYSTEM", "user_message", "text_of",
                                                  "chat@lesson1"], [],
     ["user_message", "text_of", "chat"]),
    ("lesson2", "02 Tool calls and results", ["tool_calls", "tool_specs"], [],
     ["tool_calls", "tool_specs"]),
    ("lesson3", "03 The loop", ["run_agent@lesson3"], ["chat"], ["run_agent"]),
    ("lesson4", "04 One call in, one result out", ["str_arg", "int_arg", "run_tool",
                                                    "run_agent@lesson4"], [],
     ["str_arg", "int_arg", "run_tool"]),
    ("lesson5", "05 Failures and limits", ["error_message", "context_for_model", "run_agent"], [],
     ["error_message", "context_for_model", "run_agent"]),
    ("lesson6", "06 The firehose", ["MAX_LINES", "MAX_BYTES", "truncate_head", "truncate_tail",
                                    "make_read_tool", "make_write_tool", "make_bash_tool"], [],
     ["truncate_head", "truncate_tail", "make_read_tool", "make_write_tool", "make_bash_tool"]),
]


def _piece(spec: str) -> Piece:
    name, _, early = spec.partition("@")
    if not early:
        return pieces()[name]
    home = "3 loop" if name in ("chat", "run_agent") else None
    return pieces(EARLY + early, home)[name]


def _harness_labs() -> list[Lab]:
    labs, contents = [], {}
    for lab_id, title, added, retired, gaps in LESSONS:
        for name in retired:
            contents.pop(name)
        for spec in added:
            contents[spec.partition("@")[0]] = _piece(spec)
        ordered = _in_reference_order(contents)
        labs.append(Lab(id=lab_id, title=title, lesson=lab_id.removeprefix("lesson"), names=gaps,
                        purposes={name: PURPOSES[name] for name in gaps},
                        tests=f"agentlab_magics.course.labtests.{lab_id}",
                        starter=lesson_file(title, ordered, set(gaps)),
                        reference=lesson_file(title, ordered, set()),
                        marked=lesson_file(title, ordered, set(gaps), marked=True)))
    rebuild = ["error_message", "context_for_model", "run_agent"]
    note = ("Rebuild the three names in the gaps. Nothing here is new: the tests are those of "
            "lessons 3, 4 and 5.")
    labs.append(Lab(id="checkpoint-a", title="Checkpoint A: the loop, from an empty gap",
                    lesson="A", names=rebuild, purposes={n: PURPOSES[n] for n in rebuild},
                    tests="agentlab_magics.course.labtests.checkpoint_a",
                    starter=lesson_file("checkpoint A", ordered, set(rebuild), note),
                    reference=lesson_file("checkpoint A", ordered, set()),
                    marked=lesson_file("checkpoint A", ordered, set(rebuild), note,
                                       marked=True)))
    return labs


def _in_reference_order(contents: dict[str, Piece]) -> list[Piece]:
    order = list(pieces())
    return sorted(contents.values(), key=lambda p: order.index(p.name) if p.name in order else
                  order.index("run_agent") - 0.5)


@cache
def labs() -> dict[str, Lab]:
    """Every lab, by id, in course order."""
    from agentlab_magics.course.bounded_labs import bounded_labs
    from agentlab_magics.course.test_lab import checkpoint_a_test

    return {lab.id: lab for lab in [*_harness_labs(), checkpoint_a_test(), *bounded_labs()]}


def find_lab(lab_id: str) -> Lab:
    """The lab `lab_id` names, accepting "lesson06", "6" and "Lesson 6" for lesson6."""
    known = labs()
    key = _canonical(str(lab_id))
    if key in known:
        return known[key]
    raise UnknownLab(f"There is no lab called {lab_id!r}. The labs are: {', '.join(known)}.")


def _canonical(lab_id: str) -> str:
    text = lab_id.strip().lower()
    number = re.fullmatch(r"(?:lesson[\s_-]*)?0*(\d+)", text)
    if number:
        return f"lesson{number.group(1)}"
    return re.sub(r"[\s_]+", "-", text)
