"""Lesson files cut from the reference: each harness lab's starter, reference and marked file.

A piece is one top-level definition (with the comment lines right above it) taken from
the reference harness or from an early version of a name. A lesson file is its pieces in
the harness's region order; a starter is the same file with the lab's names left as gaps.
Only the instructor's side runs this: students get the starters as files `agentlab course
build` wrote (agentlab_magics/course/labs/<lab>/starter.py).
"""

from __future__ import annotations

import ast
import importlib.resources
from dataclasses import dataclass
from functools import cache

REGIONS = ("1 messages", "2 tools", "3 loop")
REGION_NOTES = {
    "1 messages": "A conversation is a list of dicts, each tagged with the role that spoke.",
    "2 tools": ("A tool is a dict: name, description and parameters are what the model is "
                "told about;\n# execute(arguments) -> str is the function only this program runs."),
    "3 loop": "The code that talks to the model. The model remembers nothing between calls.",
}
GAP_OPEN, GAP_CLOSE = "# --- your code ---", "# --- end ---"
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"  # nbgrader's solution markers


@dataclass(frozen=True)
class Piece:
    """One definition's source text, the region it belongs to and its call signature."""

    name: str
    region: str
    source: str
    signature: str


def _read(module: str) -> str:
    package, _, name = module.rpartition(".")
    return importlib.resources.files(package).joinpath(f"{name}.py").read_text(encoding="utf-8")


@cache
def pieces(module: str = "agentlab_instructor.reference.harness", region: str | None = None
           ) -> dict[str, Piece]:
    """The top-level definitions of `module`, private helpers included, by name, in file order.

    The region is read from the module's `# == N name ==` headers unless given.
    """
    text = _read(module)
    lines = text.splitlines()
    found: dict[str, Piece] = {}
    for node in ast.parse(text).body:
        names = _defined(node)
        if not names:
            continue
        start = node.lineno - 1
        if hasattr(node, "decorator_list") and node.decorator_list:
            start = node.decorator_list[0].lineno - 1
        while start > 0 and lines[start - 1].startswith("#") and not lines[start - 1].startswith("# =="):
            start -= 1
        source = "\n".join(lines[start:node.end_lineno])
        home = region or _region_at(lines, node.lineno)
        for name in names:
            found[name] = Piece(name, home, source, _signature(node, name))
    return found


def _defined(node: ast.stmt) -> list[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return [node.name]
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    return []


def _region_at(lines: list[str], lineno: int) -> str:
    headers = [line[5:-3] for line in lines[:lineno] if line.startswith("# == ")]
    return headers[-1] if headers else REGIONS[0]


def _signature(node: ast.stmt, name: str) -> str:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return f"{name}({ast.unparse(node.args)})"
    return name


@cache
def helpers() -> dict[str, str]:
    """Private helpers of the reference (like `_fit`), which travel with the names that use them."""
    return {name: piece.source for name, piece in pieces().items() if name.startswith("_")}


def lesson_file(title: str, contents: list[Piece], gaps: set[str], note: str = "", *,
                marked: bool = False) -> str:
    """A harness file holding `contents` in region order, with the names in `gaps` left empty,
    or, when `marked`, with each gap holding the reference between nbgrader's solution markers.

    A private helper of the reference goes in once, right before the first piece that uses it
    (inside the markers when that piece is a gap). Deleting every marked block, markers and
    all, gives the starter; deleting the marker lines alone gives the reference's code.
    """
    doc = f"{title}.\n\n{note}\n" if note else f"{title}."
    parts, emitted = [f'"""harness.py: {doc}"""'], set()
    for region in REGIONS:
        here = [piece for piece in contents if piece.region == region]
        if not here:
            continue
        parts.append(f"# == {region} ==\n# {REGION_NOTES[region]}")
        for piece in here:
            if piece.name in gaps and not marked:
                parts.append(f"{GAP_OPEN}\n# {piece.signature}\n{GAP_CLOSE}")
                continue
            needed = {name: source for name, source in helpers().items()
                      if f"{name}(" in piece.source and name not in emitted}
            emitted.update(needed)
            written = "\n\n\n".join([*needed.values(), piece.source])
            if piece.name in gaps:
                written = f"{GAP_OPEN}\n# {piece.signature}\n{BEGIN}\n{written}\n{END}\n{GAP_CLOSE}"
            parts.append(written)
    return "\n\n\n".join(parts) + "\n"


def solution_bodies(starter: str, reference: str, names: list[str]) -> str:
    """The starter with the code of each function in `names` (what follows its docstring and
    its opening comments) replaced by the reference's between nbgrader's solution markers: the
    released copy keeps the starter's signatures, docstrings and hints, which give nothing away."""
    solutions = {name: _code(reference, name) for name in names}
    lines = starter.splitlines()
    for node in reversed(ast.parse(starter).body):
        if isinstance(node, ast.FunctionDef) and node.name in names:
            first = _first_code_line(node, lines)
            indent = " " * node.body[0].col_offset
            lines[first:max(first, node.end_lineno)] = [f"{indent}{BEGIN}", *solutions[node.name],
                                                        f"{indent}{END}"]
    return "\n".join(lines) + "\n"


def _first_code_line(node: ast.FunctionDef, lines: list[str]) -> int:
    """The index of the function's first line of code: after its docstring and the comment
    lines that open its body, but never past a gap's closing marker, so code put there stays
    inside the gap even when the gap holds only comments."""
    docstring = ast.get_docstring(node) is not None
    at = node.body[0].end_lineno if docstring else node.body[0].lineno - 1
    while (at < len(lines) and lines[at].strip().startswith("#")
           and lines[at].strip() != GAP_CLOSE):
        at += 1
    return at


def _code(source: str, name: str) -> list[str]:
    """The lines of function `name`'s code in `source`, its docstring left out."""
    lines = source.splitlines()
    node = next(n for n in ast.parse(source).body
                if isinstance(n, ast.FunctionDef) and n.name == name)
    return lines[_first_code_line(node, lines):node.end_lineno]
