"""nbgrader's real command line over the whole course: `agentlab course demo` runs once on a
copy of nbgrader_course/ (a few minutes: every assignment, five students), and each test reads
one thing off what it left behind.
"""

from __future__ import annotations

import html
import io
import json
import re
import shutil
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from nbgrader.preprocessors import ClearSolutions

from agentlab_magics.checking.cell_source import load
from agentlab_magics.checking.runner import run as check
from agentlab_magics.cli import main
from agentlab_magics.course import find_lab
from agentlab_magics.course.assignments import ASSIGNMENTS, find_assignment
from agentlab_magics.demos import STUDENTS
from agentlab_magics.demos.students import harness, harness_cells
from agentlab_magics.grading.groups import group_tests
from agentlab_magics.making.notebooks import HIDDEN_BEGIN, notebook
from agentlab_magics.term.grade_table import GradeTable, read_grades
from agentlab_magics.term.nbgrader_cli import Nbgrader

COURSE = Path(__file__).resolve().parents[2] / "nbgrader_course"
IDS = [assignment.id for assignment in ASSIGNMENTS]
STUB = {"python": "# YOUR CODE HERE\npass"}  # as nbgrader_config.py sets it


@dataclass
class Demo:
    folder: Path
    out: str
    err: str
    table: GradeTable

    def log(self, label: str) -> str:
        return (self.folder / "logs" / f"{label.replace(' ', '-')}.log").read_text()

    def notebook(self, stage: str, assignment: str, student: str | None = None):
        where = self.folder / "course" / stage
        where = where / student / assignment if student else where / assignment
        return nbformat.read(where / f"{assignment}.ipynb", as_version=4)

    def feedback(self, student: str, assignment: str) -> str:
        path = self.folder / "course" / "feedback" / student / assignment / f"{assignment}.html"
        return path.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Demo:
    root = tmp_path_factory.mktemp("course-demo")
    course = root / "course"
    shutil.copytree(COURSE / "source", course / "source")
    shutil.copy(COURSE / "nbgrader_config.py", course)
    kept = root / "kept"
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["course", "demo", "--course", str(course), "--keep", str(kept),
                     "--report", str(root / "report")])
    assert code == 0, err.getvalue()
    table = read_grades(kept / "grades.csv", f"sqlite:///{kept / 'course' / 'gradebook.db'}",
                        "agentlab", IDS, list(STUDENTS))
    return Demo(kept, out.getvalue(), err.getvalue(), table)


def _lost(table: GradeTable, student: str, assignment: str) -> set[str]:
    return {name for name, grade in table.cells[student][assignment].items()
            if grade.score != grade.max_score}


def _cells_failing(student: str, assignment: str, timeout: float) -> set[str]:
    """The graded cells of the assignment holding a test that `student`'s code does not pass."""
    cells = set()
    for assigned in find_assignment(assignment).labs:
        lab = find_lab(assigned.lab)
        code = load(harness(student, lab.id), "harness.py", lab.module)
        report = check(lab.id, code, timeout=timeout, held_back=True)
        failed = {outcome.name for outcome in report.outcomes if not outcome.passed}
        cells |= {f"tests-{lab.id}-{group.id}" for group in assigned.groups
                  if failed & {*group_tests(lab.id, group.id),
                               *group_tests(lab.id, group.id, held_back=True)}}
    return cells


def test_generate_assignment_warns_of_nothing(demo):
    log = demo.log("generate every assignment")
    assert "checksum" not in log.lower()
    assert "WARNING" not in log and "ERROR" not in log, log


@pytest.mark.parametrize("assignment", IDS)
def test_released_lab_cells_are_the_starters_with_the_stub(demo, assignment):
    released = harness_cells(demo.notebook("release", assignment))
    expected = harness_cells(ClearSolutions(code_stub=STUB).preprocess(
        notebook(find_assignment(assignment)), {})[0])
    assert [cell.source for cell in released] == [cell.source for cell in expected]
    assert all("# YOUR CODE HERE" in cell.source for cell in released)


def test_released_notebooks_carry_the_language_info_their_kernels_report(demo):
    """So JupyterLab, writing its kernel's language_info into a notebook it opens, finds it
    there already and shows the notebook as saved (the source keeps only the name)."""
    from ipykernel.ipkernel import IPythonKernel

    for assignment in IDS:
        assert demo.notebook("release", assignment).metadata.language_info == \
            IPythonKernel.language_info
        assert notebook(find_assignment(assignment)).metadata.language_info == {"name": "python"}


