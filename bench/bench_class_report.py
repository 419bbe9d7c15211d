"""The class report of a large class: 500 students x 10 assignments, from a generated course.

The course is made here, without grading anything: the course's nbgrader_config.py, a
gradebook written through nbgrader's API (every assignment with its graded cells and a due
date, every student on the roster, 95% of them handing in each assignment, a tenth of those
late, each graded cell passed by 70%; the submissions made with nbgrader.api's own classes and
one commit an assignment, as add_submission's commit each would take minutes), and for each
submission an autograded notebook whose
graded cells hold reports as the judge writes them (the views' stylesheet in each HTML
copy, as real ones carry it; a failure's cause one of three) and a submitted notebook with
each question answered. Then `write_class_page` is timed, reading and drawing (the median of
REPEATS runs, wall clock and this process's CPU), and the page's size printed. Asserts nothing.
Run: python bench/bench_class_report.py [students] [repeats]
"""

from __future__ import annotations

import json
import os
import random
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

from agentlab_magics.course.assignments import ASSIGNMENTS
from agentlab_magics.course.questions import questions_for
from agentlab_magics.term.class_page import write_class_page
from agentlab_magics.term.course_folder import CONFIG, config_text
from agentlab_magics.term.nbgrader_cli import Nbgrader
from agentlab_magics.widgets.assets import style
from agentlab_magics.widgets.rendering import MARK

TESTS_PER_CELL = 4
CAUSES = ["A call went unanswered.", "The list was changed in place.", "It never returned."]
DUE = datetime(2026, 11, 1, 12, 0)


def main() -> None:
    students = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    chosen = ASSIGNMENTS[:10]
    with tempfile.TemporaryDirectory(prefix="agentlab-bench-report-") as scratch:
        course = Path(scratch) / "course"
        began = time.perf_counter()
        handed = make_course(course, [f"student{n:03}" for n in range(students)], chosen)
        print(f"made a course of {students} students x {len(chosen)} assignments "
              f"({handed} submissions) in {time.perf_counter() - began:.0f} s")
        nbgrader = Nbgrader({"JUPYTER_CONFIG_DIR": str(Path(scratch) / "jupyter-config")})
        seconds, cpu = [], []
        for _ in range(repeats):
            began, used = time.perf_counter(), time.process_time()
            page = write_class_page(course, Path(scratch) / "report", nbgrader=nbgrader)
            seconds.append(time.perf_counter() - began)
            cpu.append(time.process_time() - used)
        print(f"class report: {statistics.median(seconds):.1f} s (median of {repeats}; "
              f"runs {', '.join(f'{s:.1f}' for s in seconds)}), of which "
              f"{statistics.median(cpu):.1f} s of CPU in this process (the rest: reading "
              f"nbgrader's configuration in a subprocess, and waiting for the CPU); "
              f"page {page.stat().st_size / 1e6:.2f} MB")


def make_course(course: Path, students: list[str], assignments: list) -> int:
    """The generated course (module docstring); the number of submissions."""
    from nbgrader.api import Grade, Gradebook, SubmittedAssignment, SubmittedNotebook

    # nbgrader runs `alembic` to make a new gradebook: this Python's scripts come first
    os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent),
                                          os.environ.get("PATH", "")])
    course.mkdir(parents=True)
    (course / CONFIG).write_text(config_text(), encoding="utf-8")
    draw = random.Random(29)
    handed = 0
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", "agentlab") as gradebook:
        roster = {student: gradebook.add_student(student, first_name="Student",
                                                 last_name=student[-3:])
                  for student in students}
        for assignment in assignments:
            cells = [f"tests-{assigned.lab}-{group.id}" for assigned in assignment.labs
                     for group in assigned.groups]
            gradebook.update_or_create_assignment(assignment.id, duedate=DUE)
            gradebook.update_or_create_notebook(assignment.id, assignment.id)
            for cell in cells:
                gradebook.update_or_create_grade_cell(cell, assignment.id, assignment.id,
                                                      max_score=TESTS_PER_CELL,
                                                      cell_type="code")
            questions = [q for assigned in assignment.labs for q in questions_for(assigned.lab)]
            record = gradebook.find_assignment(assignment.id)
            # Objects are joined to the session by add(), not by a flush a lookup starts.
            with gradebook.db.no_autoflush:
                for student in students:
                    if draw.random() < 0.05:
                        continue
                    handed += 1
                    late = draw.random() < 0.1
                    when = DUE + timedelta(hours=draw.uniform(0, 30) if late
                                           else -draw.uniform(0, 96))
                    submission = SubmittedAssignment(assignment=record, student=roster[student],
                                                     timestamp=when)
                    notebook = SubmittedNotebook(notebook=record.notebooks[0],
                                                 assignment=submission)
                    passed = {cell: draw.random() < 0.7 for cell in cells}
                    for cell in record.notebooks[0].grade_cells:
                        Grade(cell_id=cell.id, notebook=notebook,
                              auto_score=TESTS_PER_CELL if passed[cell.name] else 0)
                    gradebook.db.add(submission)
                    folder = f"{student}/{assignment.id}/{assignment.id}.ipynb"
                    _write(course / "autograded" / folder, _graded(cells, passed, draw))
                    _write(course / "submitted" / folder, _answered(questions, draw))
            gradebook.db.commit()
    return handed


def _graded(cells: list[str], passed: dict[str, bool], draw: random.Random) -> dict:
    def report(cell: str) -> str:
        lines = [f"{cell}: a report"]
        for n in range(TESTS_PER_CELL):
            if passed[cell] or n:
                lines.append(f"✓ Test {n} of {cell} holds.")
            else:
                lines += [f"✗ Test {n} of {cell} holds.", f"    {draw.choice(CAUSES)}"]
        return "\n".join(lines)

    return _notebook([{"cell_type": "code", "source": "grade()", "metadata": {"nbgrader": {
        "grade": True, "grade_id": cell}}, "outputs": [{
            "output_type": "display_data", "metadata": {},
            "data": {"text/plain": report(cell), "text/html": style() + report(cell)}}]}
        for cell in cells])


def _answered(questions: list, draw: random.Random) -> dict:
    return _notebook([{"cell_type": "code", "source": f"%question {q.id}", "metadata": {},
                       "outputs": [{"output_type": "display_data", "data": {"text/plain": ""},
                                    "metadata": {MARK: {"view": "question", "id": q.id,
                                                        "committed": True,
                                                        "answer": draw.choice(q.letters)
                                                        if q.letters else "In my words."}}}]}
                      for q in questions])


def _notebook(cells: list[dict]) -> dict:
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}


def _write(path: Path, notebook: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(notebook), encoding="utf-8")


if __name__ == "__main__":
    main()
