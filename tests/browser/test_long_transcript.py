"""A transcript of 100,000 messages in real JupyterLab: its first rows are sent unjudged and
drawn at once, the kernel's judgement follows, and search, the request toggle, raw JSON and
"next flagged" work over the whole record, fetching from the kernel rows never sent; Home and
End work from a clicked row; a theme switch while scrolled leaves it where it was, its rows
drawn. Saving writes the full static
rendering the kernel kept, not the first-screen copy."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from playwright.sync_api import expect

from tests.browser.lab_session import (
    Browsing,
    click,
    long_transcript,
    row,
    shoot,
    transcript,
    use_theme,
)

NOTEBOOK = "long.ipynb"
SIZE = 100_000
NEEDLE = 73_208      # a user message no screen shows until it is searched for
LEFT_OUT = 88_001    # an empty failed reply: on the record, left out of the request
ORPHAN = 91_402      # a result that answers no call: the record's first complaint

EDITS = f"""\
messages[{NEEDLE}] = lab.user("Where did the zebra go?")
messages[{LEFT_OUT}] = lab.fail("")
messages[{ORPHAN}] = lab.tool_result(lab.call("read", {{}}, id="ghost"), "nobody asked")"""


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("long")


@pytest.fixture(scope="module")
def lab(browser, home) -> Iterator[Browsing]:
    with long_transcript(browser, home, NOTEBOOK, SIZE, EDITS) as browsing:
        yield browsing


def test_the_first_rows_are_drawn_and_the_judgement_follows(lab, screenshots):
    view = transcript(lab)
    expect(row(view, 0)).to_contain_text("question 0")
    expect(view.locator(".al-verdict").first).to_have_text(
        f"Sent as is, a strict provider would refuse this list: messages[{LEFT_OUT}]: "
        "assistant message has empty content")
    expect(view.locator(".al-counts")).to_contain_text("100,000 messages")
    expect(view.locator(".al-pending")).to_have_count(0)
    assert view.locator(".al-row").count() < 60  # only the rows in view are in the page
    shoot(view, screenshots, "long-transcript")


def test_search_finds_a_message_that_was_never_on_screen(lab, screenshots):
    view = transcript(lab)
    assert row(view, NEEDLE).count() == 0
    view.locator(".al-search").fill("zebra")
    expect(view.locator(".al-found")).to_have_text("1 of 100,000 messages match")
    expect(row(view, NEEDLE)).to_contain_text("Where did the zebra go?")
    expect(row(view, NEEDLE).locator("mark.al-hit")).to_have_text("zebra")
    shoot(view, screenshots, "long-transcript-search")
    view.locator(".al-search").fill("")
    expect(view.locator(".al-found")).to_have_text("")


def test_next_flagged_the_toggle_and_raw_json_work_on_rows_never_sent(lab, screenshots):
    view = transcript(lab)
    click(view.locator('[data-action="next-flagged"]'))
    failed = row(view, LEFT_OUT)
    expect(failed).to_contain_text("stop_reason: error")
    expect(failed).not_to_have_class("al-left-out")
    click(view.locator('[data-action="toggle-view"]'))
    expect(failed).to_contain_class("al-left-out")
    click(view.locator('[data-action="toggle-view"]'))
    for _ in range(3):  # the result the failed reply left unanswered, its call's reply, then
        click(view.locator('[data-action="next-flagged"]'))
    orphan = row(view, ORPHAN)
    expect(orphan.locator(".al-complaints")).to_contain_text(
        "toolResult ghost has no toolCall before it")
    click(view.locator('[data-action="toggle-raw"]'))
    expect(orphan.locator(".al-raw")).to_contain_text('"tool_call_id": "ghost"')
    shoot(view, screenshots, "long-transcript-raw")
    click(view.locator('[data-action="toggle-raw"]'))
    view.locator(".al-scroll").evaluate("node => { node.scrollTop = node.scrollHeight; }")
    expect(row(view, SIZE - 1)).to_contain_text(f"answer {SIZE // 4 - 1}")


# The rows drawn in the scroller's box, and its scroll position.
IN_VIEW = """(scroller) => {
  const box = scroller.getBoundingClientRect();
  const rows = [...scroller.querySelectorAll(".al-row")].filter((row) => {
    const rect = row.getBoundingClientRect();
    return rect.height > 0 && rect.bottom > box.top && rect.top < box.bottom;
  });
  return { top: scroller.scrollTop, rows: rows.map((row) => Number(row.dataset.index)) };
}"""


def test_a_theme_switch_while_scrolled_keeps_the_place_and_its_rows(lab, screenshots):
    """Scrolled to the middle of the record, the student switches JupyterLab's theme and back:
    the transcript stays where it was, its rows drawn, with no scroll needed to bring them."""
    scroller = transcript(lab).locator(".al-scroll")
    scroller.evaluate("node => { node.scrollTop = node.scrollHeight / 2; }")
    expect(row(transcript(lab), SIZE // 2)).to_be_visible()
    before = scroller.evaluate(IN_VIEW)
    assert before["rows"], before
    for theme in ("dark", "light"):
        use_theme(lab.page, theme)
        lab.page.wait_for_timeout(500)  # what the page shows once the theme has settled
        after = scroller.evaluate(IN_VIEW)
        shoot(transcript(lab), screenshots, f"long-transcript-theme-{theme}")
        assert after["top"] == before["top"] and SIZE // 2 in after["rows"], (theme, after)


def test_home_and_end_work_from_a_clicked_row(lab):
    """A student clicks a row (no Tab) and presses End, then Home: the transcript goes to its
    last row, then its first, each loaded from the kernel and focused (a row that is moved or
    drawn anew in the page takes the focus with it)."""
    view = transcript(lab)
    scroller = view.locator(".al-scroll")
    scroller.evaluate("node => { node.scrollTop = node.scrollHeight / 2; }")
    middle = row(view, SIZE // 2)
    middle.locator(".al-body, .al-text").first.click()
    lab.page.keyboard.press("End")
    expect(row(view, SIZE - 1)).to_be_focused()
    lab.page.keyboard.press("Home")
    expect(row(view, 0)).to_be_focused()


def test_saving_writes_the_full_static_rendering_the_kernel_kept(lab, home):
    page = lab.page
    page.locator(".jp-Notebook").click()
    page.keyboard.press("Control+s")
    expect(page.locator(".jp-mod-dirty")).to_have_count(0)
    saved = nbformat.read(home / "root" / NOTEBOOK, as_version=4)
    static = saved["cells"][1]["outputs"][0]
    assert "application/vnd.jupyter.widget-view+json" not in static["data"]
    assert f"messages[{LEFT_OUT}]: assistant message has empty content" in static["data"]["text/html"]
    assert "unflagged messages not drawn here" in static["data"]["text/html"]
    assert "This copy was saved before" not in static["data"]["text/html"]