@pytest.mark.parametrize("assignment", IDS)
def test_released_notebook_holds_no_hidden_test_and_no_reference(demo, assignment):
    released = demo.notebook("release", assignment)
    text = nbformat.writes(released)
    assert HIDDEN_BEGIN not in text and "held_back=True" not in text
    assert "BEGIN SOLUTION" not in text
    for assigned, cell in zip(find_assignment(assignment).labs, harness_cells(released)):
        lab = find_lab(assigned.lab)
        solution_only = [line for line in lab.reference.splitlines()
                         if line.strip() and line not in lab.starter]
        assert solution_only and not any(line in cell.source for line in solution_only)


def test_the_table_has_every_student_and_the_maxima(demo):
    assert demo.table.students == list(STUDENTS)
    maxima = [sum(cell.max_score for cell in demo.table.cells["reference"][a].values())
              for a in IDS]
    assert [demo.table.max_scores[a] for a in IDS] == maxima
    assert demo.out.splitlines()[0].split() == IDS
    assert "Who handed in what:\n  reference  the lab's reference in every harness cell" in demo.out
    assert f"{len(STUDENTS)} students handed in {len(IDS)} assignments" in demo.out
    assert re.search(r"^max\s+" + r"\s+".join(f"{m:g}" for m in maxima) + "$", demo.out,
                     re.MULTILINE)


def test_the_progress_bar_counts_every_command(demo):
    last = demo.err.strip().splitlines()[-1]
    assert re.match(r"\[#{30}\] (\d+)/\1 ", last), last


def test_the_progress_bar_is_all_the_demo_writes_on_stderr(demo):
    """No warning of nbgrader's gradebook (SQLAlchemy's) or of the cluster between its lines."""
    stray = [line for line in demo.err.splitlines() if not re.match(r"\[[#.]{30}\] ", line)]
    assert stray == [], "\n".join(stray[:40])


@pytest.mark.parametrize("assignment", IDS)
def test_reference_gets_full_marks(demo, assignment):
    assert demo.table.scores["reference"][assignment] == demo.table.max_scores[assignment] > 0
    assert _lost(demo.table, "reference", assignment) == set()


@pytest.mark.parametrize("assignment", IDS)
def test_starter_gets_nothing_on_any_test_cell(demo, assignment):
    assert demo.table.scores["starter"][assignment] == 0
    assert all(grade.score == 0 and not grade.needs_manual_grade
               for grade in demo.table.cells["starter"][assignment].values())


@pytest.mark.parametrize("assignment", IDS)
def test_wrong_loses_exactly_the_cells_whose_tests_it_fails(demo, assignment):
    expected = _cells_failing("wrong", assignment, timeout=5)
    assert expected
    assert _lost(demo.table, "wrong", assignment) == expected


def test_a_wrong_harness_keeps_the_cells_it_gets_right(demo):
    kept = {a: set(demo.table.cells["wrong"][a]) - _lost(demo.table, "wrong", a) for a in IDS}
    assert sum(map(len, kept.values())) >= 5, kept


@pytest.mark.parametrize("assignment", IDS)
def test_hanging_loses_the_hung_cells_and_every_cell_is_graded(demo, assignment):
    expected = _cells_failing("hanging", assignment, timeout=0.2)
    assert expected
    assert _lost(demo.table, "hanging", assignment) == expected
    assert all(grade.score is not None and not grade.needs_manual_grade
               for grade in demo.table.cells["hanging"][assignment].values())


def test_a_lab_cell_whose_code_hangs_costs_the_kernel_no_time(demo):
    """While nbgrader autogrades, %%check runs no test in the kernel (the grader scores the
    cell outside it): code that hangs in a tested function holds nothing up, and the cells
    after it run."""
    graded = demo.notebook("autograded", "lesson3", "hanging")
    (cell,) = harness_cells(graded)
    assert not any(output.get("output_type") == "error" for output in cell.outputs)
    assert "Checked by the grader, outside this notebook" in json.dumps(cell.outputs)
    after = graded.cells[graded.cells.index(cell) + 1:]
    assert all(c.get("execution_count") for c in after if c.cell_type == "code")


