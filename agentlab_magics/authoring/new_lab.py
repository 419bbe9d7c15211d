"""`agentlab lab new ID`: a lab folder that works from its first minute, to edit into the
lab an author wants. Invariant: the skeleton passes its own `agentlab lab verify` (its
reference passes, its starter fails, no mutant survives), so whatever fails after an edit
was the edit's doing.
"""

from __future__ import annotations

from pathlib import Path

from agentlab_magics.course import lab_folder
from agentlab_magics.course.lab_folder import LAB_ID, LabFolderProblem

LAB_TOML = '''\
title = "{title}"
# Each name the student writes, with what it is for, in a line the student reads.
names = {{ count_calls = "counts the calls an assistant reply asks for" }}
# Earlier labs whose tests still hold for this one (their ids), and seconds a test may take.
builds_on = []
time_limit = 5

# The graded cells: the tests whose names match `match`, worth `per_test` points each.
[[groups]]
id = "counting"
match = "."
per_test = 1
'''

REFERENCE = '''\
"""{title}."""


def count_calls(message):
    """How many toolCall blocks the assistant message holds."""
    ### BEGIN SOLUTION
    return sum(1 for block in message["content"] if block["type"] == "toolCall")
    ### END SOLUTION
'''

TESTS = '''\
"""The tests of {lab_id}: each takes `harness`, the student's code, and the first paragraph of
its docstring is the sentence the student reads."""

from agentlab_magics import lab
from agentlab_magics.course.labtests.kit import exact


def test_counts_every_call(harness):
    """count_calls counts each toolCall block of a reply, and none of its text."""
    reply = lab.reply(lab.text("Reading both."), lab.call("read", {{"path": "a.py"}}, id="c1"),
                      lab.call("read", {{"path": "b.py"}}, id="c2"))
    counted = harness.count_calls(reply)
    assert exact(counted, 2, "what count_calls returned"), (
        f"count_calls gave {{counted!r}} for a reply holding text and two calls; expected 2.")


def test_a_reply_of_words_asks_for_nothing(harness):
    """A reply holding only words asks for no call: count_calls gives 0."""
    counted = harness.count_calls(lab.say("The port is 9090."))
    assert exact(counted, 0, "what count_calls returned"), (
        f"count_calls gave {{counted!r}} for a reply holding only text; expected 0.")
'''

NOTEBOOK = '''\
# {title}

A reply can ask for several tools at once. Before a loop runs them, it counts them.

See a reply that asks for two reads:

```python
reply = lab.reply(lab.text("Reading both."), lab.call("read", {{"path": "a.py"}}, id="c1"),
                  lab.call("read", {{"path": "b.py"}}, id="c2"))
print(lab.shape([reply]))
```

Write `count_calls(message)`: how many calls the reply asks for.
'''


def new_lab(lab_id: str, pack: Path) -> list[Path]:
    """Write the skeleton lab `lab_id` into the folder `pack`; returns the files written. A
    LabFolderProblem, with nothing written, when the id cannot be a lab's or the folder is
    there already."""
    if not LAB_ID.fullmatch(lab_id):
        raise LabFolderProblem(f"{lab_id!r} cannot be a lab id: use lowercase letters, digits "
                               "and single dashes, starting with a letter (like retry-backoff).")
    folder = pack / lab_id
    if folder.exists():
        raise LabFolderProblem(f"{folder} is there already: choose another id, or another "
                               "folder with --in.")
    title = lab_id.replace("-", " ").capitalize()
    files = {lab_folder.LAB_TOML: LAB_TOML, lab_folder.REFERENCE: REFERENCE,
             lab_folder.TESTS: TESTS, lab_folder.NOTEBOOK: NOTEBOOK}
    folder.mkdir(parents=True)
    written = [folder / name for name in files]
    for path, text in zip(written, files.values()):  # as an editor makes them (the umask's mode)
        path.write_text(text.format(lab_id=lab_id, title=title), encoding="utf-8")
    return written
