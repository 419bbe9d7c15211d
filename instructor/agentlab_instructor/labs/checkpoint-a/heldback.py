"""Checkpoint A's held-back tests: those of lessons 3, 4 and 5 that the checkpoint takes, as
its visible tests take theirs (agentlab_labs.checkpoint_a.tests)."""

from agentlab_labs.lesson3 import heldback as lesson3
from agentlab_labs.lesson4 import heldback as lesson4
from agentlab_labs.lesson5 import heldback as lesson5
from agentlab_labs.checkpoint_a.tests import tests_of

FROM_LESSON4 = ("test_three_calls_to_working_missing_and_raising_tools_get_three_results",)

globals().update({**tests_of(lesson3), **tests_of(lesson4, FROM_LESSON4), **tests_of(lesson5)})
