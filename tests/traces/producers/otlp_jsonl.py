"""OTLP/JSON Lines span exporter: one ExportTraceServiceRequest per line (per batch).

Encoding = opentelemetry's own protobuf encoder
(opentelemetry.exporter.otlp.proto.common.trace_encoder.encode_spans) followed by
google.protobuf.json_format.MessageToDict, then post-processed to match the OTLP/JSON
spec (what the OTel Collector's file exporter writes):
  * traceId / spanId / parentSpanId / links: lowercase HEX (protobuf JSON gives base64)
  * enums (kind, status.code) as integers
  * int64 fields (startTimeUnixNano, intValue, ...) stay decimal STRINGS (proto3 JSON rule)
Set spec=False to get the raw MessageToDict output (base64 ids, enum names).
"""
import base64
import json
import os
import threading

from google.protobuf.json_format import MessageToDict
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

_ID_KEYS = {"traceId", "spanId", "parentSpanId"}


def _hexify(obj):
    if isinstance(obj, dict):
        return {k: (base64.b64decode(v).hex() if k in _ID_KEYS and isinstance(v, str) else _hexify(v))
                for k, v in obj.items()}
    if isinstance(obj, list):
        return [_hexify(x) for x in obj]
    return obj


class OTLPJsonLinesExporter(SpanExporter):
    def __init__(self, path, spec=True):
        self.path, self.spec = path, spec
        self._lock = threading.Lock()
        open(path, "w").close()

    def export(self, spans):
        req = encode_spans(spans)
        d = MessageToDict(req, use_integers_for_enums=self.spec)
        if self.spec:
            d = _hexify(d)
        with self._lock, open(self.path, "a") as fh:
            fh.write(json.dumps(d, separators=(",", ":")) + "\n")
        return SpanExportResult.SUCCESS

    def shutdown(self):
        pass

    def force_flush(self, timeout_millis=30000):
        return True


async def instrumented_run(url, api, model, path, instrumentor, workflow_name):
    """One run of the agent with `instrumentor` writing its spans to `path` as OTLP JSON
    Lines (small batches, so a file has several lines and a line several spans)."""
    from agents import set_trace_processors
    from common_agent import run_once
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    provider = TracerProvider(resource=Resource.create({"service.name": "trace-fixture"}))
    provider.add_span_processor(BatchSpanProcessor(OTLPJsonLinesExporter(path),
                                                   max_export_batch_size=4,
                                                   schedule_delay_millis=60000))
    set_trace_processors([])  # no OpenAI backend exporter
    instrumentor.instrument(tracer_provider=provider)
    result = await run_once(url, api, model, workflow_name=workflow_name)
    instrumentor.uninstrument()
    provider.force_flush()
    provider.shutdown()
    print(path, "->", repr(result.final_output)[:60])


async def instrumented_runs(runs, make_instrumentor, workflow_name):
    """Each (api, model, file name) of `runs`, against a fake server started for them, with a
    fresh instrumentor of `make_instrumentor`'s writing into FIXTURES/<file name>."""
    from fake_openai import start_server
    from where import FIXTURES

    server, url = start_server()
    for api, model, out in runs:
        await instrumented_run(url, api, model, os.path.join(FIXTURES, out),
                               make_instrumentor(), workflow_name)
    server.shutdown()
