"""One submission, graded on its own: the unit of work the batch grader hands to Dask.

`grade_one` runs on a Dask worker (a warm interpreter: nbgrader and agentlab are imported once
per worker, not once per submission). It writes a scratch course holding only this
submission, the assignment's non-notebook source files and a gradebook with the assignment's
structure and this student's part (gradebook_copy.py), and runs nbgrader's own autograde there
through nbgrader's Python API, with the course's configuration: the kernel in its sandbox, the
graded cells scored outside it (autograde.py), the scratch course and the real course hidden
from both. It returns the autograded folder and the scores, and touches nothing of the
course: the batch grader's one writer merges them (batch.py). A task may therefore run twice
(Dask retries it when a worker dies) and still count once.
"""

from __future__ import annotations

import copy
import os
import re
import socket
import time
import warnings
from pathlib import Path

from nbgrader.apps.api import NbGraderAPI
from nbgrader.coursedir import CourseDirectory
from pydantic import BaseModel
from traitlets.config import Config

from agentlab_magics.grading import autograde
from agentlab_magics.grading.gradebook_copy import Scores, StudentEntry, read_scores, write_student
from agentlab_magics.grading.leftovers import folder as private_folder
from agentlab_magics.grading.printable import odd_names, printable
from agentlab_magics.grading.sandbox import detect

LOG_CAP = 200_000  # characters of nbgrader's log of one submission that are kept


class Kit(BaseModel):
    """What every submission of one assignment is graded with (sent to each worker once)."""

    assignment: str
    course_id: str
    config: dict  # the course's nbgrader configuration, as nbgrader loaded it
    gradebook: bytes  # a SQLite gradebook holding the assignment's structure only
    gradebook_shape: str  # that structure, as JSON (part of a submission's fingerprint)
    source_files: dict[str, bytes]  # the assignment's source folder, notebooks left out
    hidden: list[str]  # the course's own folders: hidden from the submission where they exist
    without_sandbox: bool = False  # grade even where a worker can make no sandbox


class Submission(BaseModel):
    """One student's submitted folder, and their part of the gradebook."""

    entry: StudentEntry
    files: dict[str, bytes]  # path in the submitted folder -> content


class Graded(BaseModel):
    """What grading one submission gave: the autograded folder and scores, or a problem."""

    student: str
    scores: Scores | None = None
    files: dict[str, bytes] = {}  # path in the autograded folder -> content
    mode: int = 0o444  # the permissions nbgrader gave those files
    problem: str | None = None  # why it was not graded, in a sentence
    notes: list[str] = []  # what else an instructor should know of it, a sentence each
    log: str = ""  # nbgrader's log of it, at most LOG_CAP characters
    worker: str = ""
    started: float = 0.0  # wall-clock times on the worker
    finished: float = 0.0
    phases: dict[str, float] = {}  # seconds spent, by phase
    sandbox: str = ""  # the worker's sandbox mode (sandbox.detect)


def grade_one(kit: Kit, submission: Submission) -> Graded:
    """Autograde `submission` in a scratch course of its own; never raises for a submission's
    sake (what went wrong is the result's problem)."""
    started = time.time()
    student = submission.entry.student
    with private_folder("course") as scratch:
        config = _scratch_config(kit, scratch)
        dirs = CourseDirectory(config=config)
        for step, files in ((dirs.source_directory, kit.source_files),
                            (dirs.submitted_directory, submission.files)):
            _write(Path(dirs.format_path(step, student, kit.assignment)), files)
        db_url = dirs.db_url
        Path(db_url.removeprefix("sqlite:///")).write_bytes(kit.gradebook)
        write_student(db_url, kit.course_id, kit.assignment, submission.entry)
        phases = {"scratch course": time.time() - started}
        result, spent = _autograde(config, dirs, kit.assignment, student)
        phases.update(spent)
        graded = Graded(student=student, log=capped(result.get("log", "")), worker=_worker(),
                        sandbox=detect(), notes=[*_odd_files(submission), *autograde.notes])
        if result["success"]:
            read = time.time()
            graded.scores = read_scores(db_url, kit.course_id, kit.assignment, student)
            folder = Path(dirs.format_path(dirs.autograded_directory, student, kit.assignment))
            graded.files = _files(folder)
            graded.mode = min((os.stat(folder / name).st_mode & 0o777 for name in graded.files),
                              default=0o444)
            phases["collect"] = time.time() - read
        else:
            graded.problem = _cause(graded.log, result.get("error", ""))
    graded.started, graded.finished, graded.phases = started, time.time(), phases
    return graded


