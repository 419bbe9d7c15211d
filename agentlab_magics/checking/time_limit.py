"""A test's time limit: the one every check gives, and the one place a limit someone typed is
read, for `agentlab check --timeout`, `%%check --timeout` and `runner.run` alike. Light: the
command line and the magics read an option with it before anything heavy is imported."""

from __future__ import annotations

import argparse
import math
from typing import Any

TIME_LIMIT = 5.0
"""Seconds a test may take, in every check (%%check, agentlab check, the grader's), so a test
that passes in one passes in the others: honest tests take milliseconds, and code that hangs
costs seconds a test, not minutes."""
MOST = 86_400.0  # a day


class BadTimeLimit(ValueError):
    """A time limit that is not a finite number of seconds above zero and at most a day."""


def checked(value: Any) -> float:
    """`value` as a time limit in seconds, or BadTimeLimit with a sentence saying what to give."""
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        seconds = math.nan
    if not (math.isfinite(seconds) and 0 < seconds <= MOST):
        raise BadTimeLimit(f"The time limit must be a number of seconds above 0 and at most "
                           f"{MOST:g} (a day), such as 10; {value!r} is not.")
    return seconds


def option(text: str) -> float:
    """argparse's type for a --timeout option: `checked`, its sentence as the usage error."""
    try:
        return checked(text)
    except BadTimeLimit as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
