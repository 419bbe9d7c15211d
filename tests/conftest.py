"""Fixtures the test folders share."""

import sys

import pytest

from tests.chromium import chromium, launch


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


@pytest.fixture(scope="module")
def browser():
    """One headless Debian chromium for a test module, closed after it."""
    chromium()  # skip (or fail, under CI) before starting Playwright
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = launch(playwright)
        yield launched
        launched.close()


@pytest.fixture(scope="session")
def class_term(tmp_path_factory):
    """The class report's term (tests/class_term.py), built once for every test that asks."""
    from tests.class_term import build_term

    return build_term(tmp_path_factory.mktemp("class-term"))
