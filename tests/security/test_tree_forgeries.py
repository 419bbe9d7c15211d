"""Values a student process could send that would make the judge's own lists and dicts a
graph, and contents that only look like what the judge holds: each refused, or written, as the
judge's walk and its `Unchanged` must. Each test starts a fake student process
(tests/checking/test_judge_protocol.py's) that writes its messages by hand."""

from __future__ import annotations

import pytest

from agentlab_magics.checking.process import StudentProcess
from agentlab_magics.checking.stopped import Unreadable
from tests.checking.test_judge_protocol import fake


def test_one_of_the_judges_dicts_named_twice_in_one_value_is_refused():
    """A value that names the judge's list and, beside it, the dict inside that list holds the
    dict twice: refused, though every other part of the value is fresh from the frame."""
    process = StudentProcess.start(fake('''
        outer, inner = (message['a'][0]['$r'], message['a'][0]['v'][0]['$r'])
        say({"k": "value", "v": [{"$r": outer}, {"fresh": [1, 2]}, {"$r": inner}]})
    '''))
    items = [{"role": "user"}]
    process.begin(5.0)
    with pytest.raises(Unreadable):
        process.call("f", (items,), {})
    assert items == [{"role": "user"}] and not process.alive


def test_a_list_of_the_judges_written_to_hold_its_dict_twice_is_refused_and_left_as_it_was():
    """Contents that name the judge's own dict twice make the judge's list a graph: refused,
    whatever else the message says, and the list keeps what it held."""
    process = StudentProcess.start(fake('''
        outer, inner = (message['a'][0]['$r'], message['a'][0]['v'][0]['$r'])
        say({"k": "value", "v": None, "sync": [{"$r": outer, "v": [{"$r": inner}, {"$r": inner}]}]})
    '''))
    items = [{"role": "user"}]
    first_item = items[0]
    process.begin(5.0)
    with pytest.raises(Unreadable):
        process.call("f", (items,), {})
    assert items == [first_item] and items[0] is first_item and not process.alive


def test_contents_equal_to_the_judges_but_not_its_very_dict_are_written():
    """The judge leaves a list whose contents would not change as it is; contents that hold
    an equal copy where its own dict stood change it (the list now holds the copy)."""
    process = StudentProcess.start(fake('''
        outer, inner = (message['a'][0]['$r'], message['a'][0]['v'][0]['$r'])
        say({"k": "value", "v": None, "sync": [{"$r": outer, "v": [{"role": "user"}]}]})
    '''))
    items = [{"role": "user"}]
    first_item = items[0]
    process.begin(5.0)
    process.call("f", (items,), {})
    assert items == [{"role": "user"}] and items[0] is not first_item
    process.kill()


def test_contents_the_judges_list_holds_already_leave_it_and_its_dict_as_they_were():
    process = StudentProcess.start(fake('''
        outer, inner = (message['a'][0]['$r'], message['a'][0]['v'][0]['$r'])
        say({"k": "value", "v": {"$r": outer}, "sync": [{"$r": outer, "v": [{"$r": inner}]}]})
    '''))
    items = [{"role": "user"}]
    first_item = items[0]
    process.begin(5.0)
    assert process.call("f", (items,), {}) is items
    assert items == [{"role": "user"}] and items[0] is first_item
    process.kill()
