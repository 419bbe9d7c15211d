"""Where a run parts from the reference's: the requests aligned by turn (a model call) from the
first turn where they part, on data; the reference runs the student package ships (visible
tests only, shapes only, small) and those the instructor's package keeps for held-back tests;
the parting drawn in the static report, escaped; and a held-back test's parting said only in a
sentence."""

from __future__ import annotations

import json
import re

import pytest

from agentlab_magics.checking.parting import copy_runs, parting, turns
from agentlab_magics.checking.report import CheckReport, SentRequest, TestOutcome
from agentlab_magics.checking.runner import lab_tests, reference_runs_of, run
from agentlab_magics.course import find_lab
from agentlab_magics.course.catalog import built_in_labs
from agentlab_magics.course.starter_files import BUILT_IN
from agentlab_magics.widgets.report_view import ReportView

REFERENCE = {"sent": 3, "shapes": ["U", "U A[c1] R(c1)", "U A[c1] R(c1) A[c2] R(c2)"]}


def sent(*shapes: str, first: int = 1) -> list[SentRequest]:
    return [SentRequest(number=number, shape=shape)
            for number, shape in enumerate(shapes, start=first)]


def test_the_runs_part_at_the_first_turn_whose_requests_differ():
    mine = sent("U", "U A[c1] R(c1)", "U A[c1] A[c2] R(c2)", "U A[c1] A[c2] R(c2) A")
    assert parting(mine, 4, REFERENCE) == {
        "yours": ["U A[c1] A[c2] R(c2)", "U A[c1] A[c2] R(c2) A"],
        "expected": ["U A[c1] R(c1) A[c2] R(c2)", ""], "first": 0, "start": 3,
        "summary": "The reference stops after 3 calls; yours went on to 4."}


def test_a_run_that_goes_on_parts_where_the_reference_stops_even_past_what_was_kept():
    mine = sent(*[f"shape {n}" for n in range(29, 41)], first=29)  # the last 12 of 40
    found = parting(mine, 40, REFERENCE)
    assert found["start"] == 4 and found["yours"][0] == "…" and found["expected"][0] == ""
    assert found["summary"] == "The reference stops after 3 calls; yours went on to 40."
    assert len(found["yours"]) == 6  # only the first turns from the parting


def test_a_run_that_stops_early_parts_at_the_turn_it_never_sent():
    found = parting(sent("U", "U A[c1] R(c1)"), 2, REFERENCE)
    assert (found["start"], found["yours"], found["expected"]) == (
        3, [""], ["U A[c1] R(c1) A[c2] R(c2)"])
    assert found["summary"] == "The reference makes 3 calls; yours stopped after 2."


def test_a_run_the_test_cut_short_is_never_said_to_have_stopped():
    found = parting(sent("U", "U A[c1] R(c1)"), 2, REFERENCE, cut=True)
    assert found["summary"] == ("The reference makes 3 calls; yours had made 2 when the test "
                                "stopped it.")


def test_runs_that_agree_on_every_kept_turn_never_part():
    assert parting(sent(*REFERENCE["shapes"]), 3, REFERENCE) is None
    assert parting(sent("U A[c1] R(c1) A[c2] R(c2)", first=3), 3, REFERENCE) is None
    assert turns(["b", "c"], 5) == {4: "b", 5: "c"}


@pytest.mark.parametrize("lab_id", list(built_in_labs()))
def test_the_package_ships_the_reference_runs_of_visible_tests_only_as_small_shape_data(lab_id):
    text = (BUILT_IN / lab_id / "reference-runs.json").read_text(encoding="utf-8")
    runs = copy_runs(BUILT_IN / lab_id)
    assert runs == json.loads(text)
    visible = {test.name for test in lab_tests(find_lab(lab_id))}
    held_back = {test.name for test in lab_tests(find_lab(lab_id), held_back=True)} - visible
    assert set(runs) <= visible and not set(runs) & held_back
    assert runs or lab_id in ("checkpoint-a-test", "ch03-a", "ch03-a-transfer", "ch03-b")
    assert all(set(run) == {"sent", "shapes"} and len(run["shapes"]) <= run["sent"]
               for run in runs.values())
    assert len(text.encode()) < 12_000 and "def " not in text


def test_the_static_report_draws_the_parting_once_escaped():
    parted = {"yours": ["<b>U</b>"], "expected": [""], "first": 0, "start": 2,
              "summary": "The reference stops after 1 call; yours went on to <i>2</i>."}
    outcome = TestOutcome(name="test_x", sentence="s", outcome="failed", message="m",
                          requests=sent("U", "<b>U</b>"), requests_sent=2, parting=parted)
    html = ReportView(CheckReport(lab_id="lesson3", title="t", outcomes=[outcome]),
                      static=True).to_html()
    assert html.count('class="al-events al-parting"') == 1 and "<b>U" not in html
    assert "&lt;b&gt;U&lt;/b&gt;" in html and "went on to &lt;i&gt;2&lt;/i&gt;." in html
    assert '<tr class="al-parts"><td class="al-index">2</td>' in html
    assert "(no request)" in html


@pytest.mark.parametrize("lab_id", list(built_in_labs()))
def test_the_instructor_package_holds_the_held_back_tests_reference_runs_and_only_those(lab_id):
    lab = find_lab(lab_id)
    runs = copy_runs(lab.authored, "heldback-runs.json")
    assert runs == reference_runs_of(lab, True)
    held_back = {test.name for test in lab_tests(lab, held_back=True) if test.held_back}
    assert set(runs) <= held_back
    assert runs or lab_id in ("checkpoint-a-test", "lesson2", "lesson6", "ch03-a",
                              "ch03-a-transfer", "ch03-b")


def test_a_failing_held_back_test_says_where_it_parts_in_a_sentence_and_draws_nothing():
    lab = find_lab("lesson3")
    no_return = lab.reference.replace("        if not calls:\n            return reply\n",
                                      "        if not calls:\n            pass\n")
    assert no_return != lab.reference
    report = run("lesson3", "", source=no_return, held_back=True, timeout=5)
    held_back = {test.name for test in lab_tests(lab, held_back=True) if test.held_back}
    parted = [o for o in report.outcomes if not o.passed and o.name in held_back
              and reference_runs_of(lab, True).get(o.name)]
    assert parted, "no held-back test of lesson 3 that calls a model failed"
    for outcome in parted:
        assert outcome.parting is None
        assert re.search(r"The reference (stops after|makes) \d+ calls?;", outcome.message)
    visible = [o for o in report.outcomes if not o.passed and o.name not in held_back]
    assert any(o.parting for o in visible)  # a visible one is drawn beside the reference
