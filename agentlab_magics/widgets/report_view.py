"""ReportView: a CheckReport shown three ways, each test a line and each failure opened.

One line per test, in the lab's order: a mark (✓ passed, ✗ failed, ◷ timed out, ! raised) and
the sentence the student reads; a failure shows its message and, where they explain it, the
panels of its run: the requests the student's code sent the model, and the record the run
left. Everything from the report is escaped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html import escape
from typing import TYPE_CHECKING, Any

from agentlab_magics.checking.cell_source import not_written
from agentlab_magics.checking.diagnosis import leads
from agentlab_magics.checking.report import group_runs
from agentlab_magics.checking.text_report import printable
from agentlab_magics.widgets.assets import style
from agentlab_magics.widgets.rendering import ThreeWayView
from agentlab_magics.widgets.transcript_data import MAX_CAP, Cut, collapse, transcript_data
from agentlab_magics.widgets.transcript_html import (
    text_block_html,
    transcript_fragment,
    transcript_text,
)

if TYPE_CHECKING:
    from agentlab_magics.checking.report import CheckReport, TestOutcome

SHOWN_REQUESTS = 6   # requests listed in view; earlier ones wait behind "N earlier"
# Words that make a failure about what a strict provider accepts.
ABOUT_ACCEPTING = re.compile(r"\bstrict\b|\baccept|\brefus", re.IGNORECASE)


def report_data(report: CheckReport) -> dict[str, Any]:
    """The report as one JSON-able dict: its summary; the causes it leads with
    (`diagnosis.leads`), each with its lead sentence, one shared by several failures with the
    panels of one of its tests' runs, drawn once; and per test its mark, sentence, message
    (collapsed like a long tool output), the panels that explain a failure no other shares,
    and whether it opens: a failure does, unless it repeats an earlier one's "not written
    yet"."""
    leading = leads(report)
    cause_of_test = {name: number for number, cause in enumerate(leading)
                     if len(cause.tests) > 1 for name in cause.tests}
    outcomes = {outcome.name: outcome for outcome in report.outcomes}
    tests, missing = [], set()
    for outcome in report.outcomes:
        repeated = outcome.message in missing
        if not_written(outcome.message):
            missing.add(outcome.message)
        test = {"name": outcome.name, "sentence": outcome.sentence, "outcome": outcome.outcome,
                "mark": outcome.mark, "open": not (outcome.passed or repeated)}
        if outcome.group:
            test["group"] = outcome.group
        if outcome.message:
            test["message"] = collapse(outcome.message, MAX_CAP)
        if outcome.name in cause_of_test:
            test["cause"] = cause_of_test[outcome.name]
        elif explained_by_its_run(outcome):
            test.update(panels(outcome))
        tests.append(test)
    drawn_causes = [{"lead": cause.lead, "tests": cause.tests, "drawn_by": cause.drawn_by,
                     **(panels(outcomes[cause.drawn_by]) if len(cause.tests) > 1 else {})}
                    for cause in leading]
    return {"kind": "report", "lab_id": report.lab_id, "title": report.title,
            "summary": report.summary(), "all_passed": report.all_passed,
            "problem": report.problem, "causes": drawn_causes, "tests": tests,
            "folded": report.folded(), "key": report.mark_key()}


def panels(outcome: TestOutcome) -> dict[str, Any]:
    """The drawings of one failing run: the events beside the expected ones, its requests
    beside the reference's from where they part, the requests it sent, its record; only those
    it has."""
    drawn: dict[str, Any] = {}
    if outcome.events and "expected" in outcome.events:
        drawn["events"] = outcome.events
    if not_written(outcome.message):
        return drawn
    if outcome.parting:
        drawn["parting"] = outcome.parting
    if outcome.requests:
        drawn["sent"] = sent_data(outcome)
    if outcome.record:
        drawn["transcript"] = record_data(outcome)
    return drawn


