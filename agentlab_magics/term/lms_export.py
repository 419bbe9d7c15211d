"""Grades out to the LMS: nbgrader export plugins writing the CSV files Canvas's and Moodle's
gradebooks import, `run_export` running one for `agentlab course export`, and readers of those
files (for the round trip that tests them).

    nbgrader export --exporter agentlab_magics.term.lms_export.CanvasExport --to canvas.csv
    nbgrader export --exporter agentlab_magics.term.lms_export.MoodleExport --to moodle.csv
    agentlab course export --to canvas|moodle FILE      (the same, run in the course folder)

The columns follow each LMS's documented import:
- Canvas ("Import CSV file to Grades", Ohio State's guide to Canvas's gradebook import,
  https://teaching.resources.osu.edu/toolsets/carmencanvas/guides/calculating-final-grades/
  import-csv-file-carmen-grades; and Canvas's gradebook export, whose file the import takes
  back, https://ts.vcu.edu/askit/teaching-and-learning/canvas/faculty/grading-faculty/
  gradebook-action-menu-faculty/): the columns Student (last name, first name), ID, SIS User
  ID, SIS Login ID and Section, then a column per assignment; the row under the header is
  "Points Possible", each assignment's maximum. Of ID and SIS Login ID only the one the
  instructor chose (`--id-from`, lms.py's CANVAS) is filled: ID is the student's `lms_user_id`
  (Canvas's own id, which nbgrader keeps for LTI), SIS Login ID the nbgrader id (the login
  students use on the hub). Canvas tries ID first, so a stray id there would overrule the
  chosen one. SIS User ID and Section stay empty.
- Moodle ("Grade import", https://docs.moodle.org/311/en/Grade_import): a header row and a
  row per student, any columns; on import the teacher maps one column to a user field ("Map
  from" / "Map to") and each other column to a grade item. Here: First name, Last name, the
  one id column chosen (ID number or Username, each the nbgrader id, or Email address), then a
  column per assignment named "ASSIGNMENT (out of POINTS)": Moodle's CSV has no row of maxima,
  so the header says what the grade item's maximum must be.
A grade is nbgrader's own total less its late penalty, never below 0 (as `nbgrader export`
writes it). A file holds no blank cell, since both imports clear a grade with one (lms.py
cites the code): `plan` keeps a student only with a grade in every column, the chosen id, no
other student's id and, given the LMS's roster, a place on it; it leaves out everyone else,
and says who and why in one sentence per reason.
"""

from __future__ import annotations

import csv
import re
import tempfile
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ClassVar, Literal, get_args

from nbgrader.plugins.export import ExportPlugin
from pydantic import BaseModel
from traitlets import Bool, Enum, Unicode

from agentlab_magics.term.course_folder import CourseFolder, graded_assignments, in_course_order
from agentlab_magics.term.hand_ins import hand_ins
from agentlab_magics.term.lms import (
    CANVAS,
    LMSES,
    MOODLE,
    Key,
    Lms,
    Person,
    Roster,
    read_roster,
)
from agentlab_magics.term.nbgrader_cli import Nbgrader

CANVAS_IDS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
POINTS_POSSIBLE = "Points Possible"
MOODLE_NAMES = ["First name", "Last name"]
MOODLE_COLUMN = re.compile(r"^(?P<assignment>.*) \(out of (?P<points>[0-9.]+)\)$")

Reason = Literal["no grade", "no id", "shared id", "not in roster", "partly graded"]


class Grades(BaseModel):
    """Each assignment's points possible, and each student's grade on what they handed in."""

    assignments: list[str]
    points: dict[str, float]
    students: list[Person]
    grades: dict[str, dict[str, float]]


class Plan(BaseModel):
    """Who an LMS file holds, by the id written for each, and who it leaves out and why: a
    student is in exactly one of the two, and one held has a grade in every assignment."""

    lms: str
    id_from: str
    assignments: list[str]
    ids: dict[str, str]
    left_out: dict[Reason, list[str]] = {}
    roster: str = ""
    new_assignments: list[str] = []

    @property
    def complete(self) -> bool:
        """Whether everyone with a grade to send is in the file."""
        return all(reason == "no grade" for reason in self.left_out)


