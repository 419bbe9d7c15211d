"""What one student's notebooks of one assignment show, read as data for the class report.

Two notebooks of a submission are read, each for what only it holds:
- the autograded one (nbgrader's autograded/ folder): every graded cell's outputs are the
  judge's reports (grading.autograde.ScoredOutside puts them there, whatever the student's
  kernel printed), one line per test, a failure's message indented under it;
- the submitted one: the views the student saved, so the answers they committed to the
  questions (clicked answers live only there: the autograder's fresh kernel never saw the
  clicks) and the solutions they opened (`%solution`), each found by the view's metadata
  (widgets.rendering.MARK).
A file that is missing or is not a notebook's JSON reads as a notebook showing nothing.
Everything here came from a student or their code: it is data to count and to escape.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from agentlab_magics.checking.report import MARKS
from agentlab_magics.widgets.rendering import MARK

PASSED = MARKS["passed"]
NO_REASON = "The report gives no reason (a held-back test shows none)."


class Outcome(BaseModel):
    """One test as a graded cell's report shows it: its sentence, and a failure's cause."""

    test: str
    passed: bool
    cause: str | None = None


class Work(BaseModel):
    """One submission: each graded cell's outcomes (by grade id, in the notebook's order),
    the answers committed (by question id) and the labs whose solution was opened."""

    cells: dict[str, list[Outcome]] = {}
    answers: dict[str, str] = {}
    solutions: list[str] = []


def cause_in(message: str) -> str:
    """The cause of one failure, from the message its report shows under the test: the
    message's first line. The one place a cause is read, so it can follow the report."""
    first = message.strip().partition("\n")[0].strip()
    return first or NO_REASON


def outcomes_in(report: str) -> list[Outcome]:
    """Every test a report's text shows: a line that starts with a mark and a space is a
    test; the indented lines under a failing one are its message."""
    found: list[tuple[str, bool, list[str]]] = []
    for line in report.splitlines():
        mark, space, sentence = line.partition(" ")
        if mark in MARKS.values() and space:
            found.append((sentence.strip(), mark == PASSED, []))
        elif found and line.startswith("    "):
            found[-1][2].append(line[4:])
    return [Outcome(test=test, passed=passed,
                    cause=None if passed else cause_in("\n".join(message)))
            for test, passed, message in found]


def read_notebook(path: Path) -> dict[str, Any]:
    """A notebook's JSON, or an empty notebook for a file that is missing or unreadable."""
    try:
        notebook = json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError):
        return {}
    return notebook if isinstance(notebook, dict) else {}


def read_work(autograded: list[dict[str, Any]], submitted: list[dict[str, Any]]) -> Work:
    """The submission whose autograded and submitted notebooks are given."""
    work = Work()
    for notebook in autograded:
        for cell in _cells(notebook):
            grade_id = _nbgrader(cell).get("grade_id")
            if _nbgrader(cell).get("grade") is True and isinstance(grade_id, str):
                work.cells[grade_id] = [outcome for output in _outputs(cell)
                                        for outcome in outcomes_in(_text(output))]
    for notebook in submitted:
        for cell in _cells(notebook):
            for output in _outputs(cell):
                view = _metadata(output).get(MARK)
                if not isinstance(view, dict):
                    continue
                if (view.get("view") == "question" and isinstance(view.get("id"), str)
                        and isinstance(view.get("answer"), str)):
                    work.answers.setdefault(view["id"], view["answer"])
                elif view.get("view") == "solution" and isinstance(view.get("lab"), str):
                    work.solutions.append(view["lab"])
    return work


def _cells(notebook: dict[str, Any]) -> list[dict[str, Any]]:
    cells = notebook.get("cells")
    return [cell for cell in cells if isinstance(cell, dict)] if isinstance(cells, list) else []


def _nbgrader(cell: dict[str, Any]) -> dict[str, Any]:
    metadata = cell.get("metadata")
    found = metadata.get("nbgrader") if isinstance(metadata, dict) else None
    return found if isinstance(found, dict) else {}


def _outputs(cell: dict[str, Any]) -> list[dict[str, Any]]:
    outputs = cell.get("outputs")
    return [o for o in outputs if isinstance(o, dict)] if isinstance(outputs, list) else []


def _metadata(output: dict[str, Any]) -> dict[str, Any]:
    metadata = output.get("metadata")
    return metadata if isinstance(metadata, dict) else {}


def _text(output: dict[str, Any]) -> str:
    """A display output's text/plain (a string, or the list of lines nbformat may save)."""
    data = output.get("data")
    text = data.get("text/plain") if isinstance(data, dict) else None
    if isinstance(text, list):
        text = "".join(part for part in text if isinstance(part, str))
    return text if isinstance(text, str) else ""