def record_data(outcome: TestOutcome) -> dict[str, Any]:
    """The record panel: the run's record as kept, judged as the whole record it came from;
    a long one keeps its two ends, each row numbered as in the whole record, with a gap
    between them that says how many messages it leaves out."""
    kept = len(outcome.record or [])
    cut = Cut(kept // 2, outcome.record_omitted, outcome.record_complaints) \
        if outcome.record_omitted else None
    data = transcript_data(outcome.record, rule=False, judged=about_accepting(outcome), cut=cut)
    if cut is not None:
        whole = kept + cut.omitted
        data["summary"] = f"{kept:,} of {whole:,} messages kept · {data['summary']}"
        data["record_note"] = (f"The run's record held {whole:,} messages: this panel keeps "
                               f"its first {cut.at:,} and its last {kept - cut.at:,}, numbered "
                               f"as in the whole record, and leaves out the {cut.omitted:,} "
                               "between them.")
        if cut.complaints is None:
            data["record_note"] += (" Only its ends came back from your code's process, so "
                                    "the record is not judged.")
    return data


def explained_by_its_run(outcome: TestOutcome) -> bool:
    """Whether a test's run has panels worth drawing: it failed, ran the student's code far
    enough to leave a record or send a request, and did not stop on a name not written yet."""
    return (not outcome.passed and not not_written(outcome.message)
            and bool(outcome.record or outcome.requests))


def about_accepting(outcome: TestOutcome) -> bool:
    """Whether the failure is about what a strict provider accepts: the run had a request
    refused, or the test's words are about accepting or refusing. Only then does the record's
    panel carry the provider's verdict and complaints."""
    refused = any(request.refused for request in outcome.requests or [])
    return refused or bool(ABOUT_ACCEPTING.search(f"{outcome.sentence}\n{outcome.message}"))


def sent_data(outcome: TestOutcome) -> dict[str, Any]:
    """The requests the student's code sent the model, as the run's model received them: a
    heading that counts them in model calls, the last SHOWN_REQUESTS in view, the rest kept
    behind "N earlier", and how many earlier ones the report does not hold."""
    requests = [request.model_dump() for request in outcome.requests or []]
    total = max(outcome.requests_sent, len(requests))
    calls = f"{total:,} model call{'s' * (total != 1)}"
    return {"heading": f"Requests your code sent the model: {calls}",
            "shown": requests[-SHOWN_REQUESTS:], "earlier": requests[:-SHOWN_REQUESTS],
            "not_kept": total - len(requests)}


def report_html(data: dict[str, Any]) -> str:
    """The report as self-contained HTML: a summary line; each shared cause's lead sentence
    and its one drawing; then a line per test, failures open in a <details> with their
    message and, for a failure no other shares, the drawings of its run; a group of earlier
    lessons' tests that all pass folded into its one line."""
    parts = ['<div class="al-report">', style(),
             f'<p class="al-summary {"al-ok" if data["all_passed"] else "al-bad"}">'
             f'{escape(data["summary"])}</p>']
    if data.get("problem") and data["tests"]:
        parts.append(f'<p class="al-problem">{escape(data["problem"])}</p>')
    for cause in data.get("causes", []):
        parts.append(f'<div class="al-cause"><p class="al-lead">{escape(cause["lead"])}</p>'
                     f'{panels_html(cause)}</div>')
    parts.append('<ul class="al-tests">')
    for group, indices in group_runs([test.get("group", "") for test in data["tests"]]):
        items = "".join(test_html(data["tests"][index]) for index in indices)
        folded = data.get("folded", {}).get(group)
        if folded:  # earlier lessons' tests that all pass: one line, opened on a click
            parts.append(f'<li class="al-group al-folded"><details><summary>{escape(folded)}'
                         f'</summary><ul class="al-held">{items}</ul></details></li>')
            continue
        if group:
            parts.append(f'<li class="al-group">{escape(group)}</li>')
        parts.append(items)
    parts.append("</ul>")
    if data.get("key"):
        parts.append(f'<p class="al-key">Marks: {escape(data["key"])}</p>')
    parts.append("</div>")
    return "".join(parts)


def test_html(test: dict[str, Any]) -> str:
    """One test's line: its mark and sentence, a failure's message and drawings folded under
    it."""
    heading = (f'<span class="al-mark" title="{escape(test["outcome"])}">'
               f'{escape(test["mark"])}</span>'
               f'<span class="al-sentence">{escape(test["sentence"])}</span>')
    parts = [f'<li class="al-test al-outcome-{escape(test["outcome"])}" '
             f'data-test="{escape(test["name"])}">']
    drawn = panels_html(test)
    if "message" in test or drawn:
        opened = " open" if test["open"] else ""
        parts.append(f"<details{opened}><summary>{heading}</summary>")
        if "message" in test:
            parts.append(f'<div class="al-message">{text_block_html(test["message"])}</div>')
        parts.append(drawn)
        parts.append("</details>")
    else:
        parts.append(heading)
    parts.append("</li>")
    return "".join(parts)


def panels_html(drawn: dict[str, Any]) -> str:
    """The drawings a test or a cause holds, in order: events, the parting from the reference,
    requests sent, record."""
    parts = []
    if "events" in drawn:
        parts.append(side_by_side_html(drawn["events"], EVENTS))
    if "parting" in drawn:
        parts.append(side_by_side_html(drawn["parting"], PARTING))
    if "sent" in drawn:
        parts.append(sent_html(drawn["sent"]))
    if "transcript" in drawn:
        parts.append(transcript_fragment(drawn["transcript"]))
    return "".join(parts)


def event_rows(events: dict[str, Any]) -> list[tuple[str, str, bool]]:
    """(yours, expected, parted) per event, side by side: "" where one stream has ended,
    parted true from the first place they differ on."""
    yours, expected, first = events["yours"], events["expected"], events["first"]
    return [(yours[index] if index < len(yours) else "",
             expected[index] if index < len(expected) else "", index >= first)
            for index in range(max(len(yours), len(expected)))]


@dataclass(frozen=True)
class SideBySide:
    """How a run beside the one expected is drawn: the table's classes, its caption (a
    parting's summary follows it), its column heads, and what an empty side reads."""

    css: str
    caption: str
    heads: tuple[str, str, str]
    blank: str = ""


EVENTS = SideBySide("al-events", "The events your run told, beside the expected ones",
                    ("#", "yours", "expected"))
PARTING = SideBySide("al-events al-parting", "Where your run parts from the reference's",
                     ("turn", "your request", "the reference's"), blank="(no request)")


def _caption(rows: dict[str, Any], kind: SideBySide) -> str:
    return f'{kind.caption}. {rows["summary"]}' if rows.get("summary") else kind.caption


def side_by_side_html(rows: dict[str, Any], kind: SideBySide) -> str:
    """A run beside the expected one, numbered from its "start", the first place they part
    marked."""
    heads = "".join(f"<th>{escape(head)}</th>" for head in kind.heads)
    parts = [f'<table class="{kind.css}"><caption class="al-title">'
             f'{escape(_caption(rows, kind))}</caption><thead><tr>{heads}</tr></thead><tbody>']
    for index, (mine, wanted, parted) in enumerate(event_rows(rows)):
        mark = ' class="al-parts"' if index == rows["first"] else (
            ' class="al-after"' if parted else "")
        parts.append(f'<tr{mark}><td class="al-index">{index + rows.get("start", 1)}</td>'
                     f'<td><code>{escape(mine or kind.blank)}</code></td>'
                     f'<td><code>{escape(wanted or kind.blank)}</code></td></tr>')
    parts.append("</tbody></table>")
    return "".join(parts)


def side_by_side_text(rows: dict[str, Any], kind: SideBySide, indent: str = "") -> str:
    """A run beside the expected one as text lines, "→" at the first place they part."""
    caption = _caption(rows, kind)
    lines = [caption if caption.endswith(".") else f"{caption}:"]
    for index, (mine, wanted, _) in enumerate(event_rows(rows)):
        pointer = "→" if index == rows["first"] else " "
        lines.append(f"{pointer} {index + rows.get('start', 1):>2}. {mine or kind.blank:<16} "
                     f"{wanted or kind.blank}")
    return "\n".join(indent + line for line in lines)


def sent_html(sent: dict[str, Any]) -> str:
    """The requests a run sent, one line each: number, shape, and the refusal if any."""
    def line(request: dict[str, Any]) -> str:
        refused = (f'<span class="al-refused">refused: {escape(request["refused"])}</span>'
                   if request["refused"] else "")
        return (f'<li class="al-sent-request{" al-bad" if request["refused"] else ""}">'
                f'<span class="al-index">{request["number"]}</span>'
                f'<code class="al-shape">{escape(request["shape"])}</code>{refused}</li>')

    parts = ['<div class="al-sent">', f'<p class="al-title">{escape(sent["heading"])}</p>']
    if sent["not_kept"]:
        parts.append(f'<p class="al-note">… {sent["not_kept"]:,} earlier not kept</p>')
    if sent["earlier"]:
        parts.append(f'<details class="al-rest"><summary>{len(sent["earlier"]):,} earlier'
                     '</summary><ol class="al-sent-list">')
        parts.extend(line(request) for request in sent["earlier"])
        parts.append("</ol></details>")
    parts.append('<ol class="al-sent-list">')
    parts.extend(line(request) for request in sent["shown"])
    parts.append("</ol></div>")
    return "".join(parts)


def sent_text(sent: dict[str, Any], indent: str = "") -> str:
    """The requests a run sent as text lines, every one the report holds."""
    lines = [sent["heading"]]
    if sent["not_kept"]:
        lines.append(f"… {sent['not_kept']:,} earlier not kept")
    for request in sent["earlier"] + sent["shown"]:
        refused = f"  refused: {request['refused']}" if request["refused"] else ""
        lines.append(f"  {request['number']}. {request['shape']}{refused}")
    return "\n".join(indent + line for line in lines)


def report_text(report: CheckReport, data: dict[str, Any]) -> str:
    """The report as text: the summary, each cause's lead (a shared one's one drawing), a
    marked line per test, failures' messages and unshared drawings indented under them; the
    student's control characters shown as escapes."""
    lines = [data["summary"]]
    if data.get("problem") and data["tests"]:
        lines.append(data["problem"])
    outcomes = {outcome.name: outcome for outcome in report.outcomes}
    for cause in data.get("causes", []):
        lines.append(cause["lead"])
        lines.extend(panels_text(outcomes[cause["drawn_by"]], cause, "    "))
    for group, indices in group_runs([test.get("group", "") for test in data["tests"]]):
        folded = data.get("folded", {}).get(group)
        if folded or group:
            lines.append(folded or group)
        for index in [] if folded else indices:
            outcome, test = report.outcomes[index], data["tests"][index]
            lines.append(f'{test["mark"]} {test["sentence"]}')
            if outcome.message and not outcome.passed:
                lines.extend(f"    {line}" for line in outcome.message.splitlines())
            lines.extend(panels_text(outcome, test, "    "))
    if data.get("key"):
        lines.append(f'Marks: {data["key"]}')
    return printable("\n".join(lines))


def panels_text(outcome: TestOutcome, drawn: dict[str, Any], indent: str) -> list[str]:
    """The drawings a test or a cause holds, as text."""
    lines = []
    if "events" in drawn:
        lines.append(side_by_side_text(drawn["events"], EVENTS, indent))
    if "parting" in drawn:
        lines.append(side_by_side_text(drawn["parting"], PARTING, indent))
    if "sent" in drawn:
        lines.append(sent_text(drawn["sent"], indent))
    if "transcript" in drawn:
        lines.append(transcript_text(outcome.record, drawn["transcript"], indent=indent))
    return lines


class ReportView(ThreeWayView):
    """A CheckReport as a widget, as static HTML and as text; static=True leaves the widget out."""

    def __init__(self, report: CheckReport, *, static: bool = False) -> None:
        super().__init__(report_data(report), static=static)
        self.report = report

    def to_html(self) -> str:
        return report_html(self.data())

    def to_text(self) -> str:
        return report_text(self.report, self.data())
