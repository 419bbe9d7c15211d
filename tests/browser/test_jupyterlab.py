"""The views as a student sees them: real JupyterLab, driven in headless Chromium, runs the
student's notebook (tests/student_notebook.py) with Run > Run All Cells. The reports' lines and
the transcript's rows are on screen, drawn by transcript.js (not the fallback); clicking a call
chip lights up its result row and clicking again puts it out, the result's "answers" tag lights
up the call; the toggle strikes through the row the request leaves out. The same notebook run by
nbclient and exported by nbconvert the documented way (the StaticFallback preprocessor) shows
the static HTML instead, in the same browser.

Nothing leaves this machine: JupyterLab's news and update checks are off, and the browser
aborts, and lists, every request not addressed to 127.0.0.1; the JupyterLab page makes none.
Screenshots go to $AGENTLAB_SCREENSHOTS, or else a temporary folder. Without /usr/bin/chromium
(Debian's chromium) the tests are skipped, except under CI, which installs it (.ci/run).
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

import nbformat
import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from agentlab_magics.widgets.rendering import WIDGET_VIEW
from tests.student_notebook import (
    BROKEN_CHECK,
    BROKEN_SUMMARY,
    EMPTY_FAILURE,
    FAILING,
    PASSING,
    QUESTION,
    REFERENCE_CHECK,
    REFERENCE_SUMMARY,
    RIGHT,
    TRANSCRIPT,
    UNANSWERED,
    executed_notebook,
    student_notebook,
)
from tests.widgets.test_notebook_export import nbconvert

VIEWPORT = {"width": 1400, "height": 1000}
WAIT_MS = 60_000       # the longest any one step may take: JupyterLab's first load, the run
STARTUP_S = 60         # how long JupyterLab may take to answer
NOTEBOOK = "lesson5.ipynb"
# What a lab administrator would set: never fetch the news, never check for updates (so no
# "Would you like to get notified about official Jupyter news?" toast either).
NO_NEWS = {"fetchNews": "false", "checkForUpdates": False}


@dataclass
class Browsing:
    """A page in a browser context of its own that reaches nothing beyond this machine."""

    page: Page
    blocked: list[str] = field(default_factory=list)  # requests refused: not for 127.0.0.1
    errors: list[str] = field(default_factory=list)   # exceptions the page did not catch


def open_offline(browser: Browser, url: str) -> Browsing:
    """`url` in a fresh context whose every request for another host is aborted and listed."""
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(WAIT_MS)
    browsing = Browsing(context.new_page())

    def guard(route):
        address = urlparse(route.request.url)
        if address.scheme == "file" or address.hostname == "127.0.0.1":
            route.continue_()
        else:
            browsing.blocked.append(route.request.url)
            route.abort()

    context.route("**/*", guard)
    browsing.page.on("pageerror", lambda error: browsing.errors.append(str(error)))
    browsing.page.goto(url)
    return browsing


@pytest.fixture(scope="module")
def screenshots(tmp_path_factory) -> Path:
    folder = Path(os.environ.get("AGENTLAB_SCREENSHOTS") or tmp_path_factory.mktemp("screenshots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def shoot(target: Page | Locator, folder: Path, name: str) -> Path:
    """A PNG screenshot of `target` (a page: what is in view) in `folder`, checked to be one."""
    path = folder / f"{name}.png"
    target.screenshot(path=path)
    assert path.read_bytes().startswith(b"\x89PNG\r\n\x1a\n") and path.stat().st_size > 8
    return path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def lab_command(port: int, token: str, home: Path) -> list[str]:
    return [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--allow-root",
            "--ip=127.0.0.1", f"--port={port}", "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={home / 'root'}",
            f"--LabApp.user_settings_dir={home / 'settings'}",
            f"--LabApp.workspaces_dir={home / 'workspaces'}",
            "--LabApp.news_url=None",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            "--LabApp.extension_manager=readonly"]


def lab_home(home: Path) -> dict[str, str]:
    """Lay out JupyterLab's folders under `home`, the notebook in its root; return its env."""
    (home / "root").mkdir()
    nbformat.write(student_notebook(), home / "root" / NOTEBOOK)
    settings = home / "settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text(json.dumps(NO_NEWS))
    return {**os.environ, "AGENTLAB_PROGRESS": str(home / "progress.json"),
            "JUPYTER_CONFIG_DIR": str(home / "config"),
            "JUPYTER_RUNTIME_DIR": str(home / "runtime")}


