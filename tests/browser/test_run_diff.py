"""Two of the seed's runs side by side in real JupyterLab: `%transcript theirs --diff yours`
marks the turn where they part, and a record beside its own request."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.lab_session import Browsing, output, ran_all, shoot
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


@pytest.fixture(scope="module")
def lab(browser, tmp_path_factory) -> Iterator[Browsing]:
    home: Path = tmp_path_factory.mktemp("diff")

    def drawn(page):
        return output(page, 2).locator(".al-diff")

    with ran_all(browser, home, NOTEBOOK,
                 notebook_of("%load_ext agentlab_magics", RUNS, OUTAGE), drawn) as browsing:
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
