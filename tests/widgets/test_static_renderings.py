"""The static HTML and the text of a transcript, a report and a question: complaints on their rows, the
request struck through, collapsed output, and nothing from the data ever becoming markup."""

import re

import pytest
from bs4 import BeautifulSoup

from agentlab_magics import lab
from agentlab_magics.checking.report import CheckReport, TestOutcome
from agentlab_magics.course.questions import find_question
from agentlab_magics.progress.asked import Asked
from agentlab_magics.progress.store import Commitment
from agentlab_magics.widgets import ReportView, Transcript
from agentlab_magics.widgets.assets import asset
from agentlab_magics.widgets.question_view import QuestionView
from agentlab_magics.widgets.transcript_data import transcript_data
from agentlab_magics.widgets.transcript_html import ENDS, STATIC_ROWS, transcript_html
from tests.widgets.cases import C1, FAILED, HOSTILE, IMG, R1, R2, SCRIPT, A, U, hostile_messages


def soup(page: str) -> BeautifulSoup:
    return BeautifulSoup(page, "html.parser")


def row(page: BeautifulSoup, index: int):
    return page.select_one(f'li.al-row[data-index="{index}"]')


def hostile_report() -> CheckReport:
    return CheckReport(lab_id="lesson6", title=f"Lesson 6 {SCRIPT}", outcomes=[
        TestOutcome(name=f"test_{IMG}", sentence=f"Every call gets a result {HOSTILE}",
                    outcome="failed", message=f"assert {HOSTILE}", record=hostile_messages()),
        TestOutcome(name="test_ok", sentence="The loop stops on a plain answer.",
                    outcome="passed"),
    ])


def test_nothing_from_a_student_a_model_or_a_tool_becomes_markup():
    pages = {"transcript": Transcript(hostile_messages()).to_html(),
             "report": ReportView(hostile_report()).to_html(),
             "question": QuestionView(Asked(find_question("a8-own-words"),
                                            Commitment(answer=HOSTILE),
                                            notice=HOSTILE)).to_html()}
    for name, page in pages.items():
        lowered = page.lower()
        assert "<script" not in lowered and "<img" not in lowered, name
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page, name
        assert "&lt;img src=x onerror=alert(1)&gt;" in page, name
        parsed = soup(page)
        assert not parsed.find_all(["script", "img"]), name
        assert not [tag for tag in parsed.find_all(True)
                    if any(attribute.startswith("on") for attribute in tag.attrs)], name


def test_each_hostile_field_is_drawn_as_text():
    page = soup(Transcript(hostile_messages()).to_html())
    assert HOSTILE in row(page, 0).get_text()                                   # a user message
    assert HOSTILE in row(page, 1).select_one(".al-call-args").get_text()       # a call argument
    assert SCRIPT in row(page, 2).select_one(".al-text").get_text()             # a tool result
    assert HOSTILE in row(page, 3).select_one(".al-error-message").get_text()   # an error message
    assert HOSTILE in row(page, 4).select_one(".al-role").get_text()            # a made-up role
    assert "al-role-other" in row(page, 4)["class"]


@pytest.mark.parametrize("script", ["transcript.js", "question.js"])
def test_the_javascript_puts_data_in_as_text_only(script):
    source = asset(script)
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write",
                 "createContextualFragment", "DOMParser", "eval(", "new Function"):
        assert sink not in source, sink
    assert "textContent" in source


def test_the_static_page_has_no_script_and_its_style_is_scoped():
    page = Transcript([U, A, R1, R2]).to_html()
    assert "<script" not in page.lower()
    style = soup(page).style.get_text()
    selectors = [rule.split("{")[0] for rule in re.sub(r"/\*.*?\*/", "", style, flags=re.S)
                 .split("}") if "{" in rule]
    for selector in selectors:
        for part in selector.split(","):
            assert part.strip().startswith((".al-transcript", ".al-report", ".al-question",
                                            ".al-progress-map", ".al-solution")), part


def test_complaints_are_marked_on_the_rows_they_name():
    page = soup(Transcript([U, A, R2, R1]).to_html())
    assert row(page, 0).select(".al-complaints li") == []
    assert [li.get_text() for li in row(page, 1).select(".al-complaints li")] == [
        "toolCall c1 has no toolResult (its toolResult is at row 3; it must come right after "
        "this message, in call order)"]
    assert "al-flagged" in row(page, 2)["class"]
    assert row(page, 3).select_one(".al-complaints li").get_text() == (
        "toolResult c1 must directly follow its assistant message, in call order")
    chips = row(page, 1).select(".al-chip")
    assert [(chip["data-call-id"], chip["data-result-row"]) for chip in chips] == [
        ("c1", "3"), ("c2", "2")]
    assert chips[0].get_text().endswith("→ row 3, out of place")
    assert row(page, 3)["data-call-id"] == "c1"


def test_the_request_is_the_record_with_its_left_out_rows_struck_through():
    page = soup(Transcript([U, FAILED, lab.user("try again")]).to_html())
    failed = row(page, 1)
    assert "al-left-out" in failed["class"]
    assert "left out of the request by context_for_model" in failed.get_text()
    assert "not in the request context_for_model computes" in failed.select_one(
        ".al-complaints li").get_text()
    assert "al-left-out" not in row(page, 0)["class"]
    css = asset("transcript.css")
    assert re.search(r"\.al-left-out \.al-body \{[^}]*line-through", css)
    verdicts = [p.get_text() for p in page.select(".al-verdict")]
    assert verdicts[0].startswith("Sent as is, a strict provider would refuse this list")
    assert verdicts[1].startswith("The request context_for_model computes from it")


