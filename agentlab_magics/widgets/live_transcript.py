"""A run drawn while it goes: `watch()` shows a transcript widget and is the listener lesson 7's
`run_agent(..., listener=...)` tells its events to.

Each message event adds a row at once: the widget's state carries the newest LIVE_ROWS rows,
the count so far and the run's state ("running", the seconds since it began), so what crosses
to the browser per event does not grow with the run. A model call's row says how long the
call took (turn_start to its reply); a tool result's, how long the tool ran. Given the run's
model, where it keeps its requests (the lab's ScriptedModel: `calls`, each with its estimated
`tokens`, its `bill` and `max_calls`), each reply's row also says what its request cost, and
the state the run's total and its limit (widgets.run_meter). On run_end the widget becomes the
finished record's transcript, judged and fed as any other, its rows keeping what they took and
cost; its full static renderings are kept for the saved notebook.
Events that are not the lesson's dicts are ignored: a listener never breaks a run.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from agentlab_magics.widgets.kept_views import keep
from agentlab_magics.widgets.rendering import MARK, WIDGET_VIEW
from agentlab_magics.widgets.run_meter import model_meter, request_tokens, seconds
from agentlab_magics.widgets.transcript import Transcript
from agentlab_magics.widgets.transcript_data import Judgement, first_screen, message_row
from agentlab_magics.widgets.transcript_feed import TranscriptFeed
from agentlab_magics.widgets.words import plural

LIVE_ROWS = 20  # rows sent with each live state: the newest ones, where a running view looks


class LiveTranscript:
    """One run's messages as they are told, drawn in a TranscriptWidget; call it with events."""

    def __init__(self, model: Any = None, clock: Callable[[], float] = time.monotonic) -> None:
        from agentlab_magics.widgets.transcript_widget import TranscriptWidget

        self.messages: list = []
        self.calls: list[float] = []  # seconds each model call took, in order
        self.model = model
        self._clock = clock
        self._started = clock()
        self._began: dict[str, float] = {}
        self._calls_at: dict[str, dict[str, Any]] = {}  # a call's id: the row that made it
        self._rows: list[dict[str, Any]] = []
        self._notes: dict[int, list[str]] = {}  # a row's index: what it took and cost
        self._finished: Any = None  # the finished record's Transcript, from run_end on
        self.state, self.reason = "running", ""
        self.feed = TranscriptFeed(self.messages, judge=self._judge)
        self.widget = TranscriptWidget(data=self._live(), feed=self.feed)

    def __call__(self, event: Any) -> None:
        kind = event.get("type") if type(event) is dict else None
        now = self._clock()
        if kind in ("turn_start", "tool_start"):
            self._began[kind] = now
        elif kind == "message":
            self._message(event.get("message"), now)
        elif kind == "run_end":
            self._finish(event.get("reason"))
            return
        else:
            return
        self.widget.data = self._live()

    def _message(self, message: Any, now: float) -> None:
        index = len(self.messages)
        self.messages.append(message)
        role = message.get("role") if type(message) is dict else None
        started = self._began.pop({"assistant": "turn_start", "toolResult": "tool_start"}
                                  .get(str(role), ""), None)
        row = message_row(index, message)
        if started is not None:
            took = round(now - started, 3)
            row["meter"] = [seconds(took)]
            if role == "assistant":
                self.calls.append(took)
                row["meter"] += request_tokens(self.model)
            self._notes[index] = row["meter"]
        self._link(row)
        self._rows = [*self._rows[-(LIVE_ROWS - 1):], row]

    def _link(self, row: dict[str, Any]) -> None:
        """Join a result's row and its call's, as the judged view does: a live row never says
        "no result" of a call whose result is still to come."""
        for call in row.get("calls", []):
            if call["id"]:
                self._calls_at[call["id"]] = row
        made = self._calls_at.get(row.get("call_id") or "")
        if row["role"] == "toolResult" and made is not None:
            row["call_row"] = made["index"]
            for call in made["calls"]:
                if call["id"] == row["call_id"]:
                    call["result_row"] = row["index"]

    def _live(self) -> dict[str, Any]:
        """The widget's state while the run goes: the newest rows and where the run is."""
        return {**first_screen([], rows=0), "total": len(self.messages),
                "summary": f"{plural(len(self.messages), 'message')} so far",
                "rows": list(self._rows), "live": self._state()}

    def _state(self) -> dict[str, Any]:
        return {"state": self.state, "reason": self.reason,
                "seconds": round(self._clock() - self._started, 3),
                "meter": model_meter(self.model)}

    def _judge(self) -> Judgement:
        """The record judged: the finished transcript's one judgement, once the run is over."""
        if self._finished is not None:
            return self._finished.judgement()
        return Judgement(list(self.messages), notes=dict(self._notes))

    def _finish(self, reason: Any) -> None:
        """The run is over: the widget draws the finished record, judged, as %transcript does."""
        self.state, self.reason = "finished", reason if isinstance(reason, str) else ""
        self._finished = Transcript(list(self.messages), static=True, notes=self._notes,
                                    meter=model_meter(self.model))
        self.feed.reset()
        keep(self.widget.model_id, self._finished.to_html(), self._finished.to_text())
        self.widget.data = {**self.feed.first(), "live": self._state()}

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None
                          ) -> tuple[dict[str, Any], dict[str, Any]]:
        """The widget, and beside it a line for where there is no widget; saving swaps in
        the finished record's static renderings (kept at run_end)."""
        shown = self.widget._repr_mimebundle_()
        bundle, metadata = shown if isinstance(shown, tuple) else (shown, {})
        assert bundle is not None, "an anywidget always has a bundle"
        note = "A run drawn live; its record is saved here once the run is over."
        return ({WIDGET_VIEW: bundle[WIDGET_VIEW], "text/plain": note,
                 "text/html": f'<p class="al-note">{note}</p>'},
                {**metadata, MARK: {"view": "transcript", "kept": True}})


def watch(model: Any = None) -> LiveTranscript:
    """Show a live transcript here and return it: pass it to run_agent as its listener (and
    the run's model here, for what each request cost).

    It is called with lesson 7's events, plain dicts, in this order:
    {"type": "run_start", "prompt": prompt} first;
    {"type": "message", "message": message} right after each message is appended;
    per model call {"type": "turn_start", "turn": n} (turns count from 1), the reply's
    "message" event, then for each call {"type": "tool_start", "turn": n, "call": call}
    before the tool runs and {"type": "tool_end", "turn": n, "call": call, "result": result}
    once its result is appended (then the result's "message" event), and
    {"type": "turn_end", "turn": n};
    {"type": "run_end", "reason": reason} last, exactly once, however the run ends: "done",
    "failed", "max_turns" (after the stop's "message", with no turn) or "raised".
    """
    from IPython.display import display

    live = LiveTranscript(model)
    display(live)
    return live
