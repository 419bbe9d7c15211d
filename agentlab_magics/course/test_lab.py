"""Checkpoint A's first lab, where the student writes the fake model and the test.

The file is my_test.py: script() gives the model's steps, check(model, messages, final)
asserts one thing about what a run left behind.
"""

from __future__ import annotations

from agentlab_magics.course.catalog import PURPOSES, Lab
from agentlab_magics.course.harness_file import solution_bodies

NAMES = ["script", "check"]

STARTER = '''"""my_test.py: the script on which two loops part company, and the assert that tells them apart.

loops.reference reads a reply's content to decide whether there is more to do; loops.buggy
believes its stop_reason. Both run your script, then your check is handed each run.
"""

import lab


def script():
    """The model's side of the run: one step per model call, for lab.ScriptedModel."""
    # --- your code ---
    # Builders: lab.reply, lab.say, lab.text, lab.call, lab.fail; lab.reply(..., stop_reason=...)
    # gives a reply a label its content does not support.
    return []
    # --- end ---


def check(model, messages, final):
    """One assert about what the run left behind: true of the reference loop, false of the buggy one."""
    # --- your code ---
    # messages: the record the loop appended to; model.calls: every request sent;
    # final: what the loop returned. lab.shape, lab.show and lab.diff make a message readable.
    # --- end ---
'''

REFERENCE = '''"""my_test.py: a reply whose label lies, and the record only an honest loop leaves."""

import lab


def script():
    """A call labelled "stop", then the answer a loop that reads the content will ask for."""
    return [lab.reply(lab.call("read", {"path": "config.py"}), stop_reason="stop"),
            lab.say("The port is 9090.")]


def check(model, messages, final):
    """The call was answered and the model was asked again: the record is U A[c1] R(c1) A."""
    expected = "U A[c1] R(c1) A"
    assert lab.shape(messages) == expected, (
        f"The model asked to read config.py in a reply labelled 'stop'. The loop made "
        f"{len(model.calls)} model call(s), returned {lab.show([final])!r} and left "
        f"{lab.shape(messages)!r}, where {expected!r} was expected: a call is a call whatever "
        f"the label says, so the tool must run and its result go back.\\n{lab.show(messages)}")
'''


def checkpoint_a_test() -> Lab:
    return Lab(id="checkpoint-a-test", title="Checkpoint A: write the test that catches the bug",
               lesson="A", module="my_test", names=NAMES,
               purposes={name: PURPOSES[name] for name in NAMES},
               tests="agentlab_magics.course.labtests.checkpoint_a_test",
               starter=STARTER, reference=REFERENCE, 
               marked=solution_bodies(STARTER, REFERENCE, NAMES))
