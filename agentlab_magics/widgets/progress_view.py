"""The progress map: the course as a path of stops, each with its state by colour and mark.

One stop per page of the course (notebook.syllabus: lessons 1-6, checkpoint A, lesson 7, the
bounded unit), showing its state, each lab's tests passed and its questions answered right; a page
without questions says nothing about questions. The map is static HTML and text only (a widget
would add nothing: there is nothing to click), and every value is escaped.
"""

from __future__ import annotations

from html import escape
from typing import Any

from agentlab_magics.progress.store import STATES
from agentlab_magics.widgets.rendering import ThreeWayView, stylesheet

MARKS = {"not started": "○", "in progress": "◐", "mastered": "★", "built with help": "☆"}
MEANINGS = {
    "not started": "nothing done yet",
    "in progress": "started, not finished",
    "mastered": "every test passed before any help, every question answered",
    "built with help": "passed only after the solution was opened",
}


def lab_line(lab: dict[str, Any]) -> str:
    """How many of the lab's own tests have passed, such as "12 of 12 tests passed"."""
    return f"{lab['tests_passed']} of {lab['tests']} tests passed"


def questions_line(questions: dict[str, int]) -> str:
    """Such as "1 of 2 questions answered right, 1 wrong", or "8 questions to answer" before
    any answer; empty for a page without questions."""
    asked, answered, right = questions["asked"], questions["answered"], questions["right"]
    noun = "question" if asked == 1 else "questions"
    if not answered:
        return f"{asked} {noun} to answer" if asked else ""
    extra = [f"{answered - right} wrong"] if answered > right else []
    extra += [f"{asked - answered} to answer"] if asked > answered else []
    return ", ".join([f"{right} of {asked} {noun} answered right", *extra])


def state_class(state: str) -> str:
    return "al-state-" + state.replace(" ", "-")


def map_html(data: dict[str, Any]) -> str:
    """The map as self-contained HTML: a path of stops, then a legend of the states."""
    parts = ['<div class="al-progress-map">', f"<style>{stylesheet('progress_map.css')}</style>",
             '<p class="al-map-title">Your progress</p><ol class="al-path">']
    for stop in data["stops"]:
        state = stop["state"]
        parts.append(f'<li class="al-stop {state_class(state)}" data-page="{escape(stop["id"])}">'
                     f'<span class="al-dot" aria-hidden="true">{MARKS[state]}</span>'
                     '<div class="al-stop-body">'
                     f'<span class="al-stop-title">{escape(stop["title"])}</span>'
                     f'<span class="al-state-word">{escape(state)}</span>')
        several = len(stop["labs"]) > 1
        for lab in stop["labs"]:
            title = (f'<span class="al-mark {state_class(lab["state"])}">{MARKS[lab["state"]]}'
                     f'</span> {escape(lab["title"])}: ' if several else "")
            parts.append(f'<div class="al-stop-line">{title}{escape(lab_line(lab))}</div>')
        asked = questions_line(stop["questions"])
        if asked:
            parts.append(f'<div class="al-stop-line">{escape(asked)}</div>')
        parts.append("</div></li>")
    parts.append('</ol><ul class="al-legend">')
    parts.extend(f'<li class="{state_class(state)}"><span class="al-mark">{MARKS[state]}</span> '
                 f'<b>{escape(state)}</b>: {escape(MEANINGS[state])}</li>' for state in STATES)
    parts.append("</ul></div>")
    return "".join(parts)


def map_text(data: dict[str, Any]) -> str:
    """The map as text for a terminal: a mark and a line per stop, its details indented."""
    lines = ["Your progress"]
    for stop in data["stops"]:
        lines.append(f"{MARKS[stop['state']]} {stop['title']}: {stop['state']}")
        several = len(stop["labs"]) > 1
        for lab in stop["labs"]:
            title = f"{MARKS[lab['state']]} {lab['title']}: " if several else ""
            lines.append(f"    {title}{lab_line(lab)}")
        asked = questions_line(stop["questions"])
        if asked:
            lines.append(f"    {asked}")
    lines.append("")
    lines.extend(f"{MARKS[state]} {state}: {MEANINGS[state]}" for state in STATES)
    return "\n".join(lines)


class ProgressView(ThreeWayView):
    """The map of `stops` (as notebook.syllabus gives them), as static HTML and text."""

    def __init__(self, stops: list[dict[str, Any]]) -> None:
        super().__init__({"kind": "progress", "stops": stops}, static=True)

    def to_html(self) -> str:
        return map_html(self.data())

    def to_text(self) -> str:
        return map_text(self.data())
