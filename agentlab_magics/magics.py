"""The IPython magics. Thin: parse the line, call a service in `notebook`, display the result.

Loading the extension imports only this module: the services, the checker and the views (and
with them pydantic and pytest) load the first time a magic runs.
"""

from __future__ import annotations

import argparse
import shlex

from IPython.core.magic import Magics, line_cell_magic, line_magic, magics_class
from IPython.display import display


class UsageError(Exception):
    """A magic's line could not be read; the message says how to write it."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):
        raise UsageError(f"{self.prog}: {message}. Usage: {self.format_usage().strip()}")


def _parser(prog: str) -> _Parser:
    return _Parser(prog=prog, add_help=False)


CHECK = _parser("%%check")
CHECK.add_argument("lab")
CHECK.add_argument("--timeout", type=float)
CHECK.add_argument("--quiet", action="store_true")

QUESTION = _parser("%question")
QUESTION.add_argument("id")
QUESTION.add_argument("--answer")
QUESTION.add_argument("--static", action="store_true")

TRANSCRIPT = _parser("%transcript")
TRANSCRIPT.add_argument("expression", nargs="+")
TRANSCRIPT.add_argument("--request", action="store_true")
TRANSCRIPT.add_argument("--static", action="store_true")


@magics_class
class AgentLabMagics(Magics):
    """%%check, %check, %transcript, %question, %solution, %progress."""

    def _say(self, text: str) -> None:
        print(text)

    def _parse(self, parser: _Parser, line: str) -> argparse.Namespace | None:
        try:
            return parser.parse_args(shlex.split(line))
        except (UsageError, ValueError) as exc:
            self._say(str(exc))
            return None

    @line_cell_magic
    def check(self, line: str, cell: str | None = None):
        """%%check LAB [--timeout S] [--quiet]: run the cell as your harness and check it.
        %check LAB: check the names this notebook has already defined."""
        args = self._parse(CHECK, line)
        if args is None:
            return
        from agentlab_magics import notebook
        from agentlab_magics.course import UnknownLab

        try:
            if cell is None:
                report = notebook.check_names(args.lab, self.shell.user_ns, timeout=args.timeout)
            else:
                report = notebook.check_cell(args.lab, cell, self.shell.user_ns,
                                             timeout=args.timeout)
        except UnknownLab as exc:
            self._say(str(exc))
            return
        if args.quiet:
            self._say(report.summary())
        else:
            from agentlab_magics.widgets import ReportView

            display(ReportView(report))

    @line_magic
    def transcript(self, line: str):
        """%transcript EXPR [--request] [--static]: draw a list of messages, or a request."""
        args = self._parse(TRANSCRIPT, line)
        if args is None:
            return
        expression = " ".join(args.expression)
        try:
            source = eval(expression, self.shell.user_ns)
        except Exception as exc:
            self._say(f"%transcript could not evaluate {expression!r}: {type(exc).__name__}: {exc}")
            return
        from agentlab_magics.widgets import Transcript

        display(Transcript(source, static=args.static,
                           view="request" if args.request else "record"))

    @line_magic
    def question(self, line: str):
        """%question ID [--answer X] [--static]: a diagnosis question; commit an answer (a
        letter, or your own words in quotes) to read why each option is right or wrong."""
        args = self._parse(QUESTION, line)
        if args is None:
            return
        from agentlab_magics import notebook
        from agentlab_magics.course.questions import UnknownQuestion
        from agentlab_magics.widgets.question_view import QuestionView

        try:
            asked = notebook.ask(args.id, args.answer)
        except UnknownQuestion as exc:
            self._say(str(exc))
            return
        display(QuestionView(asked, static=args.static,
                             commit=lambda answer: notebook.ask(args.id, answer)))

    @line_magic
    def solution(self, line: str):
        """%solution LAB: show the lab's reference; the map then says "built with help"."""
        from agentlab_magics import notebook
        from agentlab_magics.course import UnknownLab

        try:
            reference = notebook.open_solution(line.strip())
        except UnknownLab as exc:
            self._say(str(exc))
            return
        self._say(reference)

    @line_magic
    def progress(self, line: str):
        """%progress: the syllabus map; %progress export FILE; %progress import FILE."""
        from agentlab_magics import notebook
        from agentlab_magics.progress import ProgressStore
        from agentlab_magics.progress.store import ProgressError

        words = shlex.split(line)
        store = ProgressStore()
        if store.notice:
            self._say(store.notice)
        try:
            if words[:1] == ["export"] and len(words) == 2:
                self._say(f"Progress exported to {store.export(words[1])}.")
            elif words[:1] == ["import"] and len(words) == 2:
                self._say(f"Imported progress for {store.import_(words[1])} lab(s).")
            elif not words:
                from agentlab_magics.widgets.progress_view import ProgressView

                display(ProgressView(notebook.syllabus(store)))
            else:
                self._say("Usage: %progress, %progress export FILE, or %progress import FILE.")
        except ProgressError as exc:
            self._say(str(exc))


def register(ipython) -> None:
    """Register the magics on `ipython`; doing it twice changes nothing."""
    ipython.register_magics(AgentLabMagics)


def unregister(ipython) -> None:
    manager = ipython.magics_manager
    for kind in ("line", "cell"):
        for name in ("check", "transcript", "question", "solution", "progress"):
            manager.magics[kind].pop(name, None)