def _scratch_config(kit: Kit, course: Path):
    """The course's configuration with the scratch course in place of the course; the
    course's own folders are hidden from the submission too. A copy: the kit, and the course's
    configuration in it, serve every submission alike."""
    config = copy.deepcopy(Config(kit.config))
    config.CourseDirectory.root = str(course)
    config.CourseDirectory.db_url = f"sqlite:///{course / 'gradebook.db'}"
    config.ScoredOutside.hidden_paths = [*config.ScoredOutside.get("hidden_paths", []),
                                         *(p for p in kit.hidden if os.path.exists(p))]
    if kit.without_sandbox:
        config.ScoredOutside.without_sandbox = True
    return config


def _write(folder: Path, files: dict[str, bytes]) -> None:
    for name, content in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)


def _autograde(config, dirs, assignment: str, student: str) -> tuple[dict, dict]:
    """nbgrader's autograde of the one submission (NbGraderAPI.autograde, what the
    formgrader's button runs), and the seconds it spent by phase."""
    began = time.time()
    del autograde.timings[:], autograde.notes[:]
    with warnings.catch_warnings(record=True) as warned:
        # Warnings (nbgrader's own calls make SQLAlchemy and nbformat warn of every
        # submission) go to the submission's log, not to the worker's terminal.
        warnings.simplefilter("always")
        result = NbGraderAPI(coursedir=dirs, config=config).autograde(
            assignment, student, force=True, create=True)
    result["log"] = result.get("log", "") + "".join(
        f"[WARNING] {w.category.__name__}: {w.message}\n" for w in warned)
    spent = {phase: sum(t[phase] for t in autograde.timings)
             for phase in ("kernel start", "cells", "scoring", "scoring wait")}
    # Scoring runs alongside the kernel: only the wait for it after the cells adds up.
    spent["nbgrader"] = time.time() - began - sum(
        seconds for phase, seconds in spent.items() if phase != "scoring")
    return result, spent


def capped(log: str) -> str:
    """A log as kept: its first LOG_CAP characters, any bytes escaped, and a line saying how
    much was left out."""
    kept = printable(log[:LOG_CAP])
    if len(log) > LOG_CAP:
        kept += f"\n[agentlab: the log was cut here: {len(log) - LOG_CAP:,} more characters]\n"
    return kept


def _odd_files(submission: Submission) -> list[str]:
    odd = odd_names(list(submission.files))
    return [f"handed in a file whose name is not plain text: {name}" for name in odd]


def _files(folder: Path) -> dict[str, bytes]:
    return {str(path.relative_to(folder)): path.read_bytes()
            for path in sorted(folder.rglob("*")) if path.is_file()}


def _cause(log: str, error: str) -> str:
    """The sentence of the exception that stopped nbgrader: the last "Name: message" line of
    the last traceback in its log (not nbgrader's own, which says to look above), else of its
    own error."""
    for text in (log, error):
        found = [(name, message) for name, message in re.findall(
            r"^\s*(?:[\w.]+\.)?(\w+(?:Error|Exception|Refused|Missing)|NotGraded): (.+)$", text,
            re.MULTILINE) if name != "NbGraderException"]
        if found:
            name, message = found[-1]
            return f"{message} ({name})"
    return "nbgrader could not autograde it; its log says why."


def _worker() -> str:
    """The Dask worker this runs on, by address; the host's name elsewhere."""
    try:
        from distributed import get_worker

        return get_worker().address
    except (ImportError, ValueError):
        return socket.gethostname()
