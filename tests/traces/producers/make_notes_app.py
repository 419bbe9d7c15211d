"""An Agents SDK app with two bugs, traced by the SDK itself: the trace the lab real-run gives
its students (Agents SDK 0.24.0, against fake_openai.py's "notes" scenario on 127.0.0.1).

The app reads two files with a tool and asks for a summary. Its two bugs:
  * its call_model_input_filter leaves out every tool output longer than 2,000 characters "to
    save tokens", so the second request carries the call of notes.md without its result
    (the fake server answers anyway, as a lenient provider does; a strict one refuses);
  * it retries the whole run when a tool raises, inside one trace: the first model call is
    made, and billed, twice.

Usage: python make_notes_app.py -> notes_app.jsonl (the SDK's span.export() dicts, one a line)
"""
import asyncio
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("OPENAI_API_KEY", "sk-fake-local")   # never sent anywhere but 127.0.0.1

from agents import (
    Agent,
    ModelSettings,
    OpenAIChatCompletionsModel,
    RunConfig,
    Runner,
    flush_traces,
    function_tool,
    set_trace_processors,
    trace,
)
from agents.run_config import CallModelData, ModelInputData
from fake_openai import start_server
from make_agents_sdk import JsonlProcessor
from openai import AsyncOpenAI
from where import FIXTURES

INSTRUCTIONS = "You summarise a team's files. Read them with read_file before you answer."
PROMPT = "Summarise notes.md and tell me what is left in todo.txt."
TOPICS = ["the release date", "the login bug", "the test plan", "the new hire", "the budget",
          "the demo", "the on-call rota", "the database move"]
NOTES = "# Team notes\n\n" + "".join(
    f"## Week {week}\n- We talked about {TOPICS[week % len(TOPICS)]} and agreed to revisit "
    f"it in week {week + 2}.\n- Action: {TOPICS[(week * 3) % len(TOPICS)]} goes to the "
    f"person who raised it.\n\n" for week in range(1, 19))
FILES = {"notes.md": NOTES,
         "todo.txt": "- [ ] fix the login bug\n- [ ] write the test plan\n- [x] ship v1\n"}
LIMIT = 2000
asked = {"todo.txt": 0}


@function_tool(failure_error_function=None)   # a tool's exception ends the run
def read_file(path: str) -> str:
    """Read a file of the team's.

    Args:
        path: the file's name
    """
    if path == "todo.txt":
        asked[path] += 1
        if asked[path] == 1:
            raise TimeoutError("the file server did not answer in 5 s")
    return FILES[path]


def drop_big_outputs(data: CallModelData) -> ModelInputData:
    """The bug: tool outputs over LIMIT characters are left out of the request."""
    kept = [item for item in data.model_data.input
            if not (isinstance(item, dict) and item.get("type") == "function_call_output"
                    and len(str(item.get("output"))) > LIMIT)]
    return ModelInputData(input=kept, instructions=data.model_data.instructions)


async def main():
    assert len(NOTES) > LIMIT
    proc = JsonlProcessor()
    set_trace_processors([proc])
    server, url = start_server()
    client = AsyncOpenAI(base_url=url, api_key="sk-fake-local", max_retries=0)
    agent = Agent(name="NotesAssistant", instructions=INSTRUCTIONS, tools=[read_file],
                  model=OpenAIChatCompletionsModel(model="fake-gpt-notes", openai_client=client),
                  model_settings=ModelSettings(parallel_tool_calls=True, temperature=0.0))
    config = RunConfig(call_model_input_filter=drop_big_outputs,
                       trace_include_sensitive_data=True)
    proc.open(os.path.join(FIXTURES, "notes_app.jsonl"))
    with trace("notes-assistant"):
        for attempt in (1, 2):   # the other bug: a failed run is run again from the start
            try:
                result = await Runner.run(agent, PROMPT, run_config=config)
                break
            except Exception as error:
                print(f"attempt {attempt} failed: {type(error).__name__}: {error}")
    flush_traces()
    proc.close()
    await client.close()
    server.shutdown()
    print("notes_app.jsonl ->", repr(result.final_output)[:80])

asyncio.run(main())
