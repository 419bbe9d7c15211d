"""The `agentlab` command (also `python -m agentlab_magics`). Thin: parse, call a service, print."""

from __future__ import annotations

import argparse
import sys


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
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; the exit code is 0 on success, 1 on a failed check, 2 on bad usage."""
    args = build_parser().parse_args(argv)
    if args.command == "demo":
        from agentlab_magics import demo

        demo.run()
        return 0
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


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
