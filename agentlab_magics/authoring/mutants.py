"""One-edit mutants of a lab's marked reference: the plausible slips of a student, each a whole
file that differs from the reference in one place, inside what the student writes (the code
between nbgrader's solution markers).

The edits: a comparison flipped at its boundary or negated, `and` and `or` swapped, a `not`
dropped, a number moved by one, True and False swapped, + and - swapped, a key left out of a
dict, a call made as a statement dropped (an append), a return dropped or its value made
None, an `if` whose branch never runs or whose else never runs, the first two arguments of a
call (not of Python's own functions) swapped, and a call of one of the file's functions made
to another that takes as many arguments. Docstrings and strings are left alone.

An edit is written back with `ast.unparse` over the lines of the statement it is in (its
comments go; its meaning is the edit's), or, where that statement shares a line with another
(`if done: return reply`), over those of the nearest statement around it that has its lines to
itself; so every mutant is valid Python, differs from the reference in that edit alone, and
its lines before the edit are the reference's.
"""

from __future__ import annotations

import ast
import builtins
import copy
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

BEGIN, END = re.compile(r"^\s*### BEGIN SOLUTION\b"), re.compile(r"^\s*### END SOLUTION\b")
# The fields of a statement that hold statements: the rest are its own expressions.
BODIES = ("body", "orelse", "finalbody", "handlers")
FLIPS: dict[type, list[type]] = {
    ast.Lt: [ast.LtE, ast.GtE], ast.LtE: [ast.Lt, ast.Gt], ast.Gt: [ast.GtE, ast.LtE],
    ast.GtE: [ast.Gt, ast.Lt], ast.Eq: [ast.NotEq], ast.NotEq: [ast.Eq], ast.In: [ast.NotIn],
    ast.NotIn: [ast.In], ast.Is: [ast.IsNot], ast.IsNot: [ast.Is]}


@dataclass(frozen=True)
class Mutant:
    """The reference with one edit: where (the line of the marked file, the function), what
    stood there and what stands instead, and the whole edited file."""

    line: int
    function: str
    before: str
    after: str
    source: str

    @property
    def key(self) -> str:
        """The edit, apart from where the reference's lines fall: how a lab's list of
        equivalent mutants names it."""
        return f"{self.function}: {self.before} -> {self.after}"


def mutants(marked: str) -> list[Mutant]:
    """Every one-edit mutant of the code between the solution markers of `marked`, in line
    order, each edit once."""
    tree = ast.parse(marked)
    lines = marked.splitlines(keepends=True)
    written = solution_lines(lines)
    functions = {node.name: len(node.args.args) for node in tree.body
                 if isinstance(node, ast.FunctionDef)}
    seen: set[str] = set()
    made = []
    for function in [node for node in tree.body if isinstance(node, ast.FunctionDef)]:
        for statement, holder in statements(function.body, lines, function):
            for node, change in edits(statement, functions) if statement.lineno in written else ():
                mutant = _made(lines, function.name, holder, node, change)
                if mutant is not None and mutant.source not in seen:
                    seen.add(mutant.source)
                    made.append(mutant)
    return _numbered(sorted(made, key=lambda mutant: mutant.line))


def _numbered(made: list[Mutant]) -> list[Mutant]:
    """The mutants, an edit made at several places of one function numbered from its second
    ("0 -> 1 (2)"), so that each key names one mutant."""
    seen: dict[str, int] = {}
    numbered = []
    for mutant in made:
        seen[mutant.key] = seen.get(mutant.key, 0) + 1
        numbered.append(mutant if seen[mutant.key] == 1 else replace(
            mutant, after=f"{mutant.after} ({seen[mutant.key]})"))
    return numbered


def solution_lines(lines: list[str]) -> set[int]:
    """The numbers of the lines between solution markers (1-based)."""
    inside, numbers = False, set()
    for number, line in enumerate(lines, start=1):
        if BEGIN.match(line):
            inside = True
        elif END.match(line):
            inside = False
        elif inside:
            numbers.add(number)
    return numbers


def statements(body: list[ast.stmt], lines: list[str], holder: ast.stmt
               ) -> Iterator[tuple[ast.stmt, ast.stmt]]:
    """Every statement of `body` and of the bodies within it (nested functions' too), but
    docstrings, each with the statement an edit of it is written back through: itself where
    it has its lines to itself, else the nearest one around it that has (`holder`, for those
    of `body`)."""
    for index, statement in enumerate(body):
        here = statement if _alone(statement, lines) else holder
        if not (index == 0 and _docstring(statement)):
            yield statement, here
        for field in BODIES:
            for child in getattr(statement, field, []):
                yield from statements(child.body if isinstance(child, ast.ExceptHandler)
                                      else [child], lines, here)


def _alone(statement: ast.stmt, lines: list[str]) -> bool:
    """Whether `statement` has its lines to itself: nothing but indentation before it, nothing
    but a comment after it (ast's columns count UTF-8 bytes)."""
    first = lines[statement.lineno - 1].encode("utf-8")[:statement.col_offset]
    last = lines[(statement.end_lineno or statement.lineno) - 1].encode("utf-8")
    after = last[statement.end_col_offset or len(last):].decode("utf-8").strip()
    return not first.strip() and (not after or after.startswith("#"))


# A change to a copy of a node: what stands in its place (the copy itself, changed; another
# node; None: the statement becomes `pass`).
Change = Callable[[Any], "ast.AST | None"]


