"""TranscriptWidget: the one anywidget that draws an agentlab view from one JSON trait.

One widget per view, never one per message: a transcript of thousands of messages is one
comm and one state message, and the browser draws only the rows in view (transcript.js).
"""

from __future__ import annotations

import anywidget
import traitlets

from agentlab_magics.widgets.rendering import asset


class TranscriptWidget(anywidget.AnyWidget):
    """Draws `data`, a transcript_data or report_data dict, with transcript.js."""

    _esm = asset("transcript.js")
    _css = asset("transcript.css")
    data = traitlets.Dict().tag(sync=True)
