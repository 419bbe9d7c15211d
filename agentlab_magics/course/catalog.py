"""The labs as data: what each asks the student to write, its tests, its files.

Lab ids are lesson1 … lesson7, checkpoint-a and checkpoint-a-test; "lesson06", "6" and
"Lesson 6" name lesson6 too. An unknown id is an UnknownLab whose message lists them all.

A harness lab builds on the lessons before it (`builds_on`): its file holds what they wrote,
so their tests of the names its file still holds run with its own, under "Still holds from
lesson N" (checking.runner), and never count towards its grade. A checkpoint rebuilds what
lessons wrote and adds nothing of its own, so no later lab builds on it.

The student package holds each lab's starter only, as a file `agentlab course build` wrote
(course/starters/<lab>.py). The reference and the marked file are the instructor's: reading
them imports the instructor package (agentlab_instructor) then and there, and where it is not
installed they are InstructorPackageMissing. Nothing here imports it when it is imported.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from functools import cache

from agentlab_magics.course.instructor import instructor_files
from agentlab_magics.course.starter_files import read_starter
from agentlab_magics.problems import UsageProblem


class UnknownLab(LookupError, UsageProblem):
    """No lab has that id; the message lists the ones there are."""


@dataclass(frozen=True, kw_only=True)
class Lab:
    """One lab: the names a student writes, the tests, and (as properties) its files. Plain
    data, built here from constants, so that finding a lab loads no validation library."""

    id: str
    title: str
    lesson: str
    module: str = "harness"
    names: list[str]
    purposes: dict[str, str]
    tests: str
    builds_on: list[str] = field(default_factory=list)
    """The earlier labs whose tests still hold for this one, in course order."""
    fresh_per_test: bool = False
    """Each test gets a student process of its own: for a lab whose answers are a verdict
    (pass or fail) that code could otherwise give by counting calls, not by looking."""

    @property
    def starter(self) -> str:
        """The file the student starts from, as released: the student package's own copy."""
        return read_starter(self.id)

    @property
    def reference(self) -> str:
        """The instructor's solution; needs the instructor package."""
        return instructor_files(self.id, f"The reference of {self.id}").reference

    @property
    def marked(self) -> str:
        """The reference with what the student writes between nbgrader's solution markers;
        needs the instructor package."""
        return instructor_files(self.id, f"The source notebook cell of {self.id}").marked


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
    "emit": "tells the listener one event, and never lets a failing listener stop the run",
    "truncate_head": "keeps the start of a text that fits the budget, whole lines only",
    "truncate_tail": "keeps the end of a text that fits the budget, whole lines only",
    "make_read_tool": "builds the read tool, with its budget and its notice",
    "make_write_tool": "builds the write tool",
    "make_bash_tool": "builds the bash tool, keeping the tail and the exit code",
    "script": "returns the fake model's steps, one per model call",
    "check": "asserts one thing about what the run left behind",
}

# (id, lesson, title, the names the student writes). Each lesson's file holds what the
# lessons before it wrote, with these names as gaps; checkpoint A's is lesson 6's, with the
# loop's three names as gaps (agentlab_instructor.lab_files makes the files).
LESSONS = [
    ("lesson1", "1", "01 The conversation is a list", ["user_message", "text_of", "chat"]),
    ("lesson2", "2", "02 Tool calls and results", ["tool_calls", "tool_specs"]),
    ("lesson3", "3", "03 The loop", ["run_agent"]),
    ("lesson4", "4", "04 One call in, one result out", ["str_arg", "int_arg", "run_tool"]),
    ("lesson5", "5", "05 Failures and limits", ["error_message", "context_for_model",
                                                "run_agent"]),
    ("lesson6", "6", "06 The firehose", ["truncate_head", "truncate_tail", "make_read_tool",
                                         "make_write_tool", "make_bash_tool"]),
    ("checkpoint-a", "A", "Checkpoint A: the loop, from an empty gap",
     ["error_message", "context_for_model", "run_agent"]),
    ("lesson7", "7", "07 Show your work", ["emit", "run_agent"]),
]


def _harness_labs() -> list[Lab]:
    return [Lab(id=lab_id, title=title, lesson=lesson, names=names,
                purposes={name: PURPOSES[name] for name in names},
                tests=f"agentlab_magics.course.labtests.{lab_id.replace('-', '_')}",
                builds_on=[earlier[0] for earlier in LESSONS[:number]
                           if not earlier[0].startswith("checkpoint")])
            for number, (lab_id, lesson, title, names) in enumerate(LESSONS)]


# Every name a harness lab asks for: the names a lab test can read off the student's file.
HARNESS_NAMES = frozenset(name for *_, names in LESSONS for name in names)


@cache
def file_names(lab_id: str) -> frozenset[str]:
    """The names the lab's file holds: those its starter defines at the top level, and the
    gaps it asks the student to fill (worked out once: every check of a later lab asks)."""
    lab = find_lab(lab_id)
    defined = {node.name for node in ast.parse(lab.starter).body
               if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    return frozenset(defined | set(lab.names))


@cache
def labs() -> dict[str, Lab]:
    """Every lab, by id, in course order."""
    from agentlab_magics.course.bounded_labs import bounded_labs
    from agentlab_magics.course.test_lab import checkpoint_a_test

    harness = _harness_labs()
    after = [lab.id for lab in harness].index("checkpoint-a") + 1  # its test lab follows it
    return {lab.id: lab for lab in [*harness[:after], checkpoint_a_test(), *harness[after:],
                                    *bounded_labs()]}


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
