"""The `agentlab` command (also `python -m agentlab_magics`). Thin: parse, call a service, print.

Each command imports its service when it runs, not at the top: a student's `agentlab check`
loads only what a check needs (nbgrader, Dask and the views take seconds to import, and
tests/checking/test_cli.py holds a check to none of them)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from agentlab_magics.checking import time_limit
from agentlab_magics.checking.time_limit import TIME_LIMIT
from agentlab_magics.problems import Problem, UsageProblem

if TYPE_CHECKING:
    from agentlab_magics.checking.report import CheckReport


def build_parser() -> argparse.ArgumentParser:
    from agentlab_magics import __version__

    parser = argparse.ArgumentParser(prog="agentlab", description=(
        "Build an LLM agent loop lesson by lesson, and check it."))
    parser.add_argument("--version", action="version", version=f"agentlab {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    from agentlab_magics.lab.views import SHAPES

    commands.add_parser(
        "demo", help="show four runs of the reference harness and judge them",
        description="Show four runs of the reference harness (a typo, a firehose, a runaway, "
                    "an outage), each drawn as the shape of its record, then whether each "
                    f"record could be sent to a provider again. Shapes: {SHAPES}."
    ).set_defaults(run=_demo)
    commands.add_parser("labs", help="list the labs").set_defaults(run=_labs)
    check = commands.add_parser("check", help="check a harness file against a lab's tests")
    check.set_defaults(run=_check)
    check.add_argument("lab", help="a lab id, such as lesson6 or checkpoint-a")
    check.add_argument("--harness", required=True, metavar="FILE", help="the file to check")
    check.add_argument("--json", action="store_true", help="print the report as JSON")
    check.add_argument("--timeout", type=time_limit.option, default=None, metavar="S",
                       help=f"seconds each test may take (default: the lab's own, else "
                            f"{TIME_LIMIT:g}, as the grader gives; above 0, at most a day)")
    notebooks = commands.add_parser(
        "notebooks", help="write the student notebook of every lesson into a folder, to work "
                          "through on your own in Jupyter")
    notebooks.set_defaults(run=_notebooks)
    notebooks.add_argument("folder", type=Path, metavar="DIR",
                           help="where the notebooks go (made if missing; a notebook already "
                                "there is kept)")
    for name, what, run in (("starter", "the file a lab starts from", _starter),
                            ("solution", "a lab's solution, once it is published", _solution)):
        printer = commands.add_parser(name, help=f"print {what}")
        printer.set_defaults(run=run)
        printer.add_argument("lab")
    _course_parser(commands)
    _hub_parser(commands)
    _lab_parser(commands)
    return parser


def _lab_parser(commands: argparse._SubParsersAction) -> None:
    lab = commands.add_parser("lab", help="for a lab's author: write a lab, prove its tests")
    lab_commands = lab.add_subparsers(dest="lab_command", required=True, metavar="COMMAND")
    new = lab_commands.add_parser(
        "new", help="write a working lab folder to edit: lab.toml, reference.py, tests.py "
                    "and notebook.md")
    new.set_defaults(run=_lab_new)
    new.add_argument("lab", metavar="ID", help="the lab's id, the folder's name (retry-backoff)")
    new.add_argument("--in", dest="pack", type=Path, default=Path("."), metavar="DIR",
                     help="the course pack to write it into (default: this folder)")
    ship = lab_commands.add_parser(
        "ship", help="write the students' copy of the course packs' labs into a folder, for "
                     "students' $AGENTLAB_LABS: each lab's starter, tests and questions, no "
                     "reference and no held-back tests")
    ship.set_defaults(run=_lab_ship)
    ship.add_argument("--to", type=Path, required=True, metavar="DIR", help="the folder to write")
    verify = lab_commands.add_parser(
        "verify", help="check labs before they ship: the reference passes, the starter fails, "
                       "every test has its sentence, the notebook builds, and no plausible "
                       "one-edit mutant of the reference passes every test")
    verify.set_defaults(run=_lab_verify)
    for parser, every in ((ship, "of the packs"), (verify, "of the course")):
        parser.add_argument("labs", nargs="*", metavar="LAB",
                            help=f"lab ids or lab folders (default: every lab {every})")


def _hub_parser(commands: argparse._SubParsersAction) -> None:
    from agentlab_magics.hub import defaults
    hub = commands.add_parser("hub", help="the course on a JupyterHub")
    hub_commands = hub.add_subparsers(dest="hub_command", required=True, metavar="COMMAND")
    demo = hub_commands.add_parser(
        "demo", help="as root: make the course's users, lay out nbgrader's exchange and start "
                     "JupyterHub on 127.0.0.1 until Ctrl-C")
    demo.set_defaults(run=_hub_demo)
    demo.add_argument("--folder", type=Path, default=defaults.FOLDER, metavar="DIR",
                      help=f"the hub's own folder (default: {defaults.FOLDER})")
    demo.add_argument("--port", type=int, default=defaults.PORT,
                      help=f"where the hub answers on 127.0.0.1 (default: {defaults.PORT})")
    demo.add_argument("--instructor", default=defaults.INSTRUCTOR, metavar="USER",
                      help=f"the instructor's user name (default: {defaults.INSTRUCTOR})")
    demo.add_argument("--students", type=_students, default=list(defaults.STUDENTS),
                      metavar="N|A,B",
                      help="how many students (named student01, student02...), or their "
                           f"user names (default: {','.join(defaults.STUDENTS)})")
    demo.add_argument("--memory", type=_positive(int), default=defaults.MEMORY_MB, metavar="MB",
                      help="each student's server's memory, its kernels' and checks' with it "
                           f"(default: {defaults.MEMORY_MB})")
    demo.add_argument("--cpus", type=_positive(float), default=defaults.CPUS,
                      help=f"each student's server's CPUs (default: {defaults.CPUS:g})")
    demo.add_argument("--cull-after", type=_positive(int), default=defaults.CULL_AFTER_S,
                      metavar="SECONDS",
                      help="stop a server idle this long; its files stay (default: "
                           f"{defaults.CULL_AFTER_S})")
    demo.add_argument("--password", help="everyone's password (default: a new one, printed)")
    demo.add_argument("--clean", type=Path, metavar="FOLDER",
                      help="start nothing: remove what a hub demo laid out in FOLDER (the users "
                           "it made, with their homes and processes, and the folder)")
    demo.add_argument("--instructor-package", type=Path, metavar="DIR",
                      help="the folder holding agentlab_instructor (default: where this "
                           "Python finds it)")


def _students(text: str) -> list[str]:
    """`--students`: a count (student1 ... studentN) or names separated by commas."""
    if text.isdigit():
        width = len(text)
        return [f"student{number:0{width}d}" for number in range(1, int(text) + 1)]
    return [name for name in text.split(",") if name]


def _positive(kind: type):
    def parse(text: str):
        value = kind(text)
        if value <= 0:
            raise argparse.ArgumentTypeError(f"{text} is not above 0")
        return value
    parse.__name__ = kind.__name__  # argparse names the type in its sentence
    return parse


def _course_parser(commands: argparse._SubParsersAction) -> None:
    from agentlab_magics.demos import STUDENTS

    course = commands.add_parser("course", help="the nbgrader course")
    course_commands = course.add_subparsers(dest="course_command", required=True,
                                            metavar="COMMAND")
    init = course_commands.add_parser(
        "init", help="write a new course folder (nbgrader_config.py and every source "
                     "notebook) from the installed package")
    init.set_defaults(run=_course_init)
    init.add_argument("folder", type=Path, metavar="DIR", help="the new course folder")
    build = course_commands.add_parser(
        "build", help="write the course's nbgrader source notebooks from the course data")
    build.set_defaults(run=_course_build)
    build.add_argument("--course", type=Path, default=Path("nbgrader_course"), metavar="DIR",
                       help="the course folder (default: ./nbgrader_course)")
    build.add_argument("--check", action="store_true",
                       help="write nothing; exit 1 naming the files that are out of date")
    build.add_argument("--starters", type=Path, metavar="DIR",
                       help="the built-in labs' folders their starters and reference runs go "
                            "into (default: the student package's own "
                            "agentlab_magics/course/labs)")
    publish = course_commands.add_parser(
        "publish-solution", help="write a lab's reference into the folder of published "
                                 "solutions that students' $AGENTLAB_SOLUTIONS names")
    publish.set_defaults(run=_publish_solution)
    publish.add_argument("lab", help="a lab id, such as lesson3")
    publish.add_argument("--to", type=Path, metavar="DIR",
                         help="the folder (default: $AGENTLAB_SOLUTIONS)")
    paced = course_commands.add_parser(
        "self-paced-solutions", help="write every lab's solution into a folder for students "
                                     "working alone (their $AGENTLAB_SOLUTIONS): %%solution "
                                     "shows one once its lab was checked")
    paced.set_defaults(run=_self_paced_solutions)
    paced.add_argument("folder", type=Path, metavar="DIR")
    grade = course_commands.add_parser(
        "autograde", help="autograde an assignment's submissions in parallel on Dask and "
                          "merge them into the course's gradebook")
    grade.set_defaults(run=_course_autograde)
    grade.add_argument("assignment", help="the assignment, as nbgrader names it (lesson3)")
    grade.add_argument("--course", type=Path, default=Path("."), metavar="DIR",
                       help="the course folder, holding nbgrader_config.py (default: .)")
    grade.add_argument("--students", type=lambda text: [s for s in text.split(",") if s],
                       metavar="A,B", help="only these students (default: every submission)")
    grade.add_argument("--workers", type=int, metavar="N",
                       help="worker processes of a local cluster (default: none, grading "
                            "in this process, for a class too small to pay for a cluster's "
                            "start-up; else one per submission to grade, up to one per core)")
    grade.add_argument("--scheduler", metavar="ADDRESS",
                       help="grade on the Dask cluster of this scheduler (tcp://HOST:8786) "
                            "instead of a local one")
    grade.add_argument("--force", action="store_true",
                       help="grade again even the submissions that did not change")
    grade.add_argument("--without-sandbox", action="store_true",
                       help="grade even on workers that can make no sandbox (`agentlab course "
                            "sandbox` says 'none'): not for credit, and the summary says so")
    course_commands.add_parser(
        "sandbox", help="say which grading sandbox this machine gives and what it holds back"
    ).set_defaults(run=_sandbox)
    wheel = course_commands.add_parser(
        "wheel", help="build the wheel students install (every starter, no solution) from "
                      "this checkout")
    wheel.set_defaults(run=_course_wheel)
    wheel.add_argument("--to", type=Path, default=Path("."), metavar="DIR",
                       help="where the wheel goes (default: .)")
    report = course_commands.add_parser(
        "report", help="write the class report: an offline HTML page of what the class gets "
                       "wrong, how it answered, where each student stands")
    report.add_argument("assignments", nargs="*", metavar="ASSIGNMENT",
                        help="the assignments to report on (default: every one graded)")
    report.add_argument("--course", type=Path, default=Path("."), metavar="DIR",
                        help="the course folder, holding nbgrader_config.py (default: .)")
    report.add_argument("--out", type=Path, default=Path("class-report"), metavar="DIR",
                        help="where the page goes (default: ./class-report)")
    report.set_defaults(run=_course_report)
    export = course_commands.add_parser(
        "export", help="write the grades as a CSV file an LMS gradebook imports, leaving out "
                       "(and naming) each student it could not take safely",
        description="A row goes in only for a student with a grade in every assignment of the "
                    "file and the id the LMS matches by; everyone else is left out and named, "
                    "one sentence per reason. --check writes nothing and exits 1 if anyone "
                    "with grades would be left out.")
    export.set_defaults(run=_course_export)
    export.add_argument("--to", required=True, choices=("canvas", "moodle"),
                        help="the LMS whose gradebook import the file is for")
    export.add_argument("file", type=Path, nargs="?", metavar="FILE",
                        help="the CSV file to write (none with --check)")
    export.add_argument("--id-from", metavar="ID",
                        help="the id the LMS knows each student by: for Canvas canvas-id (its "
                             "own user id, nbgrader's lms_user_id) or sis-login (the nbgrader "
                             "id; the default); for Moodle idnumber (the nbgrader id; the "
                             "default), username (the nbgrader id) or email")
    export.add_argument("--assignment", action="append", default=[], metavar="NAME",
                        help="export only this assignment (repeat for more; default: every "
                             "one in the gradebook)")
    export.add_argument("--roster", type=Path, metavar="CSV",
                        help="the LMS's own CSV export of its students (Canvas: the gradebook "
                             "export; Moodle: the participants): leave out whom it lacks, and "
                             "name the assignments Canvas would make anew")
    export.add_argument("--check", nargs="?", const=True, default=False, metavar="ROSTER",
                        help="write nothing: say who would go in, who would be left out and "
                             "why (against ROSTER, the LMS's export of its students, when "
                             "given, as --roster); exit 1 if anyone with grades would be left "
                             "out")
    export.add_argument("--course", type=Path, default=Path("."), metavar="DIR",
                        help="the course folder, holding nbgrader_config.py (default: .)")
    demo = course_commands.add_parser(
        "demo", help="release, hand in, autograde and give feedback on the whole course "
                     "with simulated students, through nbgrader's command line")
    demo.set_defaults(run=_course_demo)
    demo.add_argument("--course", type=Path, metavar="DIR",
                      help="the course folder (default: ./nbgrader_course where there is one, "
                           "else a new course written from the installed package)")
    demo.add_argument("--keep", type=Path, metavar="DIR",
                      help="work in DIR (new or empty) and keep it, instead of a temporary folder")
    demo.add_argument("--report", type=Path, default=Path("class-report"), metavar="DIR",
                      help="where the class report of the demo's term goes (default: "
                           "./class-report)")
    demo.add_argument("--students", nargs="+", choices=STUDENTS, default=list(STUDENTS),
                      metavar="NAME", help=f"who hands in (default: all of {', '.join(STUDENTS)})")


def entry() -> int:
    """The console command: `main`, and quiet when its reader goes away (`agentlab … | head`)."""
    try:
        code = main()
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def main(argv: list[str] | None = None) -> int:
    """Run one command; the exit code is 0 on success, 1 on a failed check (or a course demo
    that nbgrader could not finish), 2 on bad usage or a harness that could not be checked.
    A command refuses with a Problem, which carries its exit code and says in one sentence
    what to do."""
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except Problem as exc:
        print(f"agentlab: {exc}", file=sys.stderr)
        return exc.exit_code


@contextmanager
def _writing(what: str, folder: Path) -> Iterator[None]:
    """An OSError while writing `what` into `folder` becomes the UsageProblem saying so."""
    try:
        yield
    except OSError as exc:
        raise UsageProblem(f"cannot write {what} into {folder}: {exc.strerror or exc}"
                           ) from None


def _labs(args: argparse.Namespace) -> int:
    from agentlab_magics.course import labs

    for lab in labs().values():
        print(f"{lab.id:18} {lab.title}  (you write: {', '.join(lab.names)})")
    return 0


def _starter(args: argparse.Namespace) -> int:
    from agentlab_magics.course import find_lab

    print(find_lab(args.lab).starter, end="")
    return 0


def _lab_new(args: argparse.Namespace) -> int:
    from agentlab_magics.authoring.new_lab import new_lab

    with _writing("the lab", args.pack):
        written = new_lab(args.lab, args.pack)
    folder = written[0].parent
    print(f"Wrote the lab {args.lab} into {folder}: {', '.join(p.name for p in written)}.")
    print(f"Prove it with `agentlab lab verify {folder}`; check a harness with `%%check "
          f"{args.lab}` once {args.pack} is on $AGENTLAB_LABS.")
    return 0


def _named_labs(names: list[str]) -> list[str]:
    """The ids of the labs `names` gives: lab ids, or lab folders (found from now on)."""
    from agentlab_magics.course import find_lab
    from agentlab_magics.course.packs import include

    return [include(Path(name)) if Path(name).is_dir() else find_lab(name).id for name in names]


def _lab_ship(args: argparse.Namespace) -> int:
    from agentlab_magics.checking.runner import copy_runs_text
    from agentlab_magics.course import find_lab, labs
    from agentlab_magics.course.packs import ship_labs

    named = [find_lab(lab_id) for lab_id in _named_labs(args.labs)]
    with _writing("the students' copy", args.to):
        written = ship_labs(named or list(labs().values()), args.to, copy_runs_text)
    for folder in written:
        print(f"wrote {folder}")
    if not written:
        print("No lab of a course pack to ship: the built-in labs travel in the package.")
    return 0


def _lab_verify(args: argparse.Namespace) -> int:
    """Each lab's survivors (the line, the edit), its problems, then its count in a line a
    script can read; exit 1 where a mutant survived or a problem was found."""
    from agentlab_magics.authoring.verify import verify
    from agentlab_magics.course import labs

    failed = False
    for lab_id in _named_labs(args.labs) or list(labs()):
        found = verify(lab_id)
        for mutant in found.survivors:
            print(f"{lab_id}: line {mutant.line} ({mutant.function}): {mutant.before} -> "
                  f"{mutant.after}: no test tells these apart")
        for problem in found.problems:
            print(f"{lab_id}: {problem}")
        print(found.line())
        failed = failed or not found.passed
    return 1 if failed else 0


def _sandbox(args: argparse.Namespace) -> int:
    from agentlab_magics.grading.sandbox import describe, detect, what_it_gives

    print(describe(detect()))
    print("\nWhat this machine gives the sandbox:")
    print("\n".join(f"  {line}" for line in what_it_gives()))
    return 0


def _check(args: argparse.Namespace) -> int:
    from agentlab_magics.checking.runner import run
    from agentlab_magics.checking.text_report import render
    from agentlab_magics.course import find_lab

    lab = find_lab(args.lab)
    harness = Path(args.harness)
    if not harness.is_file():  # a usage error: the file to check is not there to read
        from agentlab_magics.checking.cell_source import CodeProblem, read_source

        try:
            read_source(harness)
        except CodeProblem as exc:
            raise UsageProblem(str(exc)) from None
    report = run(lab.id, args.harness, timeout=args.timeout)
    print(report.model_dump_json(indent=2) if args.json else render(report))
    if report.problem is None:
        _record_check(report)
    if report.problem:  # nothing was checked: the file is to fix first (a syntax error)
        return 2
    return 0 if report.all_passed else 1


def _record_check(report: CheckReport) -> None:
    """Count the check in the progress store, as %%check does (so a self-paced solution opens
    after it); a store that cannot be written is said on stderr, and the check's exit code
    stays the report's."""
    from agentlab_magics.progress.store import ProgressStore

    store = ProgressStore()
    store.record_check(report)
    notice = store.take_notice()
    if notice:
        print(f"agentlab: {notice}", file=sys.stderr)


