"""The IPython magics. Thin: parse the line, call a service in `notebook`, display the result.

Loading the extension imports only this module: the services, the checker and the views (and
with them pydantic and pytest) load the first time a magic runs.
"""

from __future__ import annotations

import argparse
import re
import shlex
from typing import TYPE_CHECKING

from IPython.core.magic import Magics, line_cell_magic, line_magic, magics_class
from IPython.display import display

from agentlab_magics.checking import time_limit

if TYPE_CHECKING:
    from agentlab_magics.progress import ProgressStore


class UsageError(Exception):
    """A magic's line could not be read; the message says how to write it."""


class _Parser(argparse.ArgumentParser):
    def usage_sentence(self) -> str:
        """'Usage: %%check [--timeout TIMEOUT] [--quiet] lab', for the end of a sentence."""
        return "Usage: " + self.format_usage().strip().removeprefix("usage: ")

    def error(self, message: str):
        raise UsageError(f"{self.prog}: {message}. {self.usage_sentence()}")


def _parser(prog: str) -> _Parser:
    return _Parser(prog=prog, add_help=False)


def split_line(prog: str, line: str, usage: str) -> list[str]:
    """The line's words as a shell splits them. A quote left open, or a backslash at the end,
    is a UsageError saying which and how to write it (then `usage`), never shlex's ValueError."""
    try:
        return shlex.split(line)
    except ValueError:
        raise UsageError(f"{prog}: {unsplittable(line)} {usage}") from None


def unsplittable(line: str) -> str:
    """Why a shell could not split `line`, and how to write it instead."""
    quote = open_quote(line)
    if quote == "'":
        return ("the line opens a ' quote and never closes it: close it, or, if it is an "
                "apostrophe, put the words in double quotes (\"it's\").")
    if quote == '"':
        return ('the line opens a " quote and never closes it: put the closing " after the '
                "last word.")
    return ("the line ends with a backslash (\\) that escapes nothing: remove it, or write "
            "\\\\ for a backslash.")


def open_quote(line: str) -> str | None:
    """The quote character a POSIX shell would still be inside at the end of `line`, if any."""
    quote: str | None = None
    escaped = False
    for char in line:
        if escaped:
            escaped = False
        elif char == "\\" and quote != "'":
            escaped = True
        elif quote is None and char in "'\"":
            quote = char
        elif char == quote:
            quote = None
    return quote


CHECK = _parser("%%check")
CHECK.add_argument("lab")
CHECK.add_argument("--timeout", type=time_limit.option)
CHECK.add_argument("--quiet", action="store_true")

QUESTION = _parser("%question")
QUESTION.add_argument("id")
QUESTION.add_argument("--answer")
QUESTION.add_argument("--static", action="store_true")

TRANSCRIPT_USAGE = ("Usage: %transcript EXPR|PATH [--request] [--static] "
                    "[--diff [EXPR|PATH]]")
TRANSCRIPT_FLAG = re.compile(r"(?<!\S)--(request|static)(?!\S)")
DIFF = re.compile(r"(?<!\S)--diff(?!\S)")
OTHER_OPTION = re.compile(r"(?<!\S)--[A-Za-z][\w-]*")


def transcript_args(line: str) -> tuple[str, set[str], str | None]:
    """The Python expression (exactly as written: its quotes are Python's, not a shell's), the
    flags given, and what --diff compares it with: an expression, "" for its own request, or
    None without --diff; UsageError for no expression or an option %transcript does not have."""
    flags = set(TRANSCRIPT_FLAG.findall(line))
    rest = TRANSCRIPT_FLAG.sub(" ", line)
    unknown = OTHER_OPTION.search(DIFF.sub(" ", rest))
    if unknown:
        raise UsageError(f"%transcript: there is no option {unknown.group()}. {TRANSCRIPT_USAGE}")
    expression, *other = (part.strip() for part in DIFF.split(rest, maxsplit=1))
    if not expression:
        raise UsageError(f"%transcript: give the messages to draw. {TRANSCRIPT_USAGE}")
    return expression, flags, other[0] if other else None


PROGRESS_USAGE = "Usage: %progress, %progress export FILE, or %progress import FILE."


