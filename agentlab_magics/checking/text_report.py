"""The plain-text rendering of a CheckReport: one line per test, failures indented below."""

from __future__ import annotations

import textwrap

from agentlab_magics.checking.report import CheckReport


def render(report: CheckReport) -> str:
    """The summary, then a mark and the sentence per test, each failure's message indented;
    the earlier lessons' tests that still hold come under their group's heading."""
    lines, group = [report.summary()], ""
    for outcome in report.outcomes:
        if outcome.group != group:
            group = outcome.group
            lines.append(group)
        lines.append(f"{outcome.mark} {outcome.sentence}")
        if outcome.message:
            lines.append(textwrap.indent(outcome.message, "    "))
    return "\n".join(lines)
