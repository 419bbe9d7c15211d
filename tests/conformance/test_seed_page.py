"""Every printing code cell of the checkpoint page, run against `lab` and the reference harness.

The printed output must equal the page's, line for line. The page does not fix the token
estimator, so the figures of a token bill are the one thing allowed to differ.
"""

from __future__ import annotations

import contextlib
import io
import re
import sys

import pytest

from agentlab_instructor.reference import harness
from agentlab_magics import lab
from tests.seeds import page_cell

CELLS = {
    "one: the skipped call": (41, "   log: WARNING unknown tool", "Two. A message"),
    "two: the quiet read": (136, "   theirs read ->", "Three. A chat"),
    "three: the chat that sends only what is new": (202, "   theirs request 1:", "Four. A transcript"),
    "four: three arrangements": (255, "results first, in the order", "Five. A second"),
    "five: the request that is the record": (321, "after the outage, their record:", "Six. A loop"),
    "six: the copied list": (386, "theirs: after the first run", "What three of them"),
    "four runs": (603, "a typo    : 3 model call(s)", "Four runs, four different"),
}


BILL = re.compile(r"\d+ input tokens")


def unbilled(text: str) -> list[str]:
    return BILL.sub("N input tokens", text).splitlines()


def run_cell(code: str, modules: dict) -> str:
    """What running `code` as a notebook cell prints, with `modules` importable by name."""
    saved = {name: sys.modules.get(name) for name in modules}
    sys.modules.update(modules)
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(code, "<seed cell>", "exec"), {"__name__": "__seed__"})
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
    return out.getvalue().rstrip()


@pytest.mark.parametrize("name", CELLS)
def test_cell_prints_what_the_page_prints(name):
    code, expected = page_cell(*CELLS[name])
    printed = run_cell(code, {"harness": harness, "lab": lab})
    assert unbilled(printed) == unbilled(expected)


def test_the_test_lab_cell_prints_what_the_page_prints():
    """The "your script against both loops" cell, with the reference my_test.py as `harness`.

    The assert message is the student's own sentence, so only that line may be worded apart.
    """
    import ast
    import asyncio

    from agentlab_magics.checking.cell_source import load
    from agentlab_magics.course import find_lab
    from agentlab_magics.reference import loops

    code, expected = page_cell(504, "reference: 2 model call(s)", "Build two")
    solution = load(find_lab("checkpoint-a-test").reference, "my_test.py", "my_test")
    flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    compiled = compile(code, "<seed cell>", "exec", flags=flags)
    saved = {name: sys.modules.get(name) for name in ("harness", "lab", "loops")}
    sys.modules.update({"harness": solution, "lab": lab, "loops": loops})
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            result = eval(compiled, {"__name__": "__seed__"})
            if result is not None:
                asyncio.run(result)
    finally:
        for name, module in saved.items():
            sys.modules.pop(name, None) if module is None else sys.modules.__setitem__(name, module)
    worded = re.compile(r"(your check failed it:) .*")
    assert [worded.sub(r"\1 …", line) for line in out.getvalue().rstrip().splitlines()] == [
        worded.sub(r"\1 …", line) for line in expected.splitlines()]
