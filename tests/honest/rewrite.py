"""The AST helpers the honest styles share: read a reference, change it, write it back.

A style works on the module's syntax tree, never on the lab's meaning: it finds the file's
functions (`functions`, `nested_functions`), adds statements at the start of each
(`prologue`), wraps each body (`wrap_bodies`), decorates each (`decorate`), adds imports and
module code (`add_imports`, `append`), moves the functions elsewhere (`split_definitions`,
`self_parameter`), replaces each top-level function with statements of its own
(`replace_functions`), or rewrites one kind of node (`transform`). `ast.unparse` writes the
result, so comments are gone; docstrings stay.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Iterable

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


def parse(source: str) -> ast.Module:
    return ast.parse(source)


def unparse(tree: ast.Module) -> str:
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def statements(text: str) -> list[ast.stmt]:
    """The statements of `text`, a snippet of module code."""
    return ast.parse(text).body


def expression(text: str) -> ast.expr:
    return ast.parse(text, mode="eval").body


def has_docstring(body: list[ast.stmt]) -> bool:
    return bool(body) and isinstance(body[0], ast.Expr) and isinstance(
        body[0].value, ast.Constant) and isinstance(body[0].value.value, str)


def after_docstring(body: list[ast.stmt]) -> int:
    """Where code may be added at the start of `body`: after its docstring."""
    return 1 if has_docstring(body) else 0


def functions(tree: ast.Module) -> list[FunctionNode]:
    """The functions defined at the top level of the module, in order."""
    return [node for node in tree.body if isinstance(node, (ast.FunctionDef,
                                                            ast.AsyncFunctionDef))]


def nested_functions(tree: ast.Module) -> list[FunctionNode]:
    """The functions defined inside the top-level ones (a tool's execute)."""
    found = []
    for outer in functions(tree):
        found += [node for node in ast.walk(outer) if node is not outer
                  and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    return found



def arguments(function: FunctionNode) -> list[str]:
    """The names of every parameter, in order (positional, *args, keyword-only, **kwargs)."""
    spec = function.args
    found = [a.arg for a in (*spec.posonlyargs, *spec.args)]
    if spec.vararg:
        found.append(spec.vararg.arg)
    found += [a.arg for a in spec.kwonlyargs]
    if spec.kwarg:
        found.append(spec.kwarg.arg)
    return found


def import_index(tree: ast.Module) -> int:
    """Where an import goes: after the module docstring and any `from __future__` import."""
    index = after_docstring(tree.body)
    while index < len(tree.body) and isinstance(tree.body[index], ast.ImportFrom) \
            and tree.body[index].module == "__future__":
        index += 1
    return index


def add_imports(source: str, text: str) -> str:
    """`text` (imports and module code) added at the top of `source`, below its docstring."""
    tree = parse(source)
    index = import_index(tree)
    tree.body[index:index] = statements(text)
    return unparse(tree)


def add_future_annotations(source: str) -> str:
    tree = parse(source)
    index = after_docstring(tree.body)
    tree.body[index:index] = statements("from __future__ import annotations")
    return unparse(tree)


def append(source: str, text: str) -> str:
    """`text` added at the end of the module, as a notebook cell's last lines."""
    return source.rstrip("\n") + "\n\n\n" + text.strip("\n") + "\n"


def fill(template: str, function: FunctionNode) -> str:
    """`template` with {name} (the function's name), {args} (a list expression of its
    parameters) and {arg0} (its first parameter, or None) filled in."""
    params = arguments(function)
    return template.format(name=function.name, args="[" + ", ".join(params) + "]",
                           arg0=params[0] if params else "None")


def prologue(source: str, template: str | Callable[[FunctionNode], str], *,
             nested: bool = False) -> str:
    """Statements (`template`, filled per function) added at the start of every function."""
    tree = parse(source)
    targets = functions(tree) + (nested_functions(tree) if nested else [])
    for function in targets:
        text = template(function) if callable(template) else fill(template, function)
        if text:
            index = after_docstring(function.body)
            function.body[index:index] = statements(text)
    return unparse(tree)


BODY = "BODY"


def wrap_bodies(source: str, template: str, *, nested: bool = False) -> str:
    """Every function's body (its docstring kept first) put where the statement `BODY` stands
    in `template`, filled per function."""
    tree = parse(source)
    targets = functions(tree) + (nested_functions(tree) if nested else [])
    for function in targets:
        start = after_docstring(function.body)
        body = function.body[start:]
        wrapper = statements(fill(template, function))
        _replace_marker(wrapper, body)
        function.body[start:] = wrapper
    return unparse(tree)


def _replace_marker(block: list[ast.stmt], body: list[ast.stmt]) -> bool:
    for index, statement in enumerate(block):
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Name) \
                and statement.value.id == BODY:
            block[index:index + 1] = body
            return True
        for field in ("body", "orelse", "finalbody", "handlers"):
            inner = getattr(statement, field, None)
            if isinstance(inner, list) and _replace_marker(inner, body):
                return True
    return False


def decorate(source: str, decorator: str | Callable[[FunctionNode], str], *,
             nested: bool = False) -> str:
    """Every function decorated with `decorator` (an expression, or one per function)."""
    tree = parse(source)
    targets = functions(tree) + (nested_functions(tree) if nested else [])
    for function in targets:
        text = decorator(function) if callable(decorator) else decorator
        function.decorator_list.insert(0, expression(text))
    return unparse(tree)


def transform(source: str, transformer: ast.NodeTransformer) -> str:
    tree = transformer.visit(parse(source))
    return unparse(tree)


def calls_to(node: ast.AST, wanted: Iterable[str]) -> set[str]:
    """The names in `wanted` that `node` calls by name."""
    wanted = set(wanted)
    return {call.func.id for call in ast.walk(node)
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
            and call.func.id in wanted}


def self_parameter(function: FunctionNode) -> FunctionNode:
    """A copy of `function` with `self` as its first parameter (a method)."""
    method = copy.deepcopy(function)
    method.args.args.insert(0, ast.arg(arg="self"))
    return method


def replace_functions(source: str,
                      replaced: Callable[[FunctionNode], list[ast.stmt]]) -> str:
    """`source` with each top-level function replaced by the statements `replaced` gives for
    it (which may hold the function itself); the rest of the module as it is."""
    tree = parse(source)
    body: list[ast.stmt] = []
    for node in tree.body:
        body += replaced(node) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
            else [node]
    tree.body = body
    return unparse(tree)


def split_definitions(source: str) -> tuple[ast.Module, list[FunctionNode]]:
    """(the module without its top-level functions, those functions): for styles that move
    the functions into a class or a factory placed after the rest of the module."""
    tree = parse(source)
    defs = functions(tree)
    tree.body = [node for node in tree.body if node not in defs]
    return tree, defs
