"""The student's progress: one JSON file, written atomically, never silently reset."""

from agentlab_magics.progress.store import LabProgress, ProgressStore, default_path

__all__ = ["LabProgress", "ProgressStore", "default_path"]
