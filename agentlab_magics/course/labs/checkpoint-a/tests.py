"""Checkpoint A, the rebuild: the loop tests of lessons 3, 4 and 5, and one that lists what is
missing.

The tests are the very functions of those lessons, taken in their lessons' order, so the
same ruler measures the rebuild as measured the build. The tests those lessons hold back are
held back here too, by the instructor's checkpoint_a module of held-back tests.
"""

from agentlab_labs.lesson3 import tests as lesson3
from agentlab_labs.lesson4 import tests as lesson4
from agentlab_labs.lesson5 import tests as lesson5
from agentlab_magics.course.catalog import find_lab
from agentlab_magics.course.labtests.kit import plain
from agentlab_magics.lab.rules import a_type

REBUILT = ("error_message", "context_for_model", "run_agent")
FROM_LESSON4 = ("test_a_mistyped_tool_name_is_answered_and_the_model_retries",
                "test_three_calls_one_failing_get_three_results_in_order")


def tests_of(module, names=None):
    """The test functions of `module`: those in `names`, or all of them when `names` is None."""
    return {name: test for name, test in vars(module).items()
            if name.startswith("test_") and (names is None or name in names)}


globals().update({**tests_of(lesson3), **tests_of(lesson4, FROM_LESSON4), **tests_of(lesson5)})


def test_the_three_names_are_written(harness):
    """The three names of the rebuild are in the file; until they are, every other test can only say
    so."""
    missing = harness.missing(list(REBUILT))
    assert not missing, "Still missing: " + "; ".join(
        f"{name}, which {find_lab('checkpoint-a').purposes[name]}" for name in missing) + "."
    # written as functions that make plain data: a message and a list (a value that only
    # claims to be one, equal to everything, is not)
    for call, value, kind in (
            ("error_message('stopped')", harness.error_message("stopped"), dict),
            ("context_for_model([])", harness.context_for_model([]), list)):
        plain(value, f"what {call} gave", "return plain dicts and lists, as the lessons do.")
        assert type(value) is kind, (
            f"{call} gave {a_type(value)}, not {a_type(kind())}: "
            f"{call.split('(')[0]} makes {'a message' if kind is dict else 'a list'}.")
