"""The class report as one self-contained HTML page: no script, no link, no font or file to
fetch, so it opens from disk, offline, and in the formgrader's browser.

Per assignment: the scores, who handed in late or not at all, the tests most failed with their
causes and who hit each, how the class answered each question, and when work came in; then
the course map, a row per student. Every chart (class_charts.py) has beside it a table of the
numbers it draws. Every string from the gradebook, a notebook or a report is escaped.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from pathlib import Path

from agentlab_magics.atomic import write_text_atomically
from agentlab_magics.term.class_charts import bar_chart
from agentlab_magics.term.class_report import (
    AssignmentRow,
    ClassReport,
    QuestionRow,
    TestRow,
    read_class,
)
from agentlab_magics.term.nbgrader_cli import Nbgrader

PAGE = "index.html"
CHARTED_TESTS = 12  # the most failed tests drawn; the table beside them lists every test
STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; color: #1f2328; margin: 2em auto;
       max-width: 72em; padding: 0 1em; }
h2 { border-bottom: 1px solid #d0d7de; padding-bottom: .2em; margin-top: 2em; }
.pair { display: flex; flex-wrap: wrap; gap: 1.5em; align-items: flex-start; }
.pair svg { max-width: 100%; height: auto; }
table { border-collapse: collapse; }
th, td { border: 1px solid #d0d7de; padding: .2em .5em; text-align: left; vertical-align: top; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
td[data-state] { white-space: nowrap; }
td.stuck { min-width: 18em; }
.wide { overflow-x: auto; }
figcaption { color: #57606a; font-size: 12px; }
.who { color: #57606a; }
.right { font-weight: bold; }
.state-mastered { background: #dafbe1; } .state-built-with-help { background: #fff8c5; }
.state-in-progress { background: #ddf4ff; } .state-not-started { color: #57606a; }
details { margin: .3em 0; }
"""


def write_class_page(course: Path, out: Path, assignments: Sequence[str] = (), *,
                     nbgrader: Nbgrader | None = None) -> Path:
    """Read the course (class_report.read_class) and write its page as `out`/index.html;
    the page's path. Nothing is written into the course."""
    report = read_class(course, assignments, nbgrader=nbgrader)
    out.mkdir(parents=True, exist_ok=True)
    write_text_atomically(out / PAGE, class_page(report))
    return out / PAGE


def class_page(report: ClassReport) -> str:
    """The page of `report`."""
    title = f"The class at a glance: {report.course_id}"
    nav = " · ".join(f'<a href="#{_anchor(a.id)}">{escape(a.id)}</a>'
                     for a in report.assignments)
    return "".join([
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)}'
        f"</title><style>{STYLE}</style></head><body><h1>{escape(title)}</h1>",
        f"<p>{_plural(len(report.students), 'student')} on the roster, "
        f"{_plural(len(report.assignments), 'assignment')}: {nav} · "
        '<a href="#map">the course map</a>.</p>',
        *(_assignment(row, report) for row in report.assignments),
        _map(report), "</body></html>"])


def _assignment(row: AssignmentRow, report: ClassReport) -> str:
    names = {s.id: s.name for s in report.students}
    due = f"due {row.duedate:%Y-%m-%d %H:%M} UTC" if row.duedate else "no due date"
    return "".join([
        f'<section id="{_anchor(row.id)}"><h2>{escape(row.id)}</h2>',
        f'<p class="counts">{escape(due)}: <span data-count="submitted">{len(row.scores)}</span>'
        f' handed in, <span data-count="late">{len(row.late)}</span> late, '
        f'<span data-count="missing">{len(row.missing)}</span> missing.</p>',
        _who("Late", row.late, names), _who("Missing", row.missing, names),
        f"<h3>Scores (out of {row.max_score:g})</h3>",
        _pair(bar_chart(row.score_counts(), key=f"{row.id}-scores"),
              _table(["Score", "Students"], row.score_counts(), "scores")),
        "<h3>Tests, most failed first</h3>", _tests(row, names),
        *(_question(row.id, q, names) for q in row.questions),
        "<h3>When work came in</h3>",
        _pair(bar_chart(row.timing_counts(), key=f"{row.id}-timing"),
              _table(["Handed in", "Students"], row.timing_counts(), "timing"))
        if row.handed_in else "<p>No hand-in has a time in the gradebook.</p>",
        "</section>"])


def _tests(row: AssignmentRow, names: dict[str, str]) -> str:
    """The failing share of each test (a chart of the most failed, a table of all), then each
    failed test's causes, most common first, with who hit them."""
    if not row.tests:
        return "<p>No autograded report shows a test yet.</p>"
    failing = [t for t in row.tests if t.failed]
    chart = bar_chart([(f"{n}. {t.test}", round(100 * t.share))
                       for n, t in enumerate(failing[:CHARTED_TESTS], 1)],
                      key=f"{row.id}-tests", horizontal=True, axis="% of students failing")
    rows = "".join(
        f'<tr data-test="{escape(t.test)}" data-cell="{escape(t.cell)}"><td class="n">{n}</td>'
        f'<td>{escape(t.test)}</td>'
        f'<td class="n" data-failed>{len(t.failed)}</td><td class="n" data-shown>{t.shown}</td>'
        f'<td class="n">{round(100 * t.share)}%</td></tr>' for n, t in enumerate(row.tests, 1))
    table = ("<table><tr><th>#</th><th>Test</th><th>Failing</th><th>Of</th><th>Share</th></tr>"
             f"{rows}</table>")
    causes = "".join(_causes(t, names) for t in failing)
    return (_pair(chart if failing else "<p>Every test passed for everyone.</p>", table)
            + ("<p>Why they fail: open a test for its causes, the most common first, and who "
               f"hit each.</p>{causes}" if failing else ""))


