"""Any correct harness, in any style a student writes, passes every path.

Each style of styles.py rewrites every lab's reference in one way a student writes Python
(hints, decorators, classes, threads, asyncio, logging, ...), keeping it correct: the control
runs it in one process with every test, visible and held back. Then every style x lab goes
through the paths a student's code meets (campaign.py computes them all at once, in
parallel): `agentlab check`, `%%check` in a real kernel, the grader's scoring, and one real
nbgrader autograde round; on each, every test must pass, as it does for the reference.
Tests read `style: lab` in their ids; AGENTLAB_HONEST_STYLES=a,b checks some styles only.
"""

from __future__ import annotations

import pytest

from agentlab_magics.course import find_lab
from tests.honest.campaign import (
    CHOSEN,
    LABS,
    REFERENCE,
    WAIT,
    assignment_of,
    assignment_points,
    cli_sample,
    grade_calls,
    held_back_said,
    kernel_report,
    scored_labs,
    visible_tests,
)
from tests.honest.styles import describe

CASES = [(style, lab_id) for style in CHOSEN for lab_id in LABS]
CASE_IDS = [f"{style}: {lab_id}" for style, lab_id in CASES]
SCORED = [(style, lab_id) for style, lab_id in CASES if lab_id in scored_labs(style)]


def reads(part: str):
    """Mark a test with the part of the campaign it reads: only the parts of the selected
    tests are started."""
    def marked(test):
        test.part = part
        return test
    return marked


def _said(style: str, lab_id: str, path: str) -> str:
    return f"{path}: style {style!r} ({describe(style)}) on {lab_id}"


@pytest.mark.parametrize("style", CHOSEN)
@reads("control")
def test_the_style_passes_every_test_in_the_tests_own_process(campaign, style):
    """The control: run in one process with the tests (as the checker ran students' code
    before the student process), the style's code passes every test of every lab, visible
    and held back; so it is correct code, and a path it fails is the checker's to fix."""
    failed = campaign.control[style].result(WAIT)
    assert not failed, f"style {style!r} ({describe(style)}) in one process:\n" + "\n".join(
        failed)


@pytest.mark.parametrize("style, lab_id", CASES, ids=CASE_IDS)
@reads("cli")
def test_agentlab_check_passes_every_test_of_the_lab(campaign, style, lab_id):
    """`agentlab check LAB --harness FILE` passes every test the reference passes (the call the
    command makes, `run(lab, path)`; on the style's sampled lab, the command's main itself)."""
    verdict = campaign.cli[(style, lab_id)].result(WAIT)
    assert verdict is not None, f"{_said(style, lab_id, 'agentlab check')}: no JSON report"
    assert verdict.all_passed and verdict.names == visible_tests(lab_id), (
        f"{_said(style, lab_id, 'agentlab check')} got {verdict.summary}\n{verdict.failed}")


@pytest.mark.parametrize("style", CHOSEN, ids=[f"{style}: {cli_sample(style)}"
                                               for style in CHOSEN])
@reads("cli")
def test_the_agentlab_check_command_exits_0_with_a_json_report_of_every_test_passed(
        campaign, style):
    """The command itself (its main, with --json) exits 0 and prints a report of every test
    passed."""
    code, verdict, said = campaign.cli_main[style].result(WAIT)
    lab_id = cli_sample(style)
    assert code == 0 and verdict is not None and verdict.all_passed, (
        f"{_said(style, lab_id, 'agentlab check --json')} exited {code}: "
        f"{verdict.summary if verdict else 'no JSON report'}\n"
        f"{verdict.failed if verdict else ''}\n{said}")
    assert verdict.names == visible_tests(lab_id)


@pytest.mark.parametrize("style, lab_id", CASES, ids=CASE_IDS)
@reads("kernel")
def test_check_in_a_kernel_passes_every_test_of_the_lab(campaign, style, lab_id):
    """`%%check LAB` in a real kernel (one per style, the labs in a rotated order) shows a
    report of every test passed."""
    notebook = campaign.kernels[style].result(WAIT)
    summary, outputs = kernel_report(notebook, lab_id)
    count = len(visible_tests(lab_id))
    expected = f"{find_lab(lab_id).title}: {count} of {count} tests passed"
    assert summary == expected, (
        f"{_said(style, lab_id, '%%check in a kernel')} showed {summary!r}, expected "
        f"{expected!r}. The cell's outputs:\n{outputs[-6000:]}")


@pytest.mark.parametrize("style, lab_id", SCORED, ids=[f"{s}: {lab}" for s, lab in SCORED])
@reads("scoring")
def test_the_grader_scores_every_grade_call_as_it_scores_the_reference(campaign, style,
                                                                      lab_id):
    """score_jobs, in sandboxed student processes, gives every grade call of the lab, visible
    and held back, the reference's score: full marks (the labs of `campaign.scored_labs`;
    every style x lab with AGENTLAB_HONEST_FULL=1)."""
    theirs = campaign.scores[style].result(WAIT)
    reference = campaign.scores[REFERENCE].result(WAIT)
    lost = []
    for call in grade_calls(lab_id):
        mine, model = theirs[call], reference[call]
        if (mine.passed, mine.total) != (model.passed, model.total):
            said = (held_back_said(lab_id, campaign.sources[(style, lab_id)], call)
                    if call.held_back else mine.failed)
            lost.append(f"{call.group}{' (held back)' if call.held_back else ''}: "
                        f"{mine.passed} of {mine.total}, the reference {model.passed} of "
                        f"{model.total}\n{said}")
    assert not lost, f"{_said(style, lab_id, 'the grader')} lost points:\n" + "\n".join(lost)


@pytest.mark.parametrize("lab_id", LABS)
@reads("scoring")
def test_the_reference_gets_full_marks_from_the_grader(campaign, lab_id):
    """The baseline the styles are held to: every grade call of the reference scores every
    one of its tests."""
    reference = campaign.scores[REFERENCE].result(WAIT)
    for call in grade_calls(lab_id):
        score = reference[call]
        assert score.total > 0 and score.passed == score.total, (call, score.failed)


@pytest.mark.parametrize("style", CHOSEN, ids=[f"{style}: {assignment_of(style)}"
                                               for style in CHOSEN])
@reads("nbgrader")
def test_nbgrader_autograde_gives_the_style_full_marks(campaign, style):
    """In one real nbgrader round, the student who writes in this style scores the
    assignment's full marks (a point per test, visible and held back: the reference's),
    cell by cell."""
    graded = campaign.round.result(WAIT)[style]
    full = assignment_points(graded.assignment)
    lost = {name: cell for name, cell in graded.cells.items() if cell[0] != cell[1]}
    assert graded.max_score == full > 0 and graded.score == full and not lost, (
        f"{_said(style, graded.assignment, 'nbgrader autograde')} scored {graded.score} of "
        f"{graded.max_score} (full marks {full}); cells that lost points: {lost}\n"
        + "\n".join(f"{name}: {said}" for name, said in graded.errors.items()))
