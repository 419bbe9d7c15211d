"""A notebook reopened after its kernel is gone, as a student does it in real JupyterLab: run the
lesson-5 notebook (two reports, a transcript, a question), click an answer, save with Ctrl+S,
Kernel > Shut Down Kernel, reload the page. Every view then shows its static rendering, nothing
says "Error displaying widget" (a widget view whose model is gone), the question shows the answer
the click committed, and the saved file holds no widget view and none of our widget state, even
with the widget manager's "save widget state" setting on. The saving hook is our Jupyter server
extension, enabled from this environment's etc/jupyter (JupyterLab runs with a config folder of
its own). Screenshot "reopened-notebook" goes to $AGENTLAB_SCREENSHOTS, or a temporary folder.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from playwright.sync_api import Page, expect

from agentlab_magics.widgets.rendering import MARK, WIDGET_VIEW
from tests.browser.lab_session import (
    WAIT_MS,
    Browsing,
    Served,
    line_of,
    open_offline,
    output,
    row,
    run_all,
    serve_jupyterlab,
    shoot,
)
from tests.student_notebook import (
    BROKEN_CHECK,
    BROKEN_SUMMARY,
    FAILING,
    QUESTION,
    REFERENCE_CHECK,
    REFERENCE_SUMMARY,
    RIGHT,
    TRANSCRIPT,
    UNANSWERED,
    student_notebook,
)

NOTEBOOK = "lesson5.ipynb"
BIG = """\
from agentlab_magics import lab

big = []
for turn in range(50):
    call = lab.call("read", {"path": f"f{turn}.py"}, id=f"c{turn}")
    big += [lab.user(f"question {turn}"), lab.reply(f"reading {turn}", call),
            lab.tool_result(call, f"contents {turn}"), lab.say(f"answer {turn}")]
