"""A diagnosis question as the student sees it now: the question, the answer they committed to
(kept in the progress store, never replaced), and a sentence to show beside it."""

from __future__ import annotations

from dataclasses import dataclass

from agentlab_magics.course.questions import Question
from agentlab_magics.progress.store import Commitment


@dataclass
class Asked:
    """A question as the student sees it now: its commitment, if any, and a sentence to show."""

    question: Question
    commitment: Commitment | None
    notice: str | None = None