@magics_class
class AgentLabMagics(Magics):
    """%%check, %check, %transcript, %question, %solution, %progress."""

    def _say(self, text: str) -> None:
        print(text)

    def _namespace(self) -> dict:
        """The notebook's names (a magic always runs in a shell)."""
        assert self.shell is not None, "IPython registers the magics with its shell"
        return self.shell.user_ns

    def _parse(self, parser: _Parser, line: str) -> argparse.Namespace | None:
        """The line's options, or None once a sentence has said what is wrong with it."""
        try:
            return parser.parse_args(split_line(parser.prog, line, parser.usage_sentence()))
        except UsageError as exc:
            self._say(str(exc))
            return None

    def _store(self) -> ProgressStore:
        """The progress store, loaded now; loading never raises (see `_notice`)."""
        from agentlab_magics.progress import ProgressStore

        return ProgressStore()

    def _notice(self, store: ProgressStore) -> None:
        """Say the store's notice (a file set aside, progress not saved) once, if it has one."""
        notice = store.take_notice()
        if notice:
            self._say(notice)

    @line_cell_magic
    def check(self, line: str, cell: str | None = None):
        """%%check LAB [--timeout S] [--quiet]: run the cell as your harness and check it.
        %check LAB: check the names this notebook has already defined. While it runs, a line
        shows each test's mark as it finishes; the report then takes its place."""
        args = self._parse(CHECK, line)
        if args is None:
            return
        from IPython.display import Pretty

        from agentlab_magics import notebook
        from agentlab_magics.course import find_lab
        from agentlab_magics.problems import UsageProblem

        try:  # before anything is shown: an unknown lab (or a lab folder that cannot be
            find_lab(args.lab)  # read) leaves no empty output behind
        except UsageProblem as exc:
            self._say(str(exc))
            return
        store = self._store()
        live = None if args.quiet else display(display_id=True)
        marks = live and notebook.LiveMarks(args.lab, lambda text: live.update(Pretty(text)))
        try:
            if cell is None:
                report = notebook.check_names(args.lab, self._namespace(), timeout=args.timeout,
                                              store=store, on_outcome=marks)
            else:
                report = notebook.check_cell(args.lab, cell, self._namespace(),
                                             timeout=args.timeout, store=store, on_outcome=marks)
        finally:
            if marks:
                marks.close()
            self._notice(store)
        if live is None:
            self._say(report.summary())
        else:
            from agentlab_magics.widgets import ReportView
            from agentlab_magics.widgets.cell_reports import drawn, running_cell

            view = ReportView(report)
            live.update(view)
            drawn(running_cell(), view)

    @line_magic
    def transcript(self, line: str):
        """%transcript EXPR [--request] [--static] [--diff [EXPR]]: draw a list of messages, or
        a request; with --diff, beside another run (or, with no EXPR after it, its request)."""
        try:
            expression, flags, other = transcript_args(line)
        except UsageError as exc:
            self._say(str(exc))
            return
        from agentlab_magics import notebook

        sources = [notebook.drawable(written, self._namespace())
                   for written in filter(None, (expression, other))]
        said = next((source for source in sources if isinstance(source, notebook.Unreadable)),
                    None)
        if said is not None:
            self._say(str(said))
            return
        from agentlab_magics.widgets.cell_reports import drawn, running_cell

        if other is not None:
            shown = notebook.run_diff(sources, (expression, other), static="static" in flags)
            if isinstance(shown, str):
                self._say(shown)
                return
        else:
            from agentlab_magics.widgets import Transcript

            shown = Transcript(sources[0], static="static" in flags,
                               view="request" if "request" in flags else "record")
        display(shown)
        drawn(running_cell(), shown)

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

        store = self._store()
        try:
            asked = notebook.ask(args.id, args.answer, store=store)
        except UnknownQuestion as exc:
            self._notice(store)
            self._say(str(exc))
            return
        display(QuestionView(asked, static=args.static,
                             commit=lambda answer: notebook.ask(args.id, answer, store=store)))

    @line_magic
    def solution(self, line: str):
        """%solution LAB: show the lab's reference under a heading and a warning; the map
        then says "built with help" unless the lab had passed without it."""
        from agentlab_magics import notebook
        from agentlab_magics.course import UnknownLab
        from agentlab_magics.progress.store import ProgressError

        store = self._store()
        try:
            shown = notebook.open_solution(line.strip(), store=store)
        except (UnknownLab, ProgressError) as exc:
            shown = str(exc)
        self._notice(store)
        if isinstance(shown, str):
            self._say(shown)
        else:
            from agentlab_magics.widgets.solution_view import SolutionView

            display(SolutionView(shown))

    @line_magic
    def progress(self, line: str):
        """%progress: the syllabus map; %progress export FILE; %progress import FILE."""
        from agentlab_magics import notebook
        from agentlab_magics.progress.store import ProgressError

        try:
            words = split_line("%progress", line, PROGRESS_USAGE)
        except UsageError as exc:
            self._say(str(exc))
            return
        store = self._store()
        self._notice(store)
        try:
            if words[:1] == ["export"] and len(words) == 2:
                self._say(f"Progress exported to {store.export(words[1])}.")
            elif words[:1] == ["import"] and len(words) == 2:
                self._say(f"Imported progress for {store.import_(words[1])} lab(s).")
            elif not words:
                from agentlab_magics.widgets.progress_view import ProgressView

                display(ProgressView(notebook.syllabus(store)))
            else:
                self._say(PROGRESS_USAGE)
        except ProgressError as exc:
            self._say(str(exc))
        self._notice(store)


def register(ipython) -> None:
    """Register the magics on `ipython`; doing it twice changes nothing."""
    ipython.register_magics(AgentLabMagics)


def unregister(ipython) -> None:
    manager = ipython.magics_manager
    for kind in ("line", "cell"):
        for name in ("check", "transcript", "question", "solution", "progress"):
            manager.magics[kind].pop(name, None)
