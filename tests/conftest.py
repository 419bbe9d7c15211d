"""Fixtures the test folders share, and how the suite is split among pytest-xdist's workers."""

import compileall
import os
import sys
from pathlib import Path

import pytest

from tests.chromium import chromium, launch

ROOT = Path(__file__).resolve().parent.parent


def pytest_configure(config) -> None:
    """Before any worker starts, the course's packages and the tests' helpers are compiled to
    bytecode once: the suite starts thousands of Pythons that import them (student processes,
    kernels, graders, nbgrader commands), and where PYTHONDONTWRITEBYTECODE is set each would
    compile them again."""
    if not hasattr(config, "workerinput"):
        for package in (ROOT / "agentlab_magics", ROOT / "instructor" / "agentlab_instructor",
                        ROOT / "tests"):
            compileall.compile_dir(package, quiet=1)


@pytest.fixture(autouse=True)
def _progress_of_its_own(monkeypatch, tmp_path_factory):
    """No test writes to the progress store of the shell that runs the suite (%%check and
    `agentlab check` record every check): each test has one of its own, unless it names one."""
    if "AGENTLAB_PROGRESS" not in os.environ:
        monkeypatch.setenv("AGENTLAB_PROGRESS",
                           str(tmp_path_factory.mktemp("progress") / "progress.json"))


@pytest.fixture(autouse=True)
def _no_published_solutions(monkeypatch):
    """No test sees the folder of published solutions a developer's shell may name."""
    monkeypatch.delenv("AGENTLAB_SOLUTIONS", raising=False)


@pytest.fixture
def without_instructor(monkeypatch):
    """As on a student's machine: the instructor package (agentlab_instructor) cannot be
    imported until the test ends."""
    for name in [name for name in sys.modules if name.startswith("agentlab_instructor.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "agentlab_instructor", None)


EXPECT_MS = 30_000


@pytest.fixture(scope="module")
def browser():
    """One headless Debian chromium for a test module, closed after it."""
    chromium()  # skip (or fail, under CI) before starting Playwright
    from playwright.sync_api import expect, sync_playwright

    # An expectation waits for what it expects up to this long (Playwright's default is 5 s):
    # it returns as soon as it holds, and on a busy machine a save or a render takes longer.
    expect.set_options(timeout=EXPECT_MS)

    with sync_playwright() as playwright:
        launched = launch(playwright)
        yield launched
        launched.close()


@pytest.fixture(scope="session")
def class_term(tmp_path_factory):
    """The class report's term (tests/class_term.py), built once for every test that asks."""
    from tests.class_term import build_term

    return build_term(tmp_path_factory.mktemp("class-term"))


# Test files that share a session fixture run on one worker, which makes it once.
SHARED_FIXTURES = {"tests/course/test_class_report.py": "class_term",
                   "tests/browser/test_class_report_page.py": "class_term"}


# The files that take longest (seconds of wall time under CI, from `--durations`), longest
# first: the workers take them first, so none is left running alone at the end while the other
# workers wait (xdist would order the files by their number of tests, and the longest of all,
# a round made once for a handful of tests, would come last). Only the order comes from here;
# a file not named runs after these, in the order collected.
LONGEST_FIRST = ["tests/honest/test_styles.py", "tests/security/test_autograde_attacks.py",
                 "tests/course/test_parallel_autograde.py",
                 "tests/course/test_nbgrader_pipeline.py",
                 "tests/security/test_checker_attacks.py", "tests/mutation/test_mutants.py",
                 "tests/hub/test_hub.py", "tests/security/test_batch_isolation.py",
                 "tests/course/test_fake_students.py", "tests/test_install_lines.py",
                 "tests/checking/test_runaway.py", "tests/security/test_one_submission_alone.py"]


def pytest_collection_modifyitems(items) -> None:
    """The files named in LONGEST_FIRST first, in that order; the rest as collected (every
    file's tests keep their own order). Each xdist worker collects, and sorts, alike."""
    rank = {path: place for place, path in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(_file_of(item.nodeid), len(rank)))


def _file_of(nodeid: str) -> str:
    """The test file a test id names."""
    return nodeid.split("::", 1)[0]


def pytest_xdist_auto_num_workers(config) -> int:
    """`-n auto`: a worker for each core this process may use, and one more, since much of the
    suite waits on kernels, servers and browsers (measured on 2 cores: 10.9 minutes with 3
    workers, the cores 98% busy; 11.9 with 2)."""
    return len(os.sched_getaffinity(0)) + 1


def pytest_xdist_make_scheduler(config, log):
    """With `--dist loadfile`, a worker takes a test file whole, and the files that share a
    session fixture together, so a module's fixture (an nbgrader round, a JupyterLab) and a
    shared one are each made once. (pytest-xdist's own loadgroup renames the tests' ids,
    which pytest 9 no longer lets it do.)"""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    config.option.loadscopereorder = False  # the order LONGEST_FIRST gave the collection

    class ByFile(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = _file_of(nodeid)
            return SHARED_FIXTURES.get(path, path)

    return ByFile(config, log)
