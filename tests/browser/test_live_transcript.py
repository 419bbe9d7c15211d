"""A live transcript in real JupyterLab: lesson 7's reference run_agent, told to `watch()`,
against a model that takes its time; rows are drawn while the cell still runs, each model
call's row says how long it took, the clock runs between events, and the finished view is the
judged record with each row's time and cost kept."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.lab_session import (
    Browsing,
    cell,
    open_offline,
    output,
    row,
    run_all,
    serve_jupyterlab,
    shoot,
)
from tests.student_notebook import notebook_of

NOTEBOOK = "live.ipynb"
TURNS = 4
SLOW = 1.5  # seconds each model call takes
SETUP = f"""\
import time, types
from agentlab_instructor.lab_files import lab_files
from agentlab_magics import lab
from agentlab_magics.widgets import watch

harness = types.ModuleType("harness")
exec(lab_files("lesson7").reference, harness.__dict__)

def slowly(step):
    def answer(request):
        time.sleep({SLOW})
        return step
    return answer

notes = {{"name": "notes", "description": "Read the notes.",
         "parameters": {{"type": "object", "properties": {{}}}},
         "execute": lambda arguments: "The port is 9090."}}
steps = [slowly(lab.reply(lab.call("notes", {{}}, id=f"c{{n}}"))) for n in range({TURNS} - 1)]
model = lab.ScriptedModel(steps + [slowly(lab.say("The port is 9090."))], max_calls=30)"""
RUN = """\
messages = []
live = watch(model)
final = harness.run_agent(model, "You are terse.", messages, [notes], "What port?",
                          listener=live)"""


@pytest.fixture(scope="module")
def lab(browser, tmp_path_factory) -> Iterator[Browsing]:
    home: Path = tmp_path_factory.mktemp("live")
    notebook = notebook_of("%load_ext agentlab_magics", SETUP, RUN)
    with serve_jupyterlab(home, {NOTEBOOK: notebook}) as served:
        browsing = open_offline(browser, served.url(NOTEBOOK))
        yield browsing
        browsing.page.context.close()


def test_rows_appear_while_the_run_goes_and_the_finished_record_follows(lab, screenshots):
    page = lab.page
    run_all(lab)
    view = output(page, 2).locator(".al-transcript")
    expect(view.locator(".al-live-state.al-running")).to_be_visible(timeout=30_000)
    expect(row(view, 1)).to_be_visible()  # the first reply, drawn during the run
    prompt = cell(page, 2).locator(".jp-InputPrompt")
    assert "[*]" in prompt.inner_text()  # the cell is still running
    expect(row(view, 1).locator(".al-took").first).to_have_text(f"{SLOW:.1f} s", timeout=5_000)
    expect(row(view, 1).locator(".al-took").nth(1)).to_contain_text("tokens")
    clock = view.locator(".al-live-state")
    expect(clock).to_contain_text("tokens estimated")
    so_far = clock.inner_text()
    expect(clock).not_to_have_text(so_far, timeout=2_000)  # its seconds run between events
    shoot(view, screenshots, "live-transcript-running")
    last = 2 * TURNS - 1  # the user's prompt, then a reply and a result per turn, the answer
    expect(view.locator(".al-live-state.al-finished")).to_contain_text(
        "finished (done) in", timeout=30_000)
    expect(view.locator(".al-meter")).to_contain_text(f"· {TURNS} of max_calls=30 calls")
    expect(row(view, 1).locator(".al-took").first).to_have_text(f"{SLOW:.1f} s")  # kept
    expect(view.locator(".al-verdict").first).to_have_text(
        "Sent as is, a strict provider would accept this list.")
    expect(view.locator(".al-counts")).to_contain_text(f"{last + 1} messages")
    expect(row(view, last)).to_contain_text("The port is 9090.")
    shoot(view, screenshots, "live-transcript-finished")