def _demo(args: argparse.Namespace) -> int:
    from agentlab_magics import four_runs

    four_runs.show()
    return 0


def _solution(args: argparse.Namespace) -> int:
    """The lab's solution, as %solution shows it: the help is recorded in the progress store
    first, so the map says "built with help", as docs/instructors.md promises."""
    from agentlab_magics.course import find_lab
    from agentlab_magics.notebook import open_solution
    from agentlab_magics.progress.store import ProgressError

    try:
        shown = open_solution(find_lab(args.lab).id)
    except ProgressError as exc:
        raise Problem(str(exc)) from None
    if isinstance(shown, str):
        raise Problem(shown)
    print(shown.code, end="")
    return 0


def _publish_solution(args: argparse.Namespace) -> int:
    from agentlab_magics.course.solutions import ENV, publish, published_folder

    folder = args.to or published_folder()
    if folder is None:
        raise UsageProblem(f"say where to publish: --to DIR, or set ${ENV}")
    with _writing("the solution", folder):
        print(f"published {publish(args.lab, folder)}")
    return 0


def _self_paced_solutions(args: argparse.Namespace) -> int:
    from agentlab_magics.course.solutions import ENV, publish_self_paced

    with _writing("the solutions", args.folder):
        written = publish_self_paced(args.folder)
    print(f"wrote {len(written)} files into {args.folder}. A student working alone sets "
          f"{ENV}={args.folder}; `%solution LAB` then shows a lab's solution once its "
          "`%%check` has run.")
    return 0


