"""What a submitted notebook holds for grading: its lab cells and its graded cells.

A graded cell is one nbgrader grades (`grade: true`, not a solution) whose source, restored
by nbgrader from the instructor's copy, calls `grade("LAB", "GROUP")` and, between the
hidden-test markers, `grade("LAB", "GROUP", held_back=True)`. A lab cell is the student's
answer: a solution cell whose first line is `%%check LAB`. Nothing here runs any code.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from agentlab_magics.checking.cell_source import as_in_the_cell

HIDDEN = re.compile(r"\n?### BEGIN HIDDEN TESTS\n.*?### END HIDDEN TESTS\n?", re.S)
CHECK_LINE = re.compile(r"\s*%%check\s+(\S+)")


@dataclass(frozen=True)
class GradeCall:
    """One `grade(lab, group, held_back=…)` call of a graded cell."""

    lab: str
    group: str
    held_back: bool


def _nbgrader(cell: dict) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def is_graded(cell: dict) -> bool:
    meta = _nbgrader(cell)
    return cell.get("cell_type") == "code" and bool(meta.get("grade")) and not meta.get("solution")


def grade_calls(source: str) -> list[GradeCall]:
    """The `grade(...)` calls of a graded cell's source, hidden ones included, in order."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    calls = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "grade"):
            continue
        words = [a.value for a in node.args
                 if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        if len(words) == len(node.args) == 2:
            held = any(k.arg == "held_back" and isinstance(k.value, ast.Constant)
                       and k.value.value is True for k in node.keywords)
            calls.append(GradeCall(words[0], words[1], held))
    return calls


def without_hidden(source: str) -> str:
    """A graded cell's source with its hidden-test block taken out."""
    return HIDDEN.sub("\n", source).rstrip("\n")


def lab_sources(cells: list[dict]) -> dict[str, str]:
    """Each lab's answer: the body of the first solution cell that starts `%%check LAB`, laid
    out as the cell holds it (`as_in_the_cell`), so the grader's line N is the cell's line N."""
    found: dict[str, str] = {}
    for cell in cells:
        if cell.get("cell_type") != "code" or not _nbgrader(cell).get("solution"):
            continue
        source = cell.get("source", "")
        first, _, body = source.partition("\n")
        match = CHECK_LINE.match(first)
        if match:
            found.setdefault(match.group(1), as_in_the_cell(body))
    return found
