"""The optional lab real-run as a student opens it in real JupyterLab: its notebook, as `agentlab
notebooks` writes it, beside the Agents SDK trace and the app's files; run all, the trace's
transcript says what a strict provider would refuse, flags notes.md's call on its row, and
shows the first call's request sent twice, each one billed."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from playwright.sync_api import expect

from agentlab_instructor.optional_labs import FOLDER
from agentlab_magics.course.assignments import find_assignment
from agentlab_magics.course.packs import ENV
from agentlab_magics.making.notebooks import text
from tests.browser.lab_session import (
    Browsing,
    open_offline,
    output,
    row,
    run_all,
    serve_jupyterlab,
    shoot,
)

NOTEBOOK = "real-run.ipynb"


@pytest.fixture(scope="module")
def page(browser, tmp_path_factory) -> Iterator[tuple[Browsing, int]]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(ENV, str(FOLDER))
        assignment = find_assignment("real-run")
        notebook = nbformat.reads(text(assignment, student=True), as_version=4)
        shown = next(index for index, cell in enumerate(notebook.cells)
                     if cell.source.startswith("%transcript notes_app.jsonl"))
        home: Path = tmp_path_factory.mktemp("real-run")
        with serve_jupyterlab(home, {NOTEBOOK: notebook}) as served:
            for source in assignment.files:
                shutil.copyfile(source, served.root / source.name)
            browsing = open_offline(browser, served.url(NOTEBOOK))
            run_all(browsing)
            output(browsing.page, shown).locator(".al-verdict.al-bad").first.wait_for()
            yield browsing, shown
            browsing.page.context.close()


def test_the_traces_transcript_flags_the_dropped_result_and_the_billed_retry(page, screenshots):
    browsing, shown = page
    view = output(browsing.page, shown).locator(".al-transcript")
    expect(view.locator(".al-verdict").first).to_contain_text(
        "messages[1]: toolCall call_notes_001 has no toolResult")
    expect(view.locator(".al-meter")).to_contain_text(
        "read from OpenAI Agents SDK trace · 3 model calls (1 request sent again)")
    first = row(view, 1)
    expect(first).to_contain_text("request sent 2 times, each one billed (the earlier: 127 "
                                  "tokens)")
    expect(first).to_contain_text("toolCall call_notes_001 has no toolResult")
    shoot(view, screenshots, "real-run-transcript")
    assert browsing.blocked == [] and browsing.errors == []
