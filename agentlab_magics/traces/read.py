"""`read_run(source)`: the course's messages of a run, from a file or an object any of the
formats below holds, with what the trace knew beside them (`run.Run`).

The formats: the course's own messages; chat-completions message lists (as the bounded unit
keeps them); OpenTelemetry spans as OTLP JSON Lines, under the GenAI conventions or
OpenInference's; the OpenAI Agents SDK's own trace export (JSON Lines); Inspect AI logs
(`.eval`, a zip, or `.json`). Reading needs none of their packages (an `.eval` written with
zstd needs `zstandard`, as Python 3.11 cannot open it: the sentence says so). A source that
is none of them is a TraceProblem naming the formats read and what was found instead.
"""

from __future__ import annotations

import io
import json
import struct
import zipfile
from pathlib import Path
from typing import Any

from agentlab_magics.traces import otlp, producers
from agentlab_magics.traces.run import Run, TraceProblem

FORMATS = ("the course's messages, chat-completions messages, OpenTelemetry spans (OTLP JSON "
           "Lines, GenAI or OpenInference), the OpenAI Agents SDK's trace export (JSON "
           "Lines) and Inspect AI logs (.eval or .json)")
ROLES = ("user", "assistant", "toolResult")
ZSTD = 93  # the zip compression method Inspect writes


def read_run(source: Any, pick: int | str | None = None) -> Run:
    """The run `source` holds: a path, or what a file of a format holds once loaded. `pick`
    chooses a conversation where a trace holds several (by its place from 0, or an Inspect
    sample's id); the run's `note` says how many there are."""
    if isinstance(source, Run):
        return source
    if isinstance(source, (str, Path)):
        return _from_file(Path(source), pick)
    held = getattr(source, "messages", None)  # a lab Request, a bounded LoopResult
    return _from_loaded(held if isinstance(held, list) else source, pick)


def _from_file(path: Path, pick: int | str | None) -> Run:
    try:
        with open(path, "rb") as file:
            start = file.read(64)
        if start.lstrip().replace(b" ", b"").startswith(b'{"object":"trace'):
            return producers.agents_sdk_file(path, _place(pick))  # read a line at a time
        data = path.read_bytes()
    except OSError as exc:
        raise TraceProblem(f"Cannot read {path}: {exc.strerror or exc}.") from None
    if data[:4] == b"PK\x03\x04":
        return _from_eval(path, data, pick)
    text = data.decode("utf-8", errors="replace")
    whole = producers.json_of(text)
    if whole is not None:
        return _from_loaded(whole, pick)
    lines = [producers.json_of(line) for line in text.splitlines() if line.strip()]
    if lines and all(line is not None for line in lines):
        return _from_loaded(lines, pick)
    raise TraceProblem(f"{path} is not JSON, JSON Lines or a zip: read_run reads {FORMATS}.")


def _from_loaded(found: Any, pick: int | str | None) -> Run:
    objects = found if isinstance(found, list) else [found]
    if any(isinstance(item, dict) and "resourceSpans" in item for item in objects):
        spans = otlp.spans_of(objects)
        if any(otlp.is_genai(span) or otlp.is_openinference(span) for span in spans):
            return otlp.read_spans(spans, _place(pick))
        raise TraceProblem(f"These OpenTelemetry spans ({len(spans)}) hold no model call's "
                           "messages (no gen_ai.input.messages, no OpenInference LLM span): "
                           "record them with the message content on.")
    if producers.is_agents_sdk(objects):
        return producers.read_agents_sdk(objects, _place(pick))
    if producers.is_inspect(found):
        return producers.read_inspect(found, found.get("samples"), pick)
    if isinstance(found, list) and all(isinstance(item, dict) for item in found):
        if all(item.get("role") in ROLES for item in found):
            return Run([dict(item) for item in found])
        if all(isinstance(item.get("role"), str) for item in found):
            return producers.read_chat(found)
    raise TraceProblem(f"read_run reads {FORMATS}; this is {_described(found)}.")


def _place(pick: int | str | None) -> int | None:
    if pick is None or isinstance(pick, int):
        return pick
    raise ValueError(f"pick a conversation by its place, from 0; {pick!r} is not one.")


def _described(found: Any) -> str:
    if isinstance(found, dict):
        keys = ", ".join(list(map(str, found))[:6])
        return f"a JSON object with the keys {keys}" if keys else "an empty JSON object"
    if isinstance(found, list) and found:
        return f"a list of {len(found)} items, the first a {type(found[0]).__name__}"
    return "an empty list" if isinstance(found, list) else f"a {type(found).__name__}"


# -- Inspect's .eval zips --------------------------------------------------------------------

def _from_eval(path: Path, data: bytes, pick: int | str | None) -> Run:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        header = json.loads(_member(archive, "header.json"))
        names = sorted(name for name in archive.namelist() if name.startswith("samples/"))
        samples = [json.loads(_member(archive, name)) for name in names]
    except TraceProblem:
        raise
    except (zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise TraceProblem(f"{path} is a zip but not an Inspect AI log ({exc}): read_run "
                           f"reads {FORMATS}.") from None
    return producers.read_inspect(header, samples, pick)


def _member(archive: zipfile.ZipFile, name: str) -> bytes:
    info = archive.getinfo(name)
    if info.compress_type != ZSTD:
        return archive.read(info)
    try:
        import zstandard
    except ImportError:
        raise TraceProblem(
            "This Inspect log is compressed with zstd, which Python 3.11 cannot open without "
            "the zstandard package: `pip install zstandard`, or convert the log to JSON "
            "(`inspect log convert --to json`).") from None
    raw = archive.fp
    assert raw is not None
    raw.seek(info.header_offset)
    local = raw.read(30)
    name_length, extra_length = struct.unpack("<2H", local[26:30])
    raw.seek(info.header_offset + 30 + name_length + extra_length)
    compressed = raw.read(info.compress_size)
    return zstandard.ZstdDecompressor().stream_reader(
        io.BytesIO(compressed), read_across_frames=True).read()
