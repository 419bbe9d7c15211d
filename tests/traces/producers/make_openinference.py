"""OpenInference (Arize) traces, exported as OTLP/JSON Lines.

Usage: python make_openinference.py agents -> openinference.jsonl, openinference_multi.jsonl,
                                              openinference_responses.jsonl
       python make_openinference.py openai -> openinference_openai.jsonl, openinference_openai_multi.jsonl
(run each mode in its own process)
"""
import asyncio
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from where import FIXTURES

MODE = sys.argv[1] if len(sys.argv) > 1 else "agents"

from fake_openai import start_server
from otlp_jsonl import instrumented_run


async def main():
    server, url = start_server()
    suffix = "" if MODE == "agents" else "_openai"
    runs = [("chat", "fake-gpt-basic", f"openinference{suffix}.jsonl"),
            ("chat", "fake-gpt-multi", f"openinference{suffix}_multi.jsonl")]
    if MODE == "agents":
        runs.append(("responses", "fake-gpt-basic", "openinference_responses.jsonl"))
    for api, model, out in runs:
        if MODE == "agents":
            from openinference.instrumentation.openai_agents import OpenAIAgentsInstrumentor
            instrumentor = OpenAIAgentsInstrumentor()
        else:
            from openinference.instrumentation.openai import OpenAIInstrumentor
            instrumentor = OpenAIInstrumentor()
        await instrumented_run(url, api, model, os.path.join(FIXTURES, out), instrumentor,
                               "code-review-openinference")
    server.shutdown()

asyncio.run(main())
