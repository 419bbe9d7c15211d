"""The package's layers are what docs/architecture.md draws, and the code keeps to them.

The drawing is the first fenced block of docs/architecture.md: a row per layer, from the top
down, naming its folders (`grading/`) and modules (`cli.py`) before a `──` line. These tests
read every import of the package with `ast` (those inside functions too, which hide an arrow
from a reader) and hold them to the drawing: no file imports a layer above its own, no two
files import each other in a circle, every file of the package is in the drawing and every
name in it is a file, and the student's package never names the instructor's.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "agentlab_magics"
DOCS = REPO / "docs" / "architecture.md"
ROW = re.compile(r"^(\S.*?)\s+─{2,}")
# files that are data for other programs, never imported: the student's starters, and the
# configuration files nbgrader and JupyterHub run
NOT_MODULES = ("course/labs/", "term/template/", "hub/template/")


def layers() -> list[list[str]]:
    """The drawing's rows, top first, each the names it lists."""
    text = DOCS.read_text(encoding="utf-8")
    block = text.split("```", 2)[1]
    rows = []
    for line in block.splitlines():
        found = ROW.match(line)
        if found:
            rows.append([name.strip() for name in found.group(1).split(",")])
    return rows


def modules() -> list[str]:
    """Every module of the package, by its path inside it."""
    return sorted(str(path.relative_to(PACKAGE)) for path in PACKAGE.rglob("*.py")
                  if not str(path.relative_to(PACKAGE)).startswith(NOT_MODULES))


def layer_of(module: str) -> int:
    """The row that holds `module` (its folder's, or its own for a module at the top)."""
    first = module.split("/")[0] + ("/" if "/" in module else "")
    for number, row in enumerate(layers()):
        if first in row:
            return number
    raise AssertionError(f"{module} is in no layer of the drawing in {DOCS}")


def _file_of(dotted: str) -> str:
    """The package's file that `dotted` (agentlab_magics.x.y, or a name inside one) names: the
    module or package of its longest prefix that is one."""
    parts = dotted.split(".")[1:]
    for end in range(len(parts), 0, -1):
        base = PACKAGE.joinpath(*parts[:end])
        if base.with_suffix(".py").is_file():
            return str(base.with_suffix(".py").relative_to(PACKAGE))
        if (base / "__init__.py").is_file():
            return str((base / "__init__.py").relative_to(PACKAGE))
    return "__init__.py"


def imports(module: str) -> Iterator[tuple[str, int]]:
    """(the package's file it imports, the line) for every import in `module`."""
    tree = ast.parse((PACKAGE / module).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{alias.name}" for alias in node.names]
        for name in names:
            if name == "agentlab_magics" or name.startswith("agentlab_magics."):
                target = _file_of(name)
                if target != module:
                    yield target, node.lineno


def edges() -> dict[str, set[str]]:
    return {module: {target for target, _ in imports(module)} for module in modules()}


def test_every_file_is_in_the_drawing_and_every_name_in_it_is_a_file():
    for module in modules():
        layer_of(module)
    for row in layers():
        for name in row:
            assert (PACKAGE / name).exists(), f"the drawing names {name}, which is not a file"


def test_no_import_runs_up_the_layers():
    rows = layers()
    upward = [f"{module}:{line} imports {target} ({', '.join(rows[layer_of(target)])}, "
              f"above {', '.join(rows[layer_of(module)])})"
              for module in modules() for target, line in imports(module)
              if layer_of(target) < layer_of(module)]
    assert upward == []


def test_no_files_import_each_other_in_a_circle():
    graph = edges()
    circles = [sorted(part) for part in _strongly_connected(graph) if len(part) > 1]
    assert circles == []


def test_the_students_package_never_names_the_instructors():
    named = [f"{module}:{node.lineno}" for module in modules()
             for node in ast.walk(ast.parse((PACKAGE / module).read_text(encoding="utf-8")))
             if isinstance(node, ast.Import | ast.ImportFrom)
             and any(name.split(".")[0] == "agentlab_instructor"
                     for name in _imported_names(node))]
    assert named == []


def _imported_names(node: ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    return [node.module or ""]


def _strongly_connected(graph: dict[str, set[str]]) -> list[set[str]]:
    """Tarjan's components of `graph`, iteratively."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                part = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    part.add(member)
                    if member == node:
                        break
                found.append(part)
    return found


def glossary_names() -> list[str]:
    """The code names docs/architecture.md's glossary gives its words, as written there."""
    text = DOCS.read_text(encoding="utf-8")
    glossary = text[text.index("## Glossary"):]
    glossary = glossary[:glossary.find("\n## ", 1)] if "\n## " in glossary[1:] else glossary
    return re.findall(r"`([^`]+)`", glossary)


def _defined(module: Path, name: str) -> bool:
    tree = ast.parse(module.read_text(encoding="utf-8"))
    return any((isinstance(node, ast.ClassDef | ast.FunctionDef) and node.name == name)
               or (isinstance(node, ast.Assign | ast.AnnAssign) and name in ast.unparse(node))
               for node in ast.walk(tree))


def test_every_code_name_the_glossary_gives_is_in_the_code():
    """A word of the glossary names a file (`grading/host.py`), a module's name
    (`protocol.caps.CALLBACK_CAP`, read from the package's folders) or a command
    (`agentlab ...`): each is there."""
    missing = []
    for name in glossary_names():
        if name.startswith(("agentlab ", "%")):
            continue
        path = name.split(",")[0].strip()
        if "/" in path or path.endswith(".py"):
            found = any((PACKAGE / folder / path).exists() for folder in ("", "checking"))
        else:
            *dotted, attribute = path.split(".")
            candidates = [PACKAGE.joinpath(*dotted).with_suffix(".py"),
                          PACKAGE.joinpath("checking", *dotted).with_suffix(".py")]
            found = any(module.is_file() and _defined(module, attribute)
                        for module in candidates) if dotted else any(
                _defined(module, attribute) for module in PACKAGE.rglob("*.py"))
        if not found:
            missing.append(name)
    assert glossary_names() and missing == []
