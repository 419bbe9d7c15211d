"""What a student wrote never reaches a page as live markup (agentlab_magics.grading.untrusted).

Each route is a crafted notebook as autograding leaves it after ScoredOutside: the route's cells
beside an instructor's markdown cell nbgrader restored and a graded cell holding our report. It
goes through InertMarkup and is drawn by nbconvert's HTMLExporter with each template that draws
an autograded notebook: nbgrader's feedback and formgrade templates (configured as
`nbgrader generate_feedback` and the formgrader configure them) and nbconvert's lab template.
No page may then hold a script, a handler, a `javascript:` URL, an iframe or a fetch carrying
the student's mark, while our report, text/plain outputs, streams, valid images and the
instructor's markdown stay. The same pages drawn without InertMarkup show which routes are live
in nbconvert 7.17 and nbgrader 0.9.6 as they are.
"""

from __future__ import annotations

import copy
import html
import re
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import nbgrader
import pytest
from nbconvert import HTMLExporter, NotebookExporter
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output, new_raw_cell
from nbgrader.utils import compute_checksum
from traitlets.config import Config

from agentlab_magics.checking.report import CheckReport, TestOutcome
from agentlab_magics.grading.autograde import report_outputs
from agentlab_magics.grading.untrusted import NOTICE, InertMarkup, as_text, is_instructors
from agentlab_magics.widgets.rendering import WIDGET_VIEW

MARK = "agentlab-pwned"
JS = f"alert('{MARK}')"
HANDLER = f'<img src=x onerror="{JS}">'
# A 1x1 PNG.
PNG = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5E"
       "rkJggg==")
STATE = "application/vnd.jupyter.widget-state+json"
COURSE = Path(__file__).resolve().parents[2] / "nbgrader_course"
TEMPLATES = Path(nbgrader.__file__).parent / "server_extensions" / "formgrader" / "templates"
BOOTSTRAP = TEMPLATES.parent / "static" / "node_modules" / "bootstrap" / "dist" / "css"
RESOURCES = {"nbgrader": {"notebook": "lesson1", "score": 0, "max_score": 1, "late_penalty": 0},
             "index": 0, "total": 1, "base_url": "", "notebook_id": "lesson1",
             "assignment_id": "lesson1", "submission_id": "s", "student": "student"}


# -- the pages ------------------------------------------------------------------------------

def _exporter(template: str) -> HTMLExporter:
    config = Config()
    if template != "lab":
        config.HTMLExporter.template_name = template
        config.HTMLExporter.extra_template_basedirs = [str(TEMPLATES)]
        config.HTMLExporter.extra_template_paths = [str(BOOTSTRAP)]
    return HTMLExporter(config=config)


EXPORTERS = {name: _exporter(name) for name in ("feedback", "formgrade", "lab")}


def _graded(nb):
    """The notebook with the score and comment nbgrader's GetGrades adds before feedback."""
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade") or meta.get("task"):
            meta["score"] = 0.0
        if meta.get("solution") or meta.get("task"):
            meta["comment"] = None
    return nb


def pages(nb) -> dict[str, str]:
    """The notebook drawn by each template."""
    return {name: exporter.from_notebook_node(_graded(nb), resources=copy.deepcopy(RESOURCES))[0]
            for name, exporter in EXPORTERS.items()}


class _Live(HTMLParser):
    """Everything on a page that would run, or fetch, something carrying MARK."""

    URL_SCHEMES = ("javascript:", "vbscript:", "data:text/html")

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self._script: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag in ("iframe", "object", "embed"):
            self.found.append(f"<{tag}>")
        for name, value in attrs:
            value = value or ""
            url = re.sub(r"[\x00-\x20]", "", value).lower()
            if (name.startswith("on") and MARK in value) or (url.startswith(self.URL_SCHEMES) and (MARK in value or "data:" in url)):
                self.found.append(f"{tag} {name}={value}")
            elif name == "src" and url.startswith(("http:", "https:", "//")) and MARK in value:
                self.found.append(f"{tag} fetches {value}")
        if tag == "script":
            self._script = []

    def handle_data(self, data):
        if self._script is not None:
            self._script.append(data)

    def handle_endtag(self, tag):
        if tag == "script" and self._script is not None:
            body, self._script = "".join(self._script), None
            if MARK in body:  # JavaScript, or JSON a widget manager draws
                self.found.append(f"<script> {body.strip()[:80]}")