@pytest.mark.parametrize("assignment", IDS)
def test_deleted_test_cell_is_put_back_and_graded(demo, assignment):
    assert demo.table.scores["deleted"][assignment] == demo.table.max_scores[assignment]
    graded = demo.notebook("autograded", assignment, "deleted")
    assigned = find_assignment(assignment).labs[0]
    notes = [c for c in graded.cells if "was missing from the submission" in c.source]
    assert [c.metadata["nbgrader"]["grade_id"] for c in notes] == [
        f"tests-{assigned.lab}-{assigned.groups[0].id}"]
    assert "Missing grade cell" in demo.log(f"autograde {assignment}")


@pytest.mark.parametrize("student", ["reference", "wrong"])
def test_feedback_shows_the_check_report_as_static_html(demo, student):
    page = demo.feedback(student, "lesson2")
    assert 'class="al-report"' in page
    assert "6 of 6 tests passed" in page or "tests passed" in page
    assert "application/vnd.jupyter.widget-view+json" not in page
    assert "jupyter-widgets" not in page


def test_feedback_names_the_failed_tests_in_sentences_and_what_share_the_cell_earned(demo):
    """wrong's tool_specs leaves the parameters out: its cell passes 1 of its 3 tests."""
    page = html.unescape(demo.feedback("wrong", "lesson2"))
    assert "1 of 3 points: 1 of this cell's 3 tests passed." in page
    lab = find_lab("lesson2")
    report = check(lab.id, load(harness("wrong", lab.id), "harness.py", lab.module),
                          timeout=5)
    failed = [outcome.sentence for outcome in report.outcomes if not outcome.passed]
    assert failed and all(sentence in page for sentence in failed)


@pytest.mark.parametrize("student", STUDENTS)
@pytest.mark.parametrize("assignment", IDS)
def test_feedback_holds_no_hidden_test_code(demo, student, assignment):
    page = demo.feedback(student, assignment)
    assert "HIDDEN TESTS" not in page
    assert "held_back=True" not in page
    assert "Traceback" not in page.replace("Generic.Traceback", "")


@pytest.fixture(scope="module")
def stubborn(demo) -> Demo:
    """The reference's lesson2, but the cell ends in a loop that swallows every exception,
    the load's deadline and nbgrader's interrupt too: handed in beside the others, then
    autograded (with a 2 s cell limit, to be quick)."""
    course = demo.folder / "course"
    handed_in = course / "submitted" / "stubborn" / "lesson2"
    shutil.copytree(course / "submitted" / "reference" / "lesson2", handed_in)
    nb = nbformat.read(handed_in / "lesson2.ipynb", as_version=4)
    (cell,) = harness_cells(nb)
    cell.source += ("\nimport time\nwhile True:\n    try:\n        time.sleep(1)\n"
                    "    except BaseException:\n        pass\n")
    nbformat.write(nb, handed_in / "lesson2.ipynb")
    nbgrader = Nbgrader({"AGENTLAB_EXCHANGE": str(demo.folder / "exchange"),
                         "AGENTLAB_PROGRESS": str(demo.folder / "progress.json"),
                         "JUPYTER_CONFIG_DIR": str(demo.folder / "jupyter-config")})
    nbgrader.run("autograde", "lesson2", "--student=stubborn", "--Execute.timeout=2", cwd=course)
    table = read_grades(demo.folder / "grades.csv", f"sqlite:///{course / 'gradebook.db'}",
                        "agentlab", ["lesson2"], ["stubborn"])
    return Demo(demo.folder, "", "", table)


def test_code_that_survives_the_interrupt_is_graded_zero_not_left_ungraded(stubborn):
    cells = stubborn.table.cells["stubborn"]["lesson2"]
    assert {name: (grade.score, grade.needs_manual_grade) for name, grade in cells.items()} \
        == {f"tests-lesson2-{group.id}": (0, False)
            for group in find_assignment("lesson2").labs[0].groups}


def test_autograding_records_no_progress(demo):
    """The autograde kernel's checks count for nothing (scores come from outside it), so they
    record no student's progress in the work folder."""
    assert not (demo.folder / "progress.json").exists()
    assert "Everything is kept in" in demo.out


def test_the_demo_ends_by_writing_its_terms_class_report_and_says_where(demo):
    page = demo.folder.parent / "report" / "index.html"
    assert f"The class report of this term is in {page}" in demo.out
    text = page.read_text(encoding="utf-8")
    assert all(f'id="a-{assignment}"' in text for assignment in IDS)
    assert all(f'data-student="{student}"' in text for student in STUDENTS)