def lms_grades(gradebook: Any, assignments: Sequence[str] = (),
               students: Sequence[str] = ()) -> Grades:
    """The grades in nbgrader's `gradebook` (of those assignments and students, if given)."""
    chosen = in_course_order([a.name for a in gradebook.assignments
                              if not assignments or a.name in assignments])
    people = [Person(id=s.id, first_name=s.first_name or "", last_name=s.last_name or "",
                     email=s.email or "", lms_user_id=s.lms_user_id or "")
              for s in sorted(gradebook.students, key=lambda s: s.id)
              if not students or s.id in students]
    grades: dict[str, dict[str, float]] = {p.id: {} for p in people}
    points = {}
    for name in chosen:
        points[name] = gradebook.find_assignment(name).max_score
        for handed in hand_ins(gradebook, name):
            if handed.student in grades:
                grades[handed.student][name] = max(0.0, handed.score - handed.penalty)
    return Grades(assignments=chosen, points=points, students=people, grades=grades)


def plan(grades: Grades, lms: str, id_from: str, roster: Roster | None = None) -> Plan:
    """Who of `grades` an import into `lms`, matching by `id_from`, can take (on `roster`, if
    given), and who is left out and why."""
    key = LMSES[lms].keys[id_from]
    shared = _shared(grades, key)
    ids: dict[str, str] = {}
    left_out: dict[Reason, list[str]] = {}
    for person in grades.students:
        reason = _left_out_for(person, grades, key, shared, roster)
        if reason is None:
            ids[person.id] = key.value(person)
        else:
            left_out.setdefault(reason, []).append(person.id)
    new = ([a for a in grades.assignments if a not in roster.assignments]
           if roster is not None and roster.assignments is not None else [])
    return Plan(lms=lms, id_from=id_from, assignments=grades.assignments, ids=ids,
                left_out=left_out, roster=roster.name if roster else "", new_assignments=new)


def _shared(grades: Grades, key: Key) -> set[str]:
    """The ids that more than one student with a grade has."""
    counted = Counter(key.value(p) for p in grades.students
                      if grades.grades[p.id] and key.value(p))
    return {value for value, count in counted.items() if count > 1}


def _left_out_for(person: Person, grades: Grades, key: Key, shared: set[str],
                  roster: Roster | None) -> Reason | None:
    """Why `person`'s row cannot go into the file, or None where it can."""
    given, value = grades.grades[person.id], key.value(person)
    if not given:
        return "no grade"
    if not value:
        return "no id"
    if value in shared:
        return "shared id"
    if roster is not None and value not in roster.ids:
        return "not in roster"
    if len(given) < len(grades.assignments):
        return "partly graded"
    return None


def sentences(plan: Plan) -> list[str]:
    """One sentence per reason students are left out, naming them, then one naming the
    assignments Canvas would make anew."""
    lms, key = _lms_and_key(plan)
    assignments = ", ".join(plan.assignments)
    why: dict[Reason, str] = {
        "no grade": f"with no grade in {assignments} to send",
        "no id": f"with no {key.what}, which {lms.name} matches by",
        "shared id": f"with the same {key.what} as another student, as {lms.name} would put "
                     "both rows on one of them",
        "not in roster": f"whose {key.what} is not in {plan.roster}, {lms.unmatched}",
        "partly graded": f"graded in only some of {assignments}, as a blank cell would clear "
                         f"the grade {lms.name} has (export each assignment on its own, "
                         "--assignment NAME, to send the others)"}
    said = [f"Left out {_count(len(who), 'student')} {why[reason]}: {', '.join(who)}."
            for reason in get_args(Reason) if (who := plan.left_out.get(reason))]
    if plan.new_assignments:
        said.append(f"{lms.name} will make {_count(len(plan.new_assignments), 'new assignment')}"
                    f", as {plan.roster} has no assignment of that title: "
                    f"{', '.join(plan.new_assignments)}.")
    return said


