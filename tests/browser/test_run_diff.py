"""Two of the seed's runs side by side in real JupyterLab: `%transcript theirs --diff yours`
marks the turn where they part, and a record beside its own request; the diff widget unfolds,
shows only what differs, finds and goes to the parting turn; the bounded unit's runs are drawn
as the course's messages, with what each call cost."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.lab_session import Browsing, output, ran_all, row, shoot
from tests.student_notebook import notebook_of

NOTEBOOK = "diff.ipynb"
RUNS = """\
from agentlab_magics import lab

typo = lab.call("raed", {"path": "config.py"}, id="c1")
read = lab.call("read", {"path": "config.py"}, id="c2")
question = lab.user("What port does config.py use?")
theirs = [question, lab.reply(typo), lab.fail("400 invalid_request: call c1 has no result")]
yours = [question, lab.reply(typo), lab.tool_result(typo, "Tool raed not found", is_error=True),
         lab.reply(read), lab.tool_result(read, "PORT = 9090"), lab.say("The port is 9090.")]
%transcript theirs --diff yours"""
OUTAGE = """\
outage = [question, lab.fail("503 overloaded"), lab.user("Try again, please.")]
%transcript outage --diff"""
LONG = """\
long = [lab.user(f"question {n}") for n in range(40)]
changed = [*long[:30], lab.user("another question"), *long[31:]]
%transcript long --diff changed"""
UNIT = """\
from agentlab_magics.bounded import Limits, ScriptedModel, run_loop, scripted_turn
from agentlab_magics.bounded.shop import SHOP, build_tools

opening = [{"role": "system", "content": "Use stock tools."},
           {"role": "user", "content": "What needs ordering?"}]

def unit_run(answer):
    model = ScriptedModel([scripted_turn(calls=[{"name": "list_stock"}], output_tokens=12),
                           scripted_turn(answer, output_tokens=9)])
    return run_loop(model, build_tools(SHOP), opening, limits=Limits())

before, after = unit_run("Order vanilla."), unit_run("Order vanilla and strawberry.")
%transcript after"""
UNIT_DIFF = "%transcript before --diff after"


@pytest.fixture(scope="module")
def lab(browser, tmp_path_factory) -> Iterator[Browsing]:
    home: Path = tmp_path_factory.mktemp("diff")

    def drawn(page):
        return output(page, 5).locator(".al-diff")

    notebook = notebook_of("%load_ext agentlab_magics", RUNS, OUTAGE, LONG, UNIT, UNIT_DIFF)
    with ran_all(browser, home, NOTEBOOK, notebook, drawn) as browsing:
        yield browsing


def test_the_diff_marks_the_turn_where_the_seeds_runs_part(lab, screenshots):
    view = output(lab.page, 1).locator(".al-diff")
    expect(view.locator(".al-verdict")).to_have_text(
        "The runs part at turn 2: theirs and yours hold different messages there (theirs: 3 "
        "messages, yours: 6 messages; 3 of 4 turns differ).")
    parts = view.locator("tr.al-parts")
    expect(parts).to_have_count(1)
    expect(parts).to_have_attribute("data-turn", "2")
    expect(parts.locator(".al-parts-tag")).to_have_text("parts here")
    expect(parts.locator("td").nth(2)).to_contain_text(
        'toolResult c1 -> error: "Tool raed not found"')
    expect(view.locator("tr.al-state-same")).to_have_count(1)
    expect(view.locator("tr.al-state-right-only td.al-absent")).to_have_text("—")
    shoot(view, screenshots, "run-diff")


def test_a_record_beside_its_request_parts_where_the_failure_is_left_out(lab, screenshots):
    view = output(lab.page, 2).locator(".al-diff")
    expect(view.locator(".al-title")).to_have_text("outage beside its request")
    expect(view.locator("tr.al-parts")).to_have_attribute("data-turn", "2")
    shoot(view, screenshots, "run-diff-request")


def test_the_diff_widget_unfolds_filters_finds_and_goes_to_the_parting(lab, screenshots):
    view = output(lab.page, 3).locator(".al-diff")
    shown = view.locator("tbody tr:visible")
    expect(shown).to_have_count(7)  # 1, a fold of 28, 30, 31 (where they part), 32, a fold, 40
    folds = view.locator("tr.al-fold:visible")
    expect(folds.first).to_have_text("… 28 same turns")
    folds.first.click()
    expect(shown).to_have_count(7 - 1 + 28)
    expect(view.locator('tr[data-turn="15"]')).to_be_visible()
    view.get_by_role("button", name="only what differs").click()
    expect(shown).to_have_count(1)
    expect(shown.first).to_have_attribute("data-turn", "31")
    view.get_by_role("button", name="only what differs").click()
    view.locator(".al-search").fill("question 35")
    expect(shown).to_have_count(1)
    expect(view.locator(".al-found")).to_have_text("1 turn")
    view.get_by_role("button", name="go to turn 31, where they part").click()
    expect(view.locator("tr.al-parts")).to_be_in_viewport()
    expect(view.locator(".al-search")).to_have_value("")
    shoot(view, screenshots, "run-diff-widget")


def test_a_bounded_unit_run_is_drawn_with_what_it_cost(lab, screenshots):
    view = output(lab.page, 4).locator(".al-transcript")
    expect(view.locator(".al-meter")).to_have_text(
        "COMPLETED · 2 of 8 model calls · 1 of 16 tool calls · 4 of 20 cents estimated · "
        "21 of 16,384 output tokens")
    expect(view.locator(".al-shape").first).to_have_text(
        "S U A[scripted-1-call-1] R(scripted-1-call-1) A")
    expect(row(view, 0).locator(".al-role")).to_have_text("system")
    expect(row(view, 2).locator(".al-took")).to_have_text(["2 cents", "12 output tokens"])
    expect(row(view, 3).locator(".al-answers")).to_have_text("answers scripted-1-call-1 · row 2")
    expect(view.locator(".al-verdict").first).to_have_text(
        "Sent as is, a strict provider would accept this list.")
    shoot(view, screenshots, "unit-transcript")
    diff = output(lab.page, 5).locator(".al-diff")
    expect(diff.locator("tr.al-parts")).to_have_attribute("data-turn", "4")
    expect(diff.locator("tr.al-parts td").nth(2)).to_contain_text(
        '[4] assistant -> "Order vanilla and strawberry."')


def test_the_page_reached_nothing_off_this_machine_and_raised_nothing(lab):
    assert lab.blocked == [] and lab.errors == []