def test_long_output_is_collapsed_with_its_notice_in_view():
    content = "".join(f"line {n}\n" for n in range(1, 1786)) + (
        "[Showing lines 1-1785 of 5000. Use offset=1786 to continue.]")
    page = soup(Transcript([U, lab.reply(C1), lab.tool_result(C1, content)]).to_html())
    result = row(page, 2)
    assert result.select_one("details.al-rest pre").get_text().startswith("line 7\n")
    notice = result.select_one(".al-notice")
    assert notice.get_text() == "[Showing lines 1-1785 of 5000. Use offset=1786 to continue.]"
    assert notice.find_parent("details") is None
    assert result.select_one(".al-more").get_text() == "… 1,745 more lines not shown"
    assert result.select_one("details.al-raw-json pre.al-raw").get_text().startswith(
        '{"role": "toolResult"')


def test_a_long_transcript_is_drawn_in_part_but_keeps_its_flagged_rows():
    messages = [lab.user(f"question {n}") for n in range(STATIC_ROWS * 3)]
    flagged = STATIC_ROWS + 7
    messages[flagged] = lab.reply(C1)
    page = soup(transcript_html(transcript_data(messages)))
    drawn = [int(li["data-index"]) for li in page.select("li.al-row")]
    assert drawn[:3] == [0, 1, 2] and drawn[-1] == len(messages) - 1
    assert len(drawn) == 2 * ENDS + 1 and flagged in drawn and flagged - 1 not in drawn
    gaps = [li.get_text() for li in page.select("li.al-gap")]
    assert gaps[0] == (f"… {flagged - ENDS} unflagged messages not drawn here: run the cell "
                       "again to see every one.")
    assert page.select_one(".al-partial").get_text() == (
        f"A saved copy of {len(messages)} messages: the first and last {ENDS} and every flagged "
        "one are drawn here. Run the cell again, with its kernel, for the live view: every "
        "message, search, and the links between calls and results.")


def test_a_transcript_short_enough_is_drawn_whole_with_no_note():
    page = soup(transcript_html(transcript_data([lab.user(f"q {n}") for n in range(STATIC_ROWS)])))
    assert len(page.select("li.al-row")) == STATIC_ROWS and not page.select(".al-partial")


def test_the_text_is_lab_show_lines_with_the_complaints_under_them():
    text = Transcript([U, A, R2, R1, FAILED]).to_text()
    lines = text.splitlines()
    assert lines[0] == "Record: 5 messages · 2 tool calls · 4 complaints · 1 left out of the request"
    assert lines[1] == "shape: U A[c1,c2] R(c2) R(c1) A(error)"
    assert ('[1] assistant -> toolCall c1 read({"path": "a.py"}), '
            'toolCall c2 read({"path": "b.py"})') in lines
    at = lines.index('[3] toolResult c1 -> "A = 1\\n"')
    assert lines[at + 1] == (
        "    ✗ toolResult c1 must directly follow its assistant message, in call order")
    assert lines[-2:] == [
        "    ✗ assistant message has empty content"
        " (not in the request context_for_model computes)",
        "    (left out of the request by context_for_model)"]


def test_the_report_lists_every_test_and_opens_the_failures():
    report = CheckReport(lab_id="lesson4", title="Lesson 4", outcomes=[
        TestOutcome(name="a", sentence="Every call gets exactly one result.", outcome="failed",
                    message="assert 'U A[c1]' == 'U A[c1] R(c1)'", record=[U, lab.reply(C1)]),
        TestOutcome(name="b", sentence="A plain answer ends the run.", outcome="passed",
                    record=[U, lab.say("done")]),
        TestOutcome(name="c", sentence="A hanging tool is stopped.", outcome="timeout",
                    message="timed out after 5 s"),
        TestOutcome(name="d", sentence="Bad arguments become an error result.", outcome="error",
                    message="KeyError: 'path'"),
    ])
    page = soup(ReportView(report).to_html())
    assert page.select_one(".al-summary").get_text() == "Lesson 4: 1 of 4 tests passed"
    tests = page.select("li.al-test")
    assert [t.select_one(".al-mark").get_text() for t in tests] == ["✗", "✓", "◷", "!"]
    assert tests[0].select_one(".al-sentence").get_text() == (
        "Every call gets exactly one result.")
    failed = tests[0].select_one("details")
    assert failed.has_attr("open")
    assert "assert 'U A[c1]' == 'U A[c1] R(c1)'" in failed.select_one(".al-message").get_text()
    record = failed.select_one(".al-transcript")
    assert "U A[c1]" in record.get_text()
    # The failure is not about what a provider accepts: no verdict, no complaints.
    assert "toolCall c1 has no toolResult" not in record.get_text()
    assert tests[1].select_one("details") is None  # a pass has no panel
    assert tests[2].select_one("details").has_attr("open")
    text = ReportView(report).to_text().splitlines()
    assert text[:2] == ["Lesson 4: 1 of 4 tests passed", "✗ Every call gets exactly one result."]
    assert "    assert 'U A[c1]' == 'U A[c1] R(c1)'" in text
    assert "✓ A plain answer ends the run." in text and "◷ A hanging tool is stopped." in text


def test_a_report_that_could_not_run_says_why():
    report = CheckReport(lab_id="lesson4", title="Lesson 4",
                         problem="harness.py has a syntax error on line 3.")
    view = ReportView(report)
    assert soup(view.to_html()).select_one(".al-summary").get_text() == (
        "Lesson 4: not checked. harness.py has a syntax error on line 3.")
    assert view.to_text() == "Lesson 4: not checked. harness.py has a syntax error on line 3."