def wait_until_answering(port: int, token: str, server: subprocess.Popen, log: Path) -> None:
    status = urllib.request.Request(f"http://127.0.0.1:{port}/api/status",
                                    headers={"Authorization": f"token {token}"})
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    deadline = time.monotonic() + STARTUP_S
    while time.monotonic() < deadline and server.poll() is None:
        try:
            with direct.open(status, timeout=2):
                return
        except OSError:
            time.sleep(0.2)
    pytest.fail(f"JupyterLab did not answer on port {port} (exit code {server.poll()}):\n"
                f"{log.read_text(errors='replace')[-3000:]}")


def stop(server: subprocess.Popen) -> None:
    """SIGTERM, upon which the server shuts its kernels down; SIGKILL to its group if it hangs."""
    server.terminate()
    try:
        server.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()


@pytest.fixture(scope="module")
def jupyterlab(tmp_path_factory) -> Iterator[str]:
    """The notebook's URL in a JupyterLab of its own, listening on 127.0.0.1 only."""
    home = tmp_path_factory.mktemp("jupyterlab")
    env = lab_home(home)
    port, token, log = free_port(), secrets.token_hex(16), home / "server.log"
    with log.open("wb") as output:
        server = subprocess.Popen(lab_command(port, token, home), env=env, cwd=home / "root",
                                  stdout=output, stderr=subprocess.STDOUT,
                                  start_new_session=True)
    try:
        wait_until_answering(port, token, server, log)
        yield f"http://127.0.0.1:{port}/lab/tree/{NOTEBOOK}?token={token}"
    finally:
        stop(server)


def cell(page: Page, index: int) -> Locator:
    return page.locator(".jp-Notebook .jp-Cell").nth(index)


@pytest.fixture(scope="module")
def lab(browser, jupyterlab) -> Iterator[Browsing]:
    """The notebook open in JupyterLab, every cell run from the Run menu and finished."""
    browsing = open_offline(browser, jupyterlab)
    page = browsing.page
    page.locator("#jp-main-statusbar").get_by_text("Idle").wait_for()
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
    cell(page, QUESTION).locator(".al-question button.al-pick").first.wait_for()  # the last cell
    yield browsing
    page.context.close()


def output(page: Page, index: int) -> Locator:
    """Cell `index`'s output, scrolled into view: JupyterLab skips drawing cells out of view."""
    area = cell(page, index).locator(".jp-OutputArea")
    area.scroll_into_view_if_needed()
    return area


def line_of(report: Locator, sentence: str) -> Locator:
    return report.locator(".al-test", has=report.page.get_by_text(sentence, exact=True))


def row(transcript: Locator, index: int) -> Locator:
    return transcript.locator(f'.al-row[data-index="{index}"]')


def click(target: Locator) -> None:
    """Click `target`, then move the mouse off the page's content: what stays lit is pinned."""
    target.click()
    target.page.mouse.move(0, 0)


def test_the_reports_lines_are_on_screen(lab, screenshots):
    reference = output(lab.page, REFERENCE_CHECK)
    expect(reference.locator(".al-summary")).to_have_text(REFERENCE_SUMMARY)
    expect(line_of(reference, PASSING)).to_contain_class("al-outcome-passed")
    broken = output(lab.page, BROKEN_CHECK)
    expect(broken.locator(".al-summary")).to_have_text(BROKEN_SUMMARY)
    for sentence, outcome in ((FAILING, "al-outcome-failed"), (PASSING, "al-outcome-passed")):
        expect(line_of(broken, sentence)).to_be_visible()
        expect(line_of(broken, sentence)).to_contain_class(outcome)
    failed_run = line_of(broken, FAILING).locator(".al-transcript")
    expect(failed_run).to_be_visible()
    expect(failed_run).to_contain_class("al-live")  # drawn by transcript.js, not the fallback
    expect(broken.locator(".al-static")).to_have_count(0)
    broken.locator(".al-summary").scroll_into_view_if_needed()
    shoot(lab.page, screenshots, "lab-report")


def test_the_transcripts_rows_are_on_screen(lab, screenshots):
    transcript = output(lab.page, TRANSCRIPT)
    expect(transcript.locator(".al-transcript.al-live")).to_be_visible()
    expect(transcript.locator(".al-row")).to_have_count(5)
    for index in range(5):
        expect(row(transcript, index)).to_be_visible()
    expect(row(transcript, 3).locator(".al-complaints")).to_have_text(UNANSWERED)
    shoot(transcript, screenshots, "lab-transcript-record")