def _hub_demo(args: argparse.Namespace) -> int:
    from agentlab_magics.demos.hub import run
    from agentlab_magics.hub.plan import HubPlan
    from agentlab_magics.hub.recipe import clean

    if args.clean:
        for gone in clean(args.clean):
            print(f"removed {gone}")
        return 0
    given = {"password": args.password} if args.password else {}
    plan = HubPlan(folder=args.folder, port=args.port, instructor=args.instructor,
                   students=args.students, instructor_package=args.instructor_package,
                   memory_mb=args.memory, cpus=args.cpus, cull_after_s=args.cull_after, **given)
    return run(plan, sys.stdout)


def _notebooks(args: argparse.Namespace) -> int:
    from agentlab_magics.making import notebooks

    with _writing("the notebooks", args.folder):
        written, kept = notebooks.build_student(args.folder)
    for path in written:
        print(f"wrote {path}")
    for path in kept:
        print(f"kept {path}: it was there already, and may hold your work")
    print(f"Next: `jupyter lab {args.folder}`, open lesson1, and run its cells; each `%%check` "
          "cell checks your code.")
    return 0


def _course_init(args: argparse.Namespace) -> int:
    from agentlab_magics.making.new_course import init

    for path in init(args.folder):
        print(f"wrote {path}")
    print(f"Next: `cd {args.folder} && nbgrader generate_assignment lesson1 && nbgrader "
          "release_assignment lesson1` (docs/instructors.md has the rest).")
    return 0


