"""TranscriptWidget: the one anywidget that draws an agentlab view from one JSON trait.

One widget per view, never one per message: a transcript of any length is one comm. Its
first state is what the first screen needs; a long transcript's other rows, its judgement
and its search results come as answers to the browser's questions (widgets.transcript_feed),
and the browser draws only the rows in view (transcript.js).
"""

from __future__ import annotations

from typing import Any

import anywidget
import traitlets

from agentlab_magics.widgets.assets import asset, stylesheet


class TranscriptWidget(anywidget.AnyWidget):
    """Draws `data`, a transcript_data or report_data dict, with transcript.js; with a feed,
    answers the browser's questions about the rows `data` does not hold."""

    _esm = asset("transcript.js")
    _css = stylesheet("transcript.css")
    data = traitlets.Dict().tag(sync=True)

    def __init__(self, *, feed: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._feed = feed
        if feed is not None:
            self.on_msg(self._answer)

    def _answer(self, _widget: Any, question: Any, _buffers: Any) -> None:
        content, buffers = self._feed.answer(question)
        self.send(content, buffers)