def test_clicking_a_call_chip_lights_its_result_and_back(lab):
    transcript = output(lab.page, TRANSCRIPT)
    chip = row(transcript, 3).locator('.al-chip[data-call-id="c1"]')
    lit = transcript.locator(".al-row.al-highlight")
    click(chip)
    expect(lit).to_have_attribute("data-index", "4")
    expect(chip).to_contain_class("al-highlight")
    click(chip)
    expect(lit).to_have_count(0)
    expect(chip).not_to_contain_class("al-highlight")
    click(row(transcript, 4).locator(".al-answers"))
    expect(chip).to_contain_class("al-highlight")
    expect(row(transcript, 3)).to_contain_class("al-linked")
    click(row(transcript, 4).locator(".al-answers"))
    expect(chip).not_to_contain_class("al-highlight")


def test_the_toggle_shows_the_request(lab, screenshots):
    transcript = output(lab.page, TRANSCRIPT)
    view = transcript.locator(".al-transcript")
    toggle = transcript.locator('[data-action="toggle-view"]')
    failed_reply = row(transcript, 1)
    expect(failed_reply.locator(".al-complaints")).to_contain_text(EMPTY_FAILURE)
    expect(failed_reply).not_to_contain_class("al-left-out")
    toggle.click()
    expect(view).to_have_attribute("data-view", "request")
    expect(toggle).to_have_text("show the record")
    expect(failed_reply).to_contain_class("al-left-out")
    expect(failed_reply.locator(".al-body")).to_have_css("text-decoration-line", "line-through")
    expect(failed_reply.locator(".al-complaints")).to_have_count(0)
    shoot(transcript, screenshots, "lab-transcript-request")
    toggle.click()
    expect(view).to_have_attribute("data-view", "record")
    expect(toggle).to_have_text("show the request")


def test_a_clicked_answer_is_committed_by_the_kernel_and_kept_on_a_rerun(lab, screenshots):
    question = output(lab.page, QUESTION)
    expect(question.locator(".al-why")).to_have_count(0)
    question.locator('button[data-letter="C"]').click()
    expect(question.locator(".al-why")).to_have_count(3)  # the reveal came back from Python
    expect(question.locator(".al-chosen")).to_contain_text("user, reply, result c1, result c2")
    expect(question.get_by_text(RIGHT)).to_be_visible()
    shoot(question, screenshots, "lab-question")
    cell(lab.page, QUESTION).locator(".jp-InputArea").click()
    lab.page.keyboard.press("Shift+Enter")  # run the cell again: the answer is the stored one
    rerun = output(lab.page, QUESTION)
    expect(rerun.locator(".al-committed")).to_contain_text("Your answer")
    expect(rerun.locator("button.al-pick")).to_have_count(0)
    expect(rerun.locator(".al-chosen")).to_contain_text("user, reply, result c1, result c2")


def test_the_page_reached_nothing_beyond_this_machine_and_raised_nothing(lab):
    assert lab.blocked == [] and lab.errors == []


def test_the_exported_page_shows_the_static_fallback(browser, screenshots, tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTLAB_PROGRESS", str(tmp_path / "progress.json"))
    notebook = tmp_path / NOTEBOOK
    executed_notebook(notebook)
    source = nbconvert(notebook,
                       "--HTMLExporter.preprocessors=agentlab_magics.widgets.export.StaticFallback")
    assert WIDGET_VIEW not in source
    browsing = open_offline(browser, notebook.with_suffix(".html").as_uri())
    page = browsing.page
    broken = cell(page, BROKEN_CHECK)
    expect(broken.locator(".al-summary")).to_have_text(BROKEN_SUMMARY)
    expect(line_of(broken, FAILING)).to_be_visible()
    expect(line_of(broken, FAILING)).to_contain_class("al-outcome-failed")
    transcript = cell(page, TRANSCRIPT).locator(".al-transcript.al-static")
    expect(row(transcript, 3).locator(".al-complaints")).to_have_text(UNANSWERED)
    expect(page.locator(".al-live")).to_have_count(0)
    shoot(cell(page, TRANSCRIPT), screenshots, "export-transcript")
    broken.locator(".al-summary").scroll_into_view_if_needed()
    shoot(page, screenshots, "export-report")
    # Only the lab template's require.js and MathJax asked for the internet (widgets/export.py
    # says so), and were refused: the guard works, so the JupyterLab page's empty list counts.
    assert {urlparse(url).hostname for url in browsing.blocked} == {"cdnjs.cloudflare.com"}
    assert browsing.errors == []
    page.context.close()
