"""The `agentlab` command (also `python -m agentlab_magics`). Thin: parse, call a service, print."""

from __future__ import annotations

import argparse
import sys
import tempfile
from contextlib import nullcontext
from pathlib import Path


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="agentlab", description=(
        "Build an LLM agent loop lesson by lesson, and check it."))
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands.add_parser("demo", help="play four runs of the reference harness and judge them")
    commands.add_parser("labs", help="list the labs")
    check = commands.add_parser("check", help="check a harness file against a lab's tests")
    check.add_argument("lab", help="a lab id, such as lesson6 or checkpoint-a")
    check.add_argument("--harness", required=True, metavar="FILE", help="the file to check")
    check.add_argument("--json", action="store_true", help="print the report as JSON")
    check.add_argument("--timeout", type=float, default=10.0, metavar="S",
                       help="seconds each test may take (default 10)")
    for name, what in (("starter", "the file a lab starts from"),
                       ("solution", "a lab's reference solution")):
        printer = commands.add_parser(name, help=f"print {what}")
        printer.add_argument("lab")
    _course_parser(commands)
    return parser


def _course_parser(commands: argparse._SubParsersAction) -> None:
    from agentlab_magics.course.students import STUDENTS

    course = commands.add_parser("course", help="the nbgrader course")
    course_commands = course.add_subparsers(dest="course_command", required=True,
                                            metavar="COMMAND")
    build = course_commands.add_parser(
        "build", help="write the course's nbgrader source notebooks from the course data")
    build.add_argument("--course", type=Path, default=Path("nbgrader_course"), metavar="DIR",
                       help="the course folder (default: ./nbgrader_course)")
    build.add_argument("--check", action="store_true",
                       help="write nothing; exit 1 naming the notebooks that are out of date")
    demo = course_commands.add_parser(
        "demo", help="release, hand in, autograde and give feedback on the whole course "
                     "with simulated students, through nbgrader's command line")
    demo.add_argument("--course", type=Path, default=Path("nbgrader_course"), metavar="DIR",
                      help="the course folder (default: ./nbgrader_course)")
    demo.add_argument("--keep", type=Path, metavar="DIR",
                      help="work in DIR (new or empty) and keep it, instead of a temporary folder")
    demo.add_argument("--students", nargs="+", choices=STUDENTS, default=list(STUDENTS),
                      metavar="NAME", help=f"who hands in (default: all of {', '.join(STUDENTS)})")


def main(argv: list[str] | None = None) -> int:
    """Run one command; the exit code is 0 on success, 1 on a failed check (or a course demo
    that nbgrader could not finish), 2 on bad usage."""
    args = build_parser().parse_args(argv)
    if args.command == "demo":
        from agentlab_magics import demo

        demo.run()
        return 0
    if args.command == "course" and args.course_command == "build":
        return _course_build(args)
    if args.command == "course" and args.course_command == "demo":
        return _course_demo(args)
    from agentlab_magics.course import UnknownLab, find_lab, labs

    try:
        if args.command == "labs":
            for lab in labs().values():
                print(f"{lab.id:18} {lab.title}  (you write: {', '.join(lab.names)})")
            return 0
        lab = find_lab(args.lab)
    except UnknownLab as exc:
        print(f"agentlab: {exc}", file=sys.stderr)
        return 2
    if args.command in ("starter", "solution"):
        print(lab.starter if args.command == "starter" else lab.reference, end="")
        return 0
    return _check(lab.id, args)


def _check(lab_id: str, args: argparse.Namespace) -> int:
    from agentlab_magics.checking import run
    from agentlab_magics.checking.text_report import render

    if args.timeout <= 0:
        print("agentlab: --timeout must be a positive number of seconds", file=sys.stderr)
        return 2
    report = run(lab_id, args.harness, timeout=args.timeout)
    print(report.model_dump_json(indent=2) if args.json else render(report))
    return 0 if report.all_passed else 1


def _course_build(args: argparse.Namespace) -> int:
    from agentlab_magics.course import notebooks

    if args.check:
        stale = notebooks.stale(args.course)
        if stale:
            print(f"Out of date in {args.course}: {', '.join(stale)}. Run `agentlab course "
                  "build` and commit the notebooks.")
            return 1
        print(f"The notebooks in {args.course / 'source'} are up to date.")
        return 0
    for written in notebooks.build(args.course):
        print(f"wrote {written}")
    return 0


def _course_demo(args: argparse.Namespace) -> int:
    from agentlab_magics.course.nbgrader_cli import (
        NbgraderFailed,
        NbgraderMissing,
        require_nbgrader,
    )

    try:
        require_nbgrader()
    except NbgraderMissing as exc:
        print(f"agentlab: {exc}", file=sys.stderr)
        return 1
    from agentlab_magics.course.demo_course import CourseProblem, run_demo

    kept = nullcontext(args.keep) if args.keep else tempfile.TemporaryDirectory(
        prefix="agentlab-course-")
    with kept as folder:
        try:
            run = run_demo(args.course, Path(folder), args.students)
        except (CourseProblem, NbgraderFailed) as exc:
            print(f"agentlab: {exc}", file=sys.stderr)
            return 2 if isinstance(exc, CourseProblem) else 1
    print(run.table.render())
    print(f"\n{len(run.table.students)} students handed in {len(run.table.assignments)} "
          f"assignments, graded by nbgrader in {run.seconds:.0f} s.")
    if args.keep:
        print(f"Everything is kept in {args.keep}: the feedback pages are in "
              f"{args.keep / 'course' / 'feedback'}, each command's log in {args.keep / 'logs'}.")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