%transcript big"""
BIG_CELL = 5  # after student_notebook's five
CLICKED = "C"  # the right option, "user, reply, result c1, result c2"
SAVE_WIDGET_STATE = ("@jupyter-widgets", "jupyterlab-manager", "plugin.jupyterlab-settings")


def our_outputs(notebook: dict) -> list[dict]:
    return [output for cell in notebook["cells"] for output in cell.get("outputs", [])
            if MARK in output.get("metadata", {})]


def question_saved_answered(path: Path) -> bool:
    try:
        notebook = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # not written yet, or being written
        return False
    return any(output["metadata"][MARK].get("view") == "question"
               and output["metadata"][MARK].get("committed") for output in our_outputs(notebook))


def wait_for_the_save(page: Page, path: Path) -> None:
    """Until the file on disk holds the question as answered (the hook re-rendered it). The
    page waits, not this process: the browser's requests pass through Playwright's route guard
    here, which runs only while Playwright is called."""
    deadline = time.monotonic() + WAIT_MS / 1000
    while not question_saved_answered(path):
        if time.monotonic() > deadline:
            pytest.fail(f"{path} was not saved with the question answered")
        page.wait_for_timeout(200)


@pytest.fixture(scope="module")
def reopened(browser, tmp_path_factory) -> Iterator[tuple[Browsing, Served]]:
    """The notebook run, answered by a click, saved, its kernel shut down, the page reloaded."""
    home = tmp_path_factory.mktemp("jupyterlab")
    widget_settings = home.joinpath("settings", *SAVE_WIDGET_STATE)
    widget_settings.parent.mkdir(parents=True)
    widget_settings.write_text(json.dumps({"saveState": True}))
    notebook = student_notebook()
    notebook.cells.append(nbformat.v4.new_code_cell(BIG))  # a 200-message transcript
    with serve_jupyterlab(home, {NOTEBOOK: notebook}) as served:
        browsing = open_offline(browser, served.url(NOTEBOOK))
        page = browsing.page
        run_all(browsing)
        question = output(page, QUESTION)
        question.locator(f'button[data-letter="{CLICKED}"]').click()
        expect(question.locator(".al-why")).to_have_count(3)  # the kernel committed it
        page.keyboard.press("Control+s")
        wait_for_the_save(page, served.root / NOTEBOOK)
        page.get_by_role("menuitem", name="Kernel", exact=True).click()
        page.get_by_role("menuitem", name="Shut Down Kernel", exact=True).click()
        page.locator("#jp-main-statusbar").get_by_text("No Kernel").wait_for()
        page.reload()
        output(page, QUESTION).locator(".al-question").wait_for()
        yield browsing, served
        page.context.close()


def test_the_server_loaded_our_extension(reopened):
    _, served = reopened
    log = (served.home / "server.log").read_text(errors="replace")
    assert "agentlab_magics: saved notebooks keep each agentlab view as static HTML" in log


def test_no_view_says_its_widget_is_missing(reopened):
    page = reopened[0].page
    for index in (REFERENCE_CHECK, BROKEN_CHECK, TRANSCRIPT, QUESTION):
        output(page, index).locator(".al-report, .al-transcript, .al-question").first.wait_for()
    expect(page.get_by_text("Error displaying widget")).to_have_count(0)
    expect(page.get_by_text("model not found")).to_have_count(0)
    expect(page.locator(".jp-OutputArea-output .al-live")).to_have_count(0)


def test_every_view_shows_its_static_rendering(reopened):
    page = reopened[0].page
    reference = output(page, REFERENCE_CHECK)
    expect(reference.locator(".al-summary")).to_have_text(REFERENCE_SUMMARY)
    broken = output(page, BROKEN_CHECK)
    expect(broken.locator(".al-summary")).to_have_text(BROKEN_SUMMARY)
    expect(line_of(broken, FAILING)).to_contain_class("al-outcome-failed")
    transcript = output(page, TRANSCRIPT).locator(".al-transcript.al-static")
    expect(row(transcript, 3).locator(".al-complaints")).to_have_text(UNANSWERED)


def test_the_question_shows_the_answer_the_click_committed(reopened, screenshots):
    page = reopened[0].page
    question = output(page, QUESTION)
    expect(question.locator(".al-committed")).to_contain_text("Your answer")
    expect(question.locator(".al-committed")).to_contain_text(f": {CLICKED}")
    expect(question.locator(".al-chosen")).to_contain_text("user, reply, result c1, result c2")
    expect(question.get_by_text(RIGHT)).to_be_visible()
    expect(question.locator("button")).to_have_count(0)
    expect(question.locator(".al-how")).to_have_count(0)
    question.locator(".al-answer").scroll_into_view_if_needed()  # the transcript above it
    shoot(page, screenshots, "reopened-notebook")


def test_the_saved_file_holds_no_widget_view_and_none_of_our_state(reopened):
    _, served = reopened
    notebook = nbformat.read(served.root / NOTEBOOK, as_version=4)
    ours = our_outputs(notebook)
    assert [output["metadata"][MARK]["view"] for output in ours] == [
        "report", "report", "transcript", "question", "transcript"]
    assert all(WIDGET_VIEW not in output["data"] for output in ours)
    assert all("text/html" in output["data"] for output in ours)
    assert "widgets" not in notebook.metadata  # every model saved was ours


def test_the_page_reached_nothing_beyond_this_machine_and_raised_nothing(reopened):
    browsing, _ = reopened
    assert browsing.blocked == [] and browsing.errors == []


def test_a_big_transcript_comes_back_as_its_ends_and_says_how_to_see_the_rest(reopened,
                                                                              screenshots):
    page = reopened[0].page
    big = output(page, BIG_CELL).locator(".al-transcript.al-static")
    expect(big.locator(".al-partial")).to_have_text(
        "A saved copy of 200 messages: the first and last 20 and every flagged one are drawn "
        "here. Run the cell again, with its kernel, for the live view: every message, search, "
        "and the links between calls and results.")
    expect(big.locator("li.al-row")).to_have_count(40)
    expect(row(big, 0)).to_contain_text("question 0")
    expect(row(big, 199)).to_contain_text("answer 49")
    expect(big.locator("li.al-gap")).to_have_text(
        "… 160 unflagged messages not drawn here: run the cell again to see every one.")
    height = big.bounding_box()["height"]
    assert height < 4_000, f"the saved copy of 200 messages is {height:.0f} px tall"
    big.locator(".al-partial").scroll_into_view_if_needed()
    shoot(page, screenshots, "reopened-big-transcript")
