"""The progress map: the course as a path of stops, each with its state by colour and mark.

One stop per page of the course (notebook.syllabus: lessons 1-6, checkpoint A, lesson 7, the
bounded unit), showing its state, each lab's tests passed (its own, and how many more its
`%%check` runs, so the two counts never seem to disagree), what is left to finish it, each
answer committed wrong, and its questions answered right; a page without questions says nothing
about questions. The map is static HTML and text only (a widget would add nothing: there is
nothing to click), and every value is escaped.
"""

from __future__ import annotations

from html import escape
from typing import Any

from agentlab_magics.progress.store import STATES
from agentlab_magics.widgets.assets import stylesheet
from agentlab_magics.widgets.rendering import ThreeWayView

MARKS = {"not started": "○", "in progress": "◐", "mastered": "★", "built with help": "☆"}
MEANINGS = {
    "not started": "nothing done yet",
    "in progress": "started, not finished",
    "mastered": "every test passed in one check before any help, every question answered "
                "(a wrong answer is shown as wrong beside it)",
    "built with help": "finished, but passed only after the solution was opened",
}
WRONG = "✗"


def lab_line(lab: dict[str, Any]) -> str:
    """How many of the lab's own tests have passed, such as "12 of 12 tests passed"; where its
    `%%check` runs more (earlier lessons' tests that still hold), how many more, and where they
    count: "10 of 10 own tests passed; %%check lesson5 runs 40, the other 30 counting in
    earlier lessons"."""
    own = f"{lab['tests_passed']} of {lab['tests']}"
    carried = lab["checked"] - lab["tests"]
    if not carried:
        return f"{own} tests passed"
    return (f"{own} own tests passed; %%check {lab['lab']} runs {lab['checked']}, the other "
            f"{carried} counting in earlier lessons")


def left_line(lab: dict[str, Any]) -> str:
    """What is left to finish the lab, such as "Left: pass all 40 tests of %%check lesson5 in
    one check, the 30 from earlier lessons too; answer %question l5-outage"; empty when
    nothing is."""
    left = []
    if not lab["one_check"]:
        carried = lab["checked"] - lab["tests"]
        also = f", the {carried} from earlier lessons too" if carried else ""
        left.append(f"pass all {lab['checked']} tests of %%check {lab['lab']} in one "
                    f"check{also}")
    unanswered = lab["unanswered"]
    if len(unanswered) == 1:
        left.append(f"answer %question {unanswered[0]}")
    elif unanswered:
        left.append(f"answer {', '.join(unanswered[:-1])} and {unanswered[-1]} (%question ID)")
    return f"Left: {'; '.join(left)}" if left else ""


def wrong_lines(lab: dict[str, Any]) -> list[str]:
    """One line per answer committed wrong: what was chosen, what is right, where to read why."""
    return [f"{WRONG} {wrong['id']}: answered {wrong['answer']}, wrong; {wrong['right']} is "
            f"right (%question {wrong['id']} says why)" for wrong in lab["wrong"]]


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
            parts.extend(f'<div class="al-stop-line al-left">{escape(left)}</div>'
                         for left in [left_line(lab)] if left)
            parts.extend(f'<div class="al-stop-line al-wrong">{escape(line)}</div>'
                         for line in wrong_lines(lab))
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
            lines.extend(f"    {line}" for line in [left_line(lab), *wrong_lines(lab)] if line)
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
