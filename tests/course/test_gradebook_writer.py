"""The batch's one writer: submissions that finish together merge in one transaction of
nbgrader's gradebook, all or none, and what a grader set by hand stays."""

from __future__ import annotations

import datetime as dt

import pytest
from nbgrader.api import Gradebook

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

CELLS = [CellShape(kind="grade", name=name, fields={"max_score": 2.0, "cell_type": "code"})
         for name in ("chat", "loop")] + [CellShape(kind="solution", name="harness", fields={})]


def _scores(chat: float, loop: float, notebook: str = "lesson") -> Scores:
    return Scores(timestamp=dt.datetime(2026, 12, 1, 9), notebooks=[NotebookScores(
        name=notebook, grades={"chat": (chat, False), "loop": (loop, False)},
        comments={"harness": None})])


@pytest.fixture
def db_url(tmp_path) -> str:
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    write_shape(url, Shape(course_id="course", assignment="lesson", notebooks=[
        NotebookShape(name="lesson", cells=CELLS)]))
    return url


def _scores_in(db_url: str) -> dict[str, float]:
    with Gradebook(db_url, "course") as gb:
        return {s.student.id: s.score for s in gb.find_assignment("lesson").submissions}


def test_a_group_is_merged_with_each_ones_score_and_maximum(db_url):
    with GradebookWriter(db_url, "course", "lesson") as writer:
        totals = writer.merge([(StudentEntry(student="ada"), _scores(2, 1)),
                               (StudentEntry(student="bo"), _scores(0, 2))])
    assert totals == [(3.0, 4.0), (2.0, 4.0)]
    assert _scores_in(db_url) == {"ada": 3.0, "bo": 2.0}


def test_a_group_that_fails_part_way_leaves_the_gradebook_as_it_was(db_url):
    with GradebookWriter(db_url, "course", "lesson") as writer:
        writer.merge([(StudentEntry(student="ada"), _scores(1, 1))])
        with pytest.raises(KeyError):
            writer.merge([(StudentEntry(student="ada"), _scores(2, 2)),
                          (StudentEntry(student="bo"), _scores(2, 2, notebook="no-such"))])
        assert _scores_in(db_url) == {"ada": 2.0}
        assert writer.merge([(StudentEntry(student="bo"), _scores(2, 0))]) == [(2.0, 4.0)]
    assert _scores_in(db_url) == {"ada": 2.0, "bo": 2.0}


def test_a_regrade_keeps_the_manual_score_a_grader_gave(db_url):
    with GradebookWriter(db_url, "course", "lesson") as writer:
        writer.merge([(StudentEntry(student="ada"), _scores(0, 0))])
    with Gradebook(db_url, "course") as gb:
        gb.find_grade("chat", "lesson", "lesson", "ada").manual_score = 1.5
        gb.db.commit()
    with GradebookWriter(db_url, "course", "lesson") as writer:
        assert writer.merge([(StudentEntry(student="ada"), _scores(0, 2))]) == [(3.5, 4.0)]
