"""Diagnosis questions as data: commit an answer first, then read why each option is right or wrong.

A choice question has options, each with the reason it is right or wrong; an open question
takes the student's own words and then shows the answer and the common answers it beats.
Every lab's questions are read one way, from the questions.toml of its folder: a pack lab's
own folder, a built-in lab's folder in BUILT_IN (course/labs/<id>/, a file of the package).
"""

from __future__ import annotations

import difflib
import functools
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ValidationError

from agentlab_magics.course.catalog import labs
from agentlab_magics.course.lab_folder import QUESTIONS as QUESTIONS_FILE
from agentlab_magics.course.lab_folder import LabFolderProblem, load_toml, read_text


class Option(BaseModel):
    text: str
    correct: bool = False
    why: str


class Question(BaseModel):
    """One question of one lab; `answer` is the full explanation shown once an answer is in."""

    id: str
    lab: str
    kind: Literal["choice", "open"]
    prompt: str
    options: list[Option] = []
    hint: str = ""
    answer: str
    source: str = ""

    @property
    def letters(self) -> list[str]:
        """The options' letters, A first."""
        return [chr(ord("A") + n) for n in range(len(self.options))]

    def letter(self, choice: str) -> str | None:
        """The letter of the option `choice` names (by letter or number from 1), or None."""
        key = choice.strip().upper()
        if key.isdigit() and 1 <= int(key) <= len(self.options):
            return self.letters[int(key) - 1]
        return key if key in self.letters else None

    def answer_for(self, given: str) -> str:
        """The answer to record for what the student gave: an option's letter, or their words.

        Raises ValueError with a sentence saying how to answer when `given` cannot be recorded.
        """
        if self.kind == "open":
            if not given.strip():
                raise ValueError("Write your answer in your own words before committing it.")
            return given.strip()
        letter = self.letter(given)
        if letter is None:
            raise ValueError(f"{given!r} is not one of the options: answer with "
                             f"{', '.join(self.letters[:-1])} or {self.letters[-1]}.")
        return letter


# The options of the questions whose right answer moved off B, in today's order, each named
# by the letter it had until then. Progress files of version 1 hold those letters; the store
# reads them through this table, so a commitment still names the option the student chose.
LETTERS_IN_VERSION_1 = {"l1-two-calls": "ACB", "l2-call-order": "BAC", "l3-label": "CAB",
                        "l5-outage": "BCA", "l6-cut": "CAB", "l7-where": "BAC",
                        "l7-run-end": "ACB"}


def letter_today(question_id: str, answer: str) -> str:
    """The letter today's order gives the option a version-1 progress file committed as
    `answer`; any other answer (an open question's words, an unmoved question) unchanged."""
    before = LETTERS_IN_VERSION_1.get(question_id, "")
    if len(answer) != 1 or answer not in before:
        return answer
    return chr(ord("A") + before.index(answer))


def questions_for(lab_id: str) -> list[Question]:
    """The lab's questions, from the questions.toml of its folder (none where there is no such
    file)."""
    lab = labs().get(lab_id)
    if lab is None:
        return []
    return pack_questions(lab.id, lab.folder / QUESTIONS_FILE)


def pack_questions(lab_id: str, path: Path) -> list[Question]:
    """The questions of questions.toml (a `[[question]]` table each, holding an `[[question.
    option]]` table per option), or none where it is absent; a LabFolderProblem naming the
    file and the question when one is not a question. Read again only once the file changed."""
    try:
        changed = path.stat().st_mtime_ns
    except OSError:
        return []
    return _read_questions(lab_id, path, changed)


@functools.cache
def _read_questions(lab_id: str, path: Path, changed: int) -> list[Question]:
    listed = load_toml(path, read_text(path)).get("question", [])
    found = []
    for number, entry in enumerate(listed if isinstance(listed, list) else [listed], 1):
        try:
            options = [Option.model_validate(option) for option in entry.pop("option", [])]
            found.append(Question.model_validate({**entry, "lab": lab_id, "options": options}))
        except (ValidationError, AttributeError, TypeError) as exc:
            raise LabFolderProblem(f"{path}: question {number} is not a question ({exc}): "
                                   "give each an id, kind (choice or open), prompt and "
                                   "answer, and each option text, correct and why.") from None
    return found


class UnknownQuestion(LookupError):
    """No question has that id; the message lists the ones there are."""


def find_question(question_id: str) -> Question:
    """The question called `question_id`, or UnknownQuestion suggesting the nearest id (what a
    typo most likely meant) and naming the ones there are."""
    every = {question.id: question for lab_id in labs() for question in questions_for(lab_id)}
    wanted = question_id.strip()
    if wanted in every:
        return every[wanted]
    nearest = difflib.get_close_matches(wanted.lower(), list(every), n=1, cutoff=0.6)
    meant = f" Did you mean `%question {nearest[0]}`?" if nearest else ""
    raise UnknownQuestion(f"There is no question called {question_id!r}.{meant} "
                          f"The questions are: {', '.join(every)}.")