def _course_build(args: argparse.Namespace) -> int:
    """The starters first, then the notebooks (a demonstration cell may show a starter)."""
    from agentlab_magics.course.instructor import instructor_module
    from agentlab_magics.course.starter_files import BUILT_IN
    from agentlab_magics.making import notebooks, shipped
    from agentlab_magics.term.course_folder import require_course

    starters = args.starters or BUILT_IN
    instructor_module("lab_files", "`agentlab course build`")
    if args.check:
        return _course_check(args.course, starters)
    require_course(args.course)
    written = (shipped.build(starters) + shipped.build_parts()
               + notebooks.build(args.course))
    for path in written:
        print(f"wrote {path}")
    return 0


def _course_wheel(args: argparse.Namespace) -> int:
    from agentlab_magics.making.student_wheel import build

    with _writing("the wheel", args.to):
        built = build(args.to)
    print(f"wrote {built}")
    print(f"Students install it with `pip install {built.name} jupyterlab` (README.md, For "
          "students).")
    return 0


def _course_check(course: Path, starters: Path) -> int:
    from agentlab_magics.making import notebooks, shipped

    stale = {course: notebooks.stale(course), starters: shipped.stale(starters)}
    for path in shipped.stale_parts():
        stale.setdefault(path.parent, []).append(path.name)
    for folder, names in stale.items():
        if names:
            print(f"Out of date in {folder}: {', '.join(names)}. Run `agentlab course build` "
                  "and commit them.")
    if any(stale.values()):
        return 1
    print(f"The notebooks in {course / 'source'} and the starters in {starters} are up to date.")
    return 0


