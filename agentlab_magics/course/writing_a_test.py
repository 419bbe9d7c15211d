"""Checkpoint A's first lab, where the student writes the fake model and the test.

The file is my_test.py: script() gives the model's steps, check(model, messages, final)
asserts one thing about what a run left behind. The starter is a file of the student
package; the reference is the instructor's (agentlab_instructor.reference.functions).
"""

from __future__ import annotations

from agentlab_magics.course.lab_model import PURPOSES, Lab

NAMES = ["script", "check"]


def checkpoint_a_test() -> Lab:
    return Lab(id="checkpoint-a-test", title="Checkpoint A: write the test that catches the bug",
               lesson="A", module="my_test", names=NAMES,
               purposes={name: PURPOSES[name] for name in NAMES},
               tests="agentlab_magics.course.labtests.checkpoint_a_test", fresh_per_test=True)
