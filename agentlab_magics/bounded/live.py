"""The live model: an OpenAI-compatible chat-completions client behind the same Model protocol.

The ``openai`` package is optional and imported only when a live model is built. Every
provider failure (an HTTP error status, a timeout, a refused connection, a body that is not
a chat completion) becomes ``ModelError``, so the loop ends ``MODEL_FAILED`` with the attempt
charged. ``build_model`` falls back to a recorded run replayed (bounded.replay), or to the
scripted turns, and records why, when no key or no ``openai`` package is available.
"""

import json
import os
from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, Field, NonNegativeInt, ValidationError

from agentlab_magics.bounded.dispatch import ToolCall
from agentlab_magics.bounded.models import ModelError, ModelTurn, ScriptedModel, ScriptedTurn
from agentlab_magics.bounded.replay import Recording, ReplayModel, load_recording

DEFAULT_MODEL = "gpt-5.1"
API_KEY_NAME = "OPENAI_API_KEY"
BASE_URL_NAME = "OPENAI_BASE_URL"
REQUEST_TIMEOUT_SECONDS = 60.0


class _Function(BaseModel):
    name: str
    arguments: str


class _RequestedCall(BaseModel):
    id: str
    type: Literal["function"] = "function"
    function: _Function


class _Message(BaseModel):
    content: str | None = None
    tool_calls: list[_RequestedCall] | None = None


class _Choice(BaseModel):
    message: _Message


class _Usage(BaseModel):
    completion_tokens: NonNegativeInt = 0


class _Completion(BaseModel):
    """The part of a chat-completions response body the loop relies on; the rest is ignored."""

    choices: list[_Choice] = Field(min_length=1)
    usage: _Usage | None = None


def turn_from_completion(body: str | bytes) -> ModelTurn:
    """The first choice of a chat-completions JSON body as a ModelTurn, or ModelError if malformed.

    Missing usage counts as zero output tokens: the token limits can only use what the
    provider reports.
    """
    try:
        completion = _Completion.model_validate_json(body)
        message = completion.choices[0].message
        calls = tuple(
            ToolCall(
                id=call.id, name=call.function.name, arguments=json.loads(call.function.arguments)
            )
            for call in message.tool_calls or ()
        )
    except (ValidationError, json.JSONDecodeError) as error:
        raise ModelError(
            f"the provider's reply is not a usable chat completion: {error}"
        ) from error
    tokens = completion.usage.completion_tokens if completion.usage else 0
    return ModelTurn(message.content or "", calls, tokens)


class OpenAIModel:
    """A hosted model; one ``complete`` is one HTTP request, never retried by the client."""

    source = "live"

    def __init__(
        self,
        model: str,
        api_key: str,
        *,
        base_url: str | None = None,
        timeout: float = REQUEST_TIMEOUT_SECONDS,
    ) -> None:
        import openai

        self.model = model
        self._provider_error = openai.OpenAIError
        self._client = openai.OpenAI(
            api_key=api_key,
            base_url=base_url or os.environ.get(BASE_URL_NAME) or None,
            max_retries=0,
            timeout=timeout,
        )

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ModelTurn:
        """Send the transcript and tool schemas; return the reply as a turn or raise ModelError."""
        request: dict[str, Any] = {"model": self.model, "messages": messages}
        if tools:
            request["tools"] = tools
        try:
            raw = self._client.chat.completions.with_raw_response.create(**request)
        except self._provider_error as error:
            raise ModelError(f"the provider request failed: {type(error).__name__}") from error
        return turn_from_completion(raw.http_response.content)

    def __repr__(self) -> str:
        return f"OpenAIModel({self.model!r})"


def resolve_api_key() -> str | None:
    """OPENAI_API_KEY from Colab's secret store when running in Colab, else the environment."""
    return _colab_secret(API_KEY_NAME) or os.environ.get(API_KEY_NAME, "").strip() or None


def _colab_secret(name: str) -> str | None:
    try:
        from google.colab import userdata
    except ImportError:
        return None
    try:
        return (userdata.get(name) or "").strip() or None
    except Exception:  # secret missing or notebook access not granted: try the environment
        return None


def build_model(
    turns: Iterable[ScriptedTurn], model: str = DEFAULT_MODEL, *,
    recording: Recording | str | os.PathLike[str] | None = None,
) -> OpenAIModel | ScriptedModel | ReplayModel:
    """The live model when a key and the openai package are present; else the recorded run
    (`recording`, a Recording or its file) replayed when one is given, else the scripted turns.

    A stand-in carries the reason in ``.reason``, saying what it replays; its ``.source`` is
    "replay" or "scripted".
    """
    api_key = resolve_api_key()
    if api_key is None:
        return _stand_in(turns, recording,
                         f"no {API_KEY_NAME} in Colab secrets or the environment")
    try:
        return OpenAIModel(model, api_key)
    except ImportError:
        return _stand_in(turns, recording, f"{API_KEY_NAME} is set but the openai package is "
                                           "not installed (pip install openai)")


def _stand_in(turns: Iterable[ScriptedTurn], recording: Recording | str | os.PathLike[str] | None,
              why: str) -> ScriptedModel | ReplayModel:
    if recording is None:
        return ScriptedModel(turns, reason=why)
    if not isinstance(recording, Recording):
        recording = load_recording(recording)
    return ReplayModel(recording, reason=f"{why}: replaying a recorded run of "
                                         f"{len(recording.calls)} model calls")
