"""Where a failing run parts from the reference's: its requests beside those the instructor's
reference sent in the same test, turn by turn (a turn is one model call).

A lab's tests are run against its reference, through the same judge, keeping of each test that
called a lab model the shapes of the requests it sent (`runs_of`). A lab's student copy holds its
visible tests' as REFERENCE_RUNS in its folder (`copy_runs`; data only, no reference code): a
built-in lab's in the student package, written by `agentlab course build`, a pack lab's written by
`agentlab lab ship`. A built-in lab's held-back tests' are HELD_BACK_RUNS in its part in the
instructor package, which a student's install never holds. Where a pack lab's reference is at hand
they are made when first asked for (checking.runner.reference_runs_of). A check sets each failing
visible test's run beside the reference's (`parting`), from the first turn where the two differ, and
the cause's one drawing shows it; a failing held-back test says only the parting's sentence
(`summary`), in its message.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from agentlab_magics.checking.report import SentRequest, TestOutcome
from agentlab_magics.course.lab_folder import REFERENCE_RUNS

ROWS = 6  # turns a parting shows, from the first where the runs part


def turns(shapes: list[str], sent: int) -> dict[int, str]:
    """The shapes kept of a run that sent `sent` requests (the last ones), by turn number."""
    return {sent - len(shapes) + index: shape for index, shape in enumerate(shapes, start=1)}


def parting(requests: list[SentRequest], sent: int, reference: dict[str, Any],
            cut: bool = False) -> dict[str, Any] | None:
    """The student's requests beside the reference's (`{"sent", "shapes"}`), turn by turn
    from the first turn where they part, at most ROWS turns: {"yours", "expected"} (a shape,
    "" past a run's last request, "…" for one sent but not kept), "first": 0, "start" (that
    turn's number) and "summary" (the parting in a sentence); None where they never part.
    They part at a turn only one of them sent, or one both kept that differs; `cut`: the
    student's run did not end, the test stopped it (its time ran out, it died)."""
    mine = {request.number: request.shape for request in requests}
    theirs = turns(reference["shapes"], reference["sent"])
    for turn in range(1, max(sent, reference["sent"]) + 1):
        yours, expected = _at(mine, sent, turn), _at(theirs, reference["sent"], turn)
        if (yours == "") != (expected == "") or (yours and expected and yours != expected):
            numbers = range(turn, min(turn + ROWS, max(sent, reference["sent"]) + 1))
            return {"yours": [_at(mine, sent, n) or _unkept(n, sent) for n in numbers],
                    "expected": [_at(theirs, reference["sent"], n) or _unkept(n, reference["sent"])
                                 for n in numbers],
                    "first": 0, "start": turn,
                    "summary": summary(sent, reference["sent"], turn, cut)}
    return None


def summary(sent: int, expected: int, turn: int, cut: bool = False) -> str:
    """A parting in one sentence: where the runs' lengths differ, or the turn that differs; a
    run the test cut short is never said to have stopped."""
    calls = f"{expected} call{'' if expected == 1 else 's'}"
    if sent > expected:
        return f"The reference stops after {calls}; yours went on to {sent}."
    if sent < expected and cut:
        return f"The reference makes {calls}; yours had made {sent} when the test stopped it."
    if sent < expected:
        return f"The reference makes {calls}; yours stopped after {sent}."
    return f"Your request {turn} differs from the reference's; both runs make {calls}."


def _at(shapes: dict[int, str], sent: int, turn: int) -> str | None:
    """The shape of `turn`: "" past the run's last request, None for one sent but not kept."""
    return "" if turn > sent else shapes.get(turn)


def _unkept(turn: int, sent: int) -> str:
    return "" if turn > sent else "…"


def runs_of(outcomes: Iterable[TestOutcome]) -> dict[str, Any]:
    """Of each passing test that called a lab model, by name (the first of a name), the
    requests its run sent: {"sent": how many, "shapes": the last ones kept}."""
    runs: dict[str, Any] = {}
    for outcome in outcomes:
        if outcome.passed and outcome.requests and outcome.name not in runs:
            runs[outcome.name] = {"sent": outcome.requests_sent,
                                  "shapes": [request.shape for request in outcome.requests]}
    return runs


def runs_text(runs: dict[str, Any]) -> str:
    """Reference runs as the JSON text REFERENCE_RUNS holds."""
    return json.dumps(runs, indent=0, sort_keys=True) + "\n"


def copy_runs(folder: Path, name: str = REFERENCE_RUNS) -> dict[str, Any]:
    """The reference runs a lab's folder holds in its file `name` (a student copy's visible
    tests' REFERENCE_RUNS; a built-in lab's part's held-back tests' HELD_BACK_RUNS); none where
    there is no such file, or it is not a JSON object."""
    try:
        runs = json.loads((folder / name).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    return runs if isinstance(runs, dict) else {}
