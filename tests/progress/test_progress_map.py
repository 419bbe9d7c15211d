"""The progress map and the %solution view: a path of the course's pages in order, each with
its state by colour and mark, tests passed (counted as %%check counts them), what is left,
each wrong answer as wrong and questions answered right; no "0 of 0 questions"; everything
escaped; static HTML and text, no widget."""

from __future__ import annotations

import re

import pytest

from agentlab_magics import notebook
from agentlab_magics.checking.runner import lab_tests
from agentlab_magics.course import find_lab
from agentlab_magics.course.questions import questions_for
from agentlab_magics.progress import ProgressStore
from agentlab_magics.progress.store import STATES
from agentlab_magics.widgets.progress_view import MARKS, ProgressView
from agentlab_magics.widgets.rendering import MARK, WIDGET_VIEW
from agentlab_magics.widgets.solution_view import SolutionView

PAGES = ["lesson1", "lesson2", "lesson3", "lesson4", "lesson5", "lesson6", "checkpoint-a",
         "lesson7", "ch03-a", "ch03-b"]


@pytest.fixture
def store(tmp_path):
    store = ProgressStore(tmp_path / "p.json")
    store.commit("lesson1", "l1-two-calls", "C")             # right
    store.checked("lesson1", ["test_user_message_is_role_and_content", "not_a_test"],
                  all_passed=True)  # a name no test has (any more) is not counted
    store.commit("lesson2", "l2-call-order", "B")            # wrong
    store.checked("lesson2", [], all_passed=True)
    store.solution_opened("lesson3")
    store.commit("lesson3", "l3-label", "B")
    store.checked("lesson3", [], all_passed=True)
    store.commit("checkpoint-a", "a8-own-words", "<script>alert(1)</script> & more")
    return store


def test_the_map_is_the_course_in_order_with_each_pages_state(store):
    stops = notebook.syllabus(store)
    assert [stop["id"] for stop in stops] == PAGES
    states = {stop["id"]: stop["state"] for stop in stops}
    assert states["lesson1"] == states["lesson2"] == "mastered"
    assert states["lesson3"] == "built with help" and states["lesson4"] == "not started"
    assert states["checkpoint-a"] == "in progress"
    assert [lab["lab"] for lab in stops[6]["labs"]] == ["checkpoint-a", "checkpoint-a-test"]
    assert stops[0]["labs"][0]["tests_passed"] == 1 and stops[0]["labs"][0]["tests"] > 1
    assert stops[6]["questions"] == {"asked": len(questions_for("checkpoint-a")),
                                     "answered": 1, "right": 1}


def test_the_text_has_a_line_per_page_and_no_empty_question_count(store):
    text = ProgressView(notebook.syllabus(store)).to_text()
    assert "0 of 0" not in text
    assert "★ Lesson 1: the conversation is a list: mastered" in text
    assert "★ Lesson 2: tool calls and results: mastered" in text
    assert "0 of 1 question answered right, 1 wrong" in text
    assert "1 of 8 questions answered right, 7 to answer" in text  # checkpoint A
    assert "1 question to answer" in text and "0 of 1 question answered right\n" not in text
    assert "☆ Lesson 3: the loop: built with help" in text
    for state in STATES:
        assert f"{MARKS[state]} {state}: " in text  # the legend


def test_the_html_draws_a_path_coloured_by_state_and_escapes_everything(store):
    stops = notebook.syllabus(store)
    stops[0]["title"] = "<b>Lesson & one</b>"
    stops[0]["labs"][0]["title"] = "<img src=x onerror=alert(1)>"
    page = ProgressView(stops).to_html()
    assert "<b>Lesson" not in page and "&lt;b&gt;Lesson &amp; one&lt;/b&gt;" in page
    assert "<script" not in page.replace("<style>", "") and "<img" not in page
    assert "0 of 0" not in page
    stop_classes = re.findall(r'<li class="al-stop (al-state-[a-z-]+)" data-page="([a-z0-9-]+)"',
                              page)
    assert [page_id for _, page_id in stop_classes] == PAGES
    assert stop_classes[0][0] == "al-state-mastered" and stop_classes[2][0] == (
        "al-state-built-with-help")
    assert ".al-state-mastered { --al-state:" in page  # the colours travel with the HTML