def _course_autograde(args: argparse.Namespace) -> int:
    """0 when every submission was graded (or had not changed), 1 when any failed, 2 on a
    course that cannot be graded, 130 on Ctrl-C (what was merged stays merged)."""
    from agentlab_magics.term.nbgrader_cli import require_nbgrader

    require_nbgrader()
    from agentlab_magics.grading.batch import BatchStopped, autograde_course

    try:
        summary = autograde_course(args.course, args.assignment, students=args.students,
                                   workers=args.workers, scheduler=args.scheduler,
                                   force=args.force, progress=sys.stderr,
                                   without_sandbox=args.without_sandbox)
    except BatchStopped as stopped:
        print(stopped.summary.render())
        print(f"Stopped. What was merged stays merged; run the same command again to grade "
              f"the rest. Summary: {stopped.summary.path}")
        return 130
    print(summary.render())
    print(f"Summary: {summary.path}")
    return 1 if summary.count("failed") else 0


def _demo_report(course: Path, out: Path) -> Path:
    """The class report of the demo's term, written to `out` before its folder goes."""
    from agentlab_magics.term.class_page import write_class_page

    return write_class_page(course, out)


def _course_report(args: argparse.Namespace) -> int:
    from agentlab_magics.term.class_page import write_class_page
    from agentlab_magics.term.nbgrader_cli import require_nbgrader

    require_nbgrader()
    page = write_class_page(args.course, args.out, args.assignments)
    print(f"The class report is in {page}: open it in a browser (it needs no network).")
    return 0


