"""Every view readable and operable for everyone, in real JupyterLab: one notebook draws each
view once (a transcript, a check report, two run diffs, a live transcript, a question before
and one after its answer, a solution and the progress map); in JupyterLab's light theme and in its dark theme, every text
of every view reads at 4.5:1 or more against what is behind it, measured in the page from the
computed colours; and each view that has controls is driven from the keyboard alone, each
control showing where the keyboard is (the map and the solution have none). Screenshots "theme-<theme>-<view>" go to
$AGENTLAB_SCREENSHOTS, or else a temporary folder."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Locator, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from agentlab_magics.course import find_lab
from tests.browser.lab_session import THEMES, Browsing, cell, output, ran_all, row, shoot, use_theme
from tests.student_notebook import RECORD, SENDS_THE_RECORD, notebook_of

NOTEBOOK = "themes.ipynb"
LIVE = """\
from agentlab_magics.widgets import watch

live = watch()  # a run that is still going: its view keeps its running state
live({"type": "turn_start"})
live({"type": "message", "message": lab.user("What port does config.py use?")})
live({"type": "turn_start"})
live({"type": "message", "message": lab.reply(lab.call("read", {"path": "config.py"}, id="c1"))})"""
DIFF = """\
typo = lab.call("raed", {"path": "config.py"}, id="c1")
theirs = [record[0], lab.reply(typo), lab.fail("400 invalid_request: call c1 has no result")]
yours = [record[0], lab.reply(typo), lab.tool_result(typo, "Tool raed not found", is_error=True),
         lab.say("The port is 9090.")]
