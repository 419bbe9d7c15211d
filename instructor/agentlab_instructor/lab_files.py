"""Every lab's starter, reference and marked file, made from the reference solutions here.

This module is the one source of truth for a lab's files; nothing else writes one by hand:
- A harness lab's are cut out of reference/harness.py (and reference/early/ for a name a later
  lesson revises) by `harness_file`: its file holds the pieces CONTENTS gives it, in the
  harness's region order, and the starter leaves the lab's names (its catalog entry's `names`)
  as gaps.
- A one-function lab's starter and reference are written out in reference/functions.py.
- The marked file, the reference with what the student writes between nbgrader's solution
  markers, is made from those, so the released cell is the starter.

The student package gets the starters only, as the files `agentlab course build` writes
(agentlab_magics.course.starter_files); the references never leave this package.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from agentlab_instructor.harness_file import Piece, lesson_file, pieces, solution_bodies
from agentlab_instructor.reference import functions
from agentlab_magics.course.catalog import built_in_labs, find_lab
from agentlab_magics.course.lab_model import Lab

EARLY = "agentlab_instructor.reference.early."

# What each lesson's file gains (a name, or name@module of early/ for the version a later
# lesson revises) and what it drops, in course order: a file holds what the one before held.
CONTENTS: dict[str, tuple[list[str], list[str]]] = {
    "lesson1": (["SYSTEM", "user_message", "text_of", "chat@lesson1"], []),
    "lesson2": (["tool_calls", "tool_specs"], []),
    "lesson3": (["run_agent@lesson3"], ["chat"]),
    "lesson4": (["str_arg", "int_arg", "run_tool", "run_agent@lesson4"], []),
    "lesson5": (["error_message", "context_for_model", "run_agent@lesson5"], []),
    "lesson6": (["MAX_LINES", "MAX_BYTES", "truncate_head", "truncate_tail", "make_read_tool",
                 "make_write_tool", "make_bash_tool"], []),
    "lesson7": (["emit", "run_agent"], []),
}
# Checkpoint A's file is that of the lesson it follows (lesson 6), with its own title and a
# note above the gaps.
CHECKPOINT_A = ("checkpoint-a", "lesson6", "checkpoint A",
                "Rebuild the three names in the gaps. Nothing here is new: the tests are those "
                "of lessons 3, 4 and 5.")
# A note above the gaps of a lesson's starter: what the tests compare that the file cannot show.
NOTES = {
    "lesson7": (
        "run_agent tells `listener` each step, through emit, as a plain dict, in this order:\n"
        '{"type": "run_start", "prompt": prompt} first;\n'
        '{"type": "message", "message": message} right after each message is appended;\n'
        'per model call {"type": "turn_start", "turn": n} (from 1), the reply\'s "message",\n'
        'then per call {"type": "tool_start", "turn": n, "call": call} before the tool runs and\n'
        '{"type": "tool_end", "turn": n, "call": call, "result": result} once its result is\n'
        'appended (then the result\'s "message"), and {"type": "turn_end", "turn": n};\n'
        '{"type": "run_end", "reason": reason} last, exactly once, however the run ends:\n'
        '"done", "failed", "max_turns" (after the stop\'s "message", with no turn) or "raised".'),
}
# The one-function labs: (starter, reference), both written by hand.
FUNCTIONS: dict[str, tuple[str, str]] = {
    "checkpoint-a-test": (functions.TEST_LAB_STARTER, functions.TEST_LAB_REFERENCE),
    "ch03-a": (functions.ADMISSION_STARTER, functions.ADMISSION_REFERENCE),
    "ch03-a-transfer": (functions.TRANSFER_STARTER, functions.TRANSFER_REFERENCE),
    "ch03-b": (functions.ATTEMPTS_STARTER, functions.ATTEMPTS_REFERENCE),
}


@dataclass(frozen=True)
class LabFiles:
    """A lab's three files: what the student starts from, the solution, and the solution with
    the student's part between nbgrader's solution markers (the source notebook's lab cell)."""

    starter: str
    reference: str
    marked: str


def lab_files(lab_id: str) -> LabFiles:
    """The files of the lab `lab_id` names (any spelling `find_lab` accepts)."""
    return all_lab_files()[find_lab(lab_id).id]


@cache
def all_lab_files() -> dict[str, LabFiles]:
    """Every lab's files, by id, in course order; a lab of the catalog without files is a
    LookupError naming it."""
    made = {**_harness_files(),
            **{lab_id: _function_files(find_lab(lab_id), *pair)
               for lab_id, pair in FUNCTIONS.items()}}
    missing = [lab_id for lab_id in built_in_labs() if lab_id not in made]
    if missing:
        raise LookupError(f"No files are made for the labs {', '.join(missing)}: add them to "
                          "agentlab_instructor.lab_files.")
    return {lab_id: made[lab_id] for lab_id in built_in_labs()}


def _harness_files() -> dict[str, LabFiles]:
    made, contents = {}, {}
    for lab_id, (added, dropped) in CONTENTS.items():
        for name in dropped:
            contents.pop(name)
        for spec in added:
            contents[spec.partition("@")[0]] = _piece(spec)
        made[lab_id] = _lesson_files(find_lab(lab_id), _in_reference_order(contents),
                                     note=NOTES.get(lab_id, ""))
        checkpoint, after, title, note = CHECKPOINT_A
        if lab_id == after:
            made[checkpoint] = _lesson_files(find_lab(checkpoint),
                                             _in_reference_order(contents), title, note)
    return made


def _lesson_files(lab: Lab, contents: list[Piece], title: str | None = None,
                  note: str = "") -> LabFiles:
    """A harness lab's files; the reference goes without the note, which speaks of the gaps."""
    title, gaps = title or lab.title, set(lab.names)
    return LabFiles(starter=lesson_file(title, contents, gaps, note),
                    reference=lesson_file(title, contents, set()),
                    marked=lesson_file(title, contents, gaps, note, marked=True))


def _function_files(lab: Lab, starter: str, reference: str) -> LabFiles:
    return LabFiles(starter=starter, reference=reference,
                    marked=solution_bodies(starter, reference, lab.names))


def _piece(spec: str) -> Piece:
    name, _, early = spec.partition("@")
    if not early:
        return pieces()[name]
    home = "3 loop" if name in ("chat", "run_agent") else None
    return pieces(EARLY + early, home)[name]


def _in_reference_order(contents: dict[str, Piece]) -> list[Piece]:
    """The pieces in the reference harness's order; an early version (a name the harness
    does not define) goes right before run_agent."""
    order = list(pieces())
    return sorted(contents.values(), key=lambda p: order.index(p.name) if p.name in order else
                  order.index("run_agent") - 0.5)
