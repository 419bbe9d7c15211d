"""The simulated students of `agentlab course demo`: what each one hands in for an assignment.

Every student hands in every assignment, starting from the notebook nbgrader released:
- reference: the harness cell holds the lab's reference, so every test cell passes;
- starter: the released notebook untouched, so every test cell fails (nothing is written);
- wrong: the reference with one plausible mistake (WRONG), so exactly the test cells holding a
  test the mistake fails lose their points;
- hanging: the reference with one function that never returns (HANGING), so the test cells
  that call it fail on their time limits and every other cell is graded as usual;
- deleted: the reference, with the first test cell deleted from the notebook (nbgrader puts
  the teacher's copy back and grades it: see nbgrader_course/nbgrader_config.py).

A harness cell is an nbgrader solution cell whose first line, `%%check LAB`, names its lab; a
notebook may have several, one per lab. The `%%check` line is kept as it is.

Every student but "starter" also answers each question (`%question ID`) by a click, so the
notebook handed in holds the question's view as the saving hook saves a clicked answer
(`answer`: the right option, or "wrong"'s first wrong one; own words for an open question).
"""

from __future__ import annotations

import copy
import shlex
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agentlab_magics.course import find_lab
from agentlab_magics.course.questions import find_question
from agentlab_magics.demos import STUDENTS
from agentlab_magics.progress.asked import Asked
from agentlab_magics.progress.store import Commitment
from agentlab_magics.widgets.question_view import QuestionView

if TYPE_CHECKING:
    from nbformat import NotebookNode

@dataclass(frozen=True)
class Edit:
    """A change to a lab's reference: `old`, which must occur exactly once, becomes `new`."""

    what: str
    old: str
    new: str

    def apply(self, reference: str) -> str:
        """The reference with the change made; ValueError if `old` is not there exactly once."""
        count = reference.count(self.old)
        if count != 1:
            raise ValueError(f"{self.what}: {self.old!r} is in the reference {count} times, "
                             "not once")
        return reference.replace(self.old, self.new)


def _hang(definition: str) -> Edit:
    """The function that `definition` (its `def` line) starts waits, asleep, for ever."""
    name = definition.removeprefix("def ").partition("(")[0]
    return Edit(f"{name} waits for ever", f"{definition}\n",
                f"{definition}\n    import time\n"
                "    while True:  # waits for an answer that never comes\n"
                "        time.sleep(1)\n")


_NO_EMPTY_FAILURES = Edit(
    "context_for_model drops every failed reply, the ones with words too",
    'message.get("stop_reason") == "error"\n                    and not message["content"])]',
    'message.get("stop_reason") == "error")]')

# One plausible mistake per lab (tests/mutation/mutants.py has many more).
WRONG: dict[str, Edit] = {
    "lesson1": Edit("chat sends no system prompt", "model.complete(system, messages, [])",
                    'model.complete("", messages, [])'),
    "lesson2": Edit("tool_specs leaves the parameters out", '("name", "description", "parameters")',
                    '("name", "description")'),
    "lesson3": Edit("the results answer the calls in reverse", "        for call in calls:\n",
                    "        for call in reversed(calls):\n"),
    "lesson4": Edit("run_tool never flags an error", "    is_error = True\n",
                    "    is_error = False\n"),
    "lesson5": _NO_EMPTY_FAILURES,
    "lesson6": Edit("the byte budget counts characters", 'used += len(line.encode("utf-8"))',
                    "used += len(line)"),
    "checkpoint-a": _NO_EMPTY_FAILURES,
    "lesson7": Edit("a failed reply ends the run as done",
                    'reason = "failed" if failed else "done"', 'reason = "done"'),
    "checkpoint-a-test": Edit("the check expects the record the buggy loop leaves",
                              'expected = "U A[c1] R(c1) A"', 'expected = "U A[c1]"'),
    "ch03-a": Edit("landing exactly on the budget is refused",
                   'case["spent"] + case["next_cost"] > case["budget"]',
                   'case["spent"] + case["next_cost"] >= case["budget"]'),
    "ch03-a-transfer": Edit("landing exactly on the budget is refused",
                            'state["spent"] + state["next_cost"] > state["budget"]',
                            'state["spent"] + state["next_cost"] >= state["budget"]'),
    "ch03-b": Edit("an attempt that spends exactly the budget is refused",
                   "if spent + call_cost > budget:", "if spent + call_cost >= budget:"),
}

