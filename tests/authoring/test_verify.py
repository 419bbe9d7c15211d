"""`agentlab lab verify`: every built-in lab's tests kill every plausible one-edit mutant of
its reference (or the lab lists the mutant as equivalent, with the reason); a test weakened on
purpose lets a mutant survive, named by its line and edit, and restored, none does."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from agentlab_labs.lesson1 import tests as lesson1
from agentlab_magics.authoring.verify import verify
from agentlab_magics.checking.runner import _tests_of
from agentlab_magics.course import labs

LINE = re.compile(r"^(?P<lab>[\w-]+): (?P<mutants>\d+) mutants, (?P<killed>\d+) killed, "
                  r"(?P<equivalent>\d+) equivalent, (?P<survived>\d+) survived \(\d+\.\d s\)$")


@pytest.mark.parametrize("lab_id", list(labs()))
def test_every_built_in_lab_kills_every_mutant_it_does_not_list_as_equivalent(lab_id):
    found = verify(lab_id)
    assert found.problems == [] and found.survivors == [], (
        found.problems, [mutant.key for mutant in found.survivors])
    counted = LINE.fullmatch(found.line())
    assert counted and int(counted["mutants"]) == found.mutants > 0
    assert int(counted["killed"]) + int(counted["equivalent"]) == found.mutants


@pytest.fixture
def weakened(monkeypatch):
    """weakened(name, ...): lesson 1's tests of those names made to pass whatever the code
    does, until the test ends (the tests a module holds are read once, so read again)."""
    def weaken(*names: str) -> None:
        for name in names:
            monkeypatch.setattr(lesson1, name, lambda harness: None)
        _tests_of.cache_clear()

    yield weaken
    monkeypatch.undo()
    _tests_of.cache_clear()


def test_a_weakened_test_lets_its_mutants_survive_and_verify_names_them(weakened):
    weakened("test_text_of_joins_the_text_blocks_in_order",
             "test_text_of_a_reply_of_calls_only_is_empty")
    survivors = {mutant.key for mutant in verify("lesson1").survivors}
    assert "text_of: block['type'] == 'text' -> block['type'] != 'text'" in survivors
    assert all(key.startswith("text_of: ") for key in survivors)


def test_restored_the_same_tests_kill_them_all():
    assert verify("lesson1").survivors == []


def test_the_command_prints_each_survivor_and_a_line_a_script_can_read():
    done = subprocess.run([sys.executable, "-m", "agentlab_magics", "lab", "verify", "lesson2"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert LINE.fullmatch(done.stdout.strip())
