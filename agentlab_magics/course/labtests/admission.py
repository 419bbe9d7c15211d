"""What the two admission labs share: run the student's function on rows, compare, explain."""

from __future__ import annotations

import copy
from typing import Callable


def wrong_rows(function: Callable, rows: list[tuple[dict, str]]) -> list[str]:
    """A sentence for each row the function gets wrong or changes; [] when all are right."""
    problems = []
    for case, expected in rows:
        supplied = copy.deepcopy(case)
        try:
            observed = function(supplied)
        except Exception as exc:
            observed = f"an exception ({type(exc).__name__}: {exc})"
        if observed != expected:
            problems.append(f"for {case} it returned {observed!r}, expected {expected!r}")
        elif supplied != case:
            problems.append(f"it changed the case it was given: {case} became {supplied}")
    return problems


def explain(name: str, problems: list[str]) -> str:
    return f"{name}: " + "; ".join(problems) + "."
