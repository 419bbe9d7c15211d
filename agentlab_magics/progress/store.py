"""The progress store: per lab, the questions committed, the tests passed, and whether help was used.

Every write goes to a temporary file in the same folder and is then renamed over the
store, so a crash leaves the old file or the new one, never half of one. A file that
cannot be read is moved aside to a backup and reported; it is never overwritten.
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from agentlab_magics.atomic import write_text_atomically

ENV = "AGENTLAB_PROGRESS"
State = Literal["not started", "in progress", "mastered", "built with help"]


def default_path() -> Path:
    """$AGENTLAB_PROGRESS, or ~/.agentlab/progress.json."""
    return Path(os.environ.get(ENV) or Path.home() / ".agentlab" / "progress.json")


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class Commitment(BaseModel):
    """An answer the student committed to, and when; a commitment is never replaced."""

    answer: str
    at: str = Field(default_factory=_now)


class LabProgress(BaseModel):
    """What one lab's row on the map counts."""

    questions: dict[str, Commitment] = Field(default_factory=dict)
    tests_passed: list[str] = Field(default_factory=list)
    passed: bool = False
    solution_opened: bool = False

    def state(self, question_ids: list[str]) -> State:
        """Mastered or built with help once every question is committed and the lab passed."""
        done = self.passed and all(q in self.questions for q in question_ids)
        if done:
            return "built with help" if self.solution_opened else "mastered"
        started = self.questions or self.tests_passed or self.solution_opened
        return "in progress" if started else "not started"

    def merged(self, other: LabProgress) -> LabProgress:
        """Both records together: nothing either holds is lost; the earlier commitment wins."""
        questions = {**other.questions, **self.questions}
        return LabProgress(questions=questions,
                           tests_passed=sorted(set(self.tests_passed) | set(other.tests_passed)),
                           passed=self.passed or other.passed,
                           solution_opened=self.solution_opened or other.solution_opened)


class Progress(BaseModel):
    """The whole file."""

    version: Literal[1] = 1
    labs: dict[str, LabProgress] = Field(default_factory=dict)


class ProgressError(ValueError):
    """A progress file that cannot be used; the message says what happened and what to do."""


class ProgressStore:
    """The progress file at `path`; `notice` holds a sentence if loading had to set a file aside."""

    def __init__(self, path: str | Path | None = None):
        self.path = Path(path) if path else default_path()
        self.notice: str | None = None
        self.data = self._load()

    def _load(self) -> Progress:
        if not self.path.exists():
            return Progress()
        try:
            return parse(self.path.read_text(encoding="utf-8"), self.path)
        except ProgressError as exc:
            backup = self.path.with_name(f"{self.path.name}.corrupt-"
                                         f"{datetime.now().strftime('%Y%m%d-%H%M%S')}")
            self.path.replace(backup)
            self.notice = (f"{exc} It has been moved to {backup}, nothing in it was deleted; "
                           "progress starts again in a new file. Fix that file and "
                           f"`%progress import {backup}` to bring it back.")
            return Progress()

    def lab(self, lab_id: str) -> LabProgress:
        return self.data.labs.get(lab_id, LabProgress())

    def commit(self, lab_id: str, question_id: str, answer: str) -> Commitment:
        """Record the answer to a question, unless one is already recorded; return the one kept."""
        record = self.data.labs.setdefault(lab_id, LabProgress())
        if question_id not in record.questions:
            record.questions[question_id] = Commitment(answer=answer)
            self.save()
        return record.questions[question_id]

    def checked(self, lab_id: str, passed_tests: list[str], all_passed: bool) -> None:
        record = self.data.labs.setdefault(lab_id, LabProgress())
        record.tests_passed = sorted(set(record.tests_passed) | set(passed_tests))
        record.passed = record.passed or all_passed
        self.save()

    def solution_opened(self, lab_id: str) -> None:
        self.data.labs.setdefault(lab_id, LabProgress()).solution_opened = True
        self.save()

    def save(self) -> None:
        self.export(self.path)

    def export(self, target: str | Path) -> Path:
        """Write the progress to `target` in one atomic step; the store's own file is `save`."""
        return write_text_atomically(target, self.data.model_dump_json(indent=2))

    def import_(self, source: str | Path) -> int:
        """Merge a progress file into this one; returns how many labs it touched."""
        source = Path(source)
        if not source.is_file():
            raise ProgressError(f"There is no progress file at {source}.")
        incoming = parse(source.read_text(encoding="utf-8"), source)
        for lab_id, record in incoming.labs.items():
            self.data.labs[lab_id] = self.lab(lab_id).merged(record)
        self.save()
        return len(incoming.labs)


def parse(text: str, where: Path) -> Progress:
    try:
        return Progress.model_validate(json.loads(text))
    except json.JSONDecodeError as exc:
        raise ProgressError(f"The progress file {where} is not valid JSON "
                            f"(line {exc.lineno}: {exc.msg}).") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        place = ".".join(str(part) for part in first["loc"]) or "the top level"
        raise ProgressError(f"The progress file {where} is not a progress file "
                            f"({place}: {first['msg']}).") from None
