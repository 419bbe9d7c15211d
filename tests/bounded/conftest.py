"""The bounded unit's shared fixture: a local provider the live model talks to."""

import pytest

from tests.bounded.local_provider import LocalProvider


@pytest.fixture
def provider(monkeypatch):
    local = LocalProvider()
    local.thread.start()
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("OPENAI_BASE_URL", local.base_url)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    yield local
    local.server.shutdown()
    local.server.server_close()