def summary(plan: Plan, file: Path | None) -> str:
    """Whose grades `file` holds (with no file: would hold), and by which id the LMS will
    match them."""
    lms, key = _lms_and_key(plan)
    what = f"the grades in {', '.join(plan.assignments)} of {_count(len(plan.ids), 'student')}"
    how = f"matched by {key.what}" + (f", which {plan.roster} lists" if plan.roster else "")
    if file is None:
        return f"{lms.name} would take {what}, {how}: {', '.join(plan.ids) or 'nobody'}."
    return f"Wrote {what} to {file} for {lms.name}'s gradebook import, {how}."


def canvas_rows(grades: Grades, plan: Plan) -> list[list[str]]:
    """The Canvas import: header, Points Possible, a row per student the plan holds."""
    column = CANVAS_IDS.index(CANVAS.keys[plan.id_from].column)
    rows = [[*CANVAS_IDS, *grades.assignments],
            [POINTS_POSSIBLE, "", "", "", "", *(_number(grades.points[a])
                                                for a in grades.assignments)]]
    for person in _held(grades, plan):
        ids = [""] * (len(CANVAS_IDS) - 1)
        ids[column - 1] = plan.ids[person.id]
        name = ", ".join(n for n in (person.last_name, person.first_name) if n) or person.id
        rows.append([name, *ids, *_cells(grades, person.id)])
    return rows


def moodle_rows(grades: Grades, plan: Plan) -> list[list[str]]:
    """The Moodle import: header, a row per student the plan holds."""
    rows = [[*MOODLE_NAMES, MOODLE.keys[plan.id_from].column,
             *(f"{a} (out of {_number(grades.points[a])})" for a in grades.assignments)]]
    rows += [[p.first_name, p.last_name, plan.ids[p.id], *_cells(grades, p.id)]
             for p in _held(grades, plan)]
    return rows


def read_canvas(path: Path) -> Grades:
    """Grades back from a Canvas import file, each student known by the id the file carries
    (SIS Login ID, else ID); a blank grade is a ValueError, as no file should hold one."""
    header, points, *rows = _rows(path)
    people = [Person(id=row[3] or row[1], lms_user_id=row[1]) for row in rows]
    return _grades(header[len(CANVAS_IDS):], points[len(CANVAS_IDS):], people,
                   [row[len(CANVAS_IDS):] for row in rows])


def read_moodle(path: Path) -> Grades:
    """Grades back from a Moodle import file, each student known by its id column (the
    third); a blank grade is a ValueError, as no file should hold one."""
    header, *rows = _rows(path)
    first = len(MOODLE_NAMES) + 1
    columns = [MOODLE_COLUMN.match(column) for column in header[first:]]
    people = [Person(id=row[2], first_name=row[0], last_name=row[1]) for row in rows]
    return _grades([c["assignment"] if c else "" for c in columns],
                   [c["points"] if c else "" for c in columns], people,
                   [row[first:] for row in rows])


def write_csv(path: Path, rows: list[list[str]]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows)


class _LmsExport(ExportPlugin):
    """An nbgrader exporter writing `rows` of the grades `plan` holds to --to."""

    lms: ClassVar[str]
    rows: Callable[[Grades, Plan], list[list[str]]]
    default = "grades.csv"
    id_from: Any  # each exporter's Enum of its LMS's keys
    roster = Unicode("", help="The LMS's roster, as it exports it (CSV): a student whose id "
                              "is not in it is left out.").tag(config=True)
    check = Bool(False, help="Write no file: only say who would be left out, and why."
                 ).tag(config=True)
    report = Unicode("", help="A file to write the plan to, as JSON (who is in the file, who "
                              "is left out and why).").tag(config=True)

    def export(self, gradebook: Any) -> None:
        lms = LMSES[self.lms]
        grades = lms_grades(gradebook, [str(a) for a in self.assignment],
                            [str(s) for s in self.student])
        roster = (read_roster(Path(self.roster), lms, lms.keys[self.id_from])
                  if self.roster else None)
        chosen = plan(grades, self.lms, self.id_from, roster)
        for sentence in sentences(chosen):
            self.log.warning(sentence)
        if self.report:
            Path(self.report).write_text(chosen.model_dump_json(), encoding="utf-8")
        if self.check or not chosen.ids:
            self.log.warning("Wrote no file%s.", "" if self.check else ": nobody is left in it")
            return
        destination = Path(self.to or self.default)
        self.log.info("Exporting grades to %s", destination)
        write_csv(destination, type(self).rows(grades, chosen))


