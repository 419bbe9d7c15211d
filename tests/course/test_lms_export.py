"""Grades out to Canvas and Moodle can hurt no grade already there: a file holds no blank cell
(both imports clear a grade with one), no row without the id the LMS matches by or with
another student's, and, given the LMS's roster, nobody it lacks (Moodle aborts the whole
import on one); whoever is left out is named in one sentence saying why. `--check` says it
all before anything is written. The gradebook is made with nbgrader's API, and the export
runs through `nbgrader export`, as an instructor's does."""

from __future__ import annotations

import csv
import shutil
import warnings
from pathlib import Path

import pytest
from nbgrader.api import Base, Gradebook
from sqlalchemy import create_engine

from agentlab_magics.cli import main
from agentlab_magics.term.lms_export import read_canvas, read_moodle
from tests.course.test_bad_input import COURSE, refused, tree

POINTS = {"lesson1": 9.0, "lesson2": 6.0}
PEOPLE = {"ana": {"first_name": "Ana", "last_name": "Arce", "email": "ana@example.org",
                  "lms_user_id": "101"},
          "ben": {"first_name": "Ben", "email": "", "lms_user_id": ""},
          "cy": {"email": "cy@example.org", "lms_user_id": "lti-7f3a"},
          "dee": {"email": "dee@example.org", "lms_user_id": "104"}}
# ana and ben have both assignments graded, cy only lesson1, dee nothing
SCORES = {"lesson1": {"ana": 7.0, "ben": 5.0, "cy": 9.0}, "lesson2": {"ana": 6.0, "ben": 2.5}}
BOTH = "lesson1, lesson2"
NO_GRADE = f"Left out 1 student with no grade in {BOTH} to send: dee."


def make_course(root: Path, people: dict[str, dict], scores: dict[str, dict[str, float]]
                ) -> Path:
    """A course folder (the course's configuration) whose gradebook holds POINTS' assignments,
    `people` on the roster and their `scores`, each the total of one graded cell."""
    course = root / "course"
    for folder in ("source", "exchange"):  # the configuration makes exchange/ beside source/
        (course / folder).mkdir(parents=True)
    shutil.copy(COURSE / "nbgrader_config.py", course)
    url = f"sqlite:///{course / 'gradebook.db'}"
    engine = create_engine(url)
    Base.metadata.create_all(bind=engine)  # a gradebook nbgrader takes as made, no alembic
    engine.dispose()
    with Gradebook(url, "agentlab") as gradebook, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nbgrader's add_submission warns of its own session
        for assignment, maximum in POINTS.items():
            gradebook.update_or_create_assignment(assignment)
            gradebook.update_or_create_notebook(assignment, assignment)
            gradebook.update_or_create_grade_cell("tests", assignment, assignment,
                                                  max_score=maximum, cell_type="code")
        for student, fields in people.items():
            gradebook.update_or_create_student(student, **fields)
        for assignment, given in scores.items():
            for student, score in given.items():
                gradebook.add_submission(assignment, student)
                gradebook.find_grade("tests", assignment, assignment, student).auto_score = score
        gradebook.db.commit()
    return course


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    return make_course(tmp_path_factory.mktemp("lms"), PEOPLE, SCORES)


def export(capsys, course: Path, *argv: str) -> tuple[int, list[str]]:
    """`agentlab course export ARGV` in `course`: its exit code and the lines it printed (it
    printed nothing to stderr)."""
    code = main(["course", "export", *argv, "--course", str(course)])
    out, err = capsys.readouterr()
    assert err == "", err
    return code, out.splitlines()


