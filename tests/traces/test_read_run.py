"""`lab.read_run` on traces the real packages wrote (tests/traces/producers made them, against
a fake OpenAI server on 127.0.0.1), and `lab.export_run` back out: each producer's trace of one
conversation (a system prompt, a user's question, two parallel calls of which one fails, a
text-only answer) reads back to that conversation, which the strict provider accepts."""

from __future__ import annotations

import builtins
import json
from pathlib import Path

import pytest
from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from agentlab_magics import lab
from agentlab_magics.checking.runner import run
from agentlab_magics.course import find_lab
from agentlab_magics.course.starter_files import BUILT_IN, RECORDING
from agentlab_magics.lab.runs import Run, TraceProblem
from agentlab_magics.widgets.transcript_data import Judgement
from tests.two_runs import THEIRS, YOURS

FIXTURES = Path(__file__).parent / "fixtures"
SYSTEM = "You are a careful code reviewer. Use the tools to read files before answering."
ONE = "U A[call_a_001,call_b_002] R(call_a_001) R(call_b_002) A"
MULTI = ("U A[call_a_001,call_b_002] R(call_a_001) R(call_b_002) A[call_ls_003] R(call_ls_003) A")
# file: (shape, the failed result marked an error, the source's name); a producer that keeps
# no tool spans cannot say a result failed (its text says so)
TRACES = {
    "agents_sdk_chat.jsonl": (ONE, True, "OpenAI Agents SDK trace"),
    "agents_sdk_chat_multi.jsonl": (MULTI, True, "OpenAI Agents SDK trace"),
    "otel_genai.jsonl": (ONE, True, "OpenTelemetry GenAI spans"),
    "otel_genai_multi.jsonl": (MULTI, True, "OpenTelemetry GenAI spans"),
    "otel_genai_openai_v2.jsonl": (ONE, False, "OpenTelemetry GenAI spans"),
    "openinference.jsonl": (ONE, True, "OpenInference spans"),
    "openinference_multi.jsonl": (MULTI, True, "OpenInference spans"),
    "openinference_openai.jsonl": (ONE, False, "OpenInference spans"),
    "openinference_responses.jsonl": (ONE, True, "OpenInference spans"),
    "inspect.eval": (ONE, True, "Inspect AI log"),
    "inspect_multi.eval": (MULTI, True, "Inspect AI log"),
    "inspect.json": (ONE, True, "Inspect AI log"),
}


@pytest.mark.parametrize("name", list(TRACES))
def test_each_producers_trace_reads_back_to_the_conversation(name):
    assert_reads_back(FIXTURES / name)


def assert_reads_back(path: Path) -> None:
    """The trace at `path`, named as in TRACES, reads back to the conversation it recorded."""
    shape, failed, source = TRACES[path.name]
    read = lab.read_run(path)
    assert lab.shape(read.messages) == shape and lab.validate(read.messages) == []
    assert read.system == SYSTEM and read.source == source and read.note == ""
    errors = [message["is_error"] for message in read.messages if message["role"] == "toolResult"]
    assert errors[:2] == [False, failed] and not any(errors[2:])
    assert read.messages[0] == lab.user("Please read a.py and b.py and tell me what they do.")
    assert read.messages[1]["content"][0] == lab.call("read_file", {"path": "a.py"},
                                                      id="call_a_001")
    assert read.messages[-1]["stop_reason"] == "stop" and read.messages[-1]["content"][0][
        "text"].startswith("a.py defines `add(x, y)`")


@pytest.mark.parametrize("name", list(TRACES))
def test_what_the_trace_knew_of_each_call_goes_beside_the_messages(name):
    read = lab.read_run(FIXTURES / name)
    assistants = [index for index, message in enumerate(read.messages)
                  if message["role"] == "assistant"]
    assert sorted(read.calls) == assistants
    first = read.calls[assistants[0]]
    assert first.model and first.input_tokens > 0 and first.seconds is not None
    assert all(set(message) <= {"role", "content", "stop_reason", "tool_call_id", "tool_name",
                                "is_error", "error_message"} for message in read.messages)


