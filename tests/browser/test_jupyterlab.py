"""The views as a student sees them: real JupyterLab, driven in headless Chromium, runs the
student's notebook (tests/student_notebook.py) with Run > Run All Cells. The reports' lines and
the transcript's rows are on screen, drawn by transcript.js (not the fallback); clicking a call
chip lights up its result row and clicking again puts it out, the result's "answers" tag lights
up the call; the toggle strikes through the row the request leaves out. The same notebook run by
nbclient and exported by nbconvert the documented way (the StaticFallback preprocessor) shows
the static HTML instead, in the same browser.

Nothing leaves this machine: JupyterLab's news and update checks are off, and the browser
aborts, and lists, every request not addressed to 127.0.0.1; the JupyterLab page makes none.
Screenshots go to $AGENTLAB_SCREENSHOTS, or else a temporary folder. Without /usr/bin/chromium
(Debian's chromium) the tests are skipped, except under CI, which installs it (.ci/run).
"""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlparse

import pytest
from playwright.sync_api import expect

from agentlab_magics.widgets.rendering import WIDGET_VIEW
from tests.browser.lab_session import (
    Browsing,
    cell,
    click,
    line_of,
    open_offline,
    output,
    ran_all,
    row,
    shoot,
)
from tests.student_notebook import (
    BROKEN_CHECK,
    BROKEN_SUMMARY,
    EMPTY_FAILURE,
    FAILING,
    PASSING,
    QUESTION,
    REFERENCE_CHECK,
    REFERENCE_SUMMARY,
    RIGHT,
    TRANSCRIPT,
    UNANSWERED,
    executed_notebook,
    student_notebook,
)
from tests.widgets.test_notebook_export import nbconvert

NOTEBOOK = "lesson5.ipynb"


@pytest.fixture(scope="module")
def lab(browser, tmp_path_factory) -> Iterator[Browsing]:
    """The notebook open in JupyterLab, every cell run from the Run menu and finished."""
    def last_cell(page):
        return cell(page, QUESTION).locator(".al-question button.al-pick").first

    with ran_all(browser, tmp_path_factory.mktemp("jupyterlab"), NOTEBOOK, student_notebook(),
                 last_cell) as browsing:
        yield browsing


def test_the_reports_lines_are_on_screen(lab, screenshots):
    reference = output(lab.page, REFERENCE_CHECK)
    expect(reference.locator(".al-summary")).to_have_text(REFERENCE_SUMMARY)
    expect(line_of(reference, PASSING)).to_contain_class("al-outcome-passed")
    broken = output(lab.page, BROKEN_CHECK)
    expect(broken.locator(".al-summary")).to_have_text(BROKEN_SUMMARY)
    for sentence, outcome in ((FAILING, "al-outcome-failed"), (PASSING, "al-outcome-passed")):
        expect(line_of(broken, sentence)).to_be_visible()
        expect(line_of(broken, sentence)).to_contain_class(outcome)
    # a failure's run is drawn once, under its cause (one drawing per cause, not per test)
    failed_run = broken.locator(".al-cause .al-transcript, .al-test .al-transcript").first
    expect(failed_run).to_be_visible()
    expect(failed_run).to_contain_class("al-live")  # drawn by transcript.js, not the fallback
    expect(broken.locator(".al-static")).to_have_count(0)
    broken.locator(".al-summary").scroll_into_view_if_needed()
    shoot(lab.page, screenshots, "lab-report")


def test_the_transcripts_rows_are_on_screen(lab, screenshots):
    transcript = output(lab.page, TRANSCRIPT)
    expect(transcript.locator(".al-transcript.al-live")).to_be_visible()
    expect(transcript.locator(".al-row")).to_have_count(5)
    for index in range(5):
        expect(row(transcript, index)).to_be_visible()
    expect(row(transcript, 3).locator(".al-complaints")).to_have_text(UNANSWERED)
    shoot(transcript, screenshots, "lab-transcript-record")


