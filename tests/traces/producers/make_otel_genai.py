"""OTel GenAI semconv traces via opentelemetry-instrumentation-openai-agents-v2 (Agents SDK
processor) or opentelemetry-instrumentation-openai-v2 (openai client wrapper).

Usage: python make_otel_genai.py agents   -> otel_genai.jsonl, otel_genai_multi.jsonl, otel_genai_responses.jsonl
       PYTHONPATH=ov_1.1b0 python make_otel_genai.py openai
                                          -> otel_genai_openai_v2.jsonl, otel_genai_openai_v2_multi.jsonl
  (openai-v2 2.4b0 imports opentelemetry.util.genai.instruments, which util-genai 1.3b0 no
   longer has; ov_1.1b0 = `pip install --no-deps --target ov_1.1b0 opentelemetry-util-genai==1.1b0`)
(run each mode in its own process: instrumentors are global)
"""
import asyncio
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

MODE = sys.argv[1] if len(sys.argv) > 1 else "agents"
# content capture: agents-v2 accepts true/span_only/...; openai-v2 (util-genai) needs the
# experimental opt-in + SPAN_ONLY / SPAN_AND_EVENT to put messages on span attributes.
os.environ["OTEL_SEMCONV_STABILITY_OPT_IN"] = "gen_ai_latest_experimental"
os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "span_only"

from otlp_jsonl import instrumented_runs


def instrumentor():
    if MODE == "agents":
        from opentelemetry.instrumentation.openai_agents import OpenAIAgentsInstrumentor
        return OpenAIAgentsInstrumentor()
    from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor
    return OpenAIInstrumentor()


suffix = "" if MODE == "agents" else "_openai_v2"
runs = [("chat", "fake-gpt-basic", f"otel_genai{suffix}.jsonl"),
        ("chat", "fake-gpt-multi", f"otel_genai{suffix}_multi.jsonl")]
if MODE == "agents":
    runs.append(("responses", "fake-gpt-basic", "otel_genai_responses.jsonl"))
asyncio.run(instrumented_runs(runs, instrumentor, "code-review-otel"))
