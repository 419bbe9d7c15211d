"""The plain-text rendering of a CheckReport: one line per test, failures indented below."""

from __future__ import annotations

import textwrap

from agentlab_magics.checking.report import CheckReport

MARKS = {"passed": "✓", "failed": "✗", "error": "!", "timeout": "⏱"}


def render(report: CheckReport) -> str:
    """The summary, then a mark and the sentence per test, each failure's message indented."""
    lines = [report.summary()]
    for outcome in report.outcomes:
        lines.append(f"{MARKS[outcome.outcome]} {outcome.sentence}")
        if outcome.message:
            lines.append(textwrap.indent(outcome.message, "    "))
    return "\n".join(lines)
