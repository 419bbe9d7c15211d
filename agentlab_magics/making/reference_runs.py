"""The reference runs: every lab's tests checked against the lab's reference, through the same
judge, keeping of each test that called a lab model the shapes of the requests it sent, which a
check sets a failing run beside (checking/parting.py). Needs the instructor package."""

from __future__ import annotations

import functools
import json
from typing import Any

from agentlab_magics.checking.runner import lab_tests, run
from agentlab_magics.course import find_lab
from agentlab_magics.course.catalog import built_in_labs


@functools.cache
def recorded_runs(held_back: bool = False) -> str:
    """The reference runs' JSON text: each visible test (or, with `held_back`, each held-back
    test) that calls a lab model, by name, with the requests the reference's run sent it
    ({"sent": how many, "shapes": the last ones kept}). Needs the instructor package."""
    runs: dict[str, Any] = {}
    for lab_id in built_in_labs():
        lab = find_lab(lab_id)
        wanted = [test.name for test in lab_tests(lab, held_back=held_back)
                  if test.held_back == held_back]
        report = run(lab_id, "", source=lab.reference, held_back=held_back, only=wanted)
        for outcome in report.outcomes:
            if outcome.passed and outcome.requests and outcome.name not in runs:
                runs[outcome.name] = {"sent": outcome.requests_sent,
                                      "shapes": [request.shape for request in outcome.requests]}
    return json.dumps(runs, indent=0, sort_keys=True) + "\n"