def own(statement: ast.stmt) -> list[ast.AST]:
    """The statement and the nodes of its own expressions, not those of the statements it
    holds; of a nested function or class, the statement alone."""
    if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [statement]
    found: list[ast.AST] = [statement]
    for field, value in ast.iter_fields(statement):
        if field in BODIES:
            continue
        for child in value if isinstance(value, list) else [value]:
            if isinstance(child, ast.AST):
                found += _walk(child)
    return found


def _walk(node: ast.AST) -> Iterator[ast.AST]:
    """`node` and the nodes within it; of an f-string, only the values it formats."""
    yield node
    children = ([part.value for part in node.values if isinstance(part, ast.FormattedValue)]
                if isinstance(node, ast.JoinedStr) else ast.iter_child_nodes(node))
    for child in children:
        yield from _walk(child)


def edits(statement: ast.stmt, functions: dict[str, int]
          ) -> Iterator[tuple[ast.AST, Change]]:
    """The edits of one statement: each a node `own` lists and a change to it."""
    for node in own(statement):
        for change in _changes(node, functions):
            yield node, change


def _changes(node: ast.AST, functions: dict[str, int]) -> Iterator[Change]:
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        for flipped in FLIPS.get(type(node.ops[0]), []):
            yield _with(ops=[flipped()])
    elif isinstance(node, ast.BoolOp):
        yield _with(op=ast.Or() if isinstance(node.op, ast.And) else ast.And())
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield _to(node.operand)
    elif isinstance(node, ast.Constant) and type(node.value) is bool:
        yield _to(ast.Constant(not node.value))
    elif isinstance(node, ast.Constant) and type(node.value) is int:
        yield _to(ast.Constant(node.value + 1))
        yield _to(ast.Constant(node.value - 1))
    elif isinstance(node, ast.BinOp | ast.AugAssign) and isinstance(node.op, ast.Add | ast.Sub):
        yield _with(op=ast.Sub() if isinstance(node.op, ast.Add) else ast.Add())
    elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        yield _to(None)
    elif isinstance(node, ast.Return):
        if not _none(node.value):
            yield _to(ast.Return(ast.Constant(None)))
        yield _to(None)
    elif isinstance(node, ast.Dict) and None not in node.keys:
        for index in range(len(node.keys)):
            yield _with(keys=node.keys[:index] + node.keys[index + 1:],
                        values=node.values[:index] + node.values[index + 1:])
    elif isinstance(node, ast.If):
        yield _with(test=ast.Constant(False))
        if node.orelse:
            yield _with(test=ast.Constant(True))
    elif isinstance(node, ast.Call):
        yield from _call_changes(node, functions)


def _call_changes(node: ast.Call, functions: dict[str, int]) -> Iterator[Change]:
    positional = [arg for arg in node.args if not isinstance(arg, ast.Starred)]
    builtin = isinstance(node.func, ast.Name) and hasattr(builtins, node.func.id)
    if len(positional) >= 2 and not builtin and ast.dump(positional[0]) != ast.dump(positional[1]):
        yield _with(args=[node.args[1], node.args[0], *node.args[2:]])
    if isinstance(node.func, ast.Name) and node.func.id in functions:
        for other, arity in functions.items():
            if other != node.func.id and arity == functions[node.func.id]:
                yield _with(func=ast.Name(other, ast.Load()))


def _with(**fields: object) -> Change:
    """The change that sets `fields` on the node (its copy, in the mutant)."""
    return lambda copied: _set(copied, **fields)


def _to(replacement: ast.AST | None) -> Change:
    """The change that puts `replacement` where the node stood (None: the statement becomes
    `pass`)."""
    return lambda copied: replacement


def _set(node: ast.AST, **fields: object) -> ast.AST:
    for name, value in fields.items():
        setattr(node, name, value)
    return node


def _none(value: ast.expr | None) -> bool:
    return value is None or (isinstance(value, ast.Constant) and value.value is None)


def _docstring(statement: ast.stmt) -> bool:
    return (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)
            and isinstance(statement.value.value, str))


def _made(lines: list[str], function: str, holder: ast.stmt, node: ast.AST,
          change: Change) -> Mutant | None:
    """The file with `change` made to `node` (within `holder`), `holder` written back over
    its lines; None where the edit changes nothing a reader would see."""
    position = next(at for at, inner in enumerate(ast.walk(holder)) if inner is node)
    edited: ast.AST = copy.deepcopy(holder)
    target = list(ast.walk(edited))[position]  # a copy walks as its original does
    before = ast.unparse(target)
    result = change(target)
    replacement = ast.Pass() if result is None else result
    if target is edited:
        edited = replacement
    else:
        _replace(edited, target, replacement)
    after = ast.unparse(replacement)
    if after == before:
        return None
    first = lines[holder.lineno - 1]
    indent = first[:len(first) - len(first.lstrip())]
    text = ast.unparse(edited).replace("\n", "\n" + indent)
    end = holder.end_lineno or holder.lineno
    source = "".join([*lines[:holder.lineno - 1], indent, text, "\n", *lines[end:]])
    return Mutant(getattr(node, "lineno", holder.lineno), function, before.splitlines()[0],
                  after.splitlines()[0], source)


def _replace(root: ast.AST, old: ast.AST, new: ast.AST) -> None:
    """Put `new` where `old` stands in `root` (a node changed in place stays where it is)."""
    if old is new:
        return
    for parent in ast.walk(root):
        for field, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, field, new)
                return
            if isinstance(value, list) and any(item is old for item in value):
                setattr(parent, field, [new if item is old else item for item in value])
                return
