"""A report's "still holds" groups in every view: the data marks each carried test with its
group, and the static HTML, the text and transcript.js draw each group's heading once, above
its first test, the lab's own tests first with none; a group whose tests all pass is folded
into one line (opened on a click where the view can open). Headings are text, never markup."""

from __future__ import annotations

from bs4 import BeautifulSoup

from agentlab_magics.checking.report import CheckReport, TestOutcome
from agentlab_magics.checking.text_report import render
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


FOLDED = f"{LESSON4}: 1 test passes"


def test_the_data_marks_only_the_carried_tests_with_their_group_and_folds_those_all_passing():
    data = report_data(grouped_report())
    assert [test.get("group") for test in data["tests"]] == [None, LESSON3, LESSON3, LESSON4]
    assert data["folded"] == {LESSON4: FOLDED}  # lesson 3's has a failure: never folded


def test_the_static_html_draws_each_heading_once_above_its_group_folding_one_all_passing():
    page = BeautifulSoup(ReportView(grouped_report(), static=True).to_html(), "html.parser")
    items = page.select("ul.al-tests > li")
    assert [item.get("data-test") or item.get_text() for item in items[:4]] == [
        "own", LESSON3, "loop_a", "loop_b"]
    folded = items[4]
    assert "al-folded" in folded["class"] and folded.details.get("open") is None
    assert folded.summary.get_text() == FOLDED  # drawn as text
    assert [item["data-test"] for item in folded.select("ul.al-held > li")] == ["tools"]
    assert page.select("li.al-group")[0].get_text() == LESSON3
    assert not page.select("ul.al-tests img, ul.al-tests script")


def test_the_text_draws_each_heading_once_above_its_group_and_a_folded_group_as_one_line():
    lines = [line for line in ReportView(grouped_report(), static=True).to_text().splitlines()
             if not line.startswith(" ")]
    assert lines == ["05 Failures and limits: 1 of its 1 own tests passed; 2 of 3 from earlier "
                     "lessons still hold",
                     "✓ error_message is a failed reply.", LESSON3,
                     "✓ Three files take four calls.", "✗ Two calls get two results.", FOLDED]
    assert render(grouped_report()).splitlines()[1:] == lines[1:]


def test_the_widget_draws_each_heading_once_above_its_group_folding_one_all_passing(
        mount):  # noqa: F811
    page = mount(report_data(grouped_report()))
    drawn = page.eval_on_selector_all(
        "ul.al-tests > li",
        "items => items.map(i => i.dataset.test || i.textContent)")
    assert drawn[:4] == ["own", LESSON3, "loop_a", "loop_b"]
    assert page.text_content("li.al-folded > details > summary") == FOLDED
    assert not page.is_visible("li.al-folded li[data-test=tools]")
    page.click("li.al-folded > details > summary")
    assert page.is_visible("li.al-folded li[data-test=tools]")
    assert page.eval_on_selector_all("#host img, #host script", "n => n.length") == 0
