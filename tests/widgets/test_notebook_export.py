"""A real notebook, executed by nbclient and exported by nbconvert: the saved outputs carry the
widget view and the static HTML, and the exported page shows the static HTML and fetches nothing.

nbclient saves widget state by default, and with saved state nbconvert draws the widget view
(an empty <div> and a widget manager from unpkg.com) instead of our text/html; these tests pin
that behaviour down and show the two ways round it (see agentlab_magics.widgets.export).
"""

import copy
import re
import subprocess
import sys
import textwrap

import nbformat
import pytest
from nbclient import NotebookClient

from agentlab_magics.widgets.export import offline_html
from agentlab_magics.widgets.rendering import WIDGET_VIEW

CELLS = [
    """\
    from agentlab_magics import lab
    from agentlab_magics.checking.report import CheckReport, TestOutcome
    from agentlab_magics.widgets import ReportView, Transcript

    c1 = lab.call("read", {"path": "a.py"}, id="c1")
    c2 = lab.call("read", {"path": "b.py"}, id="c2")
    record = [lab.user("Read a.py and b.py."), lab.reply(c1, c2), lab.tool_result(c1, "A = 1")]
    Transcript(record)""",
    """\
    ReportView(CheckReport(lab_id="lesson4", title="Lesson 4", outcomes=[
        TestOutcome(name="pairs", sentence="Every call gets exactly one result.",
                    outcome="failed", message="one call was never answered", record=record),
        TestOutcome(name="stops", sentence="A plain answer ends the run.", outcome="passed"),
    ]))""",
]
# Words only the static HTML holds: the code cells, which the page also shows, do not.
STATIC_WORDS = ("toolCall c2 has no toolResult", "Lesson 4: 1 of 2 tests passed",
                'class="al-transcript al-static"')
CDNS = ("unpkg.com", "jsdelivr", "cdnjs")


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    """The notebook after nbclient ran it with its defaults (which save widget state)."""
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(textwrap.dedent(cell)) for cell in CELLS]
    NotebookClient(notebook, kernel_name="python3", timeout=120).execute()
    path = tmp_path_factory.mktemp("notebook") / "views.ipynb"
    nbformat.write(notebook, path)
    return path


def nbconvert(path, *options: str) -> str:
    """`jupyter nbconvert --to html` of `path` with `options`: the page it writes."""
    subprocess.run([sys.executable, "-m", "nbconvert", "--to", "html", *options, str(path)],
                   check=True, capture_output=True)
    return path.with_suffix(".html").read_text(encoding="utf-8")


def shows_static_html(page: str) -> bool:
    return all(words in page for words in STATIC_WORDS)


def test_saved_outputs_carry_the_widget_view_and_the_static_html(executed):
    notebook = nbformat.read(executed, as_version=4)
    outputs = [cell.outputs for cell in notebook.cells]
    assert [len(cell) for cell in outputs] == [1, 1]
    for (output,) in outputs:
        assert {WIDGET_VIEW, "text/html", "text/plain"} <= set(output["data"])
        assert 'class="al-transcript al-static"' in output["data"]["text/html"]
    saved = notebook.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    assert all(output["data"][WIDGET_VIEW]["model_id"] in saved for (output,) in outputs)


def test_plain_nbconvert_draws_the_widget_when_its_state_was_saved(executed):
    page = nbconvert(executed)
    assert not shows_static_html(page)
    assert f'<script type="{WIDGET_VIEW}">' in page and "unpkg.com" in page


def test_plain_nbconvert_shows_the_static_html_when_no_widget_state_was_saved(executed, tmp_path):
    notebook = nbformat.read(executed, as_version=4)
    del notebook.metadata["widgets"]
    path = tmp_path / "unsaved.ipynb"
    nbformat.write(notebook, path)
    page = nbconvert(path)
    assert shows_static_html(page)
    assert f'<script type="{WIDGET_VIEW}">' not in page and "unpkg.com" not in page


def test_the_static_fallback_preprocessor_shows_the_static_html_and_loads_no_widget(executed):
    page = nbconvert(executed,
                     "--HTMLExporter.preprocessors=agentlab_magics.widgets.export.StaticFallback")
    assert shows_static_html(page)
    assert WIDGET_VIEW not in page and "unpkg.com" not in page and "jsdelivr" not in page


def test_offline_html_shows_the_static_html_and_fetches_nothing(executed):
    before = nbformat.read(executed, as_version=4)
    page = offline_html(executed)
    assert shows_static_html(page)
    assert not re.search(r"<script[^>]*\bsrc\s*=\s*[\"']?(https?:)?//", page, re.IGNORECASE)
    assert not [cdn for cdn in CDNS if cdn in page]
    assert WIDGET_VIEW not in page
    node = copy.deepcopy(before)
    assert offline_html(node) == page and node == before  # the notebook itself is untouched
