"""Fixtures the test folders share."""

import pytest

from tests.chromium import chromium, launch


@pytest.fixture(scope="module")
def browser():
    """One headless Debian chromium for a test module, closed after it."""
    chromium()  # skip (or fail, under CI) before starting Playwright
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = launch(playwright)
        yield launched
        launched.close()
