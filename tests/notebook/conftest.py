"""The notebook tests' IPython shell: a real InteractiveShell with the magics loaded, its
progress in the test's own folder and no `harness` module left from an earlier test."""

from __future__ import annotations

import sys

import pytest
from IPython.core.interactiveshell import InteractiveShell


@pytest.fixture
def shell(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTLAB_PROGRESS", str(tmp_path / "progress.json"))
    monkeypatch.delitem(sys.modules, "harness", raising=False)
    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "agentlab_magics")
    yield ip
    ip.run_line_magic("unload_ext", "agentlab_magics")
    InteractiveShell.clear_instance()
