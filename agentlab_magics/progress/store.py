"""The progress store: per lab, the questions committed, the tests passed, and whether help was
used.

A lab's state (`LabProgress.state`), the one definition the map, the docs and every test use:
- not started: nothing is recorded for it;
- in progress: something is (a test passed, an answer committed, the solution opened), but
  not yet every test in one check and an answer to every question;
- mastered: every test passed in one check made before the lab's solution was opened, and
  every question has a committed answer (the course's own rule: the map counts commitments,
  right or wrong, and shows each wrong one as wrong beside the word, since a commitment is
  never replaced);
- built with help: every question answered and every test passed, but only in checks made
  after the solution was opened. Opening the solution after an unaided pass changes nothing:
  that pass stays one made without help.

Every write goes to a temporary file in the same folder and is then renamed over the
store, so a crash leaves the old file or the new one, never half of one. Every write is a
merge made under a lock (`lock.held`): read the file afresh, apply this one change, write it
back; so two notebooks (or a notebook and the autograder) writing at once lose nothing.
A file that cannot be used (not UTF-8, not JSON, nested too deeply, the wrong shape) is
renamed, unchanged, to a backup name no other file has, and `notice` says so in a sentence;
it is never overwritten and never raised into a magic.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeVar

from pydantic import BaseModel, Field, ValidationError, model_validator

from agentlab_magics.atomic import write_text_atomically
from agentlab_magics.course.questions import letter_today
from agentlab_magics.progress.lock import held

if TYPE_CHECKING:
    from agentlab_magics.checking.report import CheckReport

ENV = "AGENTLAB_PROGRESS"
State = Literal["not started", "in progress", "mastered", "built with help"]
STATES: tuple[State, ...] = ("not started", "in progress", "mastered", "built with help")
T = TypeVar("T")
BOM = b"\xef\xbb\xbf"  # a UTF-8 byte order mark, which some editors put first


def default_path() -> Path:
    """$AGENTLAB_PROGRESS, or ~/.agentlab/progress.json."""
    return Path(os.environ.get(ENV) or Path.home() / ".agentlab" / "progress.json")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class Commitment(BaseModel):
    """An answer the student committed to, and when; a commitment is never replaced."""

    answer: str
    at: str = Field(default_factory=_now)


class LabProgress(BaseModel):
    """What one lab's row on the map counts; the module docstring defines its states."""

    questions: dict[str, Commitment] = Field(default_factory=dict)
    tests_passed: list[str] = Field(default_factory=list)
    checked: bool = False                 # some check ran, whatever it found
    passed: bool = False                  # some check passed every test
    passed_at: str | None = None          # when a check first did
    passed_unaided: bool = False          # some such check came before the solution was opened
    solution_opened: bool = False
    solution_opened_at: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _unaided_in_old_files(cls, data: object) -> object:
        """A record from before `passed_unaided` was kept: its pass counts as unaided unless
        the solution was opened too, since which came first is not known."""
        if isinstance(data, dict) and "passed_unaided" not in data:
            unaided = data.get("passed") is True and data.get("solution_opened") is not True
            return {**data, "passed_unaided": unaided}
        return data

    def right(self, key: dict[str, str | None]) -> list[str]:
        """The questions of `key` answered right: `key` gives each question's right answer,
        or None for a question without one right answer (any committed answer counts)."""
        return [question for question, answer in key.items()
                if question in self.questions
                and answer in (None, self.questions[question].answer)]

    def state(self, key: dict[str, str | None]) -> State:
        """The lab's state (module docstring), `key` giving its questions' right answers."""
        if self.passed and all(question in self.questions for question in key):
            return "mastered" if self.passed_unaided else "built with help"
        started = self.questions or self.tests_passed or self.solution_opened
        return "in progress" if started else "not started"

    def merged(self, other: LabProgress) -> LabProgress:
        """Both records together: nothing either holds is lost; the earlier commitment and
        the earlier times win, and a pass made without help on either side stays one."""
        questions = {**other.questions, **self.questions}
        return LabProgress(questions=questions,
                           tests_passed=sorted(set(self.tests_passed) | set(other.tests_passed)),
                           checked=self.checked or other.checked,
                           passed=self.passed or other.passed,
                           passed_at=_earliest(self.passed_at, other.passed_at),
                           passed_unaided=self.passed_unaided or other.passed_unaided,
                           solution_opened=self.solution_opened or other.solution_opened,
                           solution_opened_at=_earliest(self.solution_opened_at,
                                                        other.solution_opened_at))


