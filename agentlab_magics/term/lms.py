"""What Canvas's and Moodle's grade imports match a student by, and what an LMS knows: its
roster, read from the CSV file it exports.

Each import's rules, as its code has them:
- Canvas (canvas-lms, app/models/gradebook_importer.rb, `GradebookImporter#process_student`
  and `#parse_assignments`): a row's student is the course's user whose numeric id is the ID
  column (`row[1].to_i`), else whose SIS User ID or login (the SIS Login ID column) it holds,
  else whose name is the Student column, else nobody (the instructor is asked to pick one);
  an assignment column is the assignment whose id its title ends with ("lesson1 (123)"), else
  the one of that exact title, else a new assignment Canvas makes. A blank cell where Canvas
  has a grade is a change (ui/features/gradebook_uploads/jquery/process_gradebook_upload.js
  sends it as the new grade): the grade is cleared.
- Moodle (moodle, grade/import/csv/classes/load_data.php, `prepare_import_grade_data`): the
  teacher maps one column to a user field (id, idnumber, email, username) and the row's user
  is the one with that value; a value matching no user aborts the whole import
  (`usermappingerror`); a blank value keeps the previous row's user (its grades land on that
  student). A blank or "-" grade is `finalgrade = null`, which grade/import/lib.php's
  `grade_import_commit` writes over the grade Moodle has.
So a file of agentlab's writes a row only for a student with a grade in each of its columns
and the one id the instructor chose (`--id-from`), held by no other row.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel

from agentlab_magics.problems import UsageProblem


class Person(BaseModel):
    """A student as nbgrader's roster records them."""

    id: str
    first_name: str = ""
    last_name: str = ""
    email: str = ""
    lms_user_id: str = ""


@dataclass(frozen=True)
class Key:
    """One id an LMS can match a student by: the column that carries it, what the sentences
    call it, and a student's value of it in nbgrader's roster ("" where they have none)."""

    column: str
    what: str
    value: Callable[[Person], str]


@dataclass(frozen=True)
class Lms:
    """An LMS's grade import: the ids it can match a student by (`--id-from`), the one used
    unless told, and what it does with a row whose id it does not know."""

    name: str
    keys: dict[str, Key]
    default: str
    unmatched: str

    def key(self, id_from: str | None) -> Key:
        """The key `id_from` names (the default for None); UsageProblem for one it lacks."""
        chosen = id_from or self.default
        if chosen not in self.keys:
            *others, last = self.keys
            raise UsageProblem(f"{self.name} matches students by {', '.join(others)} or "
                               f"{last}, not {chosen!r}: say which with --id-from.")
        return self.keys[chosen]


def _canvas_id(person: Person) -> str:
    """Canvas's own user id, a number; an LTI id that is not one matches nobody, or (read by
    Ruby's to_i) someone else."""
    value = person.lms_user_id.strip()
    return value if re.fullmatch(r"[0-9]+", value) else ""


def _nbgrader_id(person: Person) -> str:
    return person.id


CANVAS = Lms("Canvas", {
    "canvas-id": Key("ID", "Canvas user id (a number in nbgrader's lms_user_id)", _canvas_id),
    "sis-login": Key("SIS Login ID", "SIS Login ID", _nbgrader_id)},
    default="sis-login", unmatched="whom Canvas would match by name or not at all")
MOODLE = Lms("Moodle", {
    "idnumber": Key("ID number", "ID number", _nbgrader_id),
    "username": Key("Username", "username", _nbgrader_id),
    "email": Key("Email address", "email address", lambda person: person.email.strip())},
    default="idnumber", unmatched="which would make Moodle abort the whole import")
LMSES = {"canvas": CANVAS, "moodle": MOODLE}

# Canvas's gradebook export: its student columns, and the columns of totals it adds
CANVAS_STUDENT_COLUMNS = {"Student", "LastName", "FirstName", "ID", "SIS User ID",
                          "SIS Login ID", "Integration ID", "Section", "Root Account"}
CANVAS_TOTALS = re.compile(r"(Current|Final|Override|Unposted) (Score|Points|Grade|Status)")
CANVAS_TITLE = re.compile(r"^(?P<title>.*?)\s*\((?P<id>[0-9]+)\)$")


class RosterProblem(UsageProblem):
    """The roster file cannot be read as the LMS's export; the message says what to give."""


class Roster(BaseModel):
    """Who an LMS knows, by the id an import matches them by, and the titles of its
    assignments (Canvas's gradebook export has a column each; for Moodle None: its import
    maps each column to a grade item by hand)."""

    name: str
    ids: set[str]
    assignments: list[str] | None


def read_roster(path: Path, lms: Lms, key: Key) -> Roster:
    """The roster in the CSV file `path` exported from `lms`; RosterProblem, saying what to
    give instead, for a file that is missing, not CSV, or has no column for `key`."""
    header, *rows = _csv_rows(path, lms)
    columns = [column.strip() for column in header]
    found = [i for i, column in enumerate(columns) if column.lower() == key.column.lower()]
    if not found:
        raise RosterProblem(f"{path} has no {key.column} column, which {lms.name} would match "
                            f"your file by: export the roster with it, or choose another "
                            f"--id-from; its columns are: {', '.join(columns)}.")
    ids = {row[found[0]].strip() for row in rows if len(row) > found[0]}
    titles = _canvas_titles(columns) if lms is CANVAS else None
    return Roster(name=path.name, ids=ids - {""}, assignments=titles)


def _csv_rows(path: Path, lms: Lms) -> list[list[str]]:
    """The rows of the CSV file `path`, at least a header of two columns; RosterProblem,
    saying what to give, otherwise."""
    export = f"export the roster from {lms.name} as a CSV file and give that"
    rows = _parsed(_text(path, export))
    if not rows or len(rows[0]) < 2:
        raise RosterProblem(f"{path} is not a CSV file of columns: {export}.")
    return rows


def _text(path: Path, export: str) -> str:
    """The text of `path` ("" where it is not UTF-8); RosterProblem where it cannot be read."""
    if not path.is_file():
        raise RosterProblem(f"There is no roster file {path}: {export}.")
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        return ""
    except OSError as exc:
        raise RosterProblem(f"Cannot read {path}: {exc.strerror or exc}.") from None


def _parsed(text: str) -> list[list[str]]:
    """The rows of CSV `text` but empty ones, separated by commas or, where its first line
    has more of them, semicolons (as the LMSes write it in some languages); [] where it is
    not CSV."""
    first = text.split("\n", 1)[0]
    separator = ";" if first.count(";") > first.count(",") else ","
    try:
        return [row for row in csv.reader(io.StringIO(text, newline=""), delimiter=separator)
                if row]
    except csv.Error:
        return []


def _canvas_titles(columns: list[str]) -> list[str]:
    """The assignments' titles among the columns of Canvas's gradebook export (each "Title
    (id)")."""
    titles = []
    for column in columns:
        if column in CANVAS_STUDENT_COLUMNS or CANVAS_TOTALS.search(column):
            continue
        found = CANVAS_TITLE.match(column)
        titles.append(found["title"] if found else column)
    return titles
