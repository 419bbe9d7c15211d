"""Runs in and out of the course: `read_run` reads the traces real agents leave (OpenTelemetry
GenAI or OpenInference spans, the OpenAI Agents SDK's export, Inspect logs, chat-completions
lists) into the course's messages, and `export_run` writes a run as OpenTelemetry spans
(agentlab_magics.traces says how)."""

from agentlab_magics.traces.export import export_run
from agentlab_magics.traces.read import read_run
from agentlab_magics.traces.run import Run, TraceProblem

__all__ = ["Run", "TraceProblem", "export_run", "read_run"]
