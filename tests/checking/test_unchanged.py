"""The student process's prints of what the judge holds: equal prints only for the very same
plain values and handles, so a list synced by its name alone or by its new end is exact."""

from __future__ import annotations

import enum
from collections import OrderedDict

import pytest

from agentlab_magics.checking.unchanged import Snapshots


class Handle:
    def __init__(self, number: int) -> None:
        self.number = number


class Role(enum.StrEnum):
    USER = "user"


def prints() -> Snapshots:
    return Snapshots(lambda value: value.number if type(value) is Handle else None)


@pytest.mark.parametrize("one, other", [
    (1, True), (1, 1.0), (0.0, -0.0), ([1], (1,)), ({"a": 1}, {"a": True}),
    ({"a": 1, "b": 2}, {"b": 2, "a": 1}), ({1: "x"}, {"1": "x"}), (b"x", "x"),
    ([Handle(1)], [Handle(2)]),
])
def test_values_that_differ_in_type_order_or_handle_print_differently(one, other):
    made = prints()
    assert made.of(one) is not None and made.of(other) is not None
    assert made.of(one) != made.of(other)


@pytest.mark.parametrize("value", [
    [Role.USER], {"role": Role.USER}, [OrderedDict()], [object()],
    [type("Text", (str,), {})("t")], {"k": lambda: None},
])
def test_anything_but_plain_data_and_handles_has_no_print(value):
    assert prints().of(value) is None


def test_a_list_that_holds_itself_has_no_print_and_the_next_print_is_as_before():
    made = prints()
    looped: list = []
    looped.append(looped)
    deep: list = ["x"]
    for _ in range(60):  # deeper than the pickler's own count of what it is inside
        deep = [deep]
    before = made.of(deep)
    assert made.of(looped) is None
    assert made.of(deep) == before and made.of([Handle(3)]) == made.of([Handle(3)])


def test_kept_says_whole_none_or_how_many_first_items_are_as_the_judge_holds_them():
    made = prints()
    items = [{"n": 1}, {"n": 2}]
    made.hold(7, items, made.of(items))
    assert made.kept(7, items)[0] == -1
    items.append({"n": 3})
    same, whole, printed = made.kept(7, items)
    assert same == 2
    made.hold(7, items, whole, printed)
    items[0]["n"] = True  # an early item edited in place: nothing before it is kept
    assert made.kept(7, items)[0] == 0
    made.hold(7, items, made.of(items))
    items[1] = Role.USER  # not plain: sent whole, and no print held after
    assert made.kept(7, items)[:2] == (0, None)
    made.forget([7])
    assert made.kept(7, [{"n": 1}])[0] == 0
