"""What the browser tests share: JupyterLab on 127.0.0.1 in a folder of its own, pages that
reach nothing beyond this machine, screenshots, and the locators the views are read with."""

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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

import nbformat
import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from tests.student_notebook import notebook_of

VIEWPORT = {"width": 1400, "height": 1000}
WAIT_MS = 60_000       # the longest any one step may take: JupyterLab's first load, the run
STARTUP_S = 60         # how long JupyterLab may take to answer
# What a lab administrator would set: never fetch the news, never check for updates (so no
# "Would you like to get notified about official Jupyter news?" toast either).
NO_NEWS = {"fetchNews": "false", "checkForUpdates": False}


@dataclass
class Browsing:
    """A page in a browser context of its own that reaches nothing beyond this machine."""

    page: Page
    blocked: list[str] = field(default_factory=list)  # requests refused: not for 127.0.0.1
    errors: list[str] = field(default_factory=list)   # exceptions the page did not catch


def open_offline(browser: Browser, url: str, init_script: str | None = None) -> Browsing:
    """`url` in a fresh context whose every request for another host is aborted and listed;
    `init_script` runs in each page before the page's own scripts."""
    context = browser.new_context(viewport=VIEWPORT)
    if init_script:
        context.add_init_script(init_script)
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


def screenshot_folder(tmp_path_factory) -> Path:
    """$AGENTLAB_SCREENSHOTS, or else a temporary folder."""
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


def lab_home(home: Path, notebooks: dict[str, nbformat.NotebookNode]) -> dict[str, str]:
    """Lay out JupyterLab's folders under `home`, the notebooks (by file name) in its root;
    return its env."""
    (home / "root").mkdir()
    for name, notebook in notebooks.items():
        nbformat.write(notebook, home / "root" / name)
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


@dataclass
class Served:
    """A JupyterLab of its own on 127.0.0.1: its notebooks' folder and how to reach them."""

    home: Path
    port: int
    token: str

    @property
    def root(self) -> Path:
        return self.home / "root"

    def url(self, notebook: str) -> str:
        return f"http://127.0.0.1:{self.port}/lab/tree/{notebook}?token={self.token}"


@contextmanager
def serve_jupyterlab(home: Path, notebooks: dict[str, nbformat.NotebookNode]) -> Iterator[Served]:
    """JupyterLab serving `notebooks` (file name: notebook) from `home`, stopped afterwards."""
    env = lab_home(home, notebooks)
    port, token, log = free_port(), secrets.token_hex(16), home / "server.log"
    with log.open("wb") as output:
        server = subprocess.Popen(lab_command(port, token, home), env=env, cwd=home / "root",
                                  stdout=output, stderr=subprocess.STDOUT,
                                  start_new_session=True)
    try:
        wait_until_answering(port, token, server, log)
        yield Served(home, port, token)
    finally:
        stop(server)


@contextmanager
def ran_all(browser: Browser, home: Path, name: str, notebook: nbformat.NotebookNode,
            drawn: Callable[[Page], Locator]) -> Iterator[Browsing]:
    """`notebook`, served as `name` from `home`, open with every cell run from the Run menu,
    once `drawn(page)` is on the page; its page closed and its server stopped after."""
    with serve_jupyterlab(home, {name: notebook}) as served:
        browsing = open_offline(browser, served.url(name))
        run_all(browsing)
        drawn(browsing.page).wait_for()
        yield browsing
        browsing.page.context.close()


def run_all(browsing: Browsing) -> None:
    """Run > Run All Cells, once the kernel is idle."""
    page = browsing.page
    page.locator("#jp-main-statusbar").get_by_text("Idle").wait_for()
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()


def cell(page: Page, index: int) -> Locator:
    return page.locator(".jp-Notebook .jp-Cell").nth(index)


def output(page: Page, index: int) -> Locator:
    """Cell `index`'s output, scrolled into view: JupyterLab skips drawing cells out of view."""
    area = cell(page, index).locator(".jp-OutputArea")
    area.scroll_into_view_if_needed()
    return area


def line_of(report: Locator, sentence: str) -> Locator:
    return report.locator(".al-test", has=report.page.get_by_text(sentence, exact=True))


# `size` messages of a run, four a turn (a question, a reply with a call, its result, an
# answer), then the lines `edits`, then the cell's magic: a long transcript's notebook cell.
LONG_RECORD = """\
from agentlab_magics import lab

messages = []
for turn in range({size} // 4):
    call = lab.call("read", {{"path": f"f{{turn}}.py"}}, id=f"c{{turn}}")
    messages += [lab.user(f"question {{turn}}"), lab.reply(f"reading {{turn}}", call),
                 lab.tool_result(call, f"contents {{turn}}"), lab.say(f"answer {{turn}}")]
{edits}
%transcript messages"""


@contextmanager
def long_transcript(browser: Browser, home: Path, name: str, size: int,
                    edits: str) -> Iterator[Browsing]:
    """The notebook `%load_ext agentlab_magics` then LONG_RECORD's cell, run all, once the
    transcript's judgement has come (a refusal: `edits` break the record somewhere)."""
    def judged(page: Page) -> Locator:
        return output(page, 1).locator(".al-verdict.al-bad").first

    code = LONG_RECORD.format(size=size, edits=edits)
    with ran_all(browser, home, name, notebook_of("%load_ext agentlab_magics", code),
                 judged) as browsing:
        yield browsing


def transcript(browsing: Browsing) -> Locator:
    """The transcript the notebook's second cell drew."""
    return output(browsing.page, 1).locator(".al-transcript")


def row(transcript: Locator, index: int) -> Locator:
    return transcript.locator(f'.al-row[data-index="{index}"]')


def click(target: Locator) -> None:
    """Click `target`, then move the mouse off the page's content: what stays lit is pinned."""
    target.click()
    target.page.mouse.move(0, 0)


THEMES = {"light": "JupyterLab Light", "dark": "JupyterLab Dark"}


def use_theme(page: Page, theme: str) -> None:
    """Settings > Theme > the theme, as a student picks it; done once the page says so."""
    light = "true" if theme == "light" else "false"
    if page.locator("body").get_attribute("data-jp-theme-light") != light:
        page.get_by_role("menuitem", name="Settings", exact=True).click()
        menu_item(page, "Theme").click()  # a submenu, and its items checkboxes: not "menuitem"
        menu_item(page, THEMES[theme]).click()
    expect(page.locator("body")).to_have_attribute("data-jp-theme-light", light)
    expect(page.locator("body")).to_have_attribute("data-jp-theme-name", THEMES[theme])


def menu_item(page: Page, label: str) -> Locator:
    return page.locator(".lm-Menu-item").filter(
        has=page.locator(".lm-Menu-itemLabel").get_by_text(label, exact=True))
