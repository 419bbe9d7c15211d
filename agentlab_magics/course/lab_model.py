"""What a lab is, as data: its id, title, the names a student writes and what each is for, its
tests' module, its folder; its starter, reference and marked file are read when asked for."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from agentlab_magics.course import lab_folder
from agentlab_magics.course.instructor import instructor_module, instructor_part, missing
from agentlab_magics.course.starter_files import BUILT_IN
from agentlab_magics.problems import UsageProblem


class UnknownLab(LookupError, UsageProblem):
    """No lab has that id; the message lists the ones there are."""


@dataclass(frozen=True, kw_only=True)
class Lab:
    """One lab, as its folder's lab.toml says (course.packs): the names a student writes, the
    tests, and (as properties) its files. Plain data."""

    id: str
    title: str
    lesson: str
    module: str = "harness"
    names: list[str]
    purposes: dict[str, str]
    tests: str
    folder: Path
    """The lab's folder (course.lab_folder): a built-in lab's is the student package's own
    copy, in BUILT_IN."""
    builds_on: list[str] = field(default_factory=list)
    """The earlier labs whose tests still hold for this one, in course order."""
    fresh_per_test: bool = False
    """Each test gets a student process of its own: for a lab whose answers are a verdict
    (pass or fail) that code could otherwise give by counting calls, not by looking."""
    time_limit: float | None = None
    """Seconds each test may take, where the lab sets its own (lab.toml); None for the limit
    every check gives (checking.time_limit)."""
    groups: list[dict] = field(default_factory=list)
    """A pack lab's graded groups, as lab.toml gives them (course.lab_folder.GroupSpec); a
    built-in lab's are course.assignments'."""
    files: list[str] = field(default_factory=list)
    """A pack lab's data files, in its folder: its tests read them, its notebook has them."""

    @property
    def built_in(self) -> bool:
        """Whether the lab is one of the built-in course's, which travel in the package."""
        return self.folder.parent == BUILT_IN

    @property
    def starter(self) -> str:
        """The file the student starts from, as released: a student copy's starter.py, or the
        reference as nbgrader releases it."""
        return lab_folder.starter(self.folder)

    @property
    def authored(self) -> Path | None:
        """Where the instructor's files of the lab are (reference.py, heldback.py,
        equivalents.toml): the folder it was written in, or a built-in lab's part in the
        instructor package; None in a student copy of a pack lab, or where the instructor
        package is not installed."""
        if self.built_in:
            return instructor_part(self.id)
        return None if lab_folder.is_students_copy(self.folder) else self.folder

    @property
    def reference(self) -> str:
        """The solution: reference.py without its markers (a built-in lab's part holds it
        without them)."""
        if not self.built_in:
            return lab_folder.reference_of(lab_folder.marked(self.folder))
        part = self.authored
        if part is None:
            raise missing(f"The reference of {self.id}")
        return lab_folder.read_text(part / lab_folder.REFERENCE)

    @property
    def marked(self) -> str:
        """The source notebook's cell: the solution with what the student writes between
        nbgrader's solution markers. A pack lab's is its reference.py; a built-in lab's, whose
        cell also says what each gap is (the lesson's file as its starter has it), is composed
        by the instructor package (agentlab_instructor.lab_files)."""
        if not self.built_in:
            return lab_folder.marked(self.folder)
        needs = f"The source notebook cell of {self.id}"
        return instructor_module("lab_files", needs).lab_files(self.id).marked