class CanvasExport(_LmsExport):
    """Canvas's gradebook import CSV (the module docstring gives its columns)."""

    lms = "canvas"
    rows = staticmethod(canvas_rows)
    default = "canvas.csv"
    id_from = Enum(list(CANVAS.keys), default_value=CANVAS.default,
                   help="The id Canvas knows each student by: canvas-id (its own user id, "
                        "nbgrader's lms_user_id) or sis-login (the nbgrader id).").tag(config=True)


class MoodleExport(_LmsExport):
    """Moodle's grade import CSV (the module docstring gives its columns)."""

    lms = "moodle"
    rows = staticmethod(moodle_rows)
    default = "moodle.csv"
    id_from = Enum(list(MOODLE.keys), default_value=MOODLE.default,
                   help="The id Moodle knows each student by: idnumber or username (each the "
                        "nbgrader id) or email.").tag(config=True)


EXPORTERS = {"canvas": CanvasExport, "moodle": MoodleExport}


class ExportRequest(BaseModel):
    """What `agentlab course export` asks of an LMS exporter: no file means only check."""

    lms: Literal["canvas", "moodle"]
    id_from: str
    assignments: list[str] = []
    file: Path | None = None
    roster: Path | None = None


def run_export(course: Path, request: ExportRequest, nbgrader: Nbgrader | None = None) -> Plan:
    """Run `nbgrader export` in the course folder `course` with the LMS's exporter as `request`
    says; the plan the exporter followed. Before nbgrader runs, a UsageProblem saying what to
    do for a request it could not follow: no course or gradebook, an id the LMS does not match
    by, a roster it cannot read, an assignment the gradebook lacks."""
    lms = LMSES[request.lms]
    key = lms.key(request.id_from)
    folder = CourseFolder.read(course, nbgrader)
    folder.require_gradebook()
    if request.roster:
        read_roster(request.roster, lms, key)
    with folder.gradebook() as gradebook:
        graded_assignments(gradebook, request.assignments)
    with tempfile.TemporaryDirectory(prefix="agentlab-export-") as scratch:
        report = Path(scratch) / "plan.json"
        (nbgrader or Nbgrader()).run("export", *_nbgrader_args(request, report), cwd=course)
        return Plan.model_validate_json(report.read_text(encoding="utf-8"))


def _nbgrader_args(request: ExportRequest, report: Path) -> list[str]:
    """`nbgrader export`'s arguments for `request`, its exporter writing its plan to `report`."""
    exporter = EXPORTERS[request.lms]
    option = f"--{exporter.__name__}"
    args = [f"--exporter={exporter.__module__}.{exporter.__name__}",
            f"{option}.id_from={request.id_from}", f"{option}.report={report}",
            *(f"--assignment={a}" for a in request.assignments)]
    args += [f"--to={request.file}"] if request.file else [f"{option}.check=True"]
    return args + ([f"{option}.roster={request.roster}"] if request.roster else [])


def _lms_and_key(plan: Plan) -> tuple[Lms, Key]:
    return LMSES[plan.lms], LMSES[plan.lms].keys[plan.id_from]


def _held(grades: Grades, plan: Plan) -> list[Person]:
    return [person for person in grades.students if person.id in plan.ids]


def _number(value: float) -> str:
    return f"{value:g}"


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'s' * (number != 1)}"


def _cells(grades: Grades, student: str) -> list[str]:
    """A held student's grade per assignment (each there: `plan` holds no one without)."""
    return [_number(grades.grades[student][a]) for a in grades.assignments]


def _rows(path: Path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


def _grades(assignments: list[str], points: list[str], people: list[Person],
            cells: list[list[str]]) -> Grades:
    return Grades(assignments=assignments,
                  points={a: float(p) for a, p in zip(assignments, points)},
                  students=people,
                  grades={p.id: {a: float(c) for a, c in zip(assignments, row)}
                          for p, row in zip(people, cells)})
