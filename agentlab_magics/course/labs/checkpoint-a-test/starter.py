"""my_test.py: the script on which two loops part company, and the assert that tells them apart.

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
