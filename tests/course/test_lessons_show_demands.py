"""Nothing is learned by failing: every shape, key, event kind and exact text a lesson's tests
compare against is shown in the released notebook before the `%%check` cell that needs it.

The demands are read off the tests themselves: each lab's visible tests run here, in this
process, on the instructor's reference, and every value they hand `exact` as the expected one
is kept. From those: each dict key (a payload's own keys, under "arguments" and "parameters",
are data, not shape), each tag word (the values of "role", "type", "stop_reason" and
"reason"), each event kind, the events' order, and each text the reference's own string
literals make (its f-strings read as patterns: "Agent stopped after max_turns=.+").
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from typing import Any

import pytest

from agentlab_magics.checking.cell_source import load
from agentlab_magics.checking.runner import lab_tests
from agentlab_magics.course import find_lab
from agentlab_magics.course.assignments import find_assignment
from agentlab_magics.making.notebooks import notebook

LESSONS = ["lesson1", "lesson2", "lesson3", "lesson4", "lesson5", "lesson6", "lesson7"]
TAGS = ("role", "type", "stop_reason", "reason")
PAYLOADS = ("arguments", "parameters")
EVENT_KIND = re.compile(r"([a-z]+_[a-z_]+|message)(?: \d+)?")


def expected_values(lab_id: str) -> list[Any]:
    """Every value the lab's own visible tests compare against, run on its reference."""
    lab = find_lab(lab_id)
    harness = load(lab.reference, "harness.py", "harness")
    module = importlib.import_module(lab.tests)
    compared: list[Any] = []
    real = module.exact

    def exact(actual: Any, expected: Any, *rest: Any) -> bool:
        compared.append(expected)
        return real(actual, expected, *rest)

    given = {"harness": harness, "record": lambda messages, model: messages}
    module.exact = exact
    try:
        for test in lab_tests(lab, still_holds=False):
            test.function(**{name: given[name]
                             for name in inspect.signature(test.function).parameters})
    finally:
        module.exact = real
    return compared


def shape_words(value: Any, found: set[str]) -> set[str]:
    """The keys and tag words of every dict in `value`, payloads left out."""
    if isinstance(value, dict):
        for key, item in value.items():
            found.add(key)
            if key in TAGS and isinstance(item, str):
                found.add(item)
            if key not in PAYLOADS:
                shape_words(item, found)
    elif isinstance(value, (list, tuple)):
        for item in value:
            shape_words(item, found)
    return found


def event_orders(values: list[Any]) -> list[list[str]]:
    """Each list of event kinds the tests compare against ("turn_start 1" read as turn_start)."""
    return [[EVENT_KIND.fullmatch(kind).group(1) for kind in value] for value in values
            if isinstance(value, list) and value and all(
                isinstance(kind, str) and EVENT_KIND.fullmatch(kind) for kind in value)]


def literal_patterns(lab_id: str) -> list[re.Pattern]:
    """The reference's string literals in the functions the lab asks for, as patterns: an
    f-string's holes match anything."""
    lab = find_lab(lab_id)
    patterns = []
    for node in ast.walk(ast.parse(lab.reference)):
        if isinstance(node, ast.FunctionDef) and node.name in lab.names:
            body = node.body[1:] if ast.get_docstring(node) else node.body
            for inner in (node for statement in body for node in ast.walk(statement)):
                pieces = (inner.values if isinstance(inner, ast.JoinedStr)
                          else [inner] if isinstance(inner, ast.Constant)
                          and isinstance(inner.value, str) else [])
                words = "".join(piece.value for piece in pieces if isinstance(piece, ast.Constant))
                if re.search(r"[A-Za-z]+ [a-z]+", words):
                    patterns.append("".join(re.escape(piece.value)
                                            if isinstance(piece, ast.Constant) else ".+"
                                            for piece in pieces))
    return [re.compile(pattern) for pattern in patterns]


def demanded_texts(lab_id: str, values: list[Any]) -> set[str]:
    """The reference's literal texts that a compared string is made of, as patterns."""
    strings: list[str] = []

    def collect(value: Any) -> None:
        if isinstance(value, str):
            strings.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                collect(item)
        elif isinstance(value, (list, tuple)):
            for item in value:
                collect(item)

    collect(values)
    return {pattern.pattern for pattern in literal_patterns(lab_id)
            if any(pattern.fullmatch(text) for text in strings)}


def shown_before(lab_id: str) -> str:
    """The released notebook's cells above the lab's `%%check` cell, markdown and code, each
    run of white space one space (as markdown shows a line break)."""
    cells = notebook(find_assignment(lab_id), student=True).cells
    above = []
    for cell in cells:
        if cell.source.startswith(f"%%check {lab_id}\n"):
            return " ".join(" ".join(above).split())
        above.append(cell.source)
    raise AssertionError(f"{lab_id}'s notebook has no %%check cell")


@pytest.fixture(scope="module", params=LESSONS)
def lesson(request) -> tuple[str, list[Any], str]:
    return request.param, expected_values(request.param), shown_before(request.param)


def test_every_key_and_tag_a_test_compares_is_shown_before_the_cell(lesson):
    lab_id, values, shown = lesson
    missing = sorted(word for word in shape_words(values, set())
                     if f'"{word}"' not in shown)
    assert not missing, f"{lab_id}'s notebook never shows {missing} before its %%check cell"


def test_every_event_kind_is_shown_in_the_order_the_tests_demand(lesson):
    lab_id, values, shown = lesson
    for order in event_orders(values):
        places = [match.start() for kind in order
                  for match in [re.search(rf'"{kind}"', shown)] if match]
        assert len(places) == len(order), f"{lab_id} never shows some of {order}"
        sequence = iter(re.findall(r'"([a-z_]+)"', shown))
        assert all(kind in sequence for kind in order), (
            f"{lab_id}'s notebook does not show the events in the order {order}")


def test_every_exact_text_a_test_demands_is_shown_before_the_cell(lesson):
    lab_id, values, shown = lesson
    missing = sorted(pattern for pattern in demanded_texts(lab_id, values)
                     if not re.search(pattern, shown))
    assert not missing, f"{lab_id}'s notebook never shows a text like {missing}"


def event_words(values: list[Any]) -> set[str]:
    """The keys, types and reasons of the events lesson 7's tests compare, messages left out."""
    found: set[str] = set()

    def visit(value: Any) -> None:
        if isinstance(value, dict) and EVENT_KIND.fullmatch(str(value.get("type"))):
            found.update(key for key in value)
            found.update(str(value[key]) for key in ("type", "reason") if key in value)
        elif isinstance(value, (list, tuple)):
            for item in value:
                visit(item)

    visit(values)
    return found


def first_seen(words: list[str]) -> list[str]:
    return list(dict.fromkeys(words))


@pytest.mark.parametrize("where", ["help(watch)", "the starter"])
def test_help_watch_and_the_starter_show_the_events_and_their_order(where):
    import pydoc

    from agentlab_magics.widgets import watch

    values = expected_values("lesson7")
    text = (pydoc.render_doc(watch, renderer=pydoc.plaintext) if where == "help(watch)"
            else find_lab("lesson7").starter)
    missing = sorted(word for word in event_words(values) if f'"{word}"' not in text)
    assert not missing, f"{where} never shows {missing}"
    kinds = {kind for order in event_orders(values) for kind in order}
    told = [word for word in re.findall(r'"([a-z_]+)"', text) if word in kinds]
    assert first_seen(told) == first_seen(max(event_orders(values), key=len))