def _course_export(args: argparse.Namespace) -> int:
    """`nbgrader export` with the LMS's exporter, run in the course folder, then who it left
    out and why; with --check it writes nothing, and exits 1 if anyone with grades would be
    left out."""
    from agentlab_magics.term.lms import LMSES
    from agentlab_magics.term.lms_export import ExportRequest, run_export, sentences, summary
    from agentlab_magics.term.nbgrader_cli import require_nbgrader

    require_nbgrader()
    lms = LMSES[args.to]
    target = None if args.check else _export_target(args.file, args.to)
    roster = _roster(args.roster, args.check)
    plan = run_export(args.course, ExportRequest(
        lms=args.to, id_from=args.id_from or lms.default, assignments=args.assignment,
        file=target, roster=roster))
    if target is not None and not plan.ids:
        print("\n".join(sentences(plan)))
        raise Problem(f"Wrote no file: no student's grades can go to {lms.name} (see above).")
    print("\n".join([summary(plan, args.file if target else None), *sentences(plan)]))
    return 1 if args.check and not plan.complete else 0


def _roster(roster: Path | None, check: bool | str) -> Path | None:
    """The roster an export is held to: --roster's, or --check's; UsageProblem for two."""
    checked = Path(check) if isinstance(check, str) else None
    if roster is not None and checked is not None and roster.resolve() != checked.resolve():
        raise UsageProblem(f"Give one roster: --roster {roster} or --check {checked}.")
    given = roster or checked
    return given.resolve() if given else None


