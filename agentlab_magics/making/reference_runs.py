"""The reference runs: every lab's tests checked against the lab's reference, through the same
judge, keeping of each test that called a lab model the shapes of the requests it sent, which a
check sets a failing run beside (checking/parting.py). Needs the instructor package."""

from __future__ import annotations

import functools
from typing import Any

from agentlab_magics.checking.parting import runs_text
from agentlab_magics.checking.runner import recorded_runs_of
from agentlab_magics.course import find_lab
from agentlab_magics.course.catalog import built_in_labs


@functools.cache
def recorded_runs(held_back: bool = False) -> str:
    """The reference runs' JSON text: each visible test (or, with `held_back`, each held-back
    test) that calls a lab model, by name, with the requests the reference's run sent it
    ({"sent": how many, "shapes": the last ones kept}). Needs the instructor package."""
    runs: dict[str, Any] = {}
    for lab_id in built_in_labs():
        for name, made in recorded_runs_of(find_lab(lab_id), held_back).items():
            runs.setdefault(name, made)
    return runs_text(runs)
