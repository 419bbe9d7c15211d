"""Shared agent definition for the make_*.py scripts (Agents SDK 0.24.0)."""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("OPENAI_API_KEY", "sk-fake-local")   # never sent anywhere but 127.0.0.1

from agents import (
    Agent,
    ModelSettings,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    RunConfig,
    Runner,
    function_tool,
)
from openai import AsyncOpenAI

INSTRUCTIONS = "You are a careful code reviewer. Use the tools to read files before answering."
USER_PROMPT = "Please read a.py and b.py and tell me what they do."
FILES = {"a.py": "def add(x, y):\n    return x + y\n", "README.md": "# demo\n"}


def tool_error(ctx, error: Exception) -> str:
    # the message the model sees when a tool raises
    return f"Error running tool: {type(error).__name__}: {error}"


@function_tool(failure_error_function=tool_error)
def read_file(path: str) -> str:
    """Read a text file from the project.

    Args:
        path: relative file path
    """
    if path not in FILES:
        raise FileNotFoundError(f"No such file: {path}")
    return FILES[path]


@function_tool(failure_error_function=tool_error)
def list_files(directory: str) -> list[str]:
    """List files in a directory.

    Args:
        directory: directory to list
    """
    return sorted(FILES)


def make_agent(base_url: str, api: str = "chat", model_name: str = "fake-gpt-basic") -> Agent:
    client = AsyncOpenAI(base_url=base_url, api_key="sk-fake-local", max_retries=0)
    if api == "chat":
        model = OpenAIChatCompletionsModel(model=model_name, openai_client=client)
    else:
        model = OpenAIResponsesModel(model=model_name, openai_client=client)
    return Agent(
        name="CodeReviewer",
        instructions=INSTRUCTIONS,
        tools=[read_file, list_files],
        model=model,
        model_settings=ModelSettings(parallel_tool_calls=True, temperature=0.0),
    )


async def run_once(base_url: str, api: str, model_name: str, workflow_name: str):
    agent = make_agent(base_url, api, model_name)
    return await Runner.run(agent, USER_PROMPT,
                            run_config=RunConfig(workflow_name=workflow_name,
                                                 trace_include_sensitive_data=True))
