"""Real notebooks, executed by nbclient and exported by nbconvert: a headless run saves each view
as its static HTML alone, and `jupyter nbconvert --to html --execute` shows it; a notebook run
by an interactive frontend (one that can draw widgets) and saved without our saving hook still
exports as the static HTML, through StaticFallback or offline_html, and fetches nothing.

nbclient sends its execute requests with allow_stdin false, and so gets no widget view
(rendering.frontend_draws_widgets). An interactive frontend sends true: the `interactive`
fixture runs the notebook so, and nbclient then saves the widget state, with which nbconvert
draws the widget view (an empty <div> and a widget manager from unpkg.com) instead of our
text/html; see agentlab_magics.widgets.export.
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
from agentlab_magics.widgets.rendering import MARK, WIDGET_VIEW
from tests.student_notebook import BROKEN_SUMMARY, REFERENCE_SUMMARY, student_notebook

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


def run(tmp_path_factory, name: str, *, interactive: bool):
    """The notebook of CELLS after nbclient ran it (its defaults save widget state), as
    nbclient does (allow_stdin false) or as an interactive frontend does (true)."""
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(textwrap.dedent(cell)) for cell in CELLS]
    client = NotebookClient(notebook, kernel_name="python3", timeout=120)
    if interactive:
        client.on_notebook_start = lambda notebook: setattr(client.kc, "allow_stdin", True)
    client.execute()
    path = tmp_path_factory.mktemp("notebook") / f"{name}.ipynb"
    nbformat.write(notebook, path)
    return path


@pytest.fixture(scope="module")
def headless(tmp_path_factory):
    return run(tmp_path_factory, "headless", interactive=False)


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    """Run as JupyterLab runs it, saved with its widget state and without our saving hook (as
    VS Code, which writes the file itself, would save it)."""
    return run(tmp_path_factory, "views", interactive=True)


def nbconvert(path, *options: str) -> str:
    """`jupyter nbconvert --to html` of `path` with `options`: the page it writes."""
    subprocess.run([sys.executable, "-m", "nbconvert", "--to", "html", *options, str(path)],
                   check=True, capture_output=True)
    return path.with_suffix(".html").read_text(encoding="utf-8")


def shows_static_html(page: str) -> bool:
    return all(words in page for words in STATIC_WORDS)


def test_a_headless_run_saves_each_view_as_its_static_html_and_no_widget(headless):
    notebook = nbformat.read(headless, as_version=4)
    outputs = [cell.outputs for cell in notebook.cells]
    assert [len(cell) for cell in outputs] == [1, 1]
    for (output,), view in zip(outputs, ("transcript", "report")):
        assert set(output["data"]) == {"text/html", "text/plain"}
        assert output["metadata"][MARK] == {"view": view}
        assert 'class="al-transcript al-static"' in output["data"]["text/html"]
    assert "widgets" not in notebook.metadata  # no widget was made, so no state was saved


def test_plain_nbconvert_execute_of_a_course_notebook_shows_the_static_views(tmp_path,
                                                                            monkeypatch):
    monkeypatch.setenv("AGENTLAB_PROGRESS", str(tmp_path / "progress.json"))
    path = tmp_path / "lesson5.ipynb"
    nbformat.write(student_notebook(), path)
    page = nbconvert(path, "--execute")
    assert REFERENCE_SUMMARY in page and BROKEN_SUMMARY in page
    assert 'class="al-transcript al-static"' in page and 'class="al-question"' in page
    assert "toolCall c2 has no toolResult" in page
    assert WIDGET_VIEW not in page and "unpkg.com" not in page and "jsdelivr" not in page


def test_an_interactive_run_saves_the_widget_view_beside_the_static_html(executed):
    notebook = nbformat.read(executed, as_version=4)
    outputs = [cell.outputs for cell in notebook.cells]
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
