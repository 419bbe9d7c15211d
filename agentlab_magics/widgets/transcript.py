"""Transcript: a list of messages (or a lab Request) as one object shown three ways.

The transcript is taken when the object is made: appending to the list afterwards does not
change what an already displayed transcript says.
"""

from __future__ import annotations

from typing import Any

from agentlab_magics.widgets.rendering import ThreeWayView
from agentlab_magics.widgets.transcript_data import transcript_data
from agentlab_magics.widgets.transcript_html import transcript_html, transcript_text


class Transcript(ThreeWayView):
    """Messages drawn as a call/result diagram: a widget in JupyterLab, static HTML in an
    exported notebook, lab.show lines in a terminal; static=True leaves the widget out."""

    def __init__(self, source: Any, *, view: str = "record", static: bool = False) -> None:
        self._source = list(source) if isinstance(source, list) else source
        super().__init__(transcript_data(self._source, view=view), static=static)

    def to_html(self) -> str:
        return transcript_html(self._data)

    def to_text(self) -> str:
        return transcript_text(self._source, self._data)
