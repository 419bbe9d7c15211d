"""The four runs of a finished harness, as a student or `agentlab demo` watches them: a typo, a
firehose, a runaway and an outage, each judged for whether its record can be sent again. What
they printed and the records they left were recorded from the reference harness by `agentlab
course build` (making/four_runs_recording.py) into the student package, so they show the same
on any machine, with no instructor package.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from agentlab_magics.course.starter_files import BUILT_IN, RECORDING


def show(print_line: Callable[[str], object] = print) -> dict[str, list]:
    """Print what the four runs did and how each record was judged, and return the records,
    as the reference harness made them."""
    recording = json.loads((BUILT_IN / RECORDING).read_text(encoding="utf-8"))
    for line in recording["lines"]:
        print_line(line)
    return recording["records"]
