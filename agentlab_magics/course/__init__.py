"""The curriculum as data: labs, their starters, their tests, their questions (no solutions)."""

from agentlab_magics.course.catalog import Lab, UnknownLab, find_lab, labs

__all__ = ["Lab", "UnknownLab", "find_lab", "labs"]
