"""A long transcript's widget: a first state that does not grow with the record, and the
kernel's answers to the browser's questions (summary, rows, search), which agree with what
transcript_data says of the same record; the full static rendering kept for the saving hook."""

from __future__ import annotations

import array

import pytest

from agentlab_magics import lab
from agentlab_magics.widgets.kept_views import keep, kept, views_folder
from agentlab_magics.widgets.saving import static_notebook
from agentlab_magics.widgets.transcript import Transcript
from agentlab_magics.widgets.transcript_data import transcript_data
from agentlab_magics.widgets.transcript_feed import CHUNK, FIRST_ROWS, TranscriptFeed
from agentlab_magics.widgets.transcript_html import transcript_html, transcript_text
from tests.widgets.cases import FAILED, R1, R2, A, U, turns


def broken(count: int) -> list[dict]:
    """`count` turns with, past the first screen, a failed reply, an orphan result and a
    needle in a haystack."""
    messages = turns(count)
    messages[401] = lab.fail("")
    messages[702] = lab.tool_result(lab.call("read", {}, id="ghost"), "nobody asked")
    messages[900] = lab.user("where did the Zebra go? " + "x" * 10_000 + " tail-word")
    return messages


def indices(buffer: bytes) -> list[int]:
    return array.array("i", buffer).tolist()


def test_a_short_transcript_is_sent_whole_and_judged():
    first = TranscriptFeed([U, A, R1]).first()
    assert first == {**transcript_data([U, A, R1]), "complete": True}


def test_a_long_transcripts_first_state_is_its_first_rows_unjudged():
    messages = broken(300)
    first = TranscriptFeed(messages).first()
    assert first["complete"] is False and first["total"] == 1_200
    assert [row["index"] for row in first["rows"]] == list(range(FIRST_ROWS))
    assert first["summary"] == "1,200 messages" and first["verdict"] == ""
    assert not any("complaints" in row or "call_row" in row for row in first["rows"])


def test_the_summary_judges_the_whole_record_as_transcript_data_does():
    messages = broken(300)
    whole = transcript_data(messages)
    content, buffers = TranscriptFeed(messages).answer({"want": "summary"})
    assert content["answer"] == "summary"
    head = {key: value for key, value in whole.items() if key != "rows"}
    assert content["head"] == head
    assert content["rows"] == whole["rows"][:FIRST_ROWS]
    flagged = [row["index"] for row in whole["rows"]
               if row.get("complaints") or row.get("problem") or row.get("in_request") is False]
    assert indices(buffers[0]) == flagged == [401, 402, 701, 702]


def test_rows_are_sent_as_transcript_data_draws_them_at_most_a_chunk_at_a_time():
    messages = broken(300)
    whole = transcript_data(messages)
    feed = TranscriptFeed(messages)
    content, _ = feed.answer({"want": "rows", "from": 395, "to": 410})
    assert content["rows"] == whole["rows"][395:410]
    content, _ = feed.answer({"want": "rows", "from": 0, "to": 10_000})
    assert len(content["rows"]) == CHUNK
    content, _ = feed.answer({"want": "rows", "from": 1_190, "to": 5_000})
    assert [row["index"] for row in content["rows"]] == list(range(1_190, 1_200))


def test_search_looks_at_every_messages_whole_text_and_its_complaints():
    feed = TranscriptFeed(broken(300))
    content, buffers = feed.answer({"want": "search", "query": "ZEBRA", "ask": 3})
    assert content == {"answer": "search", "query": "zebra", "ask": 3}
    assert indices(buffers[0]) == [900]
    assert indices(feed.answer({"want": "search", "query": "tail-word"})[1][0]) == [900]
    assert indices(feed.answer({"want": "search", "query": "no tooLcall before"})[1][0]) == [
        402, 702]
    assert indices(feed.answer({"want": "search", "query": "f123.py"})[1][0]) == [493]


@pytest.mark.parametrize("question", [
    None, "rows", {}, {"want": "everything"}, {"want": "rows", "from": -1, "to": 3},
    {"want": "rows", "from": "0", "to": 3}, {"want": "rows", "from": True, "to": 3},
    {"want": "search", "query": 12}, {"want": ["summary"]},
])
def test_a_question_that_cannot_be_read_gets_a_sentence(question):
    content, buffers = TranscriptFeed(broken(300)).answer(question)
    assert content["answer"] == "error" and content["message"] and buffers == []


def test_the_record_is_judged_once_for_the_widget_and_the_static_rendering():
    view = Transcript(broken(300))
    view.widget._feed.answer({"want": "summary"})
    judgement = view.judgement()
    view.widget._feed.answer({"want": "rows", "from": 0, "to": 5})
    view.to_html()
    assert view.judgement() is judgement and view.widget._feed.judgement is judgement


def test_the_bundle_beside_a_long_widget_is_a_first_screen_copy_that_says_so():
    view = Transcript(broken(300))
    bundle, metadata = view._repr_mimebundle_()
    assert metadata["agentlab_magics"] == {"view": "transcript", "kept": True}
    assert "This copy was saved before the kernel judged the record" in bundle["text/html"]
    assert "1,180 more messages" in bundle["text/plain"]
    assert "ghost" not in bundle["text/html"]


def test_once_judged_the_full_static_rendering_is_kept_and_the_saving_hook_uses_it(
        tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTLAB_PROGRESS", str(tmp_path / "progress.json"))
    view = Transcript(broken(300))
    bundle, metadata = view._repr_mimebundle_()
    model_id = view.widget.model_id
    assert kept(model_id) is None
    view.widget._feed.answer({"want": "summary"})
    assert kept(model_id) == {"html": view.to_html(), "text": view.to_text()}
    assert (views_folder() / f"{model_id}.json").exists()

    output = {"output_type": "display_data", "data": dict(bundle), "metadata": metadata}
    notebook = {"cells": [{"cell_type": "code", "outputs": [output]}], "metadata": {}}
    static_notebook(notebook, lambda: None, kept)
    assert output["data"]["text/html"] == view.to_html()
    assert "ghost has no toolCall before it" in output["data"]["text/html"]
    assert output["metadata"]["agentlab_magics"] == {"view": "transcript"}


def test_the_full_static_rendering_of_a_long_record_draws_its_ends_and_its_flags():
    messages = broken(300)
    page = transcript_html(Transcript(messages).data())
    assert page == transcript_html(transcript_data(messages))
    assert transcript_text(messages, Transcript(messages).data()) == transcript_text(
        messages, transcript_data(messages))


@pytest.mark.parametrize("model_id", ["../progress", "a" * 31, 5, None, "A" * 32])
def test_a_kept_copy_is_found_only_by_a_comm_id(model_id, tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTLAB_PROGRESS", str(tmp_path / "progress.json"))
    (tmp_path / "views").mkdir()
    (tmp_path / "progress.json").write_text('{"html": "x", "text": "y"}')
    keep(str(model_id), "html", "text")
    assert kept(model_id) is None
    assert list((tmp_path / "views").iterdir()) == []


def test_a_kept_copy_that_cannot_be_read_is_not_used(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTLAB_PROGRESS", str(tmp_path / "progress.json"))
    model_id = "0123456789abcdef" * 2
    (tmp_path / "views").mkdir()
    for text in ("{", "[]", '{"html": 1, "text": "t"}'):
        (tmp_path / "views" / f"{model_id}.json").write_text(text)
        assert kept(model_id) is None


def test_the_short_cases_are_unchanged():
    data = transcript_data([U, FAILED, U, A, R1, R2])
    assert data["total"] == 6 and len(data["rows"]) == 6
