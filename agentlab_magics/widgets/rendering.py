"""One object, three renderings: text/plain, a static text/html fallback, and a live widget.

A view (a transcript, a check report, a question) is one object whose
_repr_mimebundle_ carries all three, so JupyterLab shows the widget while nbconvert's HTML
export and nbgrader feedback, which cannot run it, show the static HTML. The widget, and with
it anywidget and ipywidgets, is built only when a bundle with a widget is asked for.
"""

from __future__ import annotations

import functools
from importlib import resources
from typing import Any

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


@functools.cache
def asset(name: str) -> str:
    """The text of a file shipped beside this module (transcript.js, transcript.css)."""
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def style() -> str:
    """The views' one stylesheet as an inline <style> element, for static HTML."""
    return f"<style>{asset('transcript.css')}</style>"


class ThreeWayView:
    """A result that renders itself as text, as static HTML and as a widget, from one dict.

    A subclass hands its dict (JSON-able, what the widget draws) to __init__ and gives
    `to_html()` and `to_text()`; with static=True the bundle carries no widget, only text/html
    and text/plain.
    """

    def __init__(self, data: dict[str, Any], *, static: bool = False) -> None:
        self._data = data
        self.static = static
        self._widget: Any = None

    def data(self) -> dict[str, Any]:
        return self._data

    def to_html(self) -> str:
        raise NotImplementedError

    def to_text(self) -> str:
        raise NotImplementedError

    @property
    def widget(self) -> Any:
        """The live view: one widget carrying `data()`, built on first use and reused after."""
        if self._widget is None:
            self._widget = self.make_widget()
        return self._widget

    def make_widget(self) -> Any:
        """A new widget drawing `data()`; views that take input give their own."""
        from agentlab_magics.widgets.transcript_widget import TranscriptWidget

        return TranscriptWidget(data=self.data())

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> Any:
        """The widget's view (unless static) beside the HTML fallback and the plain text."""
        bundle: dict[str, Any] = {}
        metadata: dict[str, Any] = {}
        if not self.static:
            shown = self.widget._repr_mimebundle_()
            widget_bundle, metadata = shown if isinstance(shown, tuple) else (shown, {})
            bundle[WIDGET_VIEW] = widget_bundle[WIDGET_VIEW]
        bundle["text/html"] = self.to_html()
        bundle["text/plain"] = self.to_text()
        return (bundle, metadata) if metadata else bundle

    def __str__(self) -> str:
        return self.to_text()
