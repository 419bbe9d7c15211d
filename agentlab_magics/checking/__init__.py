"""Run a lab's tests against student code and report each in one sentence."""

from agentlab_magics.checking.report import CheckReport, TestOutcome

__all__ = ["CheckReport", "TestOutcome", "run"]


def run(lab_id, harness, *, timeout=10.0, only=None):
    """Check `harness` (a module, or the path of a .py file) against lab `lab_id`."""
    from agentlab_magics.checking.runner import run as _run

    return _run(lab_id, harness, timeout=timeout, only=only)
