"""What a lab is, as data: its id, title, the names a student writes and what each is for, its
tests' module; its starter, reference and marked file are read when asked for. Plain data,
so that finding a lab loads no validation library."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from agentlab_magics.course import lab_folder
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
    time_limit: float | None = None
    """Seconds each test may take, where the lab sets its own (a pack lab's lab.toml); None
    for the limit every check gives (checking.time_limit)."""
    folder: Path | None = None
    """The lab's folder, for a lab of a course pack (course.lab_folder); None for a built-in."""
    groups: list[dict] = field(default_factory=list)
    """A pack lab's graded groups, as lab.toml gives them (course.lab_folder.GroupSpec)."""
    files: list[str] = field(default_factory=list)
    """A pack lab's data files, in its folder: its tests read them, its notebook has them."""

    @property
    def starter(self) -> str:
        """The file the student starts from, as released: the student package's own copy, or
        for a pack lab the reference as nbgrader releases it."""
        if self.folder is not None:
            return lab_folder.starter(self.folder)
        return read_starter(self.id)

    @property
    def reference(self) -> str:
        """The solution: the instructor package's, or the pack lab's reference.py without
        its markers."""
        if self.folder is not None:
            return lab_folder.reference_of(self.marked)
        return instructor_files(self.id, f"The reference of {self.id}").reference

    @property
    def marked(self) -> str:
        """The reference with what the student writes between nbgrader's solution markers;
        needs the instructor package (or, for a pack lab, its reference.py)."""
        if self.folder is not None:
            return lab_folder.marked(self.folder)
        return instructor_files(self.id, f"The source notebook cell of {self.id}").marked

