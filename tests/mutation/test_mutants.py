"""The checking power of the labs: references pass everything, every mutant fails something,
and every test, held-back ones included, fails some mutant: a test that cannot fail is a defect.
A lab's check also runs the earlier lessons' tests that still hold for it: the references pass
those too, and each is proven by the mutants of the lab it belongs to.

Each source is checked once, with the held-back tests, and its report reused by every test here.
"""

from __future__ import annotations

import functools

import pytest

from agentlab_magics.checking.report import CheckReport
from agentlab_magics.checking.runner import lab_tests, run
from agentlab_magics.course import find_lab, labs
from tests.mutation.constructs import first_sentence, verdict
from tests.mutation.mutants import LIARS, MUTANTS, Liar, Mutant

LABS = list(labs())


@pytest.fixture(scope="module")
def check(tmp_path_factory):
    """check(lab_id, source): the report of the lab's tests on `source`, held-back ones included
    unless held_back is false, as in %%check."""

    @functools.cache
    def checked(lab_id: str, source: str, held_back: bool = True) -> CheckReport:
        path = tmp_path_factory.mktemp(lab_id) / f"{find_lab(lab_id).module}.py"
        path.write_text(source, encoding="utf-8")
        return run(lab_id, path, timeout=5, held_back=held_back)

    return checked


def reference_report(check, lab_id: str) -> CheckReport:
    return check(lab_id, find_lab(lab_id).reference)


def mutant_report(check, mutant: Mutant | Liar) -> CheckReport:
    return check(mutant.lab, mutant.apply(find_lab(mutant.lab).reference))


def held_back_tests(lab_id: str) -> set[str]:
    """The names of the lab's tests that %%check leaves out."""
    return {test.name for test in lab_tests(find_lab(lab_id), held_back=True) if test.held_back}


@pytest.mark.parametrize("lab_id", LABS)
def test_the_reference_passes_every_test(lab_id, check):
    report = reference_report(check, lab_id)
    failed = [(o.name, o.outcome, o.message) for o in report.outcomes if not o.passed]
    assert report.all_passed, (report.problem, failed)


@pytest.mark.parametrize("lab_id", LABS)
def test_check_leaves_out_the_held_back_tests_and_the_reference_passes_the_rest(lab_id, check):
    report = check(lab_id, find_lab(lab_id).reference, held_back=False)
    assert report.all_passed, (report.problem, [o.name for o in report.outcomes if not o.passed])
    every = {o.name for o in reference_report(check, lab_id).outcomes}
    assert {o.name for o in report.outcomes} == every - held_back_tests(lab_id)


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m.name for m in MUTANTS])
def test_every_mutant_fails_its_lab(mutant, check):
    report = mutant_report(check, mutant)
    assert report.problem is None, report.problem
    assert not report.all_passed, f"{mutant.name} passes every test of {mutant.lab}"


@pytest.mark.parametrize("lab_id", LABS)
def test_every_test_rejects_some_plausible_wrong_harness(lab_id, check):
    """Every test of the lab's own, that is: one that still holds from an earlier lesson is
    proven by that lesson's mutants."""
    tests = [o.name for o in reference_report(check, lab_id).outcomes if not o.group]
    assert tests, f"No test of {lab_id} ran on its reference."
    unrun = held_back_tests(lab_id) - set(tests)
    assert not unrun, f"The held-back tests {sorted(unrun)} did not run."
    rejected = {o.name for mutant in MUTANTS if mutant.lab == lab_id
                for o in mutant_report(check, mutant).outcomes if not o.passed}
    unproven = [name for name in tests if name not in rejected]
    assert not unproven, (
        f"No mutant of {lab_id} fails {unproven}: add to tests/mutation/mutants.py a plausible "
        "wrong harness each of these tests rejects.")


@pytest.mark.parametrize("lab_id", ["lesson5", "lesson6", "lesson7"])
def test_a_loop_that_answers_only_the_first_call_fails_the_later_lessons(lab_id, check):
    """Lessons 5 and 6 keep lesson 3's loop: answering only a reply's first call breaks what
    lesson 3 asked, and their checks say so under "Still holds from lesson 3"."""
    mutant = {m.name: m for m in MUTANTS}[f"{lab_id}: only the first call is answered"]
    failed = {(o.group, o.name) for o in mutant_report(check, mutant).outcomes if not o.passed}
    assert ("Still holds from lesson 3", "test_two_calls_get_two_results_in_call_order") in failed


def test_there_are_at_least_25_mutants():
    assert len(MUTANTS) >= 25


# The tests that read no value the harness made: lesson 7's emit makes no value (it returns
# None, which a liar leaves as it is) and hands on the test's own event.
COMPARE_NO_VALUE = {("lesson7", "test_emit_tells_the_listener_the_event")}


@pytest.mark.parametrize("liar", LIARS, ids=[liar.name for liar in LIARS])
def test_a_lying_harness_passes_no_test(liar, check):
    """A harness whose values lie about == (equal to everything, or a dict, list, tuple, str or
    int subclass that says so) passes no test of its lab, held-back ones included: every test
    compares what the harness made exactly, type included, and every test but those in
    COMPARE_NO_VALUE reads some value the harness made."""
    report = mutant_report(check, liar)
    assert report.problem is None, report.problem
    assert report.outcomes, f"No test of {liar.lab} ran."
    passed = [o.name for o in report.outcomes
              if o.passed and (liar.lab, o.name) not in COMPARE_NO_VALUE]
    assert not passed, f"{liar.name} passes {passed}"


def test_every_lab_has_its_liars():
    assert {liar.lab for liar in LIARS} == set(LABS)


def every_bug() -> list[Mutant]:
    """The mutants, and the typical bugs of the diagnosis tests that are not among them."""
    from tests.checking.test_diagnosis import CASES

    named = {mutant.name for mutant in MUTANTS}
    return [*MUTANTS, *(bug for bug, _, _ in CASES if bug.name not in named)]


def test_the_first_sentence_of_every_bugs_report_names_what_was_edited_or_no_cause(check):
    """Over every mutant and every typical bug, the first sentence a student reads of the
    report (with the held-back tests, as the graded feedback shows it) names the construct the
    edit touched, or names no cause: none names a wrong one (tests/mutation/constructs.py says
    how each is told), and at least 90% name it."""
    table: dict[str, list[str]] = {"named": [], "silent": [], "wrong": []}
    for bug in every_bug():
        reference = find_lab(bug.lab).reference
        report = mutant_report(check, bug)
        table[verdict(bug, reference, report)].append(
            f"{bug.lab}: {bug.name}: {first_sentence(report)[0]}")
    total = sum(len(bugs) for bugs in table.values())
    print(f"\nbugs {total}, named {len(table['named'])}, silent {len(table['silent'])}, "
          f"wrong {len(table['wrong'])}")
    print("silent:", *table["silent"], sep="\n  ")
    assert not table["wrong"], "\n".join(table["wrong"])
    assert len(table["named"]) >= 0.9 * total, "\n".join(table["silent"])
