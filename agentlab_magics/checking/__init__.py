"""Run a lab's tests against student code and report each in one sentence."""

from __future__ import annotations

from typing import Any

from agentlab_magics.checking.report import CheckReport, TestOutcome

__all__ = ["CheckReport", "TestOutcome", "run"]


def run(lab_id: str, harness: Any, **options: Any) -> CheckReport:
    """Check `harness` (a module, or the path of a .py file) against lab `lab_id`; the options
    (timeout, only, held_back) are runner.run's. pytest loads only when a check runs."""
    from agentlab_magics.checking.runner import run as run_tests

    return run_tests(lab_id, harness, **options)
