"""The judge leaves a list or dict as it is only when the contents it would be given are
exactly what it holds: the same types, the same values, its own lists and dicts the very
objects where they were."""

from __future__ import annotations

from agentlab_magics.checking.bridge import Unchanged


def test_contents_that_are_the_same_items_leave_it_as_it_is():
    ours = {"type": "string"}
    held = {"type": "object", "properties": ours, "n": 1, "b": b"x", "none": None}
    same = Unchanged({1: held, 2: ours}).same
    assert same(held, {"type": "object", "properties": ours, "n": 1, "b": b"x", "none": None})
    assert same([1.5, (1, "a")], [1.5, (1, "a")])  # told by their bytes
    assert same([], [])


def test_any_difference_a_type_or_an_object_makes_is_written():
    ours = {"type": "string"}
    held = {"properties": ours, "n": 1}
    same = Unchanged({1: held, 2: ours}).same
    assert not same(held, {"properties": {"type": "string"}, "n": 1})  # an equal copy
    assert not same(held, {"properties": ours, "n": True})
    assert not same(held, {"properties": ours, "n": 1.0})
    assert not same(held, {"n": 1, "properties": ours})  # another order
    assert not same(held, {"properties": ours})
    assert not same([0.0], [-0.0])
    assert not same([float("nan")], [1.0])
    assert not same([(1, ours)], [(1, {"type": "string"})])  # inside a tuple too
    assert not same(["a"], ("a",))
