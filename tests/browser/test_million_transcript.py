"""A transcript of 1,000,000 messages in real JupyterLab: every row can be reached, past
where Chromium's layout stops (some 33.5 million pixels, about row 559,000): by scrolling to
the end, by End from a clicked row, and by "next flagged" to a complaint near the end."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from tests.browser.lab_session import (
    Browsing,
    click,
    long_transcript,
    row,
    shoot,
    transcript,
)

NOTEBOOK = "million.ipynb"
SIZE = 1_000_000
ORPHAN = 990_002  # a result that answers no call, in place of the result of call c247500


@pytest.fixture(scope="module")
def lab(browser, tmp_path_factory) -> Iterator[Browsing]:
    edit = f'messages[{ORPHAN}] = lab.tool_result(lab.call("read", {{}}, id="ghost"), "nobody asked")'
    with long_transcript(browser, tmp_path_factory.mktemp("million"), NOTEBOOK, SIZE,
                         edit) as browsing:
        yield browsing


def test_the_judgement_of_a_million_messages_names_its_first_complaint(lab, screenshots):
    view = transcript(lab)
    expect(row(view, 0)).to_contain_text("question 0")
    expect(view.locator(".al-counts")).to_contain_text("1,000,000 messages")
    expect(view.locator(".al-verdict").first).to_have_text(
        "Sent as is, a strict provider would refuse this list: "
        f"messages[{ORPHAN - 1}]: toolCall c247500 has no toolResult")
    shoot(view, screenshots, "million-transcript")


def test_next_flagged_reaches_the_complaints_near_the_end(lab, screenshots):
    view = transcript(lab)
    click(view.locator('[data-action="next-flagged"]'))
    expect(row(view, ORPHAN - 1).locator(".al-complaints")).to_contain_text(
        "toolCall c247500 has no toolResult")
    click(view.locator('[data-action="next-flagged"]'))
    orphan = row(view, ORPHAN)
    expect(orphan.locator(".al-complaints")).to_contain_text(
        "toolResult ghost has no toolCall before it")
    expect(orphan).to_be_in_viewport()
    shoot(view, screenshots, "million-transcript-flagged")


def test_scrolling_to_the_end_draws_the_last_row(lab):
    view = transcript(lab)
    view.locator(".al-scroll").evaluate("node => { node.scrollTop = node.scrollHeight; }")
    expect(row(view, SIZE - 1)).to_contain_text(f"answer {SIZE // 4 - 1}")
    expect(row(view, SIZE - 1)).to_be_in_viewport()


def test_end_from_a_clicked_row_reaches_the_last_row(lab):
    view = transcript(lab)
    view.locator(".al-scroll").evaluate("node => { node.scrollTop = 0; }")
    expect(row(view, 0)).to_be_visible()
    row(view, 0).locator(".al-body, .al-text").first.click()
    lab.page.keyboard.press("End")
    expect(row(view, SIZE - 1)).to_be_focused()
    expect(row(view, SIZE - 1)).to_be_in_viewport()
    left = view.locator(".al-scroll").evaluate(
        "node => node.scrollHeight - node.clientHeight - node.scrollTop")
    assert left <= 1, f"End left the scroller {left} px short of its end"
