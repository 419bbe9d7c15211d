"""QuestionWidget: a diagnosis question in the browser, which sends the committed answer back.

The browser only ever sets `answer`; Python records it and replies with a new `data`
holding the reveal, so what the student reads after committing comes from the store.
"""

from __future__ import annotations

import anywidget
import traitlets

from agentlab_magics.widgets.assets import asset, stylesheet


class QuestionWidget(anywidget.AnyWidget):
    """Draws `data` (question_view.question_data) with question.js; `answer` is the student's."""

    _esm = asset("question.js")
    _css = stylesheet("transcript.css")
    data = traitlets.Dict().tag(sync=True)
    answer = traitlets.Unicode("").tag(sync=True)
