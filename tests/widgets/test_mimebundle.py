"""One object, three renderings: the widget's view beside text/html and text/plain, one widget
per view however long the transcript, and no widget (nor anywidget import) unless asked for."""

import json
import subprocess
import sys

import ipywidgets

from agentlab_magics import lab
from agentlab_magics.checking.report import CheckReport, TestOutcome
from agentlab_magics.widgets import ReportView, Transcript, report_data, transcript_data
from agentlab_magics.widgets.assets import asset
from agentlab_magics.widgets.rendering import MARK, WIDGET_VIEW
from agentlab_magics.widgets.transcript_widget import TranscriptWidget
from tests.widgets.cases import R1, R2, A, U, long_run


def test_the_bundle_carries_the_widget_view_the_static_html_and_the_text():
    view = Transcript([U, A, R1])
    bundle, metadata = view._repr_mimebundle_()
    assert set(bundle) == {WIDGET_VIEW, "text/html", "text/plain"}
    assert metadata[MARK] == {"view": "transcript"}
    assert bundle[WIDGET_VIEW]["model_id"] == view.widget.model_id
    assert bundle[WIDGET_VIEW]["version_major"] == 2
    assert 'class="al-transcript al-static"' in bundle["text/html"]
    assert bundle["text/plain"].startswith("Record: 3 messages · 2 tool calls · 1 complaint")


def test_the_widget_carries_the_transcript_data_in_one_synced_trait():
    view = Transcript([U, A, R1, R2])
    widget = view.widget
    assert isinstance(widget, TranscriptWidget)
    assert widget.data == {**transcript_data([U, A, R1, R2]), "complete": True}
    synced = set(widget.get_state()) - set(ipywidgets.DOMWidget().get_state())
    assert synced - {"_esm", "_css", "_anywidget_id"} == {"data"}
    assert widget.get_state()["_esm"] == asset("transcript.js")
    assert view.widget is widget  # displayed twice, still one model


def test_static_carries_no_widget_and_builds_none():
    view = Transcript([U, A, R1, R2], static=True)
    bundle, metadata = view._repr_mimebundle_()
    assert set(bundle) == {"text/html", "text/plain"}
    assert metadata == {MARK: {"view": "transcript"}}
    assert view._widget is None


def test_a_long_transcript_is_still_one_widget(monkeypatch):
    opened: list[str] = []
    open_comm = ipywidgets.Widget.open
    monkeypatch.setattr(ipywidgets.Widget, "open",
                        lambda widget: (opened.append(type(widget).__name__), open_comm(widget)))

    def widgets_made(size: int) -> list[str]:
        opened.clear()
        Transcript(long_run(size, lines=3))._repr_mimebundle_()
        return sorted(opened)

    assert widgets_made(2_000) == widgets_made(4)
    assert widgets_made(4).count("TranscriptWidget") == 1


def test_a_long_transcripts_first_state_does_not_grow_with_it():
    def state_bytes(size: int) -> int:
        widget = Transcript(long_run(size)).widget
        return len(json.dumps(widget.get_state(), ensure_ascii=False).encode())

    assert state_bytes(100_000) - state_bytes(1_000) < 40  # the digits of its length


def test_the_report_view_is_one_widget_whose_data_holds_each_records_transcript():
    record = [U, A, R1]
    report = CheckReport(lab_id="lesson4", title="Lesson 4", outcomes=[
        TestOutcome(name="a", sentence="Every call gets a result.", outcome="failed",
                    message="c2 unanswered", record=record),
        TestOutcome(name="b", sentence="Answers stop the run.", outcome="passed")])
    view = ReportView(report)
    bundle, metadata = view._repr_mimebundle_()
    assert metadata[MARK] == {"view": "report"}
    assert set(bundle) == {WIDGET_VIEW, "text/html", "text/plain"}
    data = view.widget.data
    assert data == report_data(report)
    assert data["kind"] == "report" and data["summary"] == "Lesson 4: 1 of 2 tests passed"
    assert data["tests"][0]["transcript"] == transcript_data(record, rule=False, judged=False)
    assert "transcript" not in data["tests"][1]
    assert set(ReportView(report, static=True)._repr_mimebundle_()[0]) == {"text/html",
                                                                            "text/plain"}


def test_a_transcript_is_what_the_list_held_when_it_was_made():
    messages = [U, A]
    view = Transcript(messages)
    messages.append(R1)
    assert view.data()["shape"] == "U A[c1,c2]"
    assert view.to_text().splitlines()[1] == "shape: U A[c1,c2]"


def test_a_request_can_be_shown():
    model = lab.ScriptedModel([lab.say("Hello.")])
    model.complete("Be brief.", [U], [])
    text = Transcript(model.calls[0]).to_text()
    assert text.splitlines()[:4] == ["Request: 1 message · 0 tool calls",
                                     f"~{model.calls[0].tokens:,} tokens estimated",
                                     "shape: U", "A strict provider accepts this request."]


def test_importing_and_static_rendering_load_neither_ipython_nor_anywidget():
    code = ("import sys, agentlab_magics.widgets.transcript_data\n"
            "from agentlab_magics.widgets import Transcript\n"
            "from agentlab_magics import lab\n"
            "Transcript([lab.user('hi')], static=True)._repr_mimebundle_()\n"
            "print(sorted(m for m in ('IPython', 'anywidget', 'ipywidgets', 'traitlets')"
            " if m in sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True).stdout.strip()
    assert loaded == "[]"
