"""Imported once by the process nbgrader's commands are forked from (`nbgrader_cli.Nbgrader`):
nbgrader's command line, without the imports it never uses, so a command starts warm."""

from agentlab_magics.term.nbgrader_cli import without_slow_imports

without_slow_imports()

from nbgrader.apps import nbgraderapp  # noqa: E402, F401
from nbgrader.apps.autogradeapp import AutogradeApp  # noqa: E402, F401