def live(page: str) -> list[str]:
    parser = _Live()
    parser.feed(page)
    parser.close()
    return parser.found


# -- the notebooks --------------------------------------------------------------------------

def _nbgrader_cell(cell, **meta):
    cell.metadata["nbgrader"] = {"schema_version": 3, "grade": False, "solution": False,
                                 "locked": False, **meta}
    return cell


def instructor_markdown(source="Read the **whole** <b>brief</b> before you start."):
    """A markdown cell as nbgrader leaves one it restored: locked, checksum from the gradebook."""
    cell = _nbgrader_cell(new_markdown_cell(source), grade_id="brief", locked=True)
    cell.metadata.nbgrader["checksum"] = compute_checksum(cell)
    return cell


REPORT = CheckReport(lab_id="lesson1", title="Lesson 1", outcomes=[
    TestOutcome(name="answers", sentence="It answers the question.", outcome="failed",
                message=f"got {HANDLER}"),
    TestOutcome(name="stops", sentence="It stops.", outcome="passed")])


def graded_cell():
    """A graded cell as ScoredOutside leaves it: our report as its outputs."""
    cell = _nbgrader_cell(new_code_cell('grade("lesson1", "basics")'), grade=True, locked=True,
                          grade_id="tests-lesson1-basics", points=2)
    cell.outputs = report_outputs([REPORT], points=2, tests=len(REPORT.outcomes))
    return cell


def display(data, metadata=None):
    return new_code_cell("show()", outputs=[
        new_output("display_data", data=data, metadata=metadata or {})])


def markdown(source, **nbgrader_meta):
    cell = new_markdown_cell(source)
    return _nbgrader_cell(cell, **nbgrader_meta) if nbgrader_meta else cell


def with_widget_state(nb):
    nb.metadata.widgets = {STATE: {"version_major": 2, "version_minor": 0, "state": {MARK: {
        "model_name": "HTMLModel", "model_module": "@jupyter-widgets/controls",
        "model_module_version": "2.0.0", "state": {"value": HANDLER}}}}}
    return nb


def notebook(*cells, change=None):
    nb = new_notebook(cells=[instructor_markdown(), *cells, graded_cell()])
    nb.metadata.kernelspec = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata.language_info = {"name": "python"}
    return change(nb) if change else nb


def forged_instructor():
    """A student's markdown dressed as the instructor's: locked, an id, a checksum."""
    cell = markdown(f"<script>{JS}</script>", grade_id="brief", locked=True)
    cell.metadata.nbgrader["checksum"] = compute_checksum(instructor_markdown())
    return cell


def answer():
    """A written answer: a solution cell nbgrader grades by hand, so the student's text."""
    cell = markdown(f"My answer: {HANDLER}", grade_id="answer", solution=True, grade=True,
                    points=1)
    cell.metadata.nbgrader["checksum"] = compute_checksum(cell)
    return cell


def attached():
    cell = new_markdown_cell("![diagram](attachment:diagram.svg)")
    svg = f'<svg xmlns="http://www.w3.org/2000/svg" onload="{JS}"><script>{JS}</script></svg>'
    cell.attachments = {"diagram.svg": {"image/svg+xml": svg}}
    return cell


