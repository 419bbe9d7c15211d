"""ReportView: a CheckReport shown three ways, each test a line and each failure opened.

One line per test, in the lab's order: a mark (✓ passed, ✗ failed, ⏱ timed out, ! raised) and
the sentence the student reads; a failure shows its message, and a test that kept the record
of its run shows that record as a transcript. Everything from the report is escaped.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING, Any

from agentlab_magics.widgets.rendering import ThreeWayView, style
from agentlab_magics.widgets.transcript_data import MAX_CAP, collapse, transcript_data
from agentlab_magics.widgets.transcript_html import (
    text_block_html,
    transcript_fragment,
    transcript_text,
)

if TYPE_CHECKING:
    from agentlab_magics.checking.report import CheckReport

def report_data(report: CheckReport) -> dict[str, Any]:
    """The report as one JSON-able dict: its summary, and per test its mark, sentence,
    message (collapsed like a long tool output) and the transcript data of its record."""
    tests = []
    for outcome in report.outcomes:
        test = {"name": outcome.name, "sentence": outcome.sentence, "outcome": outcome.outcome,
                "mark": outcome.mark}
        if outcome.message:
            test["message"] = collapse(outcome.message, MAX_CAP)
        if outcome.record is not None:
            test["transcript"] = transcript_data(outcome.record)
        tests.append(test)
    return {"kind": "report", "lab_id": report.lab_id, "title": report.title,
            "summary": report.summary(), "all_passed": report.all_passed,
            "problem": report.problem, "tests": tests}


def report_html(data: dict[str, Any]) -> str:
    """The report as self-contained HTML: a summary line, then a line per test; failures
    open in a <details> with their message and, when kept, the record of the run."""
    parts = ['<div class="al-report">', style(),
             f'<p class="al-summary {"al-ok" if data["all_passed"] else "al-bad"}">'
             f'{escape(data["summary"])}</p><ul class="al-tests">']
    for test in data["tests"]:
        heading = (f'<span class="al-mark">{escape(test["mark"])}</span>'
                   f'<span class="al-sentence">{escape(test["sentence"])}</span>')
        parts.append(f'<li class="al-test al-outcome-{escape(test["outcome"])}" '
                     f'data-test="{escape(test["name"])}">')
        if "message" in test or "transcript" in test:
            opened = "" if test["outcome"] == "passed" else " open"
            parts.append(f"<details{opened}><summary>{heading}</summary>")
            if "message" in test:
                parts.append(f'<div class="al-message">{text_block_html(test["message"])}</div>')
            if "transcript" in test:
                parts.append(transcript_fragment(test["transcript"]))
            parts.append("</details>")
        else:
            parts.append(heading)
        parts.append("</li>")
    parts.append("</ul></div>")
    return "".join(parts)


def report_text(report: CheckReport, data: dict[str, Any]) -> str:
    """The report as text: the summary, a marked line per test, failures' messages and
    records indented under them."""
    lines = [data["summary"]]
    for outcome, test in zip(report.outcomes, data["tests"]):
        lines.append(f'{test["mark"]} {test["sentence"]}')
        if outcome.message and not outcome.passed:
            lines.extend(f"    {line}" for line in outcome.message.splitlines())
        if "transcript" in test and not outcome.passed:
            lines.append(transcript_text(outcome.record, test["transcript"], indent="    "))
    return "\n".join(lines)


class ReportView(ThreeWayView):
    """A CheckReport as a widget, as static HTML and as text; static=True leaves the widget out."""

    def __init__(self, report: CheckReport, *, static: bool = False) -> None:
        super().__init__(report_data(report), static=static)
        self.report = report

    def to_html(self) -> str:
        return report_html(self._data)

    def to_text(self) -> str:
        return report_text(self.report, self._data)