def test_the_producers_agree_on_the_conversation():
    read = [lab.read_run(FIXTURES / name).messages for name in
            ("agents_sdk_chat.jsonl", "otel_genai.jsonl", "openinference.jsonl",
             "openinference_responses.jsonl")]
    assert all(messages == read[0] for messages in read)


def test_a_trace_with_a_dropped_result_is_flagged_on_its_row(tmp_path):
    lines = (FIXTURES / "agents_sdk_chat.jsonl").read_text(encoding="utf-8").splitlines()
    spans = [json.loads(line) for line in lines]
    for span in spans:
        data = span.get("span_data") or {}
        if data.get("type") == "generation":
            data["input"] = [message for message in data["input"]
                             if message.get("tool_call_id") != "call_b_002"]
    path = tmp_path / "dropped.jsonl"
    path.write_text("".join(json.dumps(span) + "\n" for span in spans), encoding="utf-8")
    read = lab.read_run(path)
    assert lab.shape(read.messages) == "U A[call_a_001,call_b_002] R(call_a_001) A"
    judged = Judgement(read)
    assert list(judged.as_is) == [1] and "call_b_002" in judged.as_is[1][0]


def test_the_agents_sdks_responses_trace_says_why_it_cannot_be_read():
    with pytest.raises(TraceProblem, match=r"keeps no messages .* Responses API's spans hold "
                                           r"only ids and usage"):
        lab.read_run(FIXTURES / "agents_sdk_responses.jsonl")


def test_an_eval_log_without_zstandard_is_a_sentence(monkeypatch):
    real_import = builtins.__import__

    def without_zstandard(name, *args, **kwargs):
        if name == "zstandard":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", without_zstandard)
    with pytest.raises(TraceProblem, match=r"compressed with zstd, which Python 3\.11 cannot "
                                           r"open without the zstandard package"):
        lab.read_run(FIXTURES / "inspect.eval")


def test_a_file_of_two_conversations_says_which_it_drew_and_how_to_pick(tmp_path):
    path = tmp_path / "two.jsonl"
    path.write_text((FIXTURES / "otel_genai_openai_v2.jsonl").read_text(encoding="utf-8")
                    + (FIXTURES / "otel_genai.jsonl").read_text(encoding="utf-8")
                    .replace("careful code reviewer", "careless code reviewer"),
                    encoding="utf-8")
    first, second = lab.read_run(path), lab.read_run(path, pick=1)
    assert "hold 2 conversations" in first.note and "read_run(path, pick=N)" in first.note
    assert first.system == SYSTEM and second.system == SYSTEM.replace("careful", "careless")
    assert lab.shape(second.messages) == ONE and "number 1" in second.note
    with pytest.raises(ValueError, match="pick one from 0 to 1"):
        lab.read_run(path, pick=2)


def test_what_is_no_trace_is_one_sentence_naming_the_formats(tmp_path):
    path = tmp_path / "notes.json"
    path.write_text('{"title": "my notes"}', encoding="utf-8")
    with pytest.raises(TraceProblem, match=r"read_run reads the course's messages, .* Inspect "
                                           r"AI logs \(\.eval or \.json\); this is a JSON "
                                           r"object with the keys title\."):
        lab.read_run(path)
    (tmp_path / "text.txt").write_text("hello\n", encoding="utf-8")
    with pytest.raises(TraceProblem, match="is not JSON, JSON Lines or a zip"):
        lab.read_run(tmp_path / "text.txt")


# -- out and back in -------------------------------------------------------------------------

def course_runs() -> dict[str, list]:
    """Runs of the course: the seed's two runs, the four runs students watch, and the record
    of every test of the lessons' references that kept one."""
    recording = json.loads((BUILT_IN / RECORDING).read_text(encoding="utf-8"))
    runs = {"theirs": THEIRS, "yours": YOURS, **recording["records"]}
    for lab_id in ("lesson3", "lesson5", "lesson6", "lesson7", "checkpoint-a"):
        report = run(lab_id, "", source=find_lab(lab_id).reference)
        runs.update({f"{lab_id}:{outcome.name}": outcome.record for outcome in report.outcomes
                     if outcome.record and not outcome.record_omitted})
    return runs


