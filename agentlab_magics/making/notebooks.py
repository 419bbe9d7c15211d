"""The nbgrader source notebooks, made from the course data: nothing in them is written by hand.

Each assignment becomes nbgrader_course/source/<id>/<id>.ipynb: the introduction, the
questions (the question view), the demonstrations, one `%%check` cell per lab holding the
reference between solution markers, and one graded cell per group of tests whose held-back
half sits between nbgrader's hidden-test markers (and the tag `raises-exception`, so that Run
All goes on past a graded cell that fails). `build` writes them; `stale` says which
committed notebooks no longer match the data. `build_student` writes what a student working
alone starts from: the notebooks as nbgrader would release them.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import nbformat

from agentlab_magics.course.assignments import SETUP, AssignedLab, Assignment, assignments
from agentlab_magics.course.catalog import find_lab
from agentlab_magics.course.questions import questions_for
from agentlab_magics.grading.groups import group_tests, points

HIDDEN_BEGIN, HIDDEN_END = "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"
# A graded cell that fails ends in an error (nbgrader counts it so); with this tag JupyterLab's
# Run All and nbclient run the cells after it all the same.
GO_ON = "raises-exception"
KERNEL = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def _nbgrader(grade_id: str, *, solution: bool = False, grade: bool = False,
              locked: bool = False, score: int | None = None) -> dict:
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": 3,
            "solution": solution}
    if score is not None:
        meta["points"] = score
    return {"nbgrader": meta}


def _markdown(text: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_markdown_cell(text)


def _code(source: str, **nbgrader) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source)
    if nbgrader:
        cell.metadata.update(_nbgrader(**nbgrader))
    return cell


def _questions(assignment: Assignment) -> list:
    asked = [question for assigned in assignment.labs for question in questions_for(assigned.lab)]
    if not asked:
        return []
    # "write your own words" only where a question has a text box to write them in
    how = ("click an option (or write your own words)"
           if any(question.kind == "open" for question in asked) else "click an option")
    cells = [_markdown(f"## Before you run anything\n\nCommit to an answer first: {how}, then "
                       "read why each option is right or wrong. Your first answer is the one "
                       "that is kept.")]
    cells += [_code(f"%question {question.id}") for question in asked]
    return cells


def _graded(assigned: AssignedLab, student: bool) -> list:
    cells = []
    for group in assigned.groups:
        call = f'grade("{assigned.lab}", "{group.id}"'
        source = f"{call})"
        if not student and group_tests(assigned.lab, group.id, held_back=True):
            source += f"\n{HIDDEN_BEGIN}\n{call}, held_back=True)\n{HIDDEN_END}"
        cell = _code(source, grade_id=f"tests-{assigned.lab}-{group.id}", grade=True, locked=True,
                     score=points(assigned.lab, group.id))
        cell.metadata["tags"] = [GO_ON]
        cells.append(cell)
    return cells


def _lab_cells(assigned: AssignedLab, first: bool, student: bool) -> list:
    lab = find_lab(assigned.lab)
    grade_id = "harness" if first else f"harness-{assigned.lab}"
    body = lab.starter if student else lab.marked
    shapes = [_markdown(assigned.shapes)] if assigned.shapes else []
    return [
        _markdown(f"## {lab.title}\n\n{assigned.text}"),
        *shapes,
        _code(f"%%check {lab.id}\n{body.rstrip()}", grade_id=grade_id, solution=True),
        _markdown(f"### Grading: {lab.title}\n\nThese cells run the tests `%%check` ran, and "
                  "some held back for grading. Do not edit or delete them."),
        *_graded(assigned, student),
    ]


def notebook(assignment: Assignment, student: bool = False) -> nbformat.NotebookNode:
    """The assignment's source notebook; with `student`, the notebook nbgrader releases from
    it (each lab cell holds the starter, the graded cells no held-back tests), made from the
    student package alone."""
    cells = [_markdown(f"# {assignment.title}\n\n{assignment.intro}"),
             _code(SETUP, grade_id="setup", locked=True),
             *_questions(assignment)]
    if assignment.demonstrations:
        cells.append(_markdown("## See it happen"))
        for shown in assignment.demonstrations:
            cells += [_markdown(shown.text), _code(shown.code)]
    for number, assigned in enumerate(assignment.labs):
        cells += _lab_cells(assigned, first=number == 0, student=student)
    made = nbformat.v4.new_notebook(cells=cells)
    made.metadata.update(kernelspec=KERNEL, language_info={"name": "python"})
    for number, cell in enumerate(made.cells):
        cell.id = f"{assignment.id}-{number}"
    return made


def text(assignment: Assignment, student: bool = False) -> str:
    """The notebook as the file holds it: nbformat's JSON, stable from run to run."""
    made = notebook(assignment, student)
    nbformat.validate(made)
    return json.dumps(made, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def path(course: Path, assignment: Assignment) -> Path:
    return course / "source" / assignment.id / f"{assignment.id}.ipynb"


def build(course: Path) -> list[Path]:
    """Write every assignment's source notebook under `course`; returns the files written."""
    written = []
    for assignment in assignments():
        target = path(course, assignment)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text(assignment), encoding="utf-8")
        written += [target, *_files_beside(assignment, target.parent)]
    return written


def build_student(folder: Path) -> tuple[list[Path], list[Path]]:
    """Write every assignment's student notebook as <folder>/<id>/<id>.ipynb, keeping any
    that is already there (it may hold the student's work); returns the files written and
    those kept."""
    written, kept = [], []
    for assignment in assignments():
        target = folder / assignment.id / f"{assignment.id}.ipynb"
        if target.exists():
            kept.append(target)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text(assignment, student=True), encoding="utf-8")
        written += [target, *_files_beside(assignment, target.parent)]
    return written, kept


def _files_beside(assignment: Assignment, folder: Path) -> list[Path]:
    """The files the assignment's notebook reads, copied into its folder; returns the copies."""
    copies = [folder / source.name for source in assignment.files]
    for source, copy in zip(assignment.files, copies):
        shutil.copyfile(source, copy)
    return copies


def stale(course: Path) -> list[str]:
    """The assignments whose notebook under `course` is missing or differs from the data."""
    return [assignment.id for assignment in assignments()
            if not _current(path(course, assignment), assignment)]


def _current(target: Path, assignment: Assignment) -> bool:
    return target.is_file() and target.read_text(encoding="utf-8") == text(assignment)
