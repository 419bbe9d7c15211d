"""Write OpenAI Agents SDK native traces (span.export()/trace.export() per JSON line).

Usage: python make_agents_sdk.py  -> agents_sdk_chat.jsonl, agents_sdk_chat_multi.jsonl,
                                     agents_sdk_responses.jsonl, agents_sdk_responses_multi.jsonl
"""
import asyncio
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from agents import flush_traces, set_trace_processors
from agents.tracing import TracingProcessor
from common_agent import run_once
from fake_openai import start_server
from where import FIXTURES


class JsonlProcessor(TracingProcessor):
    """Writes every finished span's export() dict and, at the end, the trace's export()
    dict as one JSON line each, in callback order (spans in FINISH order, trace last)."""
    def __init__(self):
        self.path = None

    def open(self, path):
        self.path = path
        with open(path, "w"):
            pass

    def close(self):
        self.path = None

    def _w(self, obj):
        if self.path and obj is not None:
            with open(self.path, "a") as out:
                out.write(json.dumps(obj, default=str) + "\n")

    def on_trace_start(self, trace):  # OpenAI's BackendSpanExporter also ignores start
        pass

    def on_trace_end(self, trace):
        self._w(trace.export())

    def on_span_start(self, span):
        pass

    def on_span_end(self, span):
        self._w(span.export())

    def shutdown(self):
        self.close()

    def force_flush(self):
        pass


async def main():
    proc = JsonlProcessor()
    set_trace_processors([proc])        # replaces the default OpenAI backend exporter
    server, url = start_server()
    for api, model, out in [("chat", "fake-gpt-basic", "agents_sdk_chat.jsonl"),
                            ("chat", "fake-gpt-multi", "agents_sdk_chat_multi.jsonl"),
                            ("responses", "fake-gpt-basic", "agents_sdk_responses.jsonl"),
                            ("responses", "fake-gpt-multi", "agents_sdk_responses_multi.jsonl")]:
        proc.open(os.path.join(FIXTURES, out))
        res = await run_once(url, api, model, workflow_name=f"code-review-{api}")
        flush_traces()
        proc.close()
        print(out, "->", repr(res.final_output)[:80])
    server.shutdown()

if __name__ == "__main__":
    asyncio.run(main())