def _export_target(file: Path | None, lms: str) -> Path:
    """The file an export writes, resolved; UsageProblem where none is named or it cannot be
    written."""
    if file is None:
        raise UsageProblem(f"Say which file to write, such as {lms}-grades.csv (or --check to "
                           "write none).")
    target = file.resolve()
    if not target.parent.is_dir():
        raise UsageProblem(f"There is no folder {target.parent} to write {file.name} in: "
                           "make it first, or give a file in a folder that exists.")
    if target.is_dir():
        raise UsageProblem(f"{file} is a folder: give the CSV file to write, such as "
                           f"{file / f'{lms}-grades.csv'}.")
    return target


def _course_demo(args: argparse.Namespace) -> int:
    import contextlib
    import tempfile

    from agentlab_magics.demos import HANDS_IN
    from agentlab_magics.demos.term import run_demo
    from agentlab_magics.making.new_course import course_or_new
    from agentlab_magics.term.nbgrader_cli import require_nbgrader

    require_nbgrader()
    kept = contextlib.nullcontext(args.keep) if args.keep else tempfile.TemporaryDirectory(
        prefix="agentlab-course-")
    with kept as folder, tempfile.TemporaryDirectory(prefix="agentlab-course-new-") as new:
        course = course_or_new(args.course, Path(new) / "course")
        run = run_demo(course, Path(folder), args.students)
        report = _demo_report(Path(folder) / "course", args.report)
    print(run.table.render())
    print("\nWho handed in what:")
    for student in run.table.students:
        print(f"  {student:<10} {HANDS_IN[student]}")
    students, assignments = len(run.table.students), len(run.table.assignments)
    print(f"\n{students} student{'s' * (students != 1)} handed in {assignments} "
          f"assignment{'s' * (assignments != 1)}, graded by nbgrader in {run.seconds:.0f} s.")
    from agentlab_magics.grading.sandbox import detect

    mode = detect()
    print(f"Sandbox mode {mode!r}" + (": none could be made here, so the simulated students "
                                       "ran as you (`agentlab course sandbox` says why)."
                                       if mode == "none" else "."))
    print(f"The class report of this term is in {report} (outside the demo's folder, so "
          "it stays): open it in a browser.")
    if args.keep:
        print(f"Everything is kept in {args.keep}: the feedback pages are in "
              f"{args.keep / 'course' / 'feedback'}, each command's log in {args.keep / 'logs'}.")
    else:
        print(f"The demo's folder ({folder}) is gone; run it with --keep DIR to keep the "
              "course, the feedback pages and the logs.")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
