"""The instructor's held-back tests: every lab's module imports from its text alone, as the
grader's scoring sandbox imports it (where the instructor package cannot be read), and holds
the same tests as when it is imported from the instructor package."""

import inspect
import json
import subprocess
import sys

import pytest

from agentlab_magics.course import labs
from agentlab_magics.course.heldback import held_back_module, held_back_name, held_back_sources

MODULES = {held_back_name(lab): held_back_module(lab) for lab in labs().values()
           if held_back_module(lab) is not None}
# The scoring process's own import of the held-back modules from their text, with the
# instructor package blocked as in the sandbox: the names of the tests each module holds.
IMPORT = """
import importlib, json, sys
sys.modules["agentlab_instructor"] = None
from agentlab_magics.grading.score import importable
sources = json.loads(sys.stdin.read())
del sys.modules["agentlab_instructor"]
with importable(sources):
    made = {name: importlib.import_module(name) for name in sources}
    print(json.dumps({name: [key for key in vars(module) if key.startswith("test_")]
                      for name, module in made.items()}))
print(json.dumps(sorted(n for n in sys.modules if n.startswith("agentlab_instructor"))))
"""


def test_every_held_back_module_imports_from_its_text_alone_and_is_gone_after():
    sources = held_back_sources()
    assert set(sources) == set(MODULES) and len(MODULES) >= 10
    done = subprocess.run([sys.executable, "-c", IMPORT], input=json.dumps(sources),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    made, left = (json.loads(line) for line in done.stdout.splitlines())
    assert made == {name: [key for key, value in vars(module).items()
                           if key.startswith("test_") and inspect.isfunction(value)]
                    for name, module in MODULES.items()}
    assert left == []


def test_a_grader_without_the_held_back_tests_says_so_instead_of_scoring_zero(monkeypatch):
    from agentlab_magics.grading import autograde
    from agentlab_magics.grading.cells import GradeCall

    monkeypatch.setattr(autograde, "group_tests", lambda lab, group, held_back: [])
    with pytest.raises(autograde.HeldBackMissing, match="install the instructor package"):
        autograde.score_jobs([GradeCall("lesson1", "messages", True)], {"lesson1": ""}, [])
