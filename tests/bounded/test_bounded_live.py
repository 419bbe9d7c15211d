"""The live model against a real local HTTP server speaking /v1/chat/completions.

Every provider failure must end the run MODEL_FAILED with the attempt charged; a missing key
or a missing openai package must fall back to the script and say why.
"""

import json
import socket
import subprocess
import sys
import types

import pytest

from agentlab_magics.bounded import (
    Limits,
    OpenAIModel,
    ScriptedModel,
    build_model,
    resolve_api_key,
    run_loop,
    scripted_turn,
)
from agentlab_magics.bounded.shop import SHOP, build_tools
from tests.bounded.local_provider import completion, reply

OPENING = [
    {"role": "system", "content": "Use stock tools to prepare drafts. Never purchase."},
    {"role": "user", "content": "What needs ordering?"},
]


def test_a_live_run_completes_through_a_tool_call(provider):
    provider.replies = [
        reply(completion(calls=[("call_stock", "list_stock", "{}")], tokens=12)),
        reply(completion("Vanilla needs 6 and strawberry 4.", tokens=9)),
    ]
    dispatcher = build_tools(SHOP)
    model = build_model([], model="gpt-test")
    assert model.source == "live"
    result = run_loop(model, dispatcher, OPENING, limits=Limits())
    assert (result.status, result.model_calls, result.tool_calls) == ("COMPLETED", 2, 1)
    assert (result.estimated_cost_cents, result.output_tokens) == (4, 21)
    assert result.answer == "Vanilla needs 6 and strawberry 4."

    first, second = provider.requests
    assert first["path"] == "/v1/chat/completions"
    assert first["headers"]["authorization"] == "Bearer test-key"
    assert first["body"]["model"] == "gpt-test"
    assert first["body"]["messages"] == OPENING
    assert first["body"]["tools"] == dispatcher.schemas()
    request, observation = second["body"]["messages"][-2:]
    assert request["tool_calls"][0]["id"] == "call_stock"
    assert observation["role"] == "tool" and observation["tool_call_id"] == "call_stock"
    assert json.loads(observation["content"])["products"][0]["needed"] == 6


@pytest.mark.parametrize(
    "planned",
    [
        reply({"error": {"message": "server exploded", "type": "server_error"}}, status=500),
        reply(
            {"error": {"message": "slow down", "type": "rate_limit"}},
            status=429,
            headers={"Retry-After": "0"},
        ),
        reply(b'{"choices": [ {"message": '),
        reply({"choices": []}),
        reply(completion(calls=[("call_1", "list_stock", "{not json")])),
    ],
    ids=["http-500", "http-429", "malformed-json", "no-choices", "bad-arguments"],
)
def test_a_provider_failure_ends_model_failed_with_the_attempt_charged(provider, planned):
    provider.replies = [planned]
    result = run_loop(build_model([]), build_tools(SHOP), OPENING, limits=Limits())
    assert (result.status, result.model_calls, result.estimated_cost_cents) == (
        "MODEL_FAILED",
        1,
        2,
    )
    assert len(provider.requests) == 1  # the client never retries
    assert result.messages == OPENING


def test_a_reply_slower_than_the_client_timeout_ends_model_failed(provider):
    provider.replies = [reply(completion("Too late."), delay=2.0)]
    model = OpenAIModel("gpt-test", "test-key", timeout=0.3)
    result = run_loop(model, build_tools(SHOP), OPENING, limits=Limits())
    assert (result.status, result.model_calls, result.estimated_cost_cents) == (
        "MODEL_FAILED",
        1,
        2,
    )
    assert len(provider.requests) == 1


def test_a_refused_connection_ends_model_failed(monkeypatch):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    model = OpenAIModel(
        "gpt-test", "test-key", base_url=f"http://127.0.0.1:{closed_port}/v1", timeout=2
    )
    result = run_loop(model, build_tools(SHOP), OPENING, limits=Limits())
    assert (result.status, result.model_calls, result.estimated_cost_cents) == (
        "MODEL_FAILED",
        1,
        2,
    )


def test_reported_output_tokens_over_the_per_call_limit_end_token_limit(provider):
    provider.replies = [reply(completion("A very long essay.", tokens=5000))]
    result = run_loop(
        build_model([]), build_tools(SHOP), OPENING, limits=Limits(output_tokens=4096)
    )
    assert (result.status, result.model_calls, result.output_tokens) == ("TOKEN_LIMIT", 1, 5000)


def test_with_openai_unimportable_a_key_still_gets_the_script_and_the_reason(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setitem(sys.modules, "openai", None)
    turns = [scripted_turn("Scripted answer.")]
    model = build_model(turns)
    assert isinstance(model, ScriptedModel) and model.source == "scripted"
    assert "openai package is not installed" in model.reason
    assert "openai package is not installed" in repr(model)
    assert model.complete([], []).content == "Scripted answer."


def test_without_a_key_the_script_is_used_and_the_reason_names_the_key(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setitem(sys.modules, "google.colab", None)
    model = build_model([scripted_turn("Scripted answer.")])
    assert model.source == "scripted" and "no OPENAI_API_KEY" in model.reason


@pytest.mark.parametrize(
    ("value", "expected"), [("sk-env", "sk-env"), ("  sk-env \n", "sk-env"), ("  ", None)]
)
def test_the_key_comes_from_the_environment_outside_colab(monkeypatch, value, expected):
    monkeypatch.setitem(sys.modules, "google.colab", None)
    monkeypatch.setenv("OPENAI_API_KEY", value)
    assert resolve_api_key() == expected


def fake_colab(monkeypatch, get):
    colab = types.ModuleType("google.colab")
    colab.userdata = types.SimpleNamespace(get=get)
    google = types.ModuleType("google")
    google.colab = colab
    monkeypatch.setitem(sys.modules, "google", google)
    monkeypatch.setitem(sys.modules, "google.colab", colab)


def test_in_colab_the_secret_store_is_asked_first(monkeypatch):
    asked = []
    fake_colab(monkeypatch, lambda name: asked.append(name) or "sk-colab")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    assert resolve_api_key() == "sk-colab" and asked == ["OPENAI_API_KEY"]


def test_in_colab_a_missing_secret_falls_back_to_the_environment(monkeypatch):
    def missing(name):
        raise KeyError(name)

    fake_colab(monkeypatch, missing)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert resolve_api_key() is None
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    assert resolve_api_key() == "sk-env"


def test_importing_the_package_does_not_import_openai():
    probe = "import sys, agentlab_magics.bounded; print('openai' in sys.modules)"
    completed = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert completed.stdout.strip() == "False"
