"""Runaway code in real JupyterLab: a `%%check` of lesson 5 whose loop retries a failed reply
with `continue` is stopped by a cap, its line naming the reply it went on after, with no
timeout, while the kernel with all its processes stays under 500 MB; a check whose harness
hangs shows each test's mark as it finishes, and Kernel > Interrupt stops it within seconds
with one sentence, its child gone and the kernel idle again.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from pathlib import Path

import nbformat
import psutil
import pytest
from playwright.sync_api import expect

from agentlab_magics.checking.report import MARKS
from agentlab_magics.checking.runner import lab_tests
from agentlab_magics.course import find_lab
from tests.browser.lab_session import (
    Browsing,
    cell,
    open_offline,
    output,
    run_all,
    screenshot_folder,
    serve_jupyterlab,
    shoot,
)
from tests.student_notebook import notebook_of

NOTEBOOK = "runaway.ipynb"
REFERENCE = find_lab("lesson5").reference
RETURN_ON_ERROR = '        if reply["stop_reason"] == "error":\n            return reply\n'
RETRIED = REFERENCE.replace(RETURN_ON_ERROR, RETURN_ON_ERROR.replace("return reply", "continue"))
HANGS = REFERENCE.replace(RETURN_ON_ERROR, RETURN_ON_ERROR.replace(
    "return reply", "while True:\n                pass"))  # the first failed reply hangs
LOAD, RUNAWAY, HANGING = range(3)
MEMORY_LIMIT = 500 << 20
# the runaway's line (the record's cap stopped it), as the diagnosis words it
WENT_ON = "failed, and run_agent called the model again"
INTERRUPT_MS = 5_000   # "within a few seconds": how long Kernel > Interrupt may take to show


def runaway_notebook() -> nbformat.NotebookNode:
    return notebook_of(
        "%load_ext agentlab_magics",
        "%%check lesson5\n" + RETRIED,
        "%%check lesson5 --timeout 60\n" + HANGS)


class MemoryWatch:
    """The largest resident memory of the kernel and all its descendants, summed, sampled
    every 50 ms on a thread of its own until stopped."""

    def __init__(self, runtime: Path) -> None:
        self.runtime, self.peak, self.samples = str(runtime), 0, 0
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.watch, daemon=True)

    def kernel(self) -> psutil.Process | None:
        for process in psutil.process_iter(["cmdline"]):
            if any(self.runtime in part for part in process.info["cmdline"] or []) and any(
                    "ipykernel" in part for part in process.info["cmdline"]):
                return process
        return None

    def watch(self) -> None:
        while not self.done.wait(0.05):
            kernel = self.kernel()
            if kernel is None:
                continue
            total = 0
            for process in [kernel, *kernel.children(recursive=True)]:
                try:
                    total += process.memory_info().rss
                except psutil.Error:
                    pass
            self.peak, self.samples = max(self.peak, total), self.samples + 1

    def __enter__(self) -> MemoryWatch:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.done.set()
        self.thread.join()


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    with serve_jupyterlab(tmp_path_factory.mktemp("jupyterlab"),
                          {NOTEBOOK: runaway_notebook()}) as served:
        yield served


@pytest.fixture(scope="module")
def lab(browser, served) -> Iterator[Browsing]:
    browsing = open_offline(browser, served.url(NOTEBOOK))
    yield browsing
    browsing.page.context.close()


def test_a_runaway_check_gets_its_sentence_and_the_kernel_stays_small(lab, served,
                                                                      tmp_path_factory):
    page = lab.page
    with MemoryWatch(served.home / "runtime") as memory:
        run_all(lab)
        report = output(page, RUNAWAY).locator(".al-summary")
        expect(report).to_contain_text("05 Failures and limits:")
    assert memory.samples > 0 and memory.peak < MEMORY_LIMIT, memory.peak
    runaway = output(page, RUNAWAY)
    expect(runaway).to_contain_text(WENT_ON)
    expect(runaway).not_to_contain_text("did not finish within")  # no test timed out
    expect(runaway).not_to_contain_text(" done")  # the live line gave way to the report
    runaway.locator(".al-summary").scroll_into_view_if_needed()
    path = shoot(page, screenshot_folder(tmp_path_factory), "runaway-report")
    assert path.exists()


def test_marks_show_as_tests_finish_and_interrupt_stops_the_check(lab, served):
    page = lab.page
    total = len(lab_tests(find_lab("lesson5")))
    hanging = output(page, HANGING)
    expect(hanging).to_contain_text(f"05 Failures and limits: {MARKS['passed']} … 1 of {total} "
                                    "done")  # the first test's mark, while the second hangs
    kernel = MemoryWatch(served.home / "runtime").kernel()
    assert kernel is not None and kernel.children()  # the check's student process runs
    page.get_by_role("menuitem", name="Kernel", exact=True).click()
    page.get_by_role("menuitem", name=re.compile(r"^Interrupt Kernel")).click()
    expect(hanging).to_contain_text(
        f"You stopped the check (Interrupt) after 1 of {total} tests had finished",
        timeout=INTERRUPT_MS)
    expect(hanging).not_to_contain_text("Traceback")
    expect(hanging).not_to_contain_text("KeyboardInterrupt")
    page.locator("#jp-main-statusbar").get_by_text("Idle").wait_for()
    # the check's student process was killed and reaped: what is left is the spare made
    # ahead for the next check, never the one that ran this check's code
    left = kernel.children()
    assert len(left) <= 1 and all("checking.student_side" in " ".join(child.cmdline())
                                  for child in left)
    assert not any(child.cpu_percent(interval=0.2) > 50 for child in left)
    assert cell(page, HANGING).is_visible()