def test_clicking_a_call_chip_lights_its_result_and_back(lab):
    transcript = output(lab.page, TRANSCRIPT)
    chip = row(transcript, 3).locator('.al-chip[data-call-id="c1"]')
    lit = transcript.locator(".al-row.al-highlight")
    click(chip)
    expect(lit).to_have_attribute("data-index", "4")
    expect(chip).to_contain_class("al-highlight")
    click(chip)
    expect(lit).to_have_count(0)
    expect(chip).not_to_contain_class("al-highlight")
    click(row(transcript, 4).locator(".al-answers"))
    expect(chip).to_contain_class("al-highlight")
    expect(row(transcript, 3)).to_contain_class("al-linked")
    click(row(transcript, 4).locator(".al-answers"))
    expect(chip).not_to_contain_class("al-highlight")


def test_the_toggle_shows_the_request(lab, screenshots):
    transcript = output(lab.page, TRANSCRIPT)
    view = transcript.locator(".al-transcript")
    toggle = transcript.locator('[data-action="toggle-view"]')
    failed_reply = row(transcript, 1)
    expect(failed_reply.locator(".al-complaints")).to_contain_text(EMPTY_FAILURE)
    expect(failed_reply).not_to_contain_class("al-left-out")
    toggle.click()
    expect(view).to_have_attribute("data-view", "request")
    expect(toggle).to_have_text("show the record")
    expect(failed_reply).to_contain_class("al-left-out")
    expect(failed_reply.locator(".al-body")).to_have_css("text-decoration-line", "line-through")
    expect(failed_reply.locator(".al-complaints")).to_have_count(0)
    shoot(transcript, screenshots, "lab-transcript-request")
    toggle.click()
    expect(view).to_have_attribute("data-view", "record")
    expect(toggle).to_have_text("show the request")


def test_a_clicked_answer_is_committed_by_the_kernel_and_kept_on_a_rerun(lab, screenshots):
    question = output(lab.page, QUESTION)
    expect(question.locator(".al-why")).to_have_count(0)
    question.locator('button[data-letter="C"]').click()
    expect(question.locator(".al-why")).to_have_count(3)  # the reveal came back from Python
    expect(question.locator(".al-chosen")).to_contain_text("user, reply, result c1, result c2")
    expect(question.get_by_text(RIGHT)).to_be_visible()
    shoot(question, screenshots, "lab-question")
    cell(lab.page, QUESTION).locator(".jp-InputArea").click()
    lab.page.keyboard.press("Shift+Enter")  # run the cell again: the answer is the stored one
    rerun = output(lab.page, QUESTION)
    expect(rerun.locator(".al-committed")).to_contain_text("Your answer")
    expect(rerun.locator("button.al-pick")).to_have_count(0)
    expect(rerun.locator(".al-chosen")).to_contain_text("user, reply, result c1, result c2")


def test_the_page_reached_nothing_beyond_this_machine_and_raised_nothing(lab):
    assert lab.blocked == [] and lab.errors == []


def test_the_exported_page_shows_the_static_fallback(browser, screenshots, tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTLAB_PROGRESS", str(tmp_path / "progress.json"))
    notebook = tmp_path / NOTEBOOK
    executed_notebook(notebook)
    source = nbconvert(notebook,
                       "--HTMLExporter.preprocessors=agentlab_magics.widgets.export.StaticFallback")
    assert WIDGET_VIEW not in source
    browsing = open_offline(browser, notebook.with_suffix(".html").as_uri())
    page = browsing.page
    broken = cell(page, BROKEN_CHECK)
    expect(broken.locator(".al-summary")).to_have_text(BROKEN_SUMMARY)
    expect(line_of(broken, FAILING)).to_be_visible()
    expect(line_of(broken, FAILING)).to_contain_class("al-outcome-failed")
    transcript = cell(page, TRANSCRIPT).locator(".al-transcript.al-static")
    expect(row(transcript, 3).locator(".al-complaints")).to_have_text(UNANSWERED)
    expect(page.locator(".al-live")).to_have_count(0)
    shoot(cell(page, TRANSCRIPT), screenshots, "export-transcript")
    broken.locator(".al-summary").scroll_into_view_if_needed()
    shoot(page, screenshots, "export-report")
    # Only the lab template's require.js and MathJax asked for the internet (widgets/export.py
    # says so), and were refused: the guard works, so the JupyterLab page's empty list counts.
    assert {urlparse(url).hostname for url in browsing.blocked} == {"cdnjs.cloudflare.com"}
    assert browsing.errors == []
    page.context.close()
