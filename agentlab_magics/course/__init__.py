"""The curriculum as data: labs, their starters and references, their tests, their questions."""

from agentlab_magics.course.catalog import Lab, UnknownLab, find_lab, labs

__all__ = ["Lab", "UnknownLab", "find_lab", "labs"]
