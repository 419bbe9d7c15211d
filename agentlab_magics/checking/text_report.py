"""The plain-text rendering of a CheckReport: one line per test, failures indented below.

A report quotes what the student's code said (its exceptions, its lines), so a text rendering
shows every control character but the newline and the tab as an escape: an escape sequence
of the student's cannot move a terminal's cursor to write a line the report never held (a
summary of full marks, a mark turned to a tick), and a bidirectional override cannot reorder
what is shown.
"""

from __future__ import annotations

import textwrap

from agentlab_magics.checking.diagnosis import leads
from agentlab_magics.checking.report import CheckReport, group_runs

BIDI = [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]
CONTROLS = [code for code in [*range(0x20), *range(0x7F, 0xA0), *BIDI] if chr(code) not in "\n\t"]
ESCAPES = {code: (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}") for code in CONTROLS}


def printable(text: str) -> str:
    """`text` with each control character other than newline and tab written as its escape."""
    return text.translate(ESCAPES)


def render(report: CheckReport) -> str:
    """The summary and the causes the report leads with (`diagnosis.leads`), then a mark and
    the sentence per test, each failure's message indented; the earlier lessons' tests that
    still hold come under their group's heading, a group that all passed as its heading's one
    line (`CheckReport.folded`); last, what the uncommon marks shown mean."""
    lines = [report.summary(), *(cause.lead for cause in leads(report))]
    folded = report.folded()
    for group, indices in group_runs([outcome.group for outcome in report.outcomes]):
        if group:
            lines.append(folded.get(group, group))
        if group in folded:
            continue
        for outcome in (report.outcomes[index] for index in indices):
            lines.append(f"{outcome.mark} {outcome.sentence}")
            if outcome.message:
                lines.append(textwrap.indent(outcome.message, "    "))
    key = report.mark_key()
    if key:
        lines.append(f"Marks: {key}")
    return printable("\n".join(lines))
