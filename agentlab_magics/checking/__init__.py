"""Run a lab's tests against student code and report each in one sentence.

Importing this package loads nothing else: the student process imports its own modules
(`student_side`, the protocol's but `protocol.messages`) without the judge's (pydantic
among them)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentlab_magics.checking.report import CheckReport, TestOutcome

__all__ = ["TIME_LIMIT", "CheckReport", "TestOutcome", "run"]

TIME_LIMIT = 5.0
"""Seconds a test may take, in every check (%%check, agentlab check, the grader's), so a test
that passes in one passes in the others: honest tests take milliseconds, and code that hangs
costs seconds a test, not minutes."""


def run(lab_id: str, harness: Any, **options: Any) -> CheckReport:
    """Check `harness` (a module, or the path of a .py file) against lab `lab_id`; the options
    (timeout, only, held_back, source, on_outcome, launch) are runner.run's."""
    # not at the top: the student process imports this package, and runner.py imports it too
    from agentlab_magics.checking.runner import run as run_tests

    return run_tests(lab_id, harness, **options)


def __getattr__(name: str) -> Any:
    if name in ("CheckReport", "TestOutcome"):
        from agentlab_magics.checking import report  # pydantic: never in the student process

        return getattr(report, name)
    raise AttributeError(name)
