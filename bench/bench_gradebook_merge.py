"""How fast the batch's one writer merges graded submissions into nbgrader's gradebook.

A SQLite gradebook is generated with one assignment shaped like a lesson (one notebook,
GRADE_CELLS grade cells, SOLUTION_CELLS solution cells, a source cell for each), and RESULTS
graded submissions of new students are generated for it. They are merged three ways, each into
a fresh copy of the gradebook:
- per submission: a GradebookWriter for each, as the batch merged before (a new engine, so
  every nbgrader query compiled again, and a commit for each);
- one writer, one at a time: the batch's writer, a transaction per submission;
- one writer, in groups: the batch's writer, a transaction per GROUP submissions (what a
  cluster's workers hand back between two looks of the batch).
Snapshots submissions merged per second and the ratio to the first; asserts nothing.
Run: python bench/bench_gradebook_merge.py [results] [group]
"""

from __future__ import annotations

import datetime as dt
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from agentlab_magics.grading.gradebook_copy import (
    CellShape,
    NotebookScores,
    NotebookShape,
    Scores,
    Shape,
    StudentEntry,
    write_shape,
)
from agentlab_magics.grading.gradebook_writer import GradebookWriter

GRADE_CELLS, SOLUTION_CELLS = 12, 2
COURSE, ASSIGNMENT, NOTEBOOK = "course", "lesson1", "lesson1"


def shape() -> Shape:
    grades = [CellShape(kind="grade", name=f"test_{n}", fields={"max_score": 1.0,
                                                                "cell_type": "code"})
              for n in range(GRADE_CELLS)]
    solutions = [CellShape(kind="solution", name=f"harness_{n}", fields={})
                 for n in range(SOLUTION_CELLS)]
    sources = [CellShape(kind="source", name=cell.name, fields={
        "cell_type": "code", "locked": cell.kind == "grade", "source": "...",
        "checksum": f"{n:032x}"}) for n, cell in enumerate(grades + solutions)]
    return Shape(course_id=COURSE, assignment=ASSIGNMENT,
                 notebooks=[NotebookShape(name=NOTEBOOK, cells=grades + solutions + sources)])


def results(count: int) -> list[tuple[StudentEntry, Scores]]:
    """`count` new students' graded submissions, each passing some of the tests."""
    return [(StudentEntry(student=f"student{n:04d}", fields={"first_name": "S", "last_name":
                                                           f"{n}", "email": None,
                                                           "lms_user_id": None}),
             Scores(timestamp=dt.datetime(2026, 12, 1, 9), notebooks=[NotebookScores(
                 name=NOTEBOOK, grades={f"test_{t}": (float((n + t) % 3 != 0), False)
                                        for t in range(GRADE_CELLS)},
                 comments={f"harness_{s}": None for s in range(SOLUTION_CELLS)})]))
            for n in range(count)]


def per_submission(url: str, graded: list, group: int) -> None:
    for one in graded:
        with GradebookWriter(url, COURSE, ASSIGNMENT) as writer:
            writer.merge([one])


def one_writer(url: str, graded: list, group: int) -> None:
    with GradebookWriter(url, COURSE, ASSIGNMENT) as writer:
        for start in range(0, len(graded), group):
            writer.merge(graded[start:start + group])


def rate(way: Callable[[str, list, int], None], template: bytes, graded: list, group: int
         ) -> float:
    """Submissions merged per second by `way`, into a fresh copy of the gradebook."""
    with tempfile.TemporaryDirectory(prefix="agentlab-bench-") as folder:
        path = Path(folder) / "gradebook.db"
        path.write_bytes(template)
        began = time.perf_counter()
        way(f"sqlite:///{path}", graded, group)
        return len(graded) / (time.perf_counter() - began)


def main(count: int, group: int) -> None:
    with tempfile.TemporaryDirectory(prefix="agentlab-bench-") as folder:
        path = Path(folder) / "gradebook.db"
        write_shape(f"sqlite:///{path}", shape())
        template = path.read_bytes()
    graded = results(count)
    print(f"{count} graded submissions of a notebook with {GRADE_CELLS} grade cells, merged "
          "into nbgrader's SQLite gradebook")
    baseline = rate(per_submission, template, graded, 1)
    print(f"  per submission (a writer each)     {baseline:7.1f} a second")
    for label, size in (("one writer, one at a time", 1),
                        (f"one writer, groups of {group}", group)):
        found = rate(one_writer, template, graded, size)
        print(f"  {label:<34} {found:7.1f} a second   {found / baseline:5.1f}x")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 500,
         int(sys.argv[2]) if len(sys.argv) > 2 else 8)
