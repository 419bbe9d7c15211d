"""Fixtures the browser tests share."""

from pathlib import Path

import pytest

from tests.browser.lab_session import screenshot_folder


@pytest.fixture(scope="module")
def screenshots(tmp_path_factory) -> Path:
    return screenshot_folder(tmp_path_factory)
