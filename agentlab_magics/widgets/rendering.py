"""One object, three renderings: text/plain, a static text/html fallback, and a live widget.

A view (a transcript, a check report, a question) is one object whose _repr_mimebundle_
carries text/html and text/plain always, and the widget's view only where the frontend running
the cell can draw it (`frontend_draws_widgets`): JupyterLab shows the widget, while a notebook
run headless (nbconvert --execute, nbgrader, papermill) keeps the static HTML alone. The
bundle's metadata marks the output as ours (MARK), so the saving hook (widgets.saving) touches
no one else's outputs. The widget, and with it anywidget and ipywidgets, is built only when a
bundle with a widget is asked for.
"""

from __future__ import annotations

import sys
from typing import Any

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
MARK = "agentlab_magics"  # the output metadata key that says which of our views made it


def frontend_draws_widgets() -> bool:
    """Whether the frontend running the current cell can draw a widget.

    Interactive frontends (JupyterLab, Notebook, VS Code) send their execute requests with
    allow_stdin true; headless executors (nbclient, and so nbconvert --execute, nbgrader and
    papermill) with false, and a widget view they saved could only show an error or nothing
    once reopened. ipykernel keeps the current request's flag as `kernel._allow_stdin`. Outside
    a kernel (a plain IPython shell, a script) the answer is yes, as it always was. IPython is
    looked up, never imported, so a static rendering still loads none of it."""
    kernel = running_kernel()
    return kernel is None or bool(getattr(kernel, "_allow_stdin", True))


def running_kernel() -> Any:
    """The kernel running the current cell (ipykernel's), or None outside one; IPython is
    looked up, never imported."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    return getattr(shell, "kernel", None)


class ThreeWayView:
    """A result that renders itself as text, as static HTML and as a widget, from one dict.

    A subclass hands its dict (JSON-able, what the widget draws) to __init__ and gives
    `to_html()` and `to_text()`; with static=True, or where the frontend cannot draw a
    widget, the bundle carries no widget, only text/html and text/plain.
    """

    kind = ""  # which view this is, when the dict is not made at once (its "kind" otherwise)

    def __init__(self, data: dict[str, Any] | None, *, static: bool = False) -> None:
        self._data = data
        self.static = static
        self._widget: Any = None

    def data(self) -> dict[str, Any]:
        """The view's dict; a view made without it (None) makes it here, in its own data()."""
        assert self._data is not None, f"{type(self).__name__} makes its dict in data()"
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
        # here, not at the top: anywidget and ipywidgets load only when a widget is drawn
        from agentlab_magics.widgets.transcript_widget import TranscriptWidget

        return TranscriptWidget(data=self.data())

    def close(self) -> None:
        """Close the widget this view made, if it made one, and its Layout (a widget too):
        the kernel keeps a widget until it is closed."""
        if self._widget is not None:
            for part in (getattr(self._widget, "layout", None), self._widget):
                if part is not None:
                    part.close()

    def mark(self) -> dict[str, Any]:
        """What the output's metadata says about the view under MARK: which view it is."""
        return {"view": self.kind or self.data()["kind"]}

    def beside_widget(self) -> tuple[str, str, dict[str, Any]]:
        """(text/html, text/plain, MARK's value) for a bundle that carries the widget too."""
        return self.to_html(), self.to_text(), self.mark()

    def _repr_mimebundle_(self, include: Any = None,
                          exclude: Any = None) -> tuple[dict[str, Any], dict[str, Any]]:
        """(bundle, metadata): the widget's view (unless static, or the frontend cannot draw
        it) beside the HTML fallback and the plain text; the metadata holds our MARK."""
        if self.static or not frontend_draws_widgets():
            return {"text/html": self.to_html(), "text/plain": self.to_text()}, \
                {MARK: self.mark()}
        shown = self.widget._repr_mimebundle_()
        widget_bundle, metadata = shown if isinstance(shown, tuple) else (shown, {})
        html, text, mark = self.beside_widget()
        return {WIDGET_VIEW: widget_bundle[WIDGET_VIEW], "text/html": html,
                "text/plain": text}, {**metadata, MARK: mark}

    def __str__(self) -> str:
        return self.to_text()
