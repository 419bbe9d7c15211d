"""The checking power of the labs: references pass everything, every mutant fails something."""

from __future__ import annotations

import pytest

from agentlab_magics.checking import run
from agentlab_magics.course import find_lab, labs
from tests.mutation.mutants import MUTANTS


def check_source(lab_id: str, source: str, tmp_path):
    path = tmp_path / f"{find_lab(lab_id).module}.py"
    path.write_text(source, encoding="utf-8")
    return run(lab_id, path, timeout=5)


@pytest.mark.parametrize("lab_id", list(labs()))
def test_the_reference_passes_every_test(lab_id, tmp_path):
    report = check_source(lab_id, find_lab(lab_id).reference, tmp_path)
    failed = [(o.name, o.outcome, o.message) for o in report.outcomes if not o.passed]
    assert report.all_passed, (report.problem, failed)


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m.name for m in MUTANTS])
def test_every_mutant_fails_its_lab(mutant, tmp_path):
    report = check_source(mutant.lab, mutant.apply(find_lab(mutant.lab).reference), tmp_path)
    assert report.problem is None, report.problem
    assert not report.all_passed, f"{mutant.name} passes every test of {mutant.lab}"


def test_there_are_at_least_25_mutants():
    assert len(MUTANTS) >= 25
