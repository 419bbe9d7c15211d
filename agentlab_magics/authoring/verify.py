"""A lab checked before it ships: its reference passes every test, its starter fails some test
of the lab's own, every test has the sentence a student reads, and every plausible one-edit
mutant of what the student writes fails some test, or is listed with the reason no test can
tell it apart (an equivalent mutant).

A mutant is run as a student's file is checked, held-back tests included, in a student
process of its own, and stops at its first failing test: a mutant that hangs is stopped by the
per-test time limit. The lab's list of equivalent mutants is the instructor's (they hold the
reference's code): the equivalents.toml where the lab was written (`Lab.authored`: a pack lab's
folder, a built-in lab's part in the instructor package; `"edit" = "reason"` under
`[equivalent]`), by the mutant's edit
(`Mutant.key`). A pack lab's notebook is built too, as `agentlab course build` would.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from agentlab_magics.authoring.mutants import Mutant, mutants
from agentlab_magics.checking.process import StudentProcess
from agentlab_magics.checking.report import CheckReport, TestOutcome
from agentlab_magics.checking.runner import lab_tests, run
from agentlab_magics.checking.spares import Spares
from agentlab_magics.course import find_lab
from agentlab_magics.course.assignments import pack_assignment
from agentlab_magics.course.lab_folder import EQUIVALENTS, load_toml, read_text
from agentlab_magics.course.lab_model import Lab
from agentlab_magics.making import notebooks

MUTANT_TIME_LIMIT = 2.0  # seconds a test of a mutant may take: the references take milliseconds


@dataclass
class Verification:
    """What `verify` found of one lab."""

    lab: str
    problems: list[str] = field(default_factory=list)
    mutants: int = 0
    killed: int = 0
    equivalent: int = 0
    survivors: list[Mutant] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        return not self.problems and not self.survivors

    def count(self, mutant: Mutant, fate: str) -> None:
        """Count one mutant by its fate: "killed", "equivalent" or "survived"."""
        if fate == "killed":
            self.killed += 1
        elif fate == "equivalent":
            self.equivalent += 1
        else:
            self.survivors.append(mutant)

    def line(self) -> str:
        """The count in one line a script can read."""
        return (f"{self.lab}: {self.mutants} mutants, {self.killed} killed, {self.equivalent} "
                f"equivalent, {len(self.survivors)} survived ({self.seconds:.1f} s)")


class _Killed(Exception):
    """A mutant failed a test: no need to run the rest."""


def verify(lab_id: str) -> Verification:
    """Check the lab, as the module's docstring says."""
    started = time.perf_counter()
    lab = find_lab(lab_id)
    found = Verification(lab.id, problems=_problems(lab))
    equivalent = equivalents(lab.id)
    made = mutants(lab.marked)
    found.mutants = len(made)
    spares = Spares(StudentProcess.local, eager=True)
    try:
        for mutant in made:
            killed = _killed(lab, mutant, spares)
            if killed and mutant.key in equivalent:
                found.problems.append(f"the list of equivalent mutants names {mutant.key}, "
                                      "which a test tells apart: take it off the list")
            found.count(mutant, "killed" if killed
                        else "equivalent" if mutant.key in equivalent else "survived")
    finally:
        spares.close()
    stale = sorted(set(equivalent) - {mutant.key for mutant in made})
    found.problems += [f"the list of equivalent mutants names an edit no mutant makes now: "
                       f"{key}" for key in stale]
    found.seconds = time.perf_counter() - started
    return found


def equivalents(lab_id: str) -> dict[str, str]:
    """The lab's equivalent mutants, by edit, with the reason no test can tell each apart."""
    authored = find_lab(lab_id).authored
    path = authored / EQUIVALENTS if authored is not None else None
    if path is None or not path.is_file():
        return {}
    listed = load_toml(path, read_text(path)).get("equivalent", {})
    return {str(edit): str(reason) for edit, reason in listed.items()}


def _problems(lab: Lab) -> list[str]:
    """What is wrong with the lab before any mutant: a reference that fails a test, a starter
    that passes all of the lab's own, a test with no sentence."""
    problems = [f"the reference fails {outcome.name}: {outcome.message or outcome.outcome}"
                for outcome in _outcomes(run(lab.id, "", source=lab.marked, held_back=True))
                if not outcome.passed]
    own = [outcome for outcome in _outcomes(run(lab.id, "", source=lab.starter, held_back=True))
           if not outcome.group]
    if own and all(outcome.passed for outcome in own):
        problems.append("the starter passes every test of the lab's own: it leaves the student "
                        "nothing to write")
    problems += [f"{test.name} has no docstring: its first paragraph is the sentence a student "
                 "reads" for test in lab_tests(lab, held_back=True) if test.sentence == test.name]
    if not lab.built_in:
        problems += _notebook_problems(lab)
    return problems


def _notebook_problems(lab: Lab) -> list[str]:
    """What stops the pack lab's notebook from building, as `agentlab course build` builds it."""
    try:
        notebooks.text(pack_assignment(lab))
    except Exception as exc:  # whatever stops the build is the problem to say
        return [f"its notebook does not build: {type(exc).__name__}: {exc}"]
    return []


def _outcomes(report: CheckReport) -> list[TestOutcome]:
    if report.problem:
        return [TestOutcome(name="loading", sentence="", outcome="error", message=report.problem)]
    return report.outcomes


def _killed(lab: Lab, mutant: Mutant, spares: Spares) -> bool:
    """Whether some test of the lab fails on the mutant (or it cannot be loaded)."""
    def stop(outcome: TestOutcome) -> None:
        if not outcome.passed:
            raise _Killed

    try:
        report = run(lab.id, "", source=mutant.source, held_back=True,
                     timeout=MUTANT_TIME_LIMIT, on_outcome=stop, launch=spares.take)
    except _Killed:
        return True
    return report.problem is not None or not report.all_passed
