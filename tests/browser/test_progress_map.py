"""The progress map as a student sees it in real JupyterLab, in headless Chromium: a notebook
checks the lesson-5 reference and answers its question right (mastered), answers lesson 1's
question wrong (in progress: its tests were never checked) and lesson 3's right, opens lesson
3's solution and then passes lesson 3 (built with help), and runs %progress. The map is on
screen as a path of the course's nine pages, coloured by state; %solution showed its heading
and warning above the code. Solutions are shown here because no published folder is named (tests/conftest.py) and
the instructor package is installed: the self-paced case (course/solutions.py). Screenshot
"progress-map" goes to $AGENTLAB_SCREENSHOTS, or else a temporary folder.
"""

from __future__ import annotations

from collections.abc import Iterator

import nbformat
import pytest
from playwright.sync_api import expect

from agentlab_magics.course import find_lab
from agentlab_magics.progress.store import STATES
from tests.browser.lab_session import Browsing, cell, output, ran_all, screenshot_folder, shoot
from tests.student_notebook import notebook_of

NOTEBOOK = "progress.ipynb"
LOAD, LESSON5, ANSWERS, SOLUTION, LESSON3, PROGRESS = range(6)
PAGES = ["lesson1", "lesson2", "lesson3", "lesson4", "lesson5", "lesson6", "checkpoint-a",
         "lesson7", "ch03-a", "ch03-b"]


def progress_notebook() -> nbformat.NotebookNode:
    return notebook_of(
        "%load_ext agentlab_magics",
        "%%check lesson5 --quiet\n" + find_lab("lesson5").reference,
        "%question l5-outage --answer A --static\n%question l1-two-calls --answer A --static\n"
        "%question l3-label --answer C --static",
        "%solution lesson3",
        "%%check lesson3 --quiet\n" + find_lab("lesson3").reference,
        "%progress")


@pytest.fixture(scope="module")
def lab(browser, tmp_path_factory) -> Iterator[Browsing]:
    """The notebook open in JupyterLab, every cell run from the Run menu, the map drawn."""
    with ran_all(browser, tmp_path_factory.mktemp("jupyterlab"), NOTEBOOK, progress_notebook(),
                 lambda page: cell(page, PROGRESS).locator(".al-progress-map")) as browsing:
        yield browsing


def stop(map_, page_id: str):
    return map_.locator(f'.al-stop[data-page="{page_id}"]')


def test_the_map_is_a_path_of_the_course_coloured_by_state(lab, tmp_path_factory):
    map_ = output(lab.page, PROGRESS).locator(".al-progress-map")
    expect(map_).to_be_visible()
    expect(map_.locator(".al-stop")).to_have_count(len(PAGES))
    assert [s.get_attribute("data-page") for s in map_.locator(".al-stop").all()] == PAGES
    colours = set()
    for page_id, state in (("lesson5", "mastered"), ("lesson3", "built with help"),
                           ("lesson1", "in progress")):
        word = stop(map_, page_id).locator(".al-state-word")
        expect(word).to_have_text(state)
        colour = stop(map_, page_id).locator(".al-dot").evaluate(
            "dot => getComputedStyle(dot).borderTopColor")
        expect(word).to_have_css("background-color", colour)  # the state's one colour
        colours.add(colour)
    assert len(colours) == 3  # the map's own styles apply: each state has a colour of its own
    # lesson 5's own tests: the 30 of earlier lessons that still hold count in theirs
    expect(stop(map_, "lesson5")).to_contain_text(
        "10 of 10 own tests passed; %%check lesson5 runs 40, the other 30 counting in earlier")
    expect(stop(map_, "lesson5")).to_contain_text("1 of 1 question answered right")
    expect(stop(map_, "lesson1")).to_contain_text("0 of 1 question answered right, 1 wrong")
    expect(stop(map_, "lesson1").locator(".al-wrong")).to_have_text(
        "✗ l1-two-calls: answered A, wrong; C is right (%question l1-two-calls says why)")
    expect(stop(map_, "lesson1").locator(".al-left")).to_have_text(
        "Left: pass all 7 tests of %%check lesson1 in one check")
    expect(stop(map_, "lesson4")).to_contain_text("1 question to answer")
    expect(map_).not_to_contain_text("0 of 0")
    expect(map_.locator(".al-legend li")).to_have_count(len(STATES))
    map_.scroll_into_view_if_needed()
    shoot(map_, screenshot_folder(tmp_path_factory), "progress-map")
    assert lab.blocked == [] and lab.errors == []


def test_the_solution_comes_under_a_heading_and_a_warning(lab):
    shown = output(lab.page, SOLUTION).locator(".al-solution")
    expect(shown.locator(".al-solution-title")).to_have_text("Solution: 03 The loop")
    expect(shown.locator(".al-solution-warning")).to_contain_text(
        'the progress map says "built with help" for lesson3')
    expect(shown.locator(".al-solution-code")).to_contain_text("def run_agent")