def page_state(states: list[State]) -> State:
    """The state of a page of the course from its labs' states: their state when they agree;
    built with help once every lab is finished and one was built with help; else in progress."""
    if len(set(states)) == 1:
        return states[0]
    if set(states) <= {"mastered", "built with help"}:
        return "built with help"
    return "in progress"


def _earliest(one: str | None, other: str | None) -> str | None:
    """The earlier of two ISO times (UTC, as `_now` writes them), either one missing."""
    return min((time for time in (one, other) if time), default=None)


class Progress(BaseModel):
    """The whole file. A choice's answer is the letter the option has in today's order; a file
    of version 1 holds the letters options had before some right answers moved off B, and is
    read as the same choices in today's letters (`questions.letter_today`)."""

    version: Literal[2] = 2
    labs: dict[str, LabProgress] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _letters_of_version_1(cls, data: object) -> object:
        if not (isinstance(data, dict) and data.get("version", 1) == 1
                and isinstance(data.get("labs", {}), dict)):
            return data
        return {**data, "version": 2,
                "labs": {lab_id: _relettered(record)
                         for lab_id, record in data.get("labs", {}).items()}}


def _relettered(record: object) -> object:
    """A version-1 lab record with each committed letter as today's order names that option;
    anything not of that shape as it was, for validation to describe."""
    questions = record.get("questions") if isinstance(record, dict) else None
    if not isinstance(record, dict) or not isinstance(questions, dict):
        return record
    relettered = {}
    for question_id, commitment in questions.items():
        if isinstance(commitment, dict) and isinstance(commitment.get("answer"), str):
            commitment = {**commitment,
                          "answer": letter_today(question_id, commitment["answer"])}
        relettered[question_id] = commitment
    return {**record, "questions": relettered}


class ProgressError(ValueError):
    """A progress file that cannot be used; the message says what happened and what to do."""


class UnreadableProgress(ProgressError):
    """Bytes that are not a progress file; `detail` says why: "is not valid JSON (…)"."""

    def __init__(self, where: Path, detail: str):
        self.where, self.detail = where, detail
        super().__init__(f"The progress file {where} {detail}.")


