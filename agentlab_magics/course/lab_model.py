"""What a lab is, as data: its id, title, the names a student writes and what each is for, its
tests' module, its folder; its starter, reference and marked file are read when asked for."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from agentlab_magics.course import lab_folder
from agentlab_magics.course.instructor import instructor_files
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
    def reference(self) -> str:
        """The solution: the lab's reference.py without its markers, or a built-in lab's from
        the instructor package."""
        if self.built_in:
            return instructor_files(self.id, f"The reference of {self.id}").reference
        return lab_folder.reference_of(self.marked)

    @property
    def marked(self) -> str:
        """The reference with what the student writes between nbgrader's solution markers: the
        lab's reference.py, or a built-in lab's from the instructor package."""
        if self.built_in:
            return instructor_files(self.id, f"The source notebook cell of {self.id}").marked
        return lab_folder.marked(self.folder)