def csv_rows(path: Path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


@pytest.mark.parametrize("lms", ["canvas", "moodle"])
def test_a_file_holds_no_blank_cell_and_names_who_it_leaves_out_and_why(capsys, course,
                                                                         tmp_path, lms):
    target = tmp_path / "grades.csv"
    code, said = export(capsys, course, "--to", lms, str(target))
    assert code == 0
    assert all(all(cells[-2:]) for cells in csv_rows(target))  # the grades, and their header
    name = lms.capitalize()
    assert said[1:] == [NO_GRADE, (
        f"Left out 1 student graded in only some of {BOTH}, as a blank cell would clear the "
        f"grade {name} has (export each assignment on its own, --assignment NAME, to send the "
        "others): cy.")]
    assert said[0].startswith(f"Wrote the grades in {BOTH} of 2 students to {target}")
    back = (read_canvas if lms == "canvas" else read_moodle)(target)
    assert back.grades == {"ana": {"lesson1": 7, "lesson2": 6},
                           "ben": {"lesson1": 5, "lesson2": 2.5}}


def test_an_assignment_exported_on_its_own_sends_the_grades_a_partly_graded_student_has(
        capsys, course, tmp_path):
    target = tmp_path / "lesson1.csv"
    code, said = export(capsys, course, "--to", "moodle", "--assignment", "lesson1",
                        str(target))
    assert code == 0 and said[1:] == ["Left out 1 student with no grade in lesson1 to send: dee."]
    assert read_moodle(target).grades == {"ana": {"lesson1": 7}, "ben": {"lesson1": 5},
                                          "cy": {"lesson1": 9}}


def test_moodle_by_email_leaves_out_a_student_without_one_rather_than_write_a_blank_id(
        capsys, course, tmp_path):
    """A blank id in Moodle's import keeps the previous row's student: ben's grades would
    have landed on ana."""
    target = tmp_path / "moodle.csv"
    code, said = export(capsys, course, "--to", "moodle", "--id-from", "email",
                        "--assignment", "lesson1", str(target))
    assert code == 0
    assert "Left out 1 student with no email address, which Moodle matches by: ben." in said
    rows = csv_rows(target)
    assert rows[0] == ["First name", "Last name", "Email address", "lesson1 (out of 9)"]
    assert rows[1:] == [["Ana", "Arce", "ana@example.org", "7"],
                        ["", "", "cy@example.org", "9"]]


def test_students_who_share_an_email_are_both_left_out(capsys, tmp_path):
    people = {**PEOPLE, "ben": {**PEOPLE["ben"], "email": "ANA@example.org "}}
    people["ana"] = {**people["ana"], "email": "ANA@example.org"}
    course = make_course(tmp_path, people, SCORES)
    code, said = export(capsys, course, "--to", "moodle", "--id-from", "email", "--check")
    assert code == 1
    assert ("Left out 2 students with the same email address as another student, as Moodle "
            "would put both rows on one of them: ana, ben.") in said


def test_a_student_moodles_roster_lacks_is_left_out_since_one_would_abort_the_import(
        capsys, course, tmp_path):
    roster = tmp_path / "participants.csv"
    roster.write_text("First name,Last name,ID number,Email address\n"
                      "Ana,Arce,ana,ana@example.org\nCy,,cy,cy@example.org\n",
                      encoding="utf-8-sig")  # Moodle writes a byte-order mark
    target = tmp_path / "moodle.csv"
    code, said = export(capsys, course, "--to", "moodle", "--assignment", "lesson1",
                        "--roster", str(roster), str(target))
    assert code == 0
    assert ("Left out 1 student whose ID number is not in participants.csv, which would make "
            "Moodle abort the whole import: ben.") in said
    assert [row[2] for row in csv_rows(target)] == ["ID number", "ana", "cy"]


def test_canvas_by_its_own_id_leaves_out_students_without_a_numeric_one(capsys, course,
                                                                        tmp_path):
    """An LTI id that is no Canvas user id matches nobody, or (read as a number) someone else."""
    target = tmp_path / "canvas.csv"
    code, said = export(capsys, course, "--to", "canvas", "--id-from", "canvas-id",
                        "--assignment", "lesson1", str(target))
    assert code == 0
    assert said[1:] == [
        "Left out 1 student with no grade in lesson1 to send: dee.",
        "Left out 2 students with no Canvas user id (a number in nbgrader's lms_user_id), "
        "which Canvas matches by: ben, cy."]
    assert csv_rows(target)[2:] == [["Arce, Ana", "101", "", "", "", "7"]]


def test_canvas_by_sis_login_leaves_the_id_canvas_tries_first_blank(capsys, course, tmp_path):
    target = tmp_path / "canvas.csv"
    assert export(capsys, course, "--to", "canvas", str(target))[0] == 0
    back = read_canvas(target)
    assert [(p.id, p.lms_user_id) for p in back.students] == [("ana", ""), ("ben", "")]


def test_check_against_canvas_names_an_unknown_student_and_a_new_assignment(
        capsys, course, tmp_path):
    roster = tmp_path / "Grades-Course.csv"  # Canvas's gradebook export
    roster.write_text(
        "Student,ID,SIS User ID,SIS Login ID,Section,lesson1 (5501),Quiz 1 (5502),"
        "Current Score,Unposted Final Score\n"
        "    Points Possible,,,,,9.00,10.00,(read only),(read only)\n"
        '"Arce, Ana",101,,ana,S1,7.00,,70,70\n"Cy, Cy",103,,cy,S1,,,0,0\n', encoding="utf-8")
    before = tree(tmp_path)
    code, said = export(capsys, course, "--to", "canvas", "--check", str(roster))
    assert code == 1
    assert said == [
        f"Canvas would take the grades in {BOTH} of 1 student, matched by SIS Login ID, which "
        "Grades-Course.csv lists: ana.",
        NO_GRADE,
        "Left out 1 student whose SIS Login ID is not in Grades-Course.csv, whom Canvas would "
        "match by name or not at all: ben.",
        f"Left out 1 student graded in only some of {BOTH}, as a blank cell would clear the "
        "grade Canvas has (export each assignment on its own, --assignment NAME, to send the "
        "others): cy.",
        "Canvas will make 1 new assignment, as Grades-Course.csv has no assignment of that "
        "title: lesson2."]
    assert tree(tmp_path) == before


@pytest.mark.parametrize("listed, code", [(["ana", "ben", "cy"], 0), (["ana", "cy"], 1)])
def test_check_against_moodles_participants_exits_0_only_when_everyone_matches(
        capsys, course, tmp_path, listed, code):
    roster = tmp_path / "participants.csv"
    roster.write_text("First name;Last name;Username\n"  # semicolons, as some languages have
                      + "".join(f"X;Y;{name}\n" for name in listed), encoding="utf-8")
    exited, said = export(capsys, course, "--to", "moodle", "--id-from", "username",
                          "--assignment", "lesson1", "--check", "--roster", str(roster))
    assert exited == code
    assert said[0] == ("Moodle would take the grades in lesson1 of 2 students, matched by "
                       "username, which participants.csv lists: ana, cy." if code else
                       "Moodle would take the grades in lesson1 of 3 students, matched by "
                       "username, which participants.csv lists: ana, ben, cy.")


def test_check_names_a_student_with_no_email_and_writes_nothing(capsys, course, tmp_path):
    target = tmp_path / "moodle.csv"
    code, said = export(capsys, course, "--to", "moodle", "--id-from", "email", "--check",
                        "--assignment", "lesson1", str(target))
    assert code == 1 and not target.exists()
    assert said[1:] == ["Left out 1 student with no grade in lesson1 to send: dee.",
                        "Left out 1 student with no email address, which Moodle matches by: "
                        "ben."]


def test_when_nobody_can_go_in_no_file_is_written(capsys, course, tmp_path):
    roster = tmp_path / "other-course.csv"  # another course's export: none of ours on it
    roster.write_text("Student,ID,SIS User ID,SIS Login ID,Section,lesson1 (1)\n"
                      "Zed,999,,zed,S1,\n", encoding="utf-8")
    target = tmp_path / "canvas.csv"
    assert main(["course", "export", "--to", "canvas", "--roster", str(roster), str(target),
                 "--course", str(course)]) == 1
    out, err = capsys.readouterr()
    assert err == "agentlab: Wrote no file: no student's grades can go to Canvas (see above).\n"
    assert out.splitlines()[:2] == [NO_GRADE, (
        "Left out 3 students whose SIS Login ID is not in other-course.csv, whom Canvas would "
        "match by name or not at all: ana, ben, cy.")]
    assert not target.exists()


@pytest.mark.parametrize("roster, sentence", [
    (None, "There is no roster file {path}: export the roster from Moodle as a CSV file and "
           "give that."),
    (b"\x89PNG\r\n\x1a\n\x00\xff", "{path} is not a CSV file of columns: export the roster "
                                   "from Moodle as a CSV file and give that."),
    (b"Just a note, not a roster\n", "{path} has no ID number column, which Moodle would "
                                     "match your file by: export the roster with it, or "
                                     "choose another --id-from; its columns are: Just a note, "
                                     "not a roster."),
])
def test_a_roster_that_cannot_be_read_is_refused_in_one_sentence(capsys, course, tmp_path,
                                                                 roster, sentence):
    path = tmp_path / "participants.csv"
    if roster is not None:
        path.write_bytes(roster)
    before = tree(tmp_path)
    said = refused(capsys, "course", "export", "--to", "moodle", str(tmp_path / "out.csv"),
                   "--roster", str(path), "--course", str(course))
    assert said == f"agentlab: {sentence.format(path=path)}\n"
    assert tree(tmp_path) == before


@pytest.mark.parametrize("argv, sentence", [
    (["--to", "canvas", "--id-from", "email", "out.csv"],
     "Canvas matches students by canvas-id or sis-login, not 'email': say which with "
     "--id-from."),
    (["--to", "moodle", "--id-from", "canvas-id", "out.csv"],
     "Moodle matches students by idnumber, username or email, not 'canvas-id': say which "
     "with --id-from."),
    (["--to", "moodle"], "Say which file to write, such as moodle-grades.csv (or --check to "
                         "write none)."),
    (["--to", "canvas", "--assignment", "lesson9", "--check"],
     "The gradebook has no assignment lesson9; it has: lesson1, lesson2."),
])
def test_a_request_the_export_cannot_follow_is_refused_in_one_sentence(
        capsys, course, tmp_path, monkeypatch, argv, sentence):
    monkeypatch.chdir(tmp_path)
    said = refused(capsys, "course", "export", *argv, "--course", str(course))
    assert said == f"agentlab: {sentence}\n"
    assert list(tmp_path.iterdir()) == []


def test_check_and_roster_naming_two_rosters_is_refused(capsys, course, tmp_path):
    first, second = tmp_path / "a.csv", tmp_path / "b.csv"
    said = refused(capsys, "course", "export", "--to", "canvas", "--roster", str(first),
                   "--check", str(second), "--course", str(course))
    assert said == f"agentlab: Give one roster: --roster {first} or --check {second}.\n"
