"""What the batch grader keeps of a course folder (`BatchLedger`): the work each grading task
needs (`Kit`), the autograded folders and scores it puts in place, and under STATE each
submission's fingerprint and nbgrader's log, and each run's summary."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from nbgrader.api import MissingEntry

from agentlab_magics.atomic import write_text_atomically
from agentlab_magics.grading.batch_summary import BatchSummary
from agentlab_magics.grading.gradebook_copy import read_shape, write_shape
from agentlab_magics.grading.gradebook_writer import GradebookWriter
from agentlab_magics.grading.one_submission import Graded, Kit, capped
from agentlab_magics.grading.submission import SubmissionRefused, require_plain_files
from agentlab_magics.problems import UsageProblem
from agentlab_magics.term.course_folder import CourseFolder

SUBMISSION_LIMIT = 100 << 20  # bytes of one submitted folder that the grader will read
STATE = Path(".agentlab") / "autograde"


class BatchProblem(UsageProblem):
    """The batch cannot start; the message says what to do."""


class BatchLedger:
    """What the batch grader writes to a course folder, and the one writer of it: the
    autograded folders it puts in place, the scores it merges into the gradebook
    (`GradebookWriter`), and in STATE each submission's fingerprint and log and each run's
    summary."""

    def __init__(self, course: CourseFolder) -> None:
        self.course = course

    def kit(self, assignment: str) -> Kit:
        """What every task of `assignment` needs; BatchProblem if the gradebook lacks it."""
        source = self.course.folder("source", ".", assignment)
        if not source.is_dir():
            known = sorted(p.name for p in source.parent.iterdir() if p.is_dir()) \
                if source.parent.is_dir() else []
            root = self.course.root
            raise BatchProblem(f"The course in {root} has no assignment {assignment!r} (no "
                               f"folder {source.relative_to(root)}); its assignments are: "
                               f"{', '.join(known) or 'none yet'}.")
        database = self.course.gradebook_file()
        if database is not None and not database.is_file():
            raise BatchProblem(f"The course has no gradebook yet ({database}): run `nbgrader "
                               f"generate_assignment {assignment}` first.")
        try:
            shape = read_shape(self.course.db_url, self.course.course_id, assignment)
        except MissingEntry:
            raise BatchProblem(f"The gradebook has no assignment {assignment!r}: run `nbgrader "
                               f"generate_assignment {assignment}` first.") from None
        files = {str(p.relative_to(source)): p.read_bytes() for p in sorted(source.rglob("*"))
                 if p.is_file() and p.suffix != ".ipynb"
                 and not any(part in {".ipynb_checkpoints", "__pycache__"} for part in p.parts)}
        with tempfile.TemporaryDirectory(prefix="agentlab-shape-") as scratch:
            template = Path(scratch) / "gradebook.db"
            write_shape(f"sqlite:///{template}", shape)
            gradebook = template.read_bytes()
        # The scratch course takes the course's place in the configuration, so ScoredOutside
        # hides the course and its SQLite gradebook only if told (the exchange it finds there).
        hidden = [str(self.course.root)]
        if database is not None:
            hidden.append(str(database.parent))
        return Kit(assignment=assignment, course_id=self.course.course_id,
                   config=dict(self.course.config),
                   gradebook=gradebook, gradebook_shape=shape.model_dump_json(),
                   source_files=files, hidden=sorted(set(hidden)))

    @staticmethod
    def files(folder: Path) -> dict[str, bytes]:
        """The submitted folder's files, read only after the folder proves to hold plain
        files (a link would be followed as the grader), and only up to SUBMISSION_LIMIT
        bytes; SubmissionRefused otherwise."""
        require_plain_files(str(folder))
        paths = [p for p in sorted(folder.rglob("*")) if p.is_file()]
        if sum(p.stat().st_size for p in paths) > SUBMISSION_LIMIT:
            raise SubmissionRefused(
                f"The submission in {folder} was not graded: it holds more than "
                f"{SUBMISSION_LIMIT >> 20} MB. Ask the student to hand in their notebooks "
                "without data files, then autograde again.")
        return {str(p.relative_to(folder)): p.read_bytes() for p in paths}

    def writer(self, assignment: str) -> GradebookWriter:
        """The one writer of `assignment`'s scores to the course's gradebook."""
        return GradebookWriter(self.course.db_url, self.course.course_id, assignment)

    def put_in_place(self, assignment: str, graded: Graded) -> None:
        """Make the student's autograded folder of `assignment` what grading gave."""
        _replace_folder(self.course.folder("autograded", graded.student, assignment),
                        graded.files, graded.mode)

    def note_fingerprints(self, assignment: str, marks: dict[str, str]) -> None:
        """Record the fingerprints of submissions whose scores are merged."""
        write_text_atomically(self._state(assignment),
                              json.dumps({**self.fingerprints(assignment), **marks}, indent=1))

    def keep_log(self, assignment: str, graded: Graded) -> Path:
        """nbgrader's log of grading the submission (cut, any bytes escaped: `capped`), kept
        in `log_folder`."""
        return write_text_atomically(
            log_folder(self.course.root, assignment) / f"{graded.student}.log", capped(graded.log))

    def fingerprints(self, assignment: str) -> dict[str, str]:
        try:
            return json.loads(self._state(assignment).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}

    def write_summary(self, summary: BatchSummary) -> Path:
        return write_text_atomically(
            self.course.root / STATE / f"{summary.assignment}-summary.json", summary.to_json())

    def _state(self, assignment: str) -> Path:
        return self.course.root / STATE / f"{assignment}.json"


def log_folder(course: Path, assignment: str) -> Path:
    """Where nbgrader's log of each graded submission of `assignment` is kept."""
    return course / STATE / f"{assignment}-logs"


def _replace_folder(dest: Path, files: dict[str, bytes], mode: int) -> None:
    """Make `dest` hold exactly `files` (each with `mode`), swapped in whole."""
    new, old = dest.with_name(f".{dest.name}.agentlab-new"), dest.with_name(
        f".{dest.name}.agentlab-old")
    for leftover in (new, old):
        shutil.rmtree(leftover, ignore_errors=True)
    for name, content in files.items():
        path = new / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
        path.chmod(mode)
    new.mkdir(parents=True, exist_ok=True)
    if dest.exists():
        dest.rename(old)
    new.rename(dest)
    shutil.rmtree(old, ignore_errors=True)