class ProgressStore:
    """The progress file at `path`.

    Loading never raises: a file that cannot be used is set aside or left alone, the progress
    starts empty, and `notice` holds a sentence for the student (read it with `take_notice`).
    Every change re-reads the file under the lock and merges into it, so nothing another
    process wrote is lost; a change raises ProgressError (a sentence) rather than write over a
    file it could not read.
    """

    def __init__(self, path: str | Path | None = None):
        self.path = Path(path).expanduser() if path else default_path()
        self.notice: str | None = None
        self.data = self._load()

    def take_notice(self) -> str | None:
        """The notice, if any, once: it is cleared, so each is shown a single time."""
        notice, self.notice = self.notice, None
        return notice

    def lab(self, lab_id: str) -> LabProgress:
        return self.data.labs.get(lab_id, LabProgress())

    def commit(self, lab_id: str, question_id: str, answer: str) -> Commitment:
        """Record the answer to a question unless one is already recorded (by this or any
        other process); return the one kept."""
        def change(data: Progress) -> Commitment:
            record = data.labs.setdefault(lab_id, LabProgress())
            return record.questions.setdefault(question_id, Commitment(answer=answer))
        return self._update(change)

    def checked(self, lab_id: str, passed_tests: list[str], all_passed: bool) -> None:
        """Add the tests that passed; a lab that passed once stays passed, and a pass made
        while its solution was still unopened is kept as one made without help."""
        def change(data: Progress) -> None:
            record = data.labs.setdefault(lab_id, LabProgress())
            record.tests_passed = sorted(set(record.tests_passed) | set(passed_tests))
            record.checked = True
            if all_passed:
                record.passed = True
                record.passed_at = record.passed_at or _now()
                record.passed_unaided = record.passed_unaided or not record.solution_opened
        self._update(change)

    def record_check(self, report: CheckReport) -> None:
        """Count a check that ran (%%check, `agentlab check`): its lab's own tests that passed,
        and whether all did. A store that cannot be written is said in the notice, never
        raised: the check's report stands either way."""
        try:
            self.checked(report.lab_id, report.own_passed, report.all_passed)
        except ProgressError as exc:
            self.tell(str(exc))

    def solution_opened(self, lab_id: str) -> None:
        """Record that the lab's solution was opened, and first when; from then on only an
        earlier pass counts as made without help. A record of help is never removed."""
        def change(data: Progress) -> None:
            record = data.labs.setdefault(lab_id, LabProgress())
            record.solution_opened = True
            record.solution_opened_at = record.solution_opened_at or _now()
        self._update(change)

    def save(self) -> None:
        """Merge what this store holds into the file as it is now; nothing in either is lost."""
        held_here = self.data
        self._update(lambda data: _merge_into(data, held_here))

    def export(self, target: str | Path) -> Path:
        """Write the stored progress, as it is now, to `target` in one atomic step.

        ProgressError, saying what to do, if `target` is a folder, its folder does not exist,
        it cannot be written, or the store itself cannot be read."""
        target = Path(target).expanduser()
        problem = _export_problem(target)
        if problem:
            raise ProgressError(problem)
        if _same_file(target, self.path):
            self.save()
            return target
        self.data = self._current()
        try:
            return write_text_atomically(target, self.data.model_dump_json(indent=2))
        except OSError as exc:
            raise ProgressError(f"Your progress could not be written to {target} "
                                f"({_reason(exc)}): export to a file in a folder you can "
                                "write to.") from None

    def import_(self, source: str | Path) -> int:
        """Merge the progress file `source` into the store; returns how many labs it holds.
        ProgressError, with nothing changed, if it is missing or not a progress file."""
        incoming = read_export(Path(source).expanduser())
        self._update(lambda data: _merge_into(data, incoming))
        return len(incoming.labs)

    def tell(self, sentence: str) -> None:
        """Add a sentence to the notice the student will be shown, once: a sentence the
        notice already holds is not said again."""
        if self.notice and sentence in self.notice:
            return
        self.notice = f"{self.notice} {sentence}" if self.notice else sentence

    def _load(self) -> Progress:
        """The stored progress, or empty progress and a notice saying why; never raises."""
        try:
            return self._current()
        except ProgressError as exc:
            self.tell(str(exc))
            return Progress()

    def _current(self) -> Progress:
        """The stored progress as it is now (empty if there is no file).

        Read without the lock, since every write is an atomic rename; only a file that cannot
        be used takes the lock, to set it aside. ProgressError if the file cannot be read or
        set aside."""
        try:
            return self._read()
        except UnreadableProgress:
            pass
        try:
            with held(self.path):
                return self._read_or_set_aside()
        except OSError as exc:
            raise ProgressError(f"Your progress file {self.path} is unreadable and could not be "
                                f"set aside ({_reason(exc)}): move it or fix it, or set {ENV} "
                                "to another file.") from None

    def _read(self) -> Progress:
        """The file's progress, empty if there is no file. UnreadableProgress if its bytes are
        not a progress file; ProgressError if it cannot be read at all."""
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return Progress()
        except IsADirectoryError:
            raise ProgressError(f"Your progress file {self.path} is a folder: set {ENV} to a "
                                f"file's path, such as {self.path / 'progress.json'}.") from None
        except OSError as exc:
            raise ProgressError(f"Your progress file {self.path} could not be read "
                                f"({_reason(exc)}): make it a file you can read, or set {ENV} "
                                "to another file.") from None
        return parse(raw, self.path)

    def _read_or_set_aside(self) -> Progress:
        """Call with the lock held. The stored progress; a file that cannot be used is renamed,
        its bytes untouched, to a backup name never used before, and `notice` says where."""
        try:
            return self._read()
        except UnreadableProgress as exc:
            detail = exc.detail
        backup = set_aside(self.path)
        self.tell(f"Your progress file {self.path} was unreadable: it {detail}. It was kept, "
                   f"unchanged, as {backup}, and a fresh one was started. To bring it back, "
                   f"fix that file and run `%progress import {backup}`.")
        return Progress()

    def _update(self, change: Callable[[Progress], T]) -> T:
        """Under the lock: read the file afresh, apply `change`, write the result atomically.

        What other processes wrote before the lock was taken is kept; `data` becomes what was
        written. ProgressError if the file cannot be read or written (nothing is written)."""
        try:
            with held(self.path):
                data = self._read_or_set_aside()
                result = change(data)
                write_text_atomically(self.path, data.model_dump_json(indent=2))
        except OSError as exc:
            raise ProgressError(f"Your progress could not be saved to {self.path} "
                                f"({_reason(exc)}): make that folder writable, or set {ENV} to "
                                "a file in a folder you can write to.") from None
        self.data = data
        return result