def _causes(test: TestRow, names: dict[str, str]) -> str:
    items = "".join(
        f'<li data-cause="{escape(c.sentence)}"><span data-count>{len(c.students)}</span> × '
        f'{escape(c.sentence)} (<span class="who">{escape(_names(c.students, names))}</span>)'
        "</li>" for c in test.causes)
    return (f'<details data-test="{escape(test.test)}" data-cell="{escape(test.cell)}">'
            f'<summary>{escape(test.test)} '
            f"({len(test.failed)} of {test.shown})</summary><ul>{items}</ul></details>")


def _question(assignment: str, question: QuestionRow, names: dict[str, str]) -> str:
    pairs = [(_option_label(o.letter, o.correct), len(o.students)) for o in question.options]
    head = (f'<div data-question="{escape(question.id)}"><h3>Question {escape(question.id)}'
            f"</h3><p>{escape(question.prompt)}</p>")
    rows = "".join(
        f'<tr data-option="{escape(o.letter)}"><td class="{"right" if o.correct else ""}">'
        f'{escape(_option_label(o.letter, o.correct))}</td><td>{escape(o.text)}</td>'
        f'<td class="n" data-count>{len(o.students)}</td>'
        f'<td class="who">{escape(_names(o.students, names))}</td></tr>'
        for o in question.options)
    table = ("<table><tr><th>Option</th><th>Text</th><th>Students</th><th>Who</th></tr>"
             f"{rows}</table>")
    chart = bar_chart(pairs, key=f"{assignment}-{question.id}",
                      marked=[_option_label(o.letter, True) for o in question.options
                              if o.correct]) \
        + "<figcaption>The right option is green, and labelled (right).</figcaption>" \
        if any(count for _, count in pairs) else "<p>No one chose an option.</p>"
    words = "".join(f'<li data-words><span class="who">{escape(names.get(s, s))}:</span> '
                    f"{escape(text)}</li>" for s, text in question.own_words)
    return "".join([
        head, _pair(chart, table) if pairs else "",
        f"<p>In their own words ({len(question.own_words)}):</p><ul>{words}</ul>"
        if question.own_words else "",
        f'<p>Not answered: <span data-count="unanswered">{len(question.unanswered)}</span>'
        f' <span class="who">{escape(_names(question.unanswered, names))}</span></p></div>'])


def _option_label(letter: str, correct: bool) -> str:
    """An option as the chart and the table name it: its letter, and "(right)" on the right
    one, so the answer is read in words as well as in colour."""
    return f"{letter} (right)" if correct else letter


def _map(report: ClassReport) -> str:
    """A row per student: the first test they fail, then each assignment's state."""
    head = "".join(f"<th>{escape(a.id)}</th>" for a in report.assignments)
    rows = "".join(
        f'<tr data-student="{escape(s.id)}"><td>{escape(s.name)}</td>'
        f'<td class="stuck">{escape(s.stuck_on or "")}</td>'
        + "".join(f'<td class="state-{state.replace(" ", "-")}" data-state>{escape(state)}</td>'
                  for state in s.states.values()) + "</tr>" for s in report.students)
    return (f'<section id="map"><h2>The course map</h2><p>Where each student stands on each '
            "assignment: mastered, built with help, in progress or not started (the rule of "
            "the students' own map).</p>"
            f'<div class="wide"><table><tr><th>Student</th><th>First test failed</th>{head}'
            f"</tr>{rows}</table></div></section>")


def _pair(chart: str, table: str) -> str:
    return f'<div class="pair"><figure>{chart}</figure>{table}</div>'


def _table(header: Sequence[str], pairs: Sequence[tuple[str, int]], name: str) -> str:
    cells = "".join(f"<th>{escape(h)}</th>" for h in header)
    rows = "".join(f'<tr><td>{escape(label)}</td><td class="n">{count}</td></tr>'
                   for label, count in pairs)
    return f'<table data-table="{name}"><tr>{cells}</tr>{rows}</table>'


def _who(label: str, students: list[str], names: dict[str, str]) -> str:
    return f"<p>{label}: {escape(_names(students, names))}</p>" if students else ""


def _names(students: Sequence[str], names: dict[str, str]) -> str:
    return ", ".join(names.get(s, s) for s in students)


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'s' * (count != 1)}"


def _anchor(assignment: str) -> str:
    return "a-" + "".join(c if c.isalnum() or c in "-_" else "_" for c in assignment)
