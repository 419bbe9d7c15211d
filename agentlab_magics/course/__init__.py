"""The curriculum as data: labs, their starters, their tests, their questions (no solutions)."""

from agentlab_magics.course.catalog import find_lab, labs
from agentlab_magics.course.lab_model import Lab, UnknownLab

__all__ = ["Lab", "UnknownLab", "find_lab", "labs"]
