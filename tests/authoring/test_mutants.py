"""The mutants an author's lab is proven with: one edit each, only inside what the student
writes (between the solution markers), every one valid Python, docstrings and strings left
alone, each edit once."""

from __future__ import annotations

import ast

from agentlab_magics.authoring.mutants import mutants

MARKED = '''\
"""A lab's file: a given helper, then what the student writes."""


def given(items):
    return len(items) > 3


### BEGIN SOLUTION
def count_big(items, limit):
    """How many items are over the limit."""
    total = 0
    seen = []
    for item in items:
        if item > limit and item != 0:
            total += 1
            seen.append(item)
    return {"total": total, "seen": seen}
### END SOLUTION
'''


def edits() -> dict[str, str]:
    return {mutant.key: mutant.source for mutant in mutants(MARKED)}


def test_every_kind_of_edit_is_made_once_and_only_in_what_the_student_writes():
    keys = set(edits())
    assert {"count_big: item > limit -> item >= limit", "count_big: item > limit -> item <= limit",
            "count_big: item != 0 -> item == 0",
            "count_big: item > limit and item != 0 -> item > limit or item != 0",
            "count_big: 0 -> 1", "count_big: 0 -> -1",
            "count_big: total += 1 -> total -= 1",
            "count_big: seen.append(item) -> pass",
            "count_big: if item > limit and item != 0: -> if False:",
            "count_big: return {'total': total, 'seen': seen} -> return None",
            "count_big: return {'total': total, 'seen': seen} -> pass",
            "count_big: {'total': total, 'seen': seen} -> {'seen': seen}",
            "count_big: {'total': total, 'seen': seen} -> {'total': total}"} <= keys
    assert not [key for key in keys if key.startswith("given")]  # given, not written
    assert not [key for key in keys if "How many" in key]  # the docstring is left alone
    assert len(keys) == len(mutants(MARKED))


def test_each_mutant_is_valid_python_and_differs_from_the_reference_in_one_place():
    reference = ast.dump(ast.parse(MARKED))
    for key, source in edits().items():
        assert ast.dump(ast.parse(source)) != reference, key
        assert source.splitlines()[:8] == MARKED.splitlines()[:8], key  # the lines above stay


def test_a_call_of_one_of_the_files_functions_goes_to_another_of_as_many_arguments():
    marked = ("def head(text, n):\n    return text[:n]\n\n\ndef tail(text, n):\n"
              "    return text[-n:]\n\n\n### BEGIN SOLUTION\ndef short(text):\n"
              "    return head(text, 3)\n### END SOLUTION\n")
    keys = {mutant.key for mutant in mutants(marked)}
    assert "short: head(text, 3) -> tail(text, 3)" in keys
    assert "short: head(text, 3) -> head(3, text)" in keys


def test_an_edit_of_a_statement_that_shares_its_line_changes_that_statement_alone():
    """`if x > 2: return 'big'` is two statements on one line: dropping the return rewrites
    the `if` around it, its test kept, and nothing else changes."""
    marked = ("### BEGIN SOLUTION\ndef pick(x):\n    if x > 2: return 'big'  # one line\n"
              "    return 'small'\n### END SOLUTION\n")
    made = {mutant.key: mutant.source for mutant in mutants(marked)}
    dropped = made["pick: return 'big' -> pass"]
    assert ast.dump(ast.parse(dropped)) == ast.dump(ast.parse(
        "def pick(x):\n    if x > 2:\n        pass\n    return 'small'\n"))
