"""The errors a command refuses with, each carrying the exit code the command ends with: a
UsageProblem (2) when what was asked cannot be done as asked, and nothing was written; any
other Problem (1) when something failed on the way. Every message is one sentence saying what
to do, and `cli.main` prints it as it is, never a traceback."""

from __future__ import annotations


class Problem(Exception):
    """A command could not finish; the message says why and what to do."""

    exit_code = 1


class UsageProblem(Problem):
    """A command was asked for something it cannot do as asked (a folder that is not there, an
    assignment that does not exist); it wrote nothing."""

    exit_code = 2
