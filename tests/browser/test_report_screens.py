"""Check reports as a student sees them in real JupyterLab (1400×1000, headless chromium):
the lesson-5 starter's report is short (a test that stopped on a name not written yet draws no
panel), a failing report's panels agree with its sentences: the request the sentence names
is the request drawn, as the student's code sent it, and lesson 3's commonest bug (no return
when a reply asks for no tool) leads with its cause, drawn once, on under two screens of a
1400×900 window. Screenshots "starter-report", "failing-report" and "no-return-report" go to
$AGENTLAB_SCREENSHOTS, or else a temporary folder.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import nbformat
import pytest
from playwright.sync_api import expect

from agentlab_magics.course import find_lab
from tests.browser.lab_session import Browsing, line_of, output, ran_all, shoot
from tests.student_notebook import SENDS_THE_RECORD, notebook_of

NOTEBOOK = "reports.ipynb"
LOAD, STARTER, FAILING, NO_RETURN = range(4)
STARTER_MOST_PX = 1_200
TWO_SCREENS_PX = 2_000  # two screens of a 1400×900 window
NO_RETURN_BUG = ("        if not calls:\n            return reply\n",
                 "        if not calls:\n            pass\n")
TRY_AGAIN = ('After a 503 the user says "try again": the failed reply stays on the record and '
             "is not sent.")
SECOND_REQUEST = re.compile(r"The second request was '([^']*)'")


def notebook() -> nbformat.NotebookNode:
    lesson5 = find_lab("lesson5")
    return notebook_of(
        "%load_ext agentlab_magics",
        "%%check lesson5\n" + lesson5.starter,
        "%%check lesson5\n" + SENDS_THE_RECORD.apply(lesson5.reference),
        "%%check lesson3\n" + find_lab("lesson3").reference.replace(*NO_RETURN_BUG))


@pytest.fixture(scope="module")
def lab(browser, tmp_path_factory) -> Iterator[Browsing]:
    with ran_all(browser, tmp_path_factory.mktemp("jupyterlab"), NOTEBOOK, notebook(),
                 lambda page: output(page, FAILING).locator(".al-report .al-summary")) as browsing:
        yield browsing


def test_the_starter_report_is_short_and_draws_no_empty_panel(lab, screenshots):
    report = output(lab.page, STARTER).locator(".al-report")
    expect(report.locator(".al-summary")).to_contain_text("05 Failures and limits:")
    expect(report.locator(".al-transcript")).to_have_count(0)
    expect(report.locator(".al-sent")).to_have_count(0)
    expect(report).not_to_contain_text("would be accepted")
    height = report.bounding_box()["height"]
    assert height <= STARTER_MOST_PX, f"the starter's report is {height:.0f} px tall"
    report.locator(".al-summary").scroll_into_view_if_needed()
    shoot(lab.page, screenshots, "starter-report")  # the report from its top, as it opens


def test_a_failing_reports_request_is_the_one_its_sentence_names(lab, screenshots):
    report = output(lab.page, FAILING).locator(".al-report")
    failed = line_of(report, TRY_AGAIN)
    expect(failed).to_contain_class("al-outcome-failed")
    said = SECOND_REQUEST.search(failed.locator(".al-message").inner_text())
    assert said, failed.locator(".al-message").inner_text()
    drawn = report.locator(".al-cause")  # the cause this test shares is drawn once, above
    second = drawn.locator(".al-sent-request", has=lab.page.locator(".al-index", has_text="2"))
    expect(second.locator(".al-shape")).to_have_text(said.group(1))
    expect(second.locator(".al-refused")).to_contain_text("assistant message has empty content")
    record = drawn.locator(".al-transcript")
    expect(record).to_contain_class("al-live")
    expect(record).not_to_contain_text("context_for_model computes")  # the course's rule: not here
    expect(record.locator('[data-action="toggle-view"]')).to_have_count(0)
    failed.scroll_into_view_if_needed()
    shoot(failed, screenshots, "failing-report")


def test_the_no_return_report_leads_with_its_cause_on_two_screens(lab, screenshots):
    lab.page.set_viewport_size({"width": 1400, "height": 900})
    report = output(lab.page, NO_RETURN).locator(".al-report")
    expect(report.locator(".al-summary")).to_contain_text("03 The loop:")
    expect(report.locator(".al-cause")).to_have_count(1)
    expect(report.locator(".al-lead")).to_contain_text(
        "10 tests fail for one reason: run_agent called the model again after a reply that "
        "asked for no tool")
    expect(report.locator(".al-tests .al-sent")).to_have_count(0)  # drawn once, above
    expect(report).not_to_contain_text("Add a step")
    height = report.bounding_box()["height"]
    assert height < TWO_SCREENS_PX, f"the no-return report is {height:.0f} px tall"
    report.locator(".al-summary").scroll_into_view_if_needed()
    shoot(report, screenshots, "no-return-report")


def test_the_page_reached_nothing_beyond_this_machine_and_raised_nothing(lab):
    assert lab.blocked == [] and lab.errors == []