%transcript theirs --diff yours"""
LONG_DIFF = """\
long = [lab.user(f"question {n}") for n in range(40)]
%transcript long --diff [*long[:30], lab.user("another question"), *long[31:]]"""
CELLS = {"transcript": RECORD,
         "report": "%%check lesson5\n" + SENDS_THE_RECORD.apply(find_lab("lesson5").reference),
         "diff": DIFF, "long-diff": LONG_DIFF, "live": LIVE,
         "question": "%question a4-jumbled-order",
         "answered": "%question l1-two-calls --answer A", "solution": "%solution lesson1",
         "map": "%progress"}
CELL = {name: index for index, name in enumerate(CELLS, start=1)}
ROOT = ".al-transcript, .al-report, .al-question, .al-progress-map, .al-solution"

# Every text of `root` whose contrast is under 4.5:1: each element with text of its own that
# is drawn, its colour over the background made of every background behind it, down to the
# first opaque one (each colour read by painting it on a canvas, so any notation works).
CONTRAST = """(root) => {
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = 1;
  const paint = canvas.getContext("2d", { willReadFrequently: true });
  const read = (css) => {
    paint.clearRect(0, 0, 1, 1);
    paint.fillStyle = css;
    paint.fillRect(0, 0, 1, 1);
    const [r, g, b, a] = paint.getImageData(0, 0, 1, 1).data;
    return [r, g, b, a / 255];
  };
  const over = (top, bottom) => [0, 1, 2].map((k) => top[k] * top[3] + bottom[k] * (1 - top[3]))
    .concat([1]);
  const behind = (element) => {
    const layers = [];
    for (let at = element; at; at = at.parentElement) {
      const colour = read(getComputedStyle(at).backgroundColor);
      if (colour[3] > 0) layers.push(colour);
      if (colour[3] >= 1) break;
    }
    return layers.reverse().reduce((below, layer) => over(layer, below), [255, 255, 255, 1]);
  };
  const luminance = (colour) => {
    const [r, g, b] = colour.slice(0, 3).map((c) => {
      const s = c / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const low = [];
  let measured = 0;
  for (const element of [root, ...root.querySelectorAll("*")]) {
    const own = [...element.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own || element.getClientRects().length === 0) continue;
    const style = getComputedStyle(element);
    if (style.visibility !== "visible") continue;
    const background = behind(element);
    const text = over(read(style.color), background);
    const [light, dark] = [luminance(text), luminance(background)].sort((x, y) => y - x);
    const ratio = (light + 0.05) / (dark + 0.05);
    measured += 1;
    if (ratio < 4.5) {
      low.push(`${ratio.toFixed(2)}:1 ${element.tagName.toLowerCase()}.${element.className} `
        + `"${element.textContent.trim().slice(0, 40)}" ${style.color} on rgb(${background})`);
    }
  }
  return { measured, low };
}"""
# Whether the focused element shows a ring: an outline at least 2px wide.
FOCUS_RING = """() => {
  const style = getComputedStyle(document.activeElement);
  return style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 2;
}"""


@pytest.fixture(scope="module")
def lab(browser, tmp_path_factory) -> Iterator[Browsing]:
    """The notebook open in JupyterLab, every cell run from the Run menu and drawn."""
    notebook = notebook_of("%load_ext agentlab_magics", *CELLS.values())
    with ran_all(browser, tmp_path_factory.mktemp("themes"), NOTEBOOK, notebook,
                 lambda page: cell(page, CELL["map"]).locator(".al-progress-map")) as browsing:
        yield browsing


def view(page: Page, name: str) -> Locator:
    return output(page, CELL[name]).locator(ROOT).first


def low_contrast(page: Page, theme: str, screenshots) -> dict[str, list[str]]:
    """Each view's texts under 4.5:1, every <details> opened first so its text is drawn."""
    use_theme(page, theme)
    found = {}
    for name in CELLS:
        shown = view(page, name)
        expect(shown).to_be_visible()
        shown.evaluate("root => root.querySelectorAll('details').forEach(d => { d.open = true; })")
        page.wait_for_timeout(100)  # a transcript redraws the rows a <details> made taller
        measured = shown.evaluate(CONTRAST)
        assert measured["measured"] > 2, name  # the view's texts were found and measured
        found[name] = measured["low"]
        shown.evaluate("root => root.scrollIntoView({block: 'start'})")
        tall = shown.bounding_box()["height"] > page.viewport_size["height"] * 0.8
        shoot(page if tall else shown, screenshots, f"theme-{theme}-{name}")
    return found


@pytest.mark.parametrize("theme", list(THEMES))
def test_every_text_of_every_view_reads_at_4_5_to_1(lab, theme, screenshots):
    assert low_contrast(lab.page, theme, screenshots) == {name: [] for name in CELLS}
    assert lab.blocked == [] and lab.errors == []


def focused(page: Page) -> Locator:
    return page.locator(":focus")


def press(page: Page, key: str) -> None:
    """Press `key`; the keyboard's place must show a ring once the view has answered it (a
    view that redraws, as a question does when an answer is committed, moves the keyboard
    when it is drawn)."""
    page.keyboard.press(key)
    try:
        page.wait_for_function(FOCUS_RING, timeout=5000)
    except PlaywrightTimeout:
        pytest.fail(f"no focus ring after {key}")


def tab_to(page: Page, target: Locator, most: int = 8) -> None:
    """Press Tab until `target` has the keyboard, at most `most` times."""
    for _ in range(most):
        press(page, "Tab")
        if target.evaluate("node => node === document.activeElement"):
            return
    pytest.fail(f"{target} is not reached with Tab")


@pytest.mark.parametrize("theme", list(THEMES))
def test_every_view_is_driven_from_the_keyboard_alone(lab, theme, screenshots):
    """Only the first control of each view is focused directly, as Tab would: from there,
    the keyboard alone does everything a mouse does, and a ring shows where it is."""
    page = lab.page
    use_theme(page, theme)

    transcript = view(page, "transcript")
    toggle = transcript.get_by_role("button", name="show the request")
    toggle.focus()
    press(page, "Enter")
    expect(transcript).to_have_attribute("data-view", "request")
    press(page, "Enter")
    expect(transcript).to_have_attribute("data-view", "record")
    search = transcript.get_by_role("searchbox", name="Search the messages")
    tab_to(page, search)
    page.keyboard.type("try again")
    expect(transcript.locator(".al-found")).to_have_text("1 of 5 messages match")
    for _ in "try again":
        page.keyboard.press("Backspace")
    expect(transcript.locator(".al-found")).to_have_text("")
    chip = row(transcript, 3).locator('.al-chip[data-call-id="c1"]')
    tab_to(page, chip)
    expect(row(transcript, 4)).to_contain_class("al-highlight")  # lit while it has the keyboard
    press(page, "Enter")
    expect(focused(page)).to_have_text("answers c1 · row 3")  # the keyboard went to the result
    expect(row(transcript, 4)).to_contain_class("al-highlight")  # and the link stays pinned
    shoot(transcript, screenshots, f"theme-{theme}-keyboard")
    press(page, "Enter")
    cells = page.locator(".jp-Notebook .jp-Cell").count()
    row(transcript, 0).focus()
    for key in ("ArrowDown", "ArrowDown", "b", "a", "d", "d", "Enter"):  # the notebook's keys
        press(page, key)
    expect(focused(page)).to_have_attribute("data-index", "2")  # arrows went from row to row
    press(page, "End")
    expect(focused(page)).to_have_attribute("data-index", "4")
    shoot(transcript, screenshots, f"theme-{theme}-row-focused")
    assert page.locator(".jp-Notebook .jp-Cell").count() == cells  # no cell added or deleted
    page.keyboard.press("Escape")  # the keyboard goes back to the notebook, in command mode
    assert page.evaluate("() => !document.activeElement.closest('.al-transcript') && "
                         "Boolean(document.activeElement.closest('.jp-Notebook'))")
    page.keyboard.press("ArrowDown")  # the notebook's again: the next cell is the active one
    expect(page.locator(".jp-Notebook .jp-Cell.jp-mod-active")).not_to_contain_text(
        "%transcript")

    report = view(page, "report")
    opened = report.locator(".al-outcome-failed details").first
    opened.locator("summary").focus()
    press(page, "Enter")
    expect(opened).not_to_have_attribute("open", "")
    press(page, "Space")
    expect(opened).to_have_attribute("open", "")

    diff = view(page, "long-diff")
    shown = diff.locator("tbody tr:visible")
    diff.get_by_role("button", name="go to turn 31, where they part").focus()
    tab_to(page, diff.get_by_role("button", name="only what differs"))
    press(page, "Space")
    expect(shown).to_have_count(1)
    press(page, "Enter")
    tab_to(page, diff.get_by_role("searchbox", name="Find in both runs"))
    tab_to(page, diff.locator("tr.al-fold:visible").first)
    before = shown.count()
    press(page, "Enter")  # the fold opens into the same turns it stood for, the first focused
    expect(shown).not_to_have_count(before)
    expect(focused(page)).to_have_class("al-turn al-state-same")

    live = view(page, "live")
    live.get_by_role("button", name="raw JSON").focus()
    press(page, "Space")
    expect(live.get_by_role("button", name="raw JSON")).to_have_attribute("aria-pressed", "true")
    press(page, "Space")
    tab_to(page, live.get_by_role("searchbox", name="Search the messages"))

    question = view(page, "question")
    if question.locator(".al-why").count() == 0:  # answered once; after that, it shows why
        question.locator("button.al-pick").first.focus()
        tab_to(page, question.locator('button[data-letter="C"]'))
        press(page, "Enter")
        expect(view(page, "question").locator(".al-why")).to_have_count(3)
        expect(focused(page)).to_have_class("al-committed")  # the keyboard stays in the view
    expect(view(page, "question").locator(".al-chosen")).to_contain_text(
        "user, reply, result c1, result c2")
    assert lab.errors == []
