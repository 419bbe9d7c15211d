"""The class report and the grades out to the LMS, on a short term graded by the real nbgrader
commands (tests/class_term.py, built once): every number on the page is checked against the
gradebook (read through nbgrader's API), the judge's own reports and what the students did;
the Canvas and Moodle files against their documented columns, and read back."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout

import pytest
from bs4 import BeautifulSoup
from nbgrader.api import Gradebook

from agentlab_magics.checking.cell_source import load
from agentlab_magics.checking.runner import run as check
from agentlab_magics.cli import main
from agentlab_magics.course import find_lab
from agentlab_magics.course.assignments import find_assignment
from agentlab_magics.course.questions import questions_for
from agentlab_magics.demos.students import answer, harness
from agentlab_magics.notebook import right_answer
from agentlab_magics.term.lms_export import (
    CANVAS_IDS,
    MOODLE_NAMES,
    POINTS_POSSIBLE,
    lms_grades,
    read_canvas,
    read_moodle,
)
from agentlab_magics.term.submitted_work import NO_REASON, outcomes_in, read_work
from tests.class_term import ASSIGNMENTS, HANDING_IN, MARKUP


@pytest.fixture(scope="module")
def page(class_term) -> BeautifulSoup:
    return BeautifulSoup(class_term.page.read_text(encoding="utf-8"), "html.parser")


@pytest.fixture(scope="module")
def gradebook(class_term):
    with Gradebook(class_term.db_url, "agentlab") as opened:
        yield opened


def _section(page: BeautifulSoup, assignment: str):
    return page.select_one(f"section#a-{assignment}")


def _count(node, name: str) -> int:
    return int(node.select_one(f'[data-count="{name}"]').get_text())


def test_the_command_says_where_the_page_is_and_writes_nothing_into_the_course(class_term):
    assert str(class_term.page) in class_term.printed and class_term.page.is_file()
    assert class_term.untouched


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_handed_in_late_and_missing_are_counted_as_the_gradebook_has_them(
        page, gradebook, assignment):
    submissions = gradebook.find_assignment(assignment).submissions
    section = _section(page, assignment)
    assert _count(section, "submitted") == len(submissions) == len(HANDING_IN)
    assert _count(section, "late") == sum(s.total_seconds_late > 0 for s in submissions) == 1
    handed = {s.student.id for s in submissions}
    assert _count(section, "missing") == len([s for s in gradebook.students
                                              if s.id not in handed]) == 1


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_each_score_bar_counts_the_students_the_gradebook_gives_that_score(
        page, gradebook, assignment):
    scores = [s.score for s in gradebook.find_assignment(assignment).submissions]
    table = _section(page, assignment).select_one('table[data-table="scores"]')
    shown = {row.select("td")[0].get_text(): int(row.select("td")[1].get_text())
             for row in table.select("tr")[1:]}
    assert shown == {f"{n:g}": scores.count(n)
                     for n in range(int(gradebook.find_assignment(assignment).max_score) + 1)}
    assert sum(shown.values()) == len(HANDING_IN)


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_a_student_fails_a_test_of_a_cell_exactly_where_the_gradebook_took_its_points(
        page, gradebook, assignment):
    failed = {(student, details["data-cell"])
              for details in _section(page, assignment).select("details[data-test]")
              for who in details.select(".who") for student in _ids(who.get_text())}
    lost = {(student, grade.name) for student in HANDING_IN
            for notebook in gradebook.find_submission(assignment, student).notebooks
            for grade in notebook.grades if grade.score < grade.max_score}
    assert failed == lost and lost
    for row in _section(page, assignment).select("tr[data-test]"):
        details = [d for d in _section(page, assignment).select("details[data-test]")
                   if (d["data-test"], d["data-cell"]) == (row["data-test"], row["data-cell"])]
        who = [s for d in details for w in d.select(".who") for s in _ids(w.get_text())]
        assert int(row.select_one("[data-failed]").get_text()) == len(who)
        assert int(row.select_one("[data-shown]").get_text()) == len(HANDING_IN)


def test_each_cause_is_the_judges_message_for_that_student_and_counted_per_student(page):
    lab = find_lab("lesson1")
    report = check(lab.id, load(harness("wrong", lab.id), "harness.py", lab.module))
    judged = {o.sentence: o.message.splitlines()[0] for o in report.outcomes if not o.passed}
    assert judged
    for sentence, cause in judged.items():
        details = _details(page, "lesson1", sentence)
        (item,) = [li for li in details.select("li") if li["data-cause"] == cause]
        assert "wrong" in item.select_one(".who").get_text()
        for li in details.select("li"):
            assert int(li.select_one("[data-count]").get_text()) == len(
                _ids(li.select_one(".who").get_text()))


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_each_options_count_is_the_students_who_committed_to_it(page, assignment):
    for assigned in find_assignment(assignment).labs:
        for question in questions_for(assigned.lab):
            given = [answer(s, question.id) for s in HANDING_IN if s != "starter"]
            section = _section(page, assignment).select_one(f'[data-question="{question.id}"]')
            rows = section.select("tr[data-option]")
            counts = {row["data-option"]: int(row.select_one("[data-count]").get_text())
                      for row in rows}
            assert counts == {letter: given.count(letter) for letter in question.letters}
            assert _count(section, "unanswered") == 1  # the starter, who answered nothing
            if question.kind == "choice" and any(given):
                _the_right_option_is_said_in_words_and_green(section, right_answer(question))


def _the_right_option_is_said_in_words_and_green(section, right: str) -> None:
    """The right option is labelled "(right)" in the table and on its bar, whose colour the
    caption names (green, as the other marks of success on the page)."""
    labelled = [row["data-option"] for row in section.select("tr[data-option]")
                if "(right)" in row.select_one("td").get_text()]
    assert labelled == [right]
    assert section.select_one("figcaption").get_text() == \
        "The right option is green, and labelled (right)."
    svg = str(section.select_one("svg"))
    assert f"{right} (right)" in svg and "#2da44e" in svg and "#c44e52" not in svg


def test_the_course_map_says_where_each_student_stands(page):
    states = {row["data-student"]: [td.get_text() for td in row.select("[data-state]")]
              for row in page.select("tr[data-student]")}
    assert states == {"reference": ["mastered"], "wrong": ["in progress"],
                      "starter": ["not started"], "absent": ["not started"]}
    stuck = {row["data-student"]: row.select_one("td.stuck").get_text()
             for row in page.select("tr[data-student]")}
    assert stuck["reference"] == "" and stuck["absent"] == ""
    assert stuck["wrong"].startswith("lesson1: Every request carries the system prompt")


def test_every_chart_is_inline_svg_with_a_table_and_the_page_fetches_nothing(page):
    pairs = page.select("div.pair")
    assert pairs and all(pair.select_one("svg") and pair.select_one("table") for pair in pairs
                         if pair.select_one("svg"))
    assert not page.select("script, link, img, iframe, [src]")


def test_student_names_and_text_are_escaped(class_term):
    text = class_term.page.read_text(encoding="utf-8")
    assert MARKUP["last_name"] not in text and MARKUP["first_name"] not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text


def test_a_report_on_an_assignment_the_gradebook_lacks_names_the_ones_it_has(class_term,
                                                                            tmp_path):
    err = io.StringIO()
    with redirect_stderr(err):
        code = main(["course", "report", "nosuch", "--course", str(class_term.course),
                     "--out", str(tmp_path)])
    assert code == 2
    assert err.getvalue().strip() == ("agentlab: The gradebook has no assignment nosuch; it "
                                      "has: lesson1.")


@pytest.mark.parametrize("lms", ["canvas", "moodle"])
def test_the_lms_file_has_its_documented_columns_and_reads_back_as_the_gradebook(
        class_term, gradebook, lms, tmp_path):
    target = tmp_path / f"{lms}.csv"
    with redirect_stdout(io.StringIO()) as printed:
        assert main(["course", "export", "--to", lms, str(target),
                     "--course", str(class_term.course)]) == 0
    rows = target.read_text(encoding="utf-8").splitlines()
    if lms == "canvas":
        assert rows[0] == ",".join([*CANVAS_IDS, *ASSIGNMENTS])
        assert rows[1] == f"{POINTS_POSSIBLE},,,,,9"
        back = read_canvas(target)
    else:
        assert rows[0] == ",".join([*MOODLE_NAMES, "ID number", "lesson1 (out of 9)"])
        back = read_moodle(target)
    expected = lms_grades(gradebook)
    # the student who handed nothing in has no row, and is named: a blank cell, as a 0,
    # would overwrite a grade the LMS has (tests/course/test_lms_export.py has the rest)
    assert back.grades == {s: g for s, g in expected.grades.items() if g}
    assert back.points == expected.points
    assert [p.id for p in back.students] == sorted(HANDING_IN)
    assert "Left out 1 student with no grade in lesson1 to send: absent." in printed.getvalue()
    if lms == "canvas":  # matched by SIS Login ID (the default): the ID Canvas tries first is blank
        assert next(p for p in back.students if p.id == "wrong").lms_user_id == ""


def test_a_failure_without_a_message_has_no_reason_and_a_passing_test_no_cause():
    report = ("02 Tool calls: 1 of 3 tests passed\n✓ It passes.\n✗ It fails.\n"
              "    The reason.\n    More detail.\n◷ It hangs.\n")
    assert [(o.test, o.passed, o.cause) for o in outcomes_in(report)] == [
        ("It passes.", True, None), ("It fails.", False, "The reason."),
        ("It hangs.", False, NO_REASON)]


def test_a_saved_solution_view_counts_as_help_and_other_outputs_as_nothing():
    from agentlab_magics.term.class_report import _state

    def output(mark):
        return {"output_type": "display_data", "data": {"text/plain": ""},
                "metadata": {"agentlab_magics": mark}}

    notebook = {"cells": [{"cell_type": "code", "source": "", "metadata": {}, "outputs": [
        output({"view": "solution", "lab": "lesson1"}),
        output({"view": "question", "id": "l1-two-calls", "committed": True, "answer": "B"}),
        output({"view": "question", "id": "forged", "committed": True, "answer": 7}),
        "not an output"]}]}
    graded = {"cells": [{"cell_type": "code", "source": "", "outputs": [
        {"output_type": "display_data", "data": {"text/plain": "✓ A test."}}],
        "metadata": {"nbgrader": {"grade": True, "grade_id": f"tests-lesson1-{group.id}"}}}
        for assigned in find_assignment("lesson1").labs for group in assigned.groups]}
    work = read_work([graded], [notebook, {"cells": "broken"}])
    assert work.answers == {"l1-two-calls": "B"} and work.solutions == ["lesson1"]
    assert _state("lesson1", work) == "built with help"
    assert _state("lesson1", work.model_copy(update={"solutions": []})) == "mastered"


def _ids(who: str) -> list[str]:
    """The student ids in a "who" list: each name shows its id in brackets, or is the id."""
    names = [n.strip() for n in who.split(", ") if n.strip()]
    return [n.rsplit("(", 1)[1].rstrip(")") if n.endswith(")") else n for n in names]


def _details(page: BeautifulSoup, assignment: str, sentence: str):
    return next(d for d in _section(page, assignment).select("details[data-test]")
                if d["data-test"] == sentence)


@pytest.mark.parametrize("command", [["report"], ["export", "--to", "canvas", "out.csv"]])
def test_a_folder_without_a_course_is_a_usage_error_that_says_what_to_name(
        command, tmp_path, capsys):
    assert main(["course", *command, "--course", str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"agentlab: {tmp_path} holds no course (nbgrader_config.py is missing): run this in "
        "your course folder or name it with --course DIR, or start one with `agentlab course "
        f"init {tmp_path}`.")
    assert list(tmp_path.iterdir()) == []