# name: (the notebook, whether a page shows the route live without InertMarkup)
ROUTES = {
    "html output": (lambda: notebook(display({
        "text/plain": "<IPython.core.display.HTML object>",
        "text/html": f"<script>{JS}</script>{HANDLER}"})), True),
    "html output without text/plain": (lambda: notebook(display({"text/html": HANDLER})), True),
    "javascript output": (lambda: notebook(display({
        "text/plain": "<IPython.core.display.Javascript object>",
        "application/javascript": JS})), True),
    "isolated html output": (lambda: notebook(display(
        {"text/html": f"<b>{MARK}</b>"}, {"text/html": {"isolated": True}})), True),
    "markdown output": (lambda: notebook(display({
        "text/markdown": f"{HANDLER}\n\n[click](javascript:{JS})"})), True),
    "mermaid output": (lambda: notebook(display({"text/vnd.mermaid": HANDLER})), True),
    "svg output": (lambda: notebook(display({
        "image/svg+xml": f'<svg xmlns="http://www.w3.org/2000/svg" onload="{JS}"></svg>'})),
        False),
    "latex output": (lambda: notebook(display({"text/latex": HANDLER})), False),
    "widget view and widget state": (lambda: notebook(display({
        "text/plain": "HTML(value='…')",
        WIDGET_VIEW: {"model_id": MARK, "version_major": 2, "version_minor": 0}}),
        change=with_widget_state), True),
    "widget state alone": (lambda: notebook(change=with_widget_state), True),
    "image metadata: width and height": (lambda: notebook(display(
        {"image/png": PNG}, {"width": f"1 onload={JS}", "height": f"1 onerror={JS}"})), True),
    "image metadata: filenames": (lambda: notebook(display(
        {"image/png": PNG}, {"filenames": {"image/png": f"https://evil.example/{MARK}.png"}})),
        True),
    "image data that is not base64": (lambda: notebook(display(
        {"image/png": f'x" onerror="{JS}', "image/jpeg": f"x' onerror='{JS}"})), False),
    "markdown cell: raw html": (lambda: notebook(markdown(
        f"<script>{JS}</script>\n\nSee {HANDLER} <a href=\"javascript:{JS}\">here</a>")), True),
    "markdown cell: links and images": (lambda: notebook(markdown(
        f"[click](javascript:{JS}) ![pic](javascript:{JS}) <javascript:{JS}> "
        f"[entity](&#106;avascript:{JS}) [click][ref]\n\n[ref]: javascript:{JS}\n")), True),
    "markdown cell: mermaid and code fences": (lambda: notebook(markdown(
        f"```mermaid\n{HANDLER}\n```\n\n```python\" onload=\"{JS}\nx = 1\n```\n")), True),
    "markdown cell dressed as the instructor's": (lambda: notebook(forged_instructor()), True),
    "markdown cell: a written answer": (lambda: notebook(answer()), True),
    "markdown cell: attachments": (lambda: notebook(attached()), False),
    "raw cell: text/html": (lambda: notebook(new_raw_cell(
        f"<script>{JS}</script>{HANDLER}", metadata={"raw_mimetype": "text/html"})), False),
    "raw cell: no mimetype": (lambda: notebook(new_raw_cell(
        f"<a href=\"javascript:{JS}\">x</a>{HANDLER}")), False),
}


def inert(nb):
    nb, _ = InertMarkup().preprocess(nb, {})
    return nb


# -- every route is closed --------------------------------------------------------------------

@pytest.mark.parametrize("route", ROUTES)
def test_no_page_runs_what_the_student_wrote(route):
    found = {name: live(page) for name, page in pages(inert(ROUTES[route][0]())).items()}
    assert found == {name: [] for name in EXPORTERS}


@pytest.mark.parametrize("route", [name for name, (_, real) in ROUTES.items() if real])
def test_without_it_the_route_is_live(route):
    """These routes are real: some page runs or fetches the student's markup as it is."""
    found = {name: live(page) for name, page in pages(ROUTES[route][0]()).items()}
    assert any(found.values()), found


@pytest.mark.parametrize("route", ROUTES)
def test_the_notebook_stays_valid(route):
    nbformat.validate(inert(ROUTES[route][0]()))


# -- what stays -----------------------------------------------------------------------------

def test_the_graded_cells_outputs_are_left_as_they_are():
    nb = notebook(display({"text/html": HANDLER}))
    ours = copy.deepcopy(nb.cells[-1].outputs)
    assert inert(nb).cells[-1].outputs == ours


@pytest.mark.parametrize("template", EXPORTERS)
def test_a_page_keeps_our_report_the_text_the_images_and_the_instructors_markdown(template):
    nb = inert(notebook(
        display({"text/plain": "'<b>kept</b>'", "text/html": HANDLER}),
        new_code_cell("print()", outputs=[new_output("stream", name="stdout",
                                                     text="printed <i>text</i>\n")]),
        display({"image/png": PNG[:40] + "\n" + PNG[40:], "text/plain": "<Figure>"},
                {"width": 10})))
    page = pages(nb)[template]
    assert 'class="al-report"' in page and "It answers the question." in page
    assert "&lt;b&gt;kept&lt;/b&gt;" in page and "printed &lt;i&gt;text&lt;/i&gt;" in page
    assert f"data:image/png;base64,{PNG}" in page
    assert "<b>brief</b>" in page and "<strong>whole</strong>" in page