def parse(content: str | bytes, where: Path) -> Progress:
    """The progress in a file's content. UnreadableProgress, saying why, if it is not UTF-8,
    not JSON, nested too deeply for json to read, or JSON of the wrong shape."""
    text = content if isinstance(content, str) else _utf8(content, where)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UnreadableProgress(where, f"is not valid JSON (line {exc.lineno}: "
                                        f"{exc.msg})") from None
    except RecursionError:
        raise UnreadableProgress(where, "is not a progress file (its JSON is nested too "
                                        "deeply to read)") from None
    except ValueError as exc:  # such as an integer too long for Python to convert
        raise UnreadableProgress(where, f"is not valid JSON ({exc})") from None
    try:
        return Progress.model_validate(value)
    except ValidationError as exc:
        first = exc.errors()[0]
        place = ".".join(str(part) for part in first["loc"]) or "the top level"
        raise UnreadableProgress(where, f"is not a progress file ({place}: "
                                        f"{first['msg']})") from None


def read_export(source: Path) -> Progress:
    """The progress in `source`, a file `export` wrote; ProgressError (nothing imported) if it
    is missing, a folder, unreadable or not a progress file."""
    if source.is_dir():
        raise ProgressError(f"{source} is a folder: give the progress file in it, the one "
                            "`%progress export FILE` wrote.")
    if not source.is_file():
        raise ProgressError(f"There is no progress file at {source}. Check the path; "
                            "`%progress export FILE` writes one.")
    try:
        raw = source.read_bytes()
    except OSError as exc:
        raise ProgressError(f"{source} could not be read ({_reason(exc)}); nothing was "
                            "imported.") from None
    try:
        return parse(raw, source)
    except UnreadableProgress as exc:
        raise ProgressError(f"{exc} Nothing was imported: give a file `%progress export` "
                            "wrote, or a backup you have fixed.") from None


def set_aside(path: Path) -> Path:
    """Rename `path` to `NAME.corrupt-STAMP` (then -2, -3, …): a name no file had, reserved
    with O_EXCL, so no backup ever replaces another. The bytes are not touched."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    for count in itertools.count(1):
        suffix = "" if count == 1 else f"-{count}"
        backup = path.with_name(f"{path.name}.corrupt-{stamp}{suffix}")
        try:
            os.close(os.open(backup, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        except FileExistsError:
            continue
        try:
            os.replace(path, backup)
        except BaseException:
            backup.unlink(missing_ok=True)
            raise
        return backup
    raise AssertionError("unreachable")  # pragma: no cover


def _utf8(raw: bytes, where: Path) -> str:
    """`raw` as text, a leading UTF-8 BOM dropped; UnreadableProgress naming the first bad byte."""
    skipped = len(BOM) if raw.startswith(BOM) else 0
    try:
        return raw[skipped:].decode("utf-8")
    except UnicodeDecodeError as exc:
        position = skipped + exc.start
        raise UnreadableProgress(where, f"is not UTF-8 text (byte 0x{raw[position]:02x} at "
                                        f"position {position})") from None


def _merge_into(data: Progress, incoming: Progress) -> int:
    """Merge every lab of `incoming` into `data` (LabProgress.merged: nothing is lost, the
    commitment already in `data` wins); returns how many labs `incoming` holds."""
    for lab_id, record in incoming.labs.items():
        data.labs[lab_id] = data.labs.get(lab_id, LabProgress()).merged(record)
    return len(incoming.labs)


def _export_problem(target: Path) -> str | None:
    """Why progress cannot be exported to `target`, as a sentence saying what to do; None when
    writing it may be tried."""
    if target.is_dir():
        return (f"{target} is a folder: give a file name in it, such as "
                f"`%progress export {target / 'progress.json'}`.")
    folder = target.parent
    if not folder.exists():
        return (f"There is no folder {folder}: create it first, or export to a file in a "
                "folder that exists.")
    if not folder.is_dir():
        return (f"{folder} is a file, not a folder: export to a file in a folder, such as "
                "`%progress export progress-export.json`.")
    return None


def _same_file(one: Path, other: Path) -> bool:
    """Whether the two paths name the same file (neither needs to exist)."""
    try:
        return one.resolve() == other.resolve()
    except (OSError, RuntimeError):  # a symlink loop
        return False


def _reason(exc: OSError) -> str:
    """What the operating system said, without the errno: "Permission denied"."""
    return exc.strerror or str(exc) or type(exc).__name__
