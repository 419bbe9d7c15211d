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

MODE = sys.argv[1] if len(sys.argv) > 1 else "agents"

from otlp_jsonl import instrumented_runs


def instrumentor():
    if MODE == "agents":
        from openinference.instrumentation.openai_agents import OpenAIAgentsInstrumentor
        return OpenAIAgentsInstrumentor()
    from openinference.instrumentation.openai import OpenAIInstrumentor
    return OpenAIInstrumentor()


suffix = "" if MODE == "agents" else "_openai"
runs = [("chat", "fake-gpt-basic", f"openinference{suffix}.jsonl"),
        ("chat", "fake-gpt-multi", f"openinference{suffix}_multi.jsonl")]
if MODE == "agents":
    runs.append(("responses", "fake-gpt-basic", "openinference_responses.jsonl"))
asyncio.run(instrumented_runs(runs, instrumentor, "code-review-openinference"))