def test_every_course_run_survives_export_and_read_unchanged(tmp_path):
    runs = course_runs()
    assert len(runs) > 40
    for name, messages in runs.items():
        path = lab.export_run(messages, tmp_path / "run.jsonl")
        assert lab.read_run(path).messages == messages, name


@pytest.mark.parametrize("name", ["agents_sdk_chat_multi.jsonl", "inspect_multi.eval",
                                  "openinference.jsonl"])
def test_a_traces_run_survives_export_with_its_calls_and_system_prompt(name, tmp_path):
    read = lab.read_run(FIXTURES / name)
    back = lab.read_run(lab.export_run(read, tmp_path / "out.jsonl"))
    assert (back.messages, back.system) == (read.messages, read.system)
    assert {index: facts.tags() for index, facts in back.calls.items()} == {
        index: facts.tags() for index, facts in read.calls.items()}


def test_the_export_parses_with_opentelemetrys_own_otlp_reader(tmp_path):
    path = lab.export_run(YOURS, tmp_path / "out.jsonl")
    (line,) = path.read_text(encoding="utf-8").splitlines()
    request = json_format.Parse(line, ExportTraceServiceRequest())
    spans = request.resource_spans[0].scope_spans[0].spans
    assert [span.name for span in spans] == [
        "invoke_agent course messages", "chat", "execute_tool raed", "chat", "execute_tool read",
        "chat"]
    failed = spans[2]
    assert failed.status.code == 2 and {item.key for item in failed.attributes} >= {
        "gen_ai.tool.call.id", "gen_ai.tool.name", "gen_ai.tool.call.result"}


def test_a_run_is_drawn_with_its_calls_facts_and_the_system_prompt():
    read = lab.read_run(FIXTURES / "otel_genai_multi.jsonl")
    head = Judgement(read).head()
    assert isinstance(read, Run) and head["accepted"]
    assert "read from OpenTelemetry GenAI spans" in head["meter"]
    assert f"system prompt (not a message here): {SYSTEM!r}" in head["meter"]


def test_a_producer_that_keeps_only_each_prompt_says_what_is_not_drawn():
    read = lab.read_run(FIXTURES / "otel_genai_responses.jsonl")
    assert lab.shape(read.messages) == "U A"
    assert read.note.startswith("Its spans ran 2 tools, but no model call's span holds their "
                                "calls and results")


def test_percent_transcript_draws_a_trace_file_and_diffs_two_sources(monkeypatch, capsys):
    from IPython.core.interactiveshell import InteractiveShell

    monkeypatch.chdir(FIXTURES)
    shell = InteractiveShell.instance()
    try:
        shell.run_line_magic("load_ext", "agentlab_magics")
        shell.run_line_magic("transcript", "otel_genai_multi.jsonl --static")
        drawn = capsys.readouterr().out
        shell.run_line_magic("transcript", "agents_sdk_chat.jsonl --diff inspect.json --static")
        diffed = capsys.readouterr().out
        shell.run_line_magic("transcript", "agents_sdk_responses.jsonl")
        refused = capsys.readouterr().out
    finally:
        InteractiveShell.clear_instance()
    assert f"shape: {MULTI}" in drawn and "read from OpenTelemetry GenAI spans" in drawn
    assert "(fake-gpt-multi · 49 in, 74 out tokens ·" in drawn
    assert "The runs part at turn 2" in diffed
    assert refused.startswith("%transcript agents_sdk_responses.jsonl: This OpenAI Agents SDK "
                              "trace keeps no messages")