def test_an_output_left_without_text_says_what_was_left_out():
    nb = inert(notebook(display({"text/html": HANDLER}), display({"image/png": "not base64"})))
    outputs = [cell.outputs[0] for cell in nb.cells[1:3]]
    assert [output.data for output in outputs] == [
        {"text/plain": NOTICE.format(kind="HTML")}, {"text/plain": NOTICE.format(kind="image")}]
    assert NOTICE.format(kind="HTML") == ("[agentlab: this output's HTML was left out of the "
                                         "graded copy; run the notebook to see it]")


def test_an_output_keeps_its_text_and_loses_its_metadata():
    nb = inert(notebook(display({"text/plain": "42", "text/html": "<b>42</b>"}, {"a": 1})))
    output = nb.cells[1].outputs[0]
    assert output.data == {"text/plain": "42"} and output.metadata == {}


@pytest.mark.parametrize("template", EXPORTERS)
def test_a_students_markdown_reads_as_the_characters_typed(template):
    source = "A <b>bold</b> claim &amp; [a link](https://example.org), **still strong**"
    page = pages(inert(notebook(markdown(source))))[template]
    text = html.unescape(re.sub(r"<[^>]+>", "", page))
    assert source.replace("**", "") in text and "<strong>still strong</strong>" in page
    assert as_text(source) == ("A &lt;b&gt;bold&lt;/b&gt; claim &amp;amp; &#91;a link]"
                               "(https://example.org), **still strong**")


def test_a_raw_cell_becomes_text_and_markdown_loses_its_attachments():
    nb = inert(notebook(new_raw_cell("<b>x</b>", metadata={"raw_mimetype": "text/html"}),
                        attached()))
    raw, drawing = nb.cells[1], nb.cells[2]
    assert raw.source == "&lt;b&gt;x&lt;/b&gt;" and "raw_mimetype" not in raw.metadata
    assert "attachments" not in drawing


def test_the_notebook_loses_its_widget_state():
    assert "widgets" not in inert(notebook(change=with_widget_state)).metadata


# -- whose cell is it -----------------------------------------------------------------------

def test_only_a_cell_nbgrader_restored_is_the_instructors():
    assert is_instructors(instructor_markdown())
    assert not is_instructors(forged_instructor())
    assert not is_instructors(answer())
    assert not is_instructors(new_markdown_cell("plain prose"))
    edited = instructor_markdown()
    edited.source += " <script></script>"
    assert not is_instructors(edited)
    unknown = instructor_markdown()
    del unknown.metadata.nbgrader["grade_id"]  # nbgrader drops an id the gradebook lacks
    assert not is_instructors(unknown)


# -- the course runs it -----------------------------------------------------------------------

def test_the_course_runs_it_right_after_scoring(monkeypatch, tmp_path):
    from traitlets.config.loader import PyFileConfigLoader

    monkeypatch.setenv("AGENTLAB_EXCHANGE", str(tmp_path))
    config = PyFileConfigLoader("nbgrader_config.py", path=str(COURSE)).load_config()
    chain = list(config.Autograde.autograde_preprocessors)
    scored = chain.index("agentlab_magics.grading.autograde.ScoredOutside")
    assert chain[scored + 1] == "agentlab_magics.grading.untrusted.InertMarkup"
    assert InertMarkup().enabled  # nbgrader registers it without enabling it


def test_it_runs_when_nbgrader_registers_it():
    """As nbgrader's Autograde registers its chain: by class, not enabled by the call."""
    exporter = NotebookExporter()
    exporter._preprocessors = []
    exporter.register_preprocessor(InertMarkup)
    nb, _ = exporter._preprocess(notebook(display({"text/html": HANDLER})), {})
    assert nb.cells[1].outputs[0].data == {"text/plain": NOTICE.format(kind="HTML")}

