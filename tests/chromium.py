"""Debian's chromium for the browser tests: its path, its flags, and a skip (or, under CI, a
failure) when it is missing. Playwright's own browsers are never downloaded or used."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
# Headless as root, and quiet: without the background-networking flags Chromium keeps trying
# hosts this machine cannot reach.
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def chromium() -> Path:
    """Debian's chromium; its absence skips the test, or fails it under CI."""
    if CHROMIUM.exists():
        return CHROMIUM
    reason = f"no {CHROMIUM}: `apt-get install chromium` (Playwright's own browsers are not used)"
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


def launch(playwright):
    """A headless Debian chromium under `playwright`."""
    return playwright.chromium.launch(executable_path=chromium(), args=CHROMIUM_ARGS)