def test_a_page_without_questions_says_nothing_of_questions(store):
    stops = notebook.syllabus(store)
    stops[0]["questions"] = {"asked": 0, "answered": 0, "right": 0}
    view = ProgressView(stops[:1])
    assert "question" not in view.to_text().split("\n\n")[0]
    shown = re.sub(r"<style>.*?</style>", "", view.to_html(), flags=re.DOTALL)
    assert "question" not in shown.split('class="al-legend"')[0]


def test_the_map_is_static_and_marked_as_ours(store):
    bundle, metadata = ProgressView(notebook.syllabus(store))._repr_mimebundle_()
    assert WIDGET_VIEW not in bundle and set(bundle) == {"text/html", "text/plain"}
    assert metadata[MARK] == {"view": "progress"}


def test_the_solution_has_a_heading_and_a_warning_before_its_code(store):
    opened = notebook.open_solution("lesson5", store=store)
    assert store.lab("lesson5").solution_opened  # recorded before it is shown
    view = SolutionView(opened)
    text = view.to_text()
    heading, warning, _, *code = text.splitlines()
    assert heading == "Solution: 05 Failures and limits"
    assert "graded reference" in warning and '"built with help" for lesson5' in warning
    assert text.endswith(opened.code)
    page = view.to_html()
    assert page.index("al-solution-title") < page.index("al-solution-warning") < page.index(
        "al-solution-code")
    assert "def run_agent" in page
    assert view._repr_mimebundle_()[1][MARK] == {"view": "solution", "lab": "lesson5"}


def test_the_solutions_code_is_escaped():
    view = SolutionView(notebook.Solution("lesson1", "<i>t</i>", "x = '<script>'\n"))
    page = view.to_html()
    assert "<script>" not in page and "&lt;script&gt;" in page and "<i>" not in page


def lines_of(store, page_id: str) -> list[str]:
    """The map's text lines of the page `page_id`: its heading, then its details."""
    stops = notebook.syllabus(store)
    position = [stop["id"] for stop in stops].index(page_id)
    text = ProgressView(stops[position:position + 1]).to_text()
    return text.split("\n\n")[0].splitlines()[1:]


def test_the_map_counts_what_check_runs_and_says_where_the_rest_count(store):
    lesson5 = lines_of(store, "lesson5")
    tests = lab_tests(find_lab("lesson5"))
    own = [test for test in tests if not test.group]
    assert lesson5[1] == (f"    0 of {len(own)} own tests passed; %%check lesson5 runs "
                          f"{len(tests)}, the other {len(tests) - len(own)} counting in "
                          "earlier lessons")
    assert lines_of(store, "lesson1")[1].strip().endswith("of 7 tests passed")  # nothing carried


def test_a_half_mark_says_what_is_left(tmp_path):
    store = ProgressStore(tmp_path / "p.json")
    own = [test.name for test in lab_tests(find_lab("lesson5"), still_holds=False)]
    store.checked("lesson5", own, all_passed=False)  # its own pass; an earlier lesson's fails
    heading, counted, left, questions = lines_of(store, "lesson5")
    assert heading.startswith("◐") and counted.startswith(f"    {len(own)} of {len(own)} own")
    assert left == ("    Left: pass all 40 tests of %%check lesson5 in one check, the 30 from "
                    "earlier lessons too; answer %question l5-outage")
    store.commit("lesson5", "l5-outage", "A")
    store.checked("lesson5", own, all_passed=True)
    assert not any("Left" in line for line in lines_of(store, "lesson5"))
    assert lines_of(store, "checkpoint-a")[2] == (
        "    Left: pass all 67 tests of %%check checkpoint-a in one check, the 44 from earlier "
        "lessons too; answer a1-skipped-call, a2-silent-cut, a3-only-what-is-new, "
        "a4-jumbled-order, a5-outage, a6-copied-list, a7-in-common and a8-own-words "
        "(%question ID)")


def test_a_wrong_answer_is_shown_wrong_under_the_state_the_course_gives(store):
    # the course counts commitments, right or wrong (seed 000): the wrong one is shown as such
    heading, _, wrong, count = lines_of(store, "lesson2")
    assert heading.endswith("mastered")
    assert wrong == ("    ✗ l2-call-order: answered B, wrong; A is right (%question "
                     "l2-call-order says why)")
    page = ProgressView(notebook.syllabus(store)).to_html()
    assert ('<div class="al-stop-line al-wrong">✗ l2-call-order: answered B, wrong; A is right'
            in page)