def test_a_big_agents_sdk_trace_read_by_its_lines_heads_and_tails_reads_as_the_whole(tmp_path):
    """Lines past producers.LIGHT are read by their head and tail only, but for the one that
    holds the conversation: the run is the one the whole file gives, facts and all."""
    big = "x = 1\\n" * 20_000
    text = (FIXTURES / "agents_sdk_chat_multi.jsonl").read_text(encoding="utf-8").replace(
        "def add(x, y):\\n    return x + y\\n", big)
    path = tmp_path / "big.jsonl"
    path.write_text(text, encoding="utf-8")
    assert max(map(len, text.splitlines())) > 1 << 16
    streamed = lab.read_run(path)
    loaded = lab.read_run([json.loads(line) for line in text.splitlines()])
    assert streamed.messages == loaded.messages and streamed.system == loaded.system
    assert {index: facts.tags() for index, facts in streamed.calls.items()} == {
        index: facts.tags() for index, facts in loaded.calls.items()}
    assert streamed.messages[2]["content"] == "x = 1\n" * 20_000


def test_a_failed_tool_is_matched_to_its_own_call_where_two_calls_are_alike():
    """The SDK's function spans name no call: of two calls read(a.py), where the first ran
    and the second failed, the second's result is the error (the spans in the order begun)."""
    call = {"type": "function", "function": {"name": "read", "arguments": '{"path": "a.py"}'}}
    history = [{"role": "user", "content": "Read a.py twice."},
               {"role": "assistant", "content": None,
                "tool_calls": [{**call, "id": "c1"}, {**call, "id": "c2"}]},
               {"role": "tool", "tool_call_id": "c1", "content": "A = 1"},
               {"role": "tool", "tool_call_id": "c2", "content": "Error: busy"}]
    spans = [{"object": "trace.span", "trace_id": "t", "started_at": f"2026-12-07T10:00:0{n}",
              "span_data": data, **({"error": {"message": "busy"}} if n == 3 else {})}
             for n, data in enumerate([
                 {"type": "function", "name": "read", "input": '{"path": "a.py"}'},
                 {"type": "generation", "input": history,
                  "output": [{"role": "assistant", "content": "Done."}]},
                 {"type": "function", "name": "read", "input": '{"path": "a.py"}'}], 1)]
    read = lab.read_run(spans)
    assert [m["is_error"] for m in read.messages if m["role"] == "toolResult"] == [False, True]


def assert_notes_app(read: Run) -> None:
    """notes_app.jsonl as read: the run the app kept, its dropped result flagged, its retried
    first call folded into one row that says it was billed twice, and the tool that failed in
    the abandoned attempt not counted against the kept one."""
    assert lab.shape(read.messages) == "U A[call_notes_001,call_todo_002] R(call_todo_002) A"
    assert lab.validate(read.messages)[0] == ("messages[1]: toolCall call_notes_001 has no "
                                              "toolResult")
    assert [message["is_error"] for message in read.messages
            if message["role"] == "toolResult"] == [False]
    first, last = read.calls[1], read.calls[3]
    assert len(first.earlier) == 1 and not last.earlier
    assert first.earlier[0].started < first.started < last.started
    assert "request sent 2 times, each one billed (the earlier: " in " ".join(first.tags())
    assert last.input_tokens > first.input_tokens


def test_an_apps_retried_call_and_dropped_result_are_read_as_they_happened():
    assert_notes_app(lab.read_run(FIXTURES / "notes_app.jsonl"))


def test_a_retried_call_is_told_apart_in_a_trace_read_light(tmp_path):
    """With lines past producers.LIGHT, two calls of one request are told apart from their
    bytes, and the run equals the one the whole file gives."""
    text = (FIXTURES / "notes_app.jsonl").read_text(encoding="utf-8").replace(
        "You summarise a team's files.", "You summarise a team's files." + " Be brief." * 9000)
    path = tmp_path / "big.jsonl"
    path.write_text(text, encoding="utf-8")
    generations = [line for line in text.splitlines() if '"type": "generation"' in line]
    assert len(generations) == 3 and min(map(len, generations)) > 1 << 16
    streamed = lab.read_run(path)
    loaded = lab.read_run([json.loads(line) for line in text.splitlines()])
    assert streamed.messages == loaded.messages
    assert {index: facts.tags() for index, facts in streamed.calls.items()} == {
        index: facts.tags() for index, facts in loaded.calls.items()}
    assert_notes_app(streamed)
