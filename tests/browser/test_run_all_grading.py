"""Checkpoint A as released, in real JupyterLab, with Run > Run All Cells: the rebuilt loop
answers only the first call of a reply, so some of the first lab's graded cells fail. Run All
goes on past them (the graded cells are tagged `raises-exception`) to the second lab; a failing
graded cell shows its report, then one line of error and no traceback; and the `%%check`
report draws the earlier lessons' tests under their "Still holds from lesson N" headings.
Screenshots go to $AGENTLAB_SCREENSHOTS, or else a temporary folder.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from agentlab_magics.course import find_lab
from agentlab_magics.course.assignments import find_assignment
from agentlab_magics.making.notebooks import notebook
from tests.browser.lab_session import Browsing, output, ran_all, shoot
from tests.mutation.mutants import MUTANTS

NOTEBOOK = "checkpoint-a.ipynb"
FIRST_CALL_ONLY = {m.name: m for m in MUTANTS}["rebuilt: only the first call is answered"]
MADE = notebook(find_assignment("checkpoint-a"), student=True)


def index_of(starts: str = "", grade_id: str = "") -> int:
    """The index of the cell whose source starts with `starts`, or whose grade id is `grade_id`."""
    (found,) = [k for k, cell in enumerate(MADE.cells)
                if (starts and cell.source.startswith(starts)) or
                (grade_id and cell.metadata.get("nbgrader", {}).get("grade_id") == grade_id)]
    return found


CHECK, SECOND = index_of("%%check checkpoint-a\n"), index_of("%%check checkpoint-a-test\n")
LOOP = index_of(grade_id="tests-checkpoint-a-loop")
LAST = index_of(grade_id="tests-checkpoint-a-test-test")


def students_notebook():
    MADE.cells[CHECK].source = (
        f"%%check checkpoint-a\n{FIRST_CALL_ONLY.apply(find_lab('checkpoint-a').reference)}")
    MADE.cells[SECOND].source = (
        f"%%check checkpoint-a-test\n{find_lab('checkpoint-a-test').reference}")
    return MADE


@pytest.fixture(scope="module")
def lab(browser, tmp_path_factory) -> Iterator[Browsing]:
    """The notebook open in JupyterLab, Run All run until the last graded cell has drawn."""
    with ran_all(browser, tmp_path_factory.mktemp("jupyterlab"), NOTEBOOK, students_notebook(),
                 lambda page: output(page, LAST).locator(".al-summary")) as browsing:
        yield browsing


def test_run_all_reaches_the_second_lab(lab, screenshots):
    expect(output(lab.page, SECOND).locator(".al-summary")).to_have_text(
        "Checkpoint A: write the test that catches the bug: 4 of 4 tests passed")
    expect(output(lab.page, LAST).locator(".jp-RenderedText[data-mime-type="
                                          '"application/vnd.jupyter.stderr"]')).to_have_count(0)


def test_a_failing_graded_cell_shows_its_report_and_one_line(lab, screenshots):
    area = output(lab.page, LOOP)
    expect(area.locator(".al-summary")).to_have_text(
        "Checkpoint A: the loop, from an empty gap: 9 of 10 tests passed")
    error = area.locator('[data-mime-type="application/vnd.jupyter.stderr"]')
    expect(error).to_have_text("1 of this cell's 10 tests failed: the cell's report says "
                               "which, and why.")
    shoot(area, screenshots, "lab-graded-cell-fails-in-one-line")


def test_the_check_report_draws_the_tests_that_still_hold_under_headings(lab, screenshots):
    report = output(lab.page, CHECK).locator(".al-report")
    expect(report.locator(".al-group > details > summary")).to_have_text(  # all pass: folded
        [re.compile(rf"^Still holds from lesson {n}: all \d+ tests pass$") for n in (1, 2, 4, 6)])
    heading = report.locator(".al-group", has_text="Still holds from lesson 4")
    expect(heading.locator("li.al-test").first).to_be_hidden()
    heading.locator("summary").click()  # opened, it lists the group's tests
    expect(heading.locator("li.al-test")).to_have_count(9)
    expect(heading.locator("li.al-test").first).to_be_visible()
    heading.scroll_into_view_if_needed()
    shoot(lab.page, screenshots, "lab-report-still-holds")


def test_the_page_raised_nothing_and_reached_nothing_beyond_this_machine(lab):
    assert lab.errors == [] and lab.blocked == []
