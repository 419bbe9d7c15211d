"""The files the views ship beside their code (transcript.js, the stylesheets), read once: what
the widgets load and the static HTML inlines."""

from __future__ import annotations

import functools
from importlib import resources


@functools.cache
def asset(name: str) -> str:
    """The text of a file shipped beside this module (transcript.js, transcript.css)."""
    return resources.files("agentlab_magics.widgets").joinpath(name).read_text(encoding="utf-8")


def stylesheet(name: str) -> str:
    """A view's stylesheet (transcript.css, progress_map.css) after the colours every view
    draws with (palette.css)."""
    return asset("palette.css") + asset(name)


def style() -> str:
    """The views' one stylesheet as an inline <style> element, for static HTML."""
    return f"<style>{stylesheet('transcript.css')}</style>"
