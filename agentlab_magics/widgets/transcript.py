"""Transcript: a list of messages (or a lab Request) as one object shown three ways.

The transcript is taken when the object is made: appending to the list afterwards does not
change what an already displayed transcript says. Nothing is judged until a rendering needs
it: the widget's first screen needs nothing judged at all (widgets.transcript_feed).
"""

from __future__ import annotations

from typing import Any

from agentlab_magics.widgets.kept_views import keep
from agentlab_magics.widgets.rendering import ThreeWayView
from agentlab_magics.widgets.transcript_data import Judgement, check_view
from agentlab_magics.widgets.transcript_feed import TranscriptFeed
from agentlab_magics.widgets.transcript_html import static_data, transcript_html, transcript_text

COPY_ROWS = 20  # rows of a long transcript's first screen copied beside its widget


class Transcript(ThreeWayView):
    """Messages drawn as a call/result diagram: a widget in JupyterLab, static HTML in an
    exported notebook, lab.show lines in a terminal; static=True leaves the widget out.
    `notes` and `meter` say what the run cost (transcript_data.Judgement)."""

    kind = "transcript"

    def __init__(self, source: Any, *, view: str = "record", static: bool = False,
                 notes: dict[int, list[str]] | None = None,
                 meter: list[str] | None = None) -> None:
        check_view(view)
        self._source = list(source) if isinstance(source, list) else source
        self._view = view
        self._notes, self._meter = notes, meter
        self._judgement: Judgement | None = None
        super().__init__(None, static=static)

    def judgement(self) -> Judgement:
        """The transcript judged, once, for every rendering."""
        if self._judgement is None:
            self._judgement = Judgement(self._source, view=self._view, notes=self._notes,
                                        meter=self._meter)
        return self._judgement

    def data(self) -> dict[str, Any]:
        """The static renderings' dict: the header and the rows they draw, judged."""
        if self._data is None:
            self._data = static_data(self.judgement())
        return self._data

    def to_html(self) -> str:
        return transcript_html(self.data())

    def to_text(self) -> str:
        return transcript_text(self._source, self.data())

    def make_widget(self) -> Any:
        """A widget fed piece by piece (widgets.transcript_feed): its first state costs the
        same for any length of transcript."""
        from agentlab_magics.widgets.transcript_widget import TranscriptWidget

        feed = TranscriptFeed(self._source, view=self._view, judge=self._judge_for_widget)
        return TranscriptWidget(data=feed.first(), feed=feed)

    def _judge_for_widget(self) -> Judgement:
        """The judgement the widget asked for; a widget sent unjudged has its full static
        renderings kept for the saving hook as soon as there is one."""
        judgement = self.judgement()
        if self._widget is not None and not self._widget.data.get("complete", True):
            keep(self._widget.model_id, self.to_html(), self.to_text())
        return judgement

    def beside_widget(self) -> tuple[str, str, dict[str, Any]]:
        """The HTML and text beside a widget view: the full static renderings for a short
        transcript; for a long one (sent unjudged), a copy of its first screen that says what
        it leaves out, which the saving hook replaces with the kept full renderings
        (widgets.kept_views) when the notebook is saved."""
        first = self.widget.data
        if first.get("complete", True):
            return self.to_html(), self.to_text(), self.mark()
        copy = {**first, "rows": first["rows"][:COPY_ROWS]}
        return transcript_html(copy), transcript_text(self._source, copy), \
            {**self.mark(), "kept": True}
