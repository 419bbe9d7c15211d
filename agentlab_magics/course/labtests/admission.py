"""What the two admission labs share: run the student's function on rows, compare, explain."""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence

from agentlab_magics.course.labtests.kit import exact, told


def wrong_rows(name: str, function: Callable, rows: Sequence[tuple[dict, str]],
               answers: tuple[str, ...]) -> list[str]:
    """A sentence for each row the function gets wrong or changes; [] when all are right.

    Answers and cases are compared exactly: anything but a plain str, or a case left holding
    anything but plain data, fails at once with a sentence of its own.
    """
    should = f"return one of the strings {', '.join(answers)}."
    problems = []
    for case, expected in rows:
        supplied = copy.deepcopy(case)
        try:
            observed = function(supplied)
        except Exception as exc:
            observed = f"an exception ({told(exc)})"
        if not exact(observed, expected, f"what {name} returned", should):
            problems.append(f"for {case} it returned {observed!r}, expected {expected!r}")
        elif not exact(supplied, case, f"the case {name} was given",
                       "leave the case as it was given."):
            problems.append(f"it changed the case it was given: {case} became {supplied}")
    return problems


def explain(name: str, problems: list[str]) -> str:
    return f"{name}: " + "; ".join(problems) + "."
