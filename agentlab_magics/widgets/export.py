"""Exporting a notebook that holds agentlab views to HTML: the static fallback, nothing fetched.

Most notebooks hold no widget view of ours to begin with: a headless run (nbconvert --execute,
nbgrader, papermill: nbclient asks with allow_stdin false) gets each view as text/html and
text/plain alone (rendering.frontend_draws_widgets), and a notebook JupyterLab or Notebook
saves loses its widget views to our saving hook (widgets.saving). This module is for the rest:
a notebook saved by a frontend that writes the file itself (VS Code), or on a server without
the extension.

What nbconvert (7.x) does with an output carrying both a widget view and text/html: its HTML
exporter ranks application/vnd.jupyter.widget-view+json first, and takes it whenever the
notebook's metadata holds that widget's saved state. The page then gets an empty widget <div>
and a script that fetches the widget manager from unpkg.com (which would in turn fetch
anywidget from a CDN); the text/html is not shown at all. Without saved state nbconvert skips
the widget view and shows the text/html. Whatever the outputs, the lab template also loads
require.js and MathJax from cdnjs.

`StaticFallback` removes the widget view from every output that has a text/html beside it, and
the saved widget state once no output refers to it; `offline_html` also leaves out the
template's CDN scripts (math in Markdown cells then stays as TeX source). From the shell:

    jupyter nbconvert --to html \\
        --HTMLExporter.preprocessors=agentlab_magics.widgets.export.StaticFallback lesson.ipynb

nbgrader's feedback template asks cdnjs for MathJax whatever its configuration says; with
OFFLINE_TEMPLATES first among `c.HTMLExporter.extra_template_basedirs` (the course's
nbgrader_config.py does this) it asks for nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat
from nbconvert import HTMLExporter
from nbconvert.preprocessors import Preprocessor

from agentlab_magics.widgets.rendering import WIDGET_VIEW

# Template folders that shadow nbconvert's own where those fetch from a CDN (base/mathjax.html.j2).
OFFLINE_TEMPLATES = str(Path(__file__).resolve().parent / "offline_templates")
OFFLINE_TEMPLATE = """{%- extends 'index.html.j2' -%}
{%- block html_head_js_requirejs -%}{%- endblock html_head_js_requirejs -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
"""


class StaticFallback(Preprocessor):
    """Every output that has a text/html fallback keeps it and loses its widget view."""

    def preprocess(self, nb: Any, resources: dict) -> tuple[Any, dict]:
        widgets_left = False
        for cell in nb.cells:
            for output in cell.get("outputs", []):
                data = output.get("data", {})
                if WIDGET_VIEW in data and "text/html" in data:
                    del data[WIDGET_VIEW]
                widgets_left = widgets_left or WIDGET_VIEW in data
        if not widgets_left:
            nb.metadata.pop("widgets", None)
        return nb, resources


def offline_html(notebook: Any) -> str:
    """The notebook (a path or a NotebookNode) as one HTML page that loads nothing from the
    network, with every agentlab view drawn as its static HTML."""
    if isinstance(notebook, (str, Path)):
        notebook = nbformat.read(notebook, as_version=4)
    exporter = HTMLExporter(template_name="lab", raw_template=OFFLINE_TEMPLATE)
    exporter.register_preprocessor(StaticFallback, enabled=True)
    page, _ = exporter.from_notebook_node(notebook)
    return page
