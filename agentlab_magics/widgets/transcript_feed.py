"""A transcript served to its widget in pieces: the first screen at once, the rest on asking.

The widget's first state is `first()`: the header's words and the first FIRST_ROWS rows,
built without judging the record, so it costs the same for ten messages or a hundred
thousand. The browser then asks (anywidget's custom messages, one JSON dict each) and the
kernel answers from one Judgement of the record, made on the first question:
- {"want": "summary"}: the header (counts, shape, verdicts), the first rows again, judged,
  and the flagged rows' indices;
- {"want": "rows", "from": i, "to": j}: rows i..j-1, at most CHUNK of them;
- {"want": "search", "query": q, "ask": n}: the indices of every message whose text holds q,
  the whole text, not only what a row draws.
Indices travel as one binary buffer of little-endian int32 ("found", "flagged"), never as
JSON lists. A question that cannot be read gets {"answer": "error", "message": ...}.
"""

from __future__ import annotations

import array
import json
import sys
from collections.abc import Callable
from typing import Any, TypeGuard

from agentlab_magics.widgets.transcript_data import (
    Judgement,
    clip,
    first_screen,
    written_of,
)

FIRST_ROWS = 60       # rows sent with the widget's first state, before anything is judged
CHUNK = 400           # most rows sent in one answer
QUERY_CAP = 200       # characters of a search query


class TranscriptFeed:
    """One transcript, judged at most once, answering its widget's questions."""

    def __init__(self, source: Any, *, view: str = "record",
                 judge: Callable[[], Judgement] | None = None) -> None:
        self.source, self.view = source, view
        self._judgement: Judgement | None = None
        self._judge = judge or (lambda: Judgement(source, view=view))  # asked once

    def first(self) -> dict[str, Any]:
        """The widget's first state. A transcript of at most FIRST_ROWS messages is judged at
        once and sent whole ("complete"); a longer one is sent as its first rows, unjudged."""
        messages = written_of(self.source)
        if not isinstance(messages, list) or len(messages) <= FIRST_ROWS:
            judgement = self.judgement
            return {**judgement.head(), "rows": judgement.rows(0, FIRST_ROWS),
                    "complete": True}
        return {**first_screen(self.source, view=self.view, rows=FIRST_ROWS),
                "complete": False}

    def reset(self) -> None:
        """Forget the judgement: the transcript changed (a live run has ended)."""
        self._judgement = None

    @property
    def judgement(self) -> Judgement:
        if self._judgement is None:
            self._judgement = self._judge()
        return self._judgement

    def answer(self, question: Any) -> tuple[dict[str, Any], list[bytes]]:
        """(content, buffers) answering one of the widget's questions."""
        want = question.get("want") if isinstance(question, dict) else None
        if want == "summary":
            return self._summary()
        if want == "rows":
            return self._rows(question)
        if want == "search":
            return self._search(question)
        return {"answer": "error", "message": f"no such question: {_short(want)}"}, []

    def _summary(self) -> tuple[dict[str, Any], list[bytes]]:
        judgement = self.judgement
        return ({"answer": "summary", "head": judgement.head(),
                 "rows": judgement.rows(0, FIRST_ROWS)}, [_indices(judgement.flagged())])

    def _rows(self, question: dict) -> tuple[dict[str, Any], list[bytes]]:
        start, stop = question.get("from"), question.get("to")
        if not (_is_index(start) and _is_index(stop)):
            return {"answer": "error", "message": "rows need whole numbers from and to"}, []
        stop = min(stop, start + CHUNK)
        return {"answer": "rows", "rows": self.judgement.rows(start, stop)}, []

    def _search(self, question: dict) -> tuple[dict[str, Any], list[bytes]]:
        query = question.get("query")
        if not isinstance(query, str):
            return {"answer": "error", "message": "a search needs a query string"}, []
        query = query[:QUERY_CAP].lower()
        return ({"answer": "search", "query": query, "ask": question.get("ask")},
                [_indices(self.judgement.search(query))])


def _indices(indices: list[int]) -> bytes:
    packed = array.array("i", indices)
    if sys.byteorder == "big":
        packed.byteswap()
    return packed.tobytes()


def _is_index(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _short(value: Any) -> str:
    return clip(json.dumps(value, default=repr), 80)
