"""A report's "still holds" groups in every view: the data marks each carried test with its
group, and the static HTML, the text and transcript.js draw each group's heading once, above
its first test, the lab's own tests first with none. Headings are text, never markup."""

from __future__ import annotations

from bs4 import BeautifulSoup

from agentlab_magics.checking.report import CheckReport, TestOutcome
from agentlab_magics.widgets import ReportView, report_data
from tests.widgets.cases import HOSTILE
from tests.widgets.test_transcript_js import mount  # noqa: F401 (the fixture)

LESSON3, LESSON4 = "Still holds from lesson 3", f"Still holds from lesson 4 {HOSTILE}"


def grouped_report() -> CheckReport:
    def outcome(name, sentence, outcome="passed", group=""):
        return TestOutcome(name=name, sentence=sentence, outcome=outcome, group=group)

    return CheckReport(lab_id="lesson5", title="05 Failures and limits", outcomes=[
        outcome("own", "error_message is a failed reply."),
        outcome("loop_a", "Three files take four calls.", group=LESSON3),
        outcome("loop_b", "Two calls get two results.", "failed", LESSON3),
        outcome("tools", "Three calls get three results.", group=LESSON4)])


def test_the_data_marks_only_the_carried_tests_with_their_group():
    tests = report_data(grouped_report())["tests"]
    assert [test.get("group") for test in tests] == [None, LESSON3, LESSON3, LESSON4]


def test_the_static_html_draws_each_heading_once_above_its_group():
    page = BeautifulSoup(ReportView(grouped_report(), static=True).to_html(), "html.parser")
    items = page.select("ul.al-tests > li")
    assert [item.get("data-test") or item.get_text() for item in items] == [
        "own", LESSON3, "loop_a", "loop_b", LESSON4, "tools"]
    assert page.select("li.al-group")[1].get_text() == LESSON4  # drawn as text
    assert not page.select("ul.al-tests img, ul.al-tests script")


def test_the_text_draws_each_heading_once_above_its_group():
    lines = [line for line in ReportView(grouped_report(), static=True).to_text().splitlines()
             if not line.startswith(" ")]
    assert lines == ["05 Failures and limits: 1 of its 1 own tests passed; 2 of 3 from earlier "
                     "lessons still hold",
                     "✓ error_message is a failed reply.", LESSON3,
                     "✓ Three files take four calls.", "✗ Two calls get two results.",
                     LESSON4, "✓ Three calls get three results."]


def test_the_widget_draws_each_heading_once_above_its_group(mount):  # noqa: F811
    page = mount(report_data(grouped_report()))
    drawn = page.eval_on_selector_all(
        "ul.al-tests > li",
        "items => items.map(i => i.dataset.test || i.textContent)")
    assert drawn == ["own", LESSON3, "loop_a", "loop_b", LESSON4, "tools"]
    assert page.eval_on_selector_all("#host img, #host script", "n => n.length") == 0