# One function per lab that never returns, among the names the student writes, picked so that
# few tests call it (where a lab has a single name, every test calls it).
HANGING: dict[str, Edit] = {
    "lesson1": _hang("def text_of(message):"),
    "lesson2": _hang("def tool_specs(tools):"),
    "lesson3": _hang("def run_agent(model, system, messages, tools, prompt):"),
    "lesson4": _hang("def str_arg(arguments, name):"),
    "lesson5": _hang("def error_message(text):"),
    "lesson6": _hang("def make_write_tool(ws):"),
    "checkpoint-a": _hang("def error_message(text):"),
    "checkpoint-a-test": _hang("def check(model, messages, final):"),
    "lesson7": _hang("def emit(listener, event):"),
    "ch03-a": _hang("def decide_admission(case):"),
    "ch03-a-transfer": _hang("def transfer_check(state):"),
    "ch03-b": _hang("def attempt(provider, *, max_attempts, call_cost, budget):"),
}


class NoRecipe(LookupError):
    """The demo has no wrong or hanging harness for this lab."""


def harness(student: str, lab_id: str) -> str:
    """The code `student` writes in a `%%check lab_id` cell (every student but "starter",
    who writes nothing)."""
    lab = find_lab(lab_id)
    if student in ("reference", "deleted"):
        return lab.reference
    recipes = {"wrong": WRONG, "hanging": HANGING}[student]
    if lab.id not in recipes:
        raise NoRecipe(f"The demo has no {student} harness for lab {lab.id}; add one to "
                       f"agentlab_magics.demos.students.{student.upper()}.")
    return recipes[lab.id].apply(lab.reference)


def harness_cells(nb: NotebookNode) -> list[NotebookNode]:
    """The cells the student writes a lab in: nbgrader solution cells opening with %%check."""
    return [cell for cell in nb.cells
            if cell.metadata.get("nbgrader", {}).get("solution")
            and cell.source.startswith("%%check ")]


def lab_of(cell: NotebookNode) -> str:
    """The lab a harness cell's first line, `%%check LAB [options]`, names."""
    return shlex.split(cell.source.partition("\n")[0])[1]


def graded_cells(nb: NotebookNode) -> list[NotebookNode]:
    """The autograder cells: graded, locked, and no solution of the student's."""
    return [cell for cell in nb.cells
            if (meta := cell.metadata.get("nbgrader", {})).get("grade")
            and meta.get("locked") and not meta.get("solution")]


def submission(student: str, released: NotebookNode) -> NotebookNode:
    """The notebook `student` hands in, made from the released one (which is left unchanged):
    each harness cell keeps its `%%check` line and gets the student's code for its lab."""
    if student not in STUDENTS:
        raise ValueError(f"There is no simulated student {student!r}; they are: "
                         f"{', '.join(STUDENTS)}.")
    nb = copy.deepcopy(released)
    if student == "starter":
        return nb
    for cell in harness_cells(nb):
        magic = cell.source.partition("\n")[0]
        cell.source = f"{magic}\n{harness(student, lab_of(cell)).rstrip()}\n"
    for cell in nb.cells:
        if cell.cell_type == "code" and cell.source.startswith("%question "):
            cell.outputs = [_answered(student, cell.source.split()[1])]
    if student == "deleted":
        nb.cells.remove(graded_cells(nb)[0])
    return nb


# What each student writes to an open question, in their own words.
OWN_WORDS = {"wrong": "The model sees the mistake and tries again.",
             "other": "Each call needs its result on the record, or the provider refuses it."}


def answer(student: str, question_id: str) -> str:
    """What `student` (not "starter") commits to the question: an option's letter, or their
    own words for an open question."""
    question = find_question(question_id)
    if question.kind == "open":
        return OWN_WORDS["wrong" if student == "wrong" else "other"]
    wanted = student != "wrong"
    return next(letter for letter, option in zip(question.letters, question.options)
                if option.correct == wanted)


def _answered(student: str, question_id: str) -> NotebookNode:
    """The question's output as saved once `student` clicked their answer: the kernel's own
    rendering of the committed question (what widgets.saving writes)."""
    from nbformat.v4 import new_output


    asked = Asked(find_question(question_id), Commitment(answer=answer(student, question_id)))
    data, metadata = QuestionView(asked, static=True)._repr_mimebundle_()
    return new_output("display_data", data=data, metadata=metadata)
