"""No held-back test reaches a process that runs student code.

The held-back tests run in the judge; the student's code, in a student process that the grader
starts in its sandbox, gets only the data those tests hand it. Each lab's reference, with a
hunt added to every function the lab asks for, is checked as the grader checks it (its
held-back tests, its student processes sandboxed): the hunt looks for the held-back tests'
names and code lines everywhere its process can look (the instructor package, the modules
loaded, every string the collector reaches, the process's own memory) and prints what it
finds. The same hunt in a student process started without the sandbox, where the instructor
package is importable, finds them: the hunt is no dud.
"""

from __future__ import annotations

import hashlib
import inspect
from pathlib import Path

import pytest

import agentlab_magics
from agentlab_magics.checking.runner import lab_tests, run
from agentlab_magics.course import find_lab, labs
from agentlab_magics.course.heldback import held_back_module
from agentlab_magics.grading.sandbox import detect, setuid_files
from agentlab_magics.grading.scoring import sandboxed
from tests.security.forgeries import HELD_BACK_HUNT

STUDENT_PACKAGE = Path(agentlab_magics.__file__).parent
LABS = [lab_id for lab_id in labs() if held_back_module(find_lab(lab_id)) is not None]


def needles(lab_id: str) -> set[str]:
    """The digests of the held-back tests' names and of their code lines that are not data
    and not in the student's own install (a line of a lab's answer that a later lab's starter
    holds): what no student process may hold."""
    lab = find_lab(lab_id)
    names = [test.name for test in lab_tests(lab, held_back=True) if test.held_back]
    lines = [line.strip() for line in inspect.getsource(held_back_module(lab)).splitlines()
             if len(line.strip()) >= 30 and not line.strip().startswith(
                 ('"', "'", 'f"', "f'", "#", "def ", "from ", "import "))]
    shipped = {line.strip() for path in STUDENT_PACKAGE.rglob("*.py")
               for line in path.read_text(encoding="utf-8").splitlines()}
    return {hashlib.sha256(text.encode()).hexdigest() for text in names + lines
            if text not in shipped}


def hunted(lab_id: str, launch=None):
    """The held-back check of the lab's reference with the hunt added: the report."""
    lab = find_lab(lab_id)
    source = lab.reference + HELD_BACK_HUNT.replace("@NEEDLES@", repr(needles(lab_id)))
    held = [test.name for test in lab_tests(lab, held_back=True) if test.held_back]
    return run(lab_id, "", source=source, held_back=True, only=held, timeout=30, launch=launch)


def found(report) -> list[str]:
    return sorted({line for outcome in report.outcomes for line in outcome.output.splitlines()
                   if line.startswith("FOUND: ")})


@pytest.mark.skipif(detect() == "none", reason="the grader's sandbox is needed here")
@pytest.mark.parametrize("lab_id", LABS)
def test_no_held_back_text_reaches_the_graders_student_process(lab_id):
    report = hunted(lab_id, launch=sandboxed([], setuid_files()))
    assert report.all_passed, (report.problem, [o.message for o in report.outcomes])
    assert found(report) == []


def test_the_hunt_finds_the_held_back_tests_where_the_instructor_package_is_importable():
    report = hunted("lesson1")
    assert report.all_passed
    assert any(line.startswith("FOUND: the instructor package imported")
               for line in found(report))
    assert any(line.startswith("FOUND: held-back text") for line in found(report))
