"""The `agentlab` command (also `python -m agentlab_magics`). Thin: parse, call a service, print."""

from __future__ import annotations

import argparse
import sys


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="agentlab", description=(
        "Build an LLM agent loop lesson by lesson, and check it."))
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands.add_parser("demo", help="play four runs of the reference harness and judge them")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; the exit code is 0 on success, 1 on a failed check, 2 on bad usage."""
    args = build_parser().parse_args(argv)
    if args.command == "demo":
        from agentlab_magics import demo

        demo.run()
        return 0
    return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
