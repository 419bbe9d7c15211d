"""The result of checking a harness against a lab: one object, rendered as text, HTML or a
widget."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

Outcome = Literal["passed", "failed", "error", "timeout"]
# Each mark is a character the DejaVu fonts hold (the fonts Debian's chromium falls back on),
# so no rendering shows a missing glyph: ◷ is a clock face, for a test that ran out of time.
MARKS: dict[str, str] = {"passed": "✓", "failed": "✗", "error": "!", "timeout": "◷"}
# What the marks a student does not know yet mean: said under a report that shows one.
MARK_KEY: dict[str, str] = {
    "error": "! the test could not finish: your code raised an error, ended its process or "
             "went past a limit",
    "timeout": "◷ the test ran out of time"}


class SentRequest(BaseModel):
    """One request a test's run sent the lab's strict model: its number, its shape, and what
    the provider refused it for, if it did."""

    number: int
    shape: str
    refused: str | None = None


class TestOutcome(BaseModel):
    """How one test went: the sentence the student reads, and what went wrong if anything."""

    __test__ = False  # not a pytest test class

    name: str
    sentence: str
    outcome: Outcome
    message: str = ""
    record: list[Any] | None = None
    record_omitted: int = 0
    """Messages of the run's record left out of `record` (its middle, when it was long)."""
    record_complaints: list[str] | None = None
    """For a record kept in part: what a strict provider would say of the whole record (as
    validate words it, by the whole record's indices), its first complaint and those about
    the kept messages; None when the whole record never reached the judge."""
    requests: list[SentRequest] | None = None
    """The last requests the run's model was sent, as the student's code made them."""
    requests_sent: int = 0
    """How many requests the run's model was sent in all."""
    output: str = ""
    """What the student's code printed during the test, cut to a size."""
    duration: float = 0.0
    group: str = ""
    """The heading an earlier lab's test that still holds is shown under, such as "Still
    holds from lesson 3"; empty for the lab's own tests."""
    cause: str = ""
    """Why it failed, read off its run's evidence (`diagnosis.cause_of`); failures with one
    cause are shown as one."""
    spun_on: int | None = None
    """The line of the student's file the code was running when the test ran out of time."""
    spun_at: str = ""
    """That line for a sentence: "line 12 of your cell (`while True:`)"."""
    parting: dict[str, Any] | None = None
    """A visible test's requests beside the reference's, from the turn where they part
    (`parting.parting`): {"yours", "expected"} (shapes, "" past a run's end), "first" and
    "start" (that turn's number)."""
    events: dict[str, Any] | None = None
    """An event stream that differs: {"yours", "expected"} (each a list of short event
    names), "first" (the index where they part) and "problem" (what is wrong there)."""

    @property
    def passed(self) -> bool:
        return self.outcome == "passed"

    @property
    def mark(self) -> str:
        """The one-character mark every rendering puts before the sentence."""
        return MARKS[self.outcome]


def group_runs(groups: list[str]) -> list[tuple[str, list[int]]]:
    """Tests' groups, in report order, as runs of one group each: (the group, "" for the lab's
    own tests, which come first; the indices of its tests)."""
    runs: list[tuple[str, list[int]]] = []
    for index, group in enumerate(groups):
        if not runs or runs[-1][0] != group:
            runs.append((group, []))
        runs[-1][1].append(index)
    return runs


class CheckReport(BaseModel):
    """Every test of one lab, in the lab's order; `problem` is set when no test could run."""

    lab_id: str
    title: str
    outcomes: list[TestOutcome] = Field(default_factory=list)
    problem: str | None = None

    @property
    def passed(self) -> int:
        return sum(outcome.passed for outcome in self.outcomes)

    @property
    def total(self) -> int:
        return len(self.outcomes)

    @property
    def all_passed(self) -> bool:
        return self.problem is None and self.total > 0 and self.passed == self.total

    @property
    def own_passed(self) -> list[str]:
        """The names of the lab's own tests that passed (an earlier lab's that still hold are
        not the lab's): what the progress store counts."""
        return [outcome.name for outcome in self.outcomes if outcome.passed and not outcome.group]

    def mark_key(self) -> str | None:
        """The meaning of each uncommon mark the report shows ("!" and "◷"), in a line; None
        where it shows none."""
        shown = {outcome.outcome for outcome in self.outcomes}
        meanings = [meaning for outcome, meaning in MARK_KEY.items() if outcome in shown]
        return "; ".join(meanings) if meanings else None

    def folded(self) -> dict[str, str]:
        """Per group of earlier lessons' tests of which every one passed, the one line that
        stands for the whole group where it is folded ("Still holds from lesson 3: all 9
        tests pass"); a group with a test that did not pass is never folded."""
        groups: dict[str, list[bool]] = {}
        for outcome in self.outcomes:
            if outcome.group:
                groups.setdefault(outcome.group, []).append(outcome.passed)
        return {group: f"{group}: {'all ' * (len(passed) > 1)}{len(passed)} "
                       f"test{'s pass' if len(passed) > 1 else ' passes'}"
                for group, passed in groups.items() if all(passed)}

    def share(self, names: list[str]) -> CheckReport:
        """This report cut to the lab's own tests named in `names` (never an earlier lab's
        that still hold), with its problem: one graded cell's share of a whole check."""
        return self.model_copy(update={"outcomes": [
            outcome for outcome in self.outcomes if outcome.name in names and not outcome.group]})

    @property
    def spun_on(self) -> int | None:
        """The line the first test that ran out of time was running, if one did."""
        return next((o.spun_on for o in self.outcomes if o.spun_on is not None), None)


    def summary(self) -> str:
        """The report in a line. Where a test failed and earlier lessons' tests ran too (those
        that still hold), the lab's own tests are counted apart from them, so a starter whose
        own tests all fail never reads as half done."""
        if self.problem:
            return f"{self.title}: not checked. {self.problem}"
        own = [outcome for outcome in self.outcomes if not outcome.group]
        if self.all_passed or len(own) == self.total:
            return f"{self.title}: {self.passed} of {self.total} tests passed"
        passed = sum(outcome.passed for outcome in own)
        return (f"{self.title}: {passed} of its {len(own)} own tests passed; "
                f"{self.passed - passed} of {self.total - len(own)} from earlier lessons "
                "still hold")
